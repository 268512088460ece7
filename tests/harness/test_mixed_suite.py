"""One `inspect eval` over a mixed suite (a tool-call, a state and a code task, the code one from the offline
fixture), then `verifierbench audit`, `leaderboard` and `paper` on its logs: the state and code paths of the
reports, not only BFCL's."""

from __future__ import annotations

import json

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from tests.cli.test_cli import cli
from tests.conftest import _build
from tests.harness.inspect_cli import inspect
from verifierbench.suite import load_suite

pytestmark = [pytest.mark.sandbox, pytest.mark.usefixtures("bwrap_available"), pytest.mark.timeout(1200)]
MODELS = ("verifierbench/heuristic", "verifierbench/always_reject")


@pytest.fixture(scope="module")
def mixed_suite(swebench_fixture, traversable_tmp):
    instances, repos = swebench_fixture
    return _build(traversable_tmp / "mixed-suite", "--source", "bfcl", "--source", "agentdojo", "--source", "swebench",
                  "--swebench-instances", str(instances), "--swebench-repos", str(repos))


@pytest.fixture(scope="module")
def logs(mixed_suite, tmp_path_factory):
    tasks = load_suite(mixed_suite).tasks.values()
    first = {}
    for task in tasks:  # the first task of each type
        first.setdefault(task.type.value, f"{task.source.value}/{task.source_id}")
    assert len(first) == 3, first
    root = tmp_path_factory.mktemp("mixed-logs")
    for model in MODELS:
        result = inspect("eval", "verifierbench/verifierbench", "--model", model, "-T", f"suite={mixed_suite}",
                         "-T", f"task_ids={','.join(first.values())}", "-T", "rounds=1", "--log-dir", str(root))
        assert result.returncode == 0, result.stderr[-3000:]
    return root


def test_one_eval_judges_a_tool_call_a_state_and_a_code_task(logs):
    for info in list_eval_logs(str(logs)):
        log = read_eval_log(info)
        assert log.status == "success", log.error
        assert {s.metadata["task_type"] for s in log.samples} == {"tool-call", "state", "code"}
        for sample in log.samples:
            cases = sample.scores["hidden_cases"].metadata["cases"]
            decisions = {d for case in cases for d in case["decisions"]}
            assert decisions and decisions <= {"P", "F"}, (sample.id, [c.get("problem") for c in cases if c.get("problem")][:3])
        metrics = log.results.scores[0].metrics
        assert {"BA_norm_tool-call", "BA_norm_state", "BA_norm_code"} <= set(metrics), sorted(metrics)


def test_audit_leaderboard_and_paper_on_state_and_code_logs(logs, mixed_suite, tmp_path):
    audit = cli("audit", str(logs), "--suite", str(mixed_suite), "--pool", str(tmp_path / "pool"), "--out", str(tmp_path / "audit"),
                "--rounds", "1", "--json", timeout=900)
    assert audit.returncode == 0, audit.stderr[-3000:]
    summary = json.loads(audit.stdout)
    assert {row["configuration"] for row in summary["configurations"]} == set(MODELS)
    audited = {task["task_id"].split("-")[2] if task["task_id"].startswith("vgb-") else task["task_id"] for task in summary["tasks"]}
    assert len(summary["tasks"]) == 3, audited
    reject = next(r for r in summary["configurations"] if r["configuration"] == "verifierbench/always_reject")
    assert reject["audited_TPR"] == 0.0, reject  # a valid candidate refutes a verifier that rejects everything

    board = cli("leaderboard", str(logs), "--audit", str(tmp_path / "audit" / "summary.json"), "--out", str(tmp_path / "board"),
                "--figures", str(tmp_path / "figures"), timeout=600)
    assert board.returncode == 0, board.stderr[-3000:]
    assert all(model in board.stdout for model in MODELS), board.stdout
    main = (tmp_path / "board" / "table_02_main.csv").read_text()
    assert "verifierbench/heuristic" in main and (tmp_path / "board" / "index.html").is_file()

    paper = cli("paper", "--logs", str(logs), "--suite", str(mixed_suite), "--out", str(tmp_path / "paper"),
                "--figures", str(tmp_path / "paper-figures"), timeout=600)
    assert paper.returncode == 0, paper.stderr[-3000:]
    assert (tmp_path / "paper" / "index.html").is_file()
