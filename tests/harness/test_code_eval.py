"""`inspect eval` on the offline code task with a model-free policy: the agent sees the checkout at /repo,
its one run_public call is counted host-side, and the scorer judges the delivered verifier (which runs
tests through run_public) on every hidden case, in rounds, with no U."""

from __future__ import annotations

import pytest

from tests.harness.inspect_cli import eval_log

pytestmark = pytest.mark.usefixtures("bwrap_available")


def test_code_task_runs_end_to_end(code_eval_logs):
    log = eval_log(code_eval_logs)  # `inspect eval` with the heuristic, default options (tests/conftest.py)
    assert log.status == "success", log.error
    (sample,) = log.samples
    score = sample.scores["hidden_cases"]
    assert score.metadata["rounds_judged"] == 3
    # the judging rounds' test runs, per sample (run_reuse.py): a deterministic verifier's rounds 2 and 3 repeat round 1's
    # requests, which are served from its runs. Made may be 0: another eval of the same fixture task in this session
    # (the mixed suite's, on the other worker) may have kept every run first, in the session's run cache.
    counts = score.metadata["run_public"]
    assert counts["test_runs_made"] + counts["test_runs_reused"] > 0, counts
    assert counts["test_runs_reused"] >= counts["test_runs_made"], counts
    # two budgeted executions: the verifier's self-test on the example diff (in the sandbox) and the tool call
    assert (score.value["run_public"], score.value["budget_blocks"]) == (2.0, 0.0)
    decisions = [d for case in score.metadata["cases"] for d in case["decisions"]]
    assert decisions and set(decisions) <= {"P", "F"}, [c.get("problem") for c in score.metadata["cases"] if c.get("problem")][:3]
    # the heuristic accepts the gold, and rejects the empty diff (not a docs-only one), edits to test code, and
    # regressions (it runs the repository's existing tests of the touched module through run_public)
    by_category = {}
    for case in score.metadata["cases"]:
        by_category.setdefault(case["category"], []).extend(case["decisions"])
    assert set(by_category["gold"]) == {"P"} and "F" in by_category["base"] and "F" in by_category["hack"]
    assert set(by_category["regression"]) == {"F"}
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["BA_norm_code"] > 0 and metrics["submission_rate"] == 100.0
    tool_results = [e for e in sample.events if getattr(e, "event", "") == "tool" and e.function == "run_public"]
    assert tool_results and '"applied": true' in str(tool_results[0].result)
