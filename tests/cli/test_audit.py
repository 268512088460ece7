"""`verifierbench audit LOG_DIR`: the lightweight audit across configurations (random trial choice,
witness sharing, pool replay first), as users run it after their evals."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.audit.scripted_model import ENV as SCRIPTED_REPLIES
from tests.audit.scripted_model import REGISTER
from tests.cli.test_cli import BIN, cli
from tests.conftest import AUDIT_TASKS
from verifierbench.sources.toolcall.candidate import candidate, render_python
from verifierbench.sources.toolcall.base import spec_for_reference
from verifierbench.suite.store import load_suite

pytestmark = pytest.mark.usefixtures("bwrap_available")
TASKS = AUDIT_TASKS
STATUSES = {"refuted", "audited-clean", "unaudited", "not auditable", "no verifier"}


@pytest.fixture(scope="module")
def logs(audit_logs):
    return audit_logs  # read only: every command here writes its output elsewhere


def audit(logs, suite, pool, out, *args):
    result = cli("audit", str(logs), "--suite", str(suite), "--pool", str(pool), "--out", str(out), "--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_lightweight_audit_shares_witnesses_and_replays_the_pool_first(logs, bfcl_suite, tmp_path):
    summary = audit(logs, bfcl_suite, tmp_path / "pool", tmp_path / "out", "--rounds", "2")
    assert json.loads((tmp_path / "out" / "summary.json").read_text()) == summary
    rows = {r["configuration"]: r for r in summary["configurations"]}
    assert set(rows) == {"verifierbench/always_reject", "verifierbench/heuristic"}
    assert len(summary["tasks"]) == 3 and summary["witnesses"] > 0
    for task in summary["tasks"]:
        assert task["rounds"] <= 2 and set(task["trials"].values()) <= STATUSES
    reject = rows["verifierbench/always_reject"]
    assert reject["refuted"] == reject["tasks"] == 3  # every certified valid candidate refutes it
    assert (reject["audited_TPR"], reject["audited_TNR"]) == (0.0, 100.0)
    for row in rows.values():
        assert row["audited_BA_norm"] <= row["BA_norm"]
        assert row["audited_BA_norm"] == pytest.approx(row["audited_TPR"] + row["audited_TNR"] - 100)

    again = audit(logs, bfcl_suite, tmp_path / "pool", tmp_path / "out2", "--rounds", "2")
    assert [t["task_id"] for t in again["tasks"]] == [t["task_id"] for t in summary["tasks"]]
    for before, after in zip(summary["tasks"], again["tasks"]):
        refuted_before = {c for c, s in before["trials"].items() if s == "refuted"}
        assert refuted_before <= {c for c, s in after["trials"].items() if s == "refuted"}
    # A task whose every trial was refuted is refuted again by the pool alone: no audit round spent. At least one
    # such task exists here, so this is checked on every run.
    all_refuted = [i for i, task in enumerate(summary["tasks"]) if set(task["trials"].values()) == {"refuted"}]
    assert all_refuted, summary["tasks"]
    assert [again["tasks"][i]["rounds"] for i in all_refuted] == [0] * len(all_refuted), again["tasks"]


def test_audit_of_a_directory_without_logs_is_a_one_line_error(tmp_path, bfcl_suite):
    result = cli("audit", str(tmp_path), "--suite", str(bfcl_suite))
    assert result.returncode == 2 and "no Inspect logs" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_the_leaderboard_reads_the_audit_summary_beside_the_hidden_numbers(logs, bfcl_suite, tmp_path):
    summary = audit(logs, bfcl_suite, tmp_path / "pool", tmp_path / "out", "--rounds", "1")
    result = cli("leaderboard", str(logs), "--audit", str(tmp_path / "out" / "summary.json"), "--out", str(tmp_path / "board"),
                 "--figures", str(tmp_path / "figures"), "--json")
    assert result.returncode == 0, result.stderr
    board = json.loads(result.stdout)
    for row in summary["configurations"]:  # the audit command's own per-configuration numbers
        audited = board[row["configuration"]]["audited"]
        assert audited["BA_norm"] == pytest.approx(row["audited_BA_norm"]) and audited["n_tasks"] == row["tasks"]
        assert (audited["perfect_refuted"], audited["perfect_on_hidden"]) == (row["perfect_refuted"], row["perfect_on_hidden"])
        assert audited["by_type"]["tool-call"]["BA_norm"] == pytest.approx(row["audited_BA_norm"])  # one type, one source
        met = [t["trials"][row["configuration"]] for t in summary["tasks"] if t["trials"][row["configuration"]] in STATUSES - {"not auditable", "no verifier"}]
        assert audited["refuted_share"] == pytest.approx(100 * met.count("refuted") / len(met))
    header = (tmp_path / "board" / "table_02_main.md").read_text().splitlines()[2]
    assert "Audited BA_norm" in header and "Perfect→refuted" in header
    assert r"Perfect$\to$refuted" in (tmp_path / "board" / "table_24_audited_sources.tex").read_text()

    bad = cli("leaderboard", str(logs), "--audit", str(tmp_path / "missing.json"), "--no-write")
    assert bad.returncode == 2 and "--audit" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def scripted_cli(replies: list[list[str]], tmp_path, *args: str) -> subprocess.CompletedProcess:
    """The CLI in its own process, with the test's scripted model provider (`scripted/...`) registered first."""
    path = tmp_path / f"replies-{len(list(tmp_path.glob('replies-*')))}.json"
    path.write_text(json.dumps(replies))
    program = REGISTER + "import sys; from verifierbench.cli.main import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", program, *args], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env={**os.environ, SCRIPTED_REPLIES: str(path)})


def test_task_analysis_witnesses_reach_every_configuration_through_the_cli(logs, bfcl_suite, tmp_path):
    suite = load_suite(bfcl_suite)
    tasks = [t for t in suite.tasks.values() if f"{t.source.value}/{t.source_id}" in TASKS.split(",")]
    replies = [["You review one test candidate", "VALID: the reply format allows Python call syntax."]]
    for task in tasks:
        gold = spec_for_reference(task.reference).gold_calls()
        wrong = json.loads(json.dumps(gold))
        wrong[0]["name"] += "_unoffered"  # a name no case family makes (function_not_offered adds _v2)
        proposal = {"requirements": [], "candidates": [
            {"label": "PASS", "requirement": "Python call syntax", "candidate": candidate(gold, raw=render_python(gold)[1:-1] + "\n")},
            {"label": "PASS", "requirement": "mislabeled", "candidate": candidate(wrong)}]}
        replies.append([task.instruction, "```json\n" + json.dumps(proposal) + "\n```"])
    args = ["audit", str(logs), "--suite", str(bfcl_suite), "--pool", str(tmp_path / "pool"), "--rounds", "0", "--json",
            "--task-analysis", "scripted/analyst", "--reviewer-model", "scripted/reviewer"]
    result = scripted_cli(replies, tmp_path, *args, "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads(result.stdout)
    assert set(summary["task_analysis"]) == {t.id for t in tasks} and len(tasks) == 3
    for analysed in summary["task_analysis"].values():
        assert (analysed["model"], analysed["proposed"], analysed["certified"], analysed["valid"]) == ("scripted/analyst", 2, 1, 1)
        assert [d["reason"] for d in analysed["dropped"]] == ["the reference verifier decides FAIL, not PASS"]
    # no audit round was spent: the task witnesses alone refute the verifier that rejects everything, on every task
    rows = {r["configuration"]: r for r in summary["configurations"]}
    assert summary["audit_rounds"] == 0 and summary["witnesses"] == 3
    assert rows["verifierbench/always_reject"]["refuted"] == 3
    without = audit(logs, bfcl_suite, tmp_path / "pool-without", tmp_path / "out-without", "--rounds", "0")
    assert without["witnesses"] == 0 and all(r["refuted"] == 0 for r in without["configurations"])

    # cached per task and model: a second run whose analyst has no reply left reuses the first pass
    again = scripted_cli([["You review one test candidate", "VALID"]], tmp_path, *args, "--out", str(tmp_path / "out2"))
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads(again.stdout)["task_analysis"] == summary["task_analysis"]


# The audit of state (and code) tasks, refuted shares per configuration: tests/harness/test_mixed_suite.py.


def test_audit_reads_the_suite_from_the_logs_in_another_directory(logs, bfcl_suite, tmp_path):
    """The logs record the suite's absolute path and content hash; `audit` without --suite finds it from anywhere,
    and names a suite whose content no longer matches."""
    from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "VERIFIERBENCH_SUITE"}
    first = read_eval_log(list_eval_logs(str(logs))[0], header_only=True)
    assert first.eval.metadata["suite_dir"] == str(bfcl_suite)
    assert first.eval.metadata["suite_hash"] == load_suite(bfcl_suite).content_hash()
    args = [str(BIN), "audit", str(logs), "--rounds", "0", "--pool", str(tmp_path / "pool"), "--out", str(tmp_path / "out"), "--json"]
    result = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=elsewhere, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["suite"] == load_suite(bfcl_suite).manifest.version

    changed = tmp_path / "changed-logs"
    changed.mkdir()
    for info in list_eval_logs(str(logs)):
        log = read_eval_log(info)
        log.eval.metadata = {**log.eval.metadata, "suite_hash": "sha256:" + "0" * 64}
        write_eval_log(log, str(changed / os.path.basename(info.name)))
    args[2] = str(changed)
    result = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=elsewhere, env=env)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr[-2000:]
    assert "not the suite these logs were scored on" in result.stderr
