"""README.md's evaluation report is the one scripts/evaluation_report.py writes from logs made afresh: the model-free
policies on a fresh BFCL suite's first six tasks (the shared `bfcl_policy_logs`)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT, load_script, logs_of

SCRIPT = REPO_ROOT / "scripts" / "evaluation_report.py"


def _script():
    return load_script("evaluation_report")


def test_the_readme_report_is_what_the_script_writes_from_fresh_logs(bfcl_policy_logs):
    check = subprocess.run([sys.executable, str(SCRIPT), "--check", str(bfcl_policy_logs)], capture_output=True, text=True,
                           timeout=120)
    assert check.returncode == 0, f"run python scripts/evaluation_report.py --readme LOGS: {check.stderr}"
    # A hand edit of a number is what --check catches: the script writes the fresh value back.
    from verifierbench.leaderboard.logs import read_board

    script, board = _script(), read_board(bfcl_policy_logs)
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    heuristic = next(s for s in board.scored if s.run.name == "verifierbench/heuristic")
    written = f"| verifierbench/heuristic | {heuristic.result['BA_norm']:.1f} ["
    assert written in text
    edited = text.replace(written, "| verifierbench/heuristic | 99.9 [")
    assert script.rewritten(edited, board) == text


def test_a_partial_configuration_is_ranked_on_the_common_tasks_unless_padding_is_asked_for(bfcl_policy_logs, tmp_path):
    """Two configurations, one scored on fewer tasks: the report ranks on the common ones and says so; --pad-missing
    counts the other tasks as its failures."""
    logs = logs_of(bfcl_policy_logs, ["verifierbench/always_accept", "verifierbench/heuristic"], tmp_path / "logs")
    from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log

    for info in list_eval_logs(str(logs)):
        log = read_eval_log(info)
        if log.eval.model == "verifierbench/always_accept":
            log.samples = (log.samples or [])[:2]  # a run that scored 2 of its 6 samples
            write_eval_log(log, info.name.removeprefix("file://"))
    common = subprocess.run([sys.executable, str(SCRIPT), str(logs)], capture_output=True, text=True, timeout=120)
    padded = subprocess.run([sys.executable, str(SCRIPT), "--pad-missing", str(logs)], capture_output=True, text=True, timeout=120)
    assert common.returncode == 0 and padded.returncode == 0, common.stderr + padded.stderr
    assert "ranked on the 2 tasks (bfcl 2) every ranked configuration scored; 4 excluded" in common.stdout
    assert "| verifierbench/always_accept | 0.0 [0.0, 0.0] | 100.0 | 0.0 | 2 | partial |" in common.stdout
    assert "2/6 samples scored (verifierbench/always_accept)" in common.stderr
    assert "ranked on all 6 tasks (bfcl 6)" in padded.stdout and "(--pad-missing)" in padded.stdout
    assert "| verifierbench/always_accept | " in padded.stdout and "| 6 | partial |" in padded.stdout
