"""C7's naive verifiers of code tasks trust the test log the way SWE-bench grades it (issue 37)."""

from __future__ import annotations

from verifierbench.sources.swebench.naive_checks import checks_fooled_by_run
from verifierbench.sources.swebench.testrun import TestRun

F2P, P2P = ["test_new (app.tests.T)"], ["test_old (app.tests.T)"]


def _run(new: str, old: str = "ok", exit_code: int = 1, **kwargs) -> TestRun:
    log = f"test_new (app.tests.T) ... {new}\ntest_old (app.tests.T) ... {old}\n"
    return TestRun(applied=True, exit_code=exit_code, log=log, **kwargs)


def test_a_log_of_passes_fools_both_whatever_the_exit_status_and_the_report_say():
    assert checks_fooled_by_run(_run("ok", outcomes={"test_new (app.tests.T)": "failed"}), F2P, P2P, "django") == [
        "swebench_grading", "skips_read_as_passes"]


def test_a_skip_fools_only_the_reading_that_counts_skips_as_passes():
    assert checks_fooled_by_run(_run("skipped 'not supported on this platform'"), F2P, P2P, "django") == ["skips_read_as_passes"]
    # SWE-bench 5.x fails a skipped FAIL_TO_PASS test only: a skipped PASS_TO_PASS one fools its grading too
    assert checks_fooled_by_run(_run("ok", old="skipped 'slow'"), F2P, P2P, "django") == ["swebench_grading", "skips_read_as_passes"]


def test_a_failing_missing_or_unapplied_run_fools_nothing():
    assert checks_fooled_by_run(_run("FAIL"), F2P, P2P, "django") == []
    assert checks_fooled_by_run(TestRun(applied=True, exit_code=1, log="test_old (app.tests.T) ... ok\n"), F2P, P2P, "django") == []
    assert checks_fooled_by_run(TestRun(applied=False, log=_run("ok").log), F2P, P2P, "django") == []
    assert checks_fooled_by_run(_run("ok", problem="sandbox error"), F2P, P2P, "django") == []


def test_an_exit_status_of_0_fools_the_grader_that_trusts_it_only_where_the_gold_exits_0():
    silent = TestRun(applied=True, exit_code=0, log="")  # the runner exits 0 before any test prints
    assert checks_fooled_by_run(silent, F2P, P2P, "django") == ["exit_status_zero"]
    assert checks_fooled_by_run(silent, F2P, P2P, "django", gold_exit_code=1) == []  # that grader would reject the gold
    assert checks_fooled_by_run(_run("ok", exit_code=0), F2P, P2P, "django") == ["swebench_grading", "skips_read_as_passes",
                                                                                   "exit_status_zero"]
    assert checks_fooled_by_run(TestRun(applied=False, exit_code=0), F2P, P2P, "django") == []
