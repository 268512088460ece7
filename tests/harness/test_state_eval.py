"""`inspect eval` on state tasks, offline: the policy's verifier replays records through run_public from
the scorer's sandbox, the generation budget is counted host-side, and state tasks are judged in rounds."""

from __future__ import annotations

import pytest

from tests.conftest import one_task_per_source
from tests.harness.inspect_cli import eval_log, inspect
from verifierbench.suite.store import load_suite

pytestmark = pytest.mark.usefixtures("bwrap_available")


def run(tmp_path, suite, *args):
    result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T", f"suite={suite}",
                     "-T", f"task_ids={one_task_per_source(suite)}", "--log-dir", str(tmp_path), *args)
    assert result.returncode == 0, result.stderr[-3000:]
    log = eval_log(tmp_path)
    assert log.status == "success", log.error
    return log


def test_state_tasks_run_end_to_end_with_run_public(state_eval_logs, state_suite):
    log = eval_log(state_eval_logs)  # this selection, default options (tests/conftest.py, shared with test_docker.py)
    assert log.status == "success", log.error
    assert {s.metadata["source"] for s in log.samples} == {t.source.value for t in load_suite(state_suite).tasks.values()}
    for sample in log.samples:
        score = sample.scores["hidden_cases"]
        assert score.metadata["rounds_judged"] == 3 and "r_pos@2" in score.value
        # the policy looked at the environment once through the run_public tool: counted host-side
        assert (score.value["run_public"], score.value["budget_blocks"]) == (1.0, 0.0)
        decisions = {d for case in score.metadata["cases"] for d in case["decisions"]}
        assert decisions <= {"P", "F"}, [c.get("problem") for c in score.metadata["cases"] if c.get("problem")][:3]
        tool_results = [e for e in sample.events if getattr(e, "event", "") == "tool" and e.function == "run_public"]
        assert tool_results and "state_hash" in str(tool_results[0].result)
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert "BA_norm_state" in metrics and metrics["submission_rate"] == 100.0


def test_generation_budget_exhausted_answers_budget_exceeded(tmp_path, state_suite):
    log = run(tmp_path, state_suite, "-T", "run_public_budget=0")
    for sample in log.samples:
        score = sample.scores["hidden_cases"]
        assert (score.value["run_public"], score.value["budget_blocks"]) == (1.0, 1.0)
        tool_results = [e for e in sample.events if getattr(e, "event", "") == "tool" and e.function == "run_public"]
        assert "BudgetExceeded: run_public" in str(tool_results[0].result)
