"""run_public on code tasks: a verifier in the sandbox sees the checkout read-only at /repo and asks the
host-side service to apply a diff to a scratch copy and run tests; the service counts the budget."""

from __future__ import annotations

import pytest

from tests.conftest import write_verifier
from verifierbench.executor import Executor, Limits
from verifierbench.core.protocol import Decision
from verifierbench.public_env.jobs import case_job
from verifierbench.public_env.service import BUDGET_EXCEEDED, PublicService
from verifierbench.public_env.registry import recipe_for, request_timeout
from verifierbench.sandboxes import VGB_ENV
from verifierbench.suite.store import load_suite

pytestmark = pytest.mark.usefixtures("bwrap_available")


@pytest.fixture(scope="module")
def task_and_gold(code_suite):
    suite = load_suite(code_suite)
    (task,) = suite.tasks.values()
    gold = next(c for c in suite.cases_by_task[task.id] if c.category.value == "gold")
    return task, gold.candidate["diff"]


def test_service_applies_a_diff_and_runs_named_tests(task_and_gold):
    task, gold = task_and_gold
    with PublicService(recipe_for(task), budget=4, request_timeout_s=request_timeout(task)) as service:  # every request counts, malformed ones too
        tests = ["tests/test_parse.py::test_parse_rfc850_recent", "tests/test_months.py"]
        reply = service.handle({"op": "run_public", "diff": gold, "tests": tests})
        assert reply["applied"] and reply["exit_code"] == 0
        assert reply["outcomes"]["tests/test_parse.py::test_parse_rfc850_recent"] == "passed"
        assert "tests/test_months.py::test_weekday_name" in reply["outcomes"]
        # the hidden tests are not there: run_public gives the checkout, not the test patch
        hidden = service.handle({"op": "run_public", "diff": gold, "tests": ["tests/test_parse.py::test_parse_rfc850_past_century"]})
        assert hidden["exit_code"] != 0 and not hidden["outcomes"].get("tests/test_parse.py::test_parse_rfc850_past_century")
        bad = service.handle({"op": "run_public", "diff": "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n", "tests": []})
        assert bad["applied"] is False and bad["apply_error"]
        assert service.handle({"op": "run_public", "diff": gold, "tests": ["--collect-only"]})["error"].startswith("bad request")
        assert service.handle({"op": "run_public", "diff": gold, "tests": []}) == {"error": BUDGET_EXCEEDED}
        assert (service.uses, service.blocks) == (5, 1)


VERIFIER = """
import os, vgb_env
candidate = vgb_env.read_candidate()
assert os.path.isfile("/repo/httpdate/parse.py")
try:
    open("/repo/httpdate/parse.py", "a").write("x")
    vgb_env.write_decision("FAIL", reason="the checkout is writable")
except OSError:
    run = vgb_env.run_public(diff=candidate["diff"], tests=["tests/test_parse.py"])
    vgb_env.write_decision("PASS" if run["applied"] and run["exit_code"] == 0 else "FAIL", reason=str(run["exit_code"]))
"""


def test_verifier_runs_tests_through_run_public_from_the_sandbox(task_and_gold, tmp_path):
    task, gold = task_and_gold
    verifier = write_verifier(tmp_path / "v", VERIFIER)
    libraries = ((str(VGB_ENV), "vgb_env"),)
    with Executor(Limits(timeout_s=120), isolation="bwrap", slots=1, libraries=libraries) as executor:
        good = executor.run(case_job(task, verifier, {"diff": gold}, "gold"))
        empty = executor.run(case_job(task, verifier, {"diff": ""}, "empty"))
    assert good.decision is Decision.P, (good.problem, good.stderr_tail)
    assert empty.decision is Decision.P  # the checkout's own tests pass without the fix too
    assert good.reason == "0"  # read-only checkout, and the tests ran with exit code 0
