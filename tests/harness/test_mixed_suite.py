"""One `inspect eval` over a mixed suite (a tool-call task, a tau2 and an AgentDojo state task, and the code task of the
offline fixture), then `verifierbench audit`, `leaderboard` and `paper` on its logs: the state and code paths of the
reports, not only BFCL's (the audit's state path is proven here, with refuted shares per configuration)."""

from __future__ import annotations

import json

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from tests.cli.test_cli import cli
from tests.conftest import first_of_each
from tests.harness.inspect_cli import inspect
from verifierbench.suite.store import load_suite

pytestmark = [pytest.mark.slow, pytest.mark.sandbox, pytest.mark.usefixtures("bwrap_available"), pytest.mark.timeout(1200)]
MODELS = ("verifierbench/heuristic", "verifierbench/always_reject")
STATE_TASKS = ("tau2/retail/38", "agentdojo/banking/user_task_7")


@pytest.fixture(scope="module")
def chosen(mixed_suite) -> list[str]:
    """The first tool-call and code task, and the two state tasks (one per state source). The suite is the session's
    (tests/conftest.py), which Pi's vgb evals also run on."""
    return [*first_of_each(mixed_suite, ("bfcl", "swebench")).values(), *STATE_TASKS]


@pytest.fixture(scope="module")
def logs(mixed_suite, chosen, tmp_path_factory):
    root = tmp_path_factory.mktemp("mixed-logs")
    # One `inspect eval` for both models (a log each), as a user compares configurations.
    result = inspect("eval", "verifierbench/verifierbench", "--model", ",".join(MODELS), "-T", f"suite={mixed_suite}",
                     "-T", f"task_ids={','.join(chosen)}", "-T", "rounds=1", "--log-dir", str(root))
    assert result.returncode == 0, result.stderr[-3000:]
    assert sorted(read_eval_log(info, header_only=True).eval.model for info in list_eval_logs(str(root))) == sorted(MODELS)
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


def test_audit_leaderboard_and_paper_on_state_and_code_logs(logs, mixed_suite, chosen, tmp_path):
    audit = cli("audit", str(logs), "--suite", str(mixed_suite), "--pool", str(tmp_path / "pool"), "--out", str(tmp_path / "audit"),
                "--rounds", "2", timeout=900)
    assert audit.returncode == 0, audit.stderr[-3000:]
    assert "refuted %" in audit.stdout and "verifierbench/always_reject" in audit.stdout  # the printed table
    summary = json.loads((tmp_path / "audit" / "summary.json").read_text())
    ids = {f"{t.source.value}/{t.source_id}": t.id for t in load_suite(mixed_suite).tasks.values()}
    assert {t["task_id"] for t in summary["tasks"]} == {ids[name] for name in chosen}
    for task in summary["tasks"]:
        if task["task_id"] in {ids[name] for name in STATE_TASKS}:  # tau2 and AgentDojo are audited, not "not auditable"
            assert set(task["trials"].values()) <= {"refuted", "audited-clean"}, task
    rows = {r["configuration"]: r for r in summary["configurations"]}
    assert set(rows) == set(MODELS)
    assert all(r["tasks"] == len(chosen) and 0 <= r["refuted_rate"] <= 100 for r in rows.values())
    reject = rows["verifierbench/always_reject"]
    # A certified valid candidate refutes a verifier that rejects everything, on every task of every type.
    assert reject["refuted"] == len(chosen) and reject["refuted_rate"] == 100.0, reject
    assert (reject["audited_TPR"], reject["audited_TNR"]) == (0.0, 100.0)

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
