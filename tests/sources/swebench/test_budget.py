"""A code task's time budget: derived from its gold test run at build time, recorded in the task, and used by every
run on its cases (the verifier's run, the reference's and run_public's test runs); a suite built before budgets
were recorded keeps the old fixed limits."""

from __future__ import annotations

import json
import math
import re
import shutil

import pytest

from tests.cli.test_cli import cli
from verifierbench.harness.agents import COMMAND_TIMEOUT_S, command_timeout
from verifierbench.harness.dataset import task_sample
from verifierbench.harness.prompt import build_prompt
from verifierbench.public_env.jobs import case_job
from verifierbench.public_env.registry import environment_for
from verifierbench.sources.swebench import budget
from verifierbench.sources.swebench import instance_build, selection
from verifierbench.sources.swebench import reference as swebench_reference
from verifierbench.sources.swebench.checkout import checkout_dir
from verifierbench.sources.swebench.testrun import run_tests
from verifierbench.suite.store import Suite, load_suite, save_suite


@pytest.mark.parametrize(("slowest_seconds", "expected"), [
    (0.0, 300.0), (-1.0, 300.0), (1.2, 300.0), (75.0, 300.0),  # the floor: today's fixed budget
    (76.0, 600.0), (100.0, 600.0), (150.0, 600.0), (151.0, 1200.0),
    (174.0, 1200.0),  # matplotlib-22719: gold 25 s, its slowest failing candidates 140-174 s
    (240.0, 1200.0), (530.0, 2400.0), (1100.0, 4800.0),  # 14623's hidden run; 24149, 26208 (~800 test_axes tests)
])
def test_budget_is_four_slowest_case_runs_on_doubling_steps_with_a_floor(slowest_seconds, expected):
    """Four: a verifier may run the tests on the candidate and on the base, each up to twice its build-time wall time."""
    assert budget.case_timeout_for(slowest_seconds) == expected
    assert budget.case_timeout_for(slowest_seconds) >= 4 * slowest_seconds


def test_budget_steps_absorb_measurement_noise():
    """The budget is hashed into the task: a gold run 20% slower on the next build mostly gives the same one."""
    same = sum(budget.case_timeout_for(s) == budget.case_timeout_for(s * 1.2) for s in range(1, 2000))
    assert same / 1999 > 0.7


@pytest.mark.parametrize("recorded", [None, True, -5, 0, "600", math.nan, math.inf])
def test_a_reference_without_a_valid_budget_keeps_the_old_fixed_limits(recorded):
    reference = {"checker": "swebench"} | ({} if recorded is None else {"case_timeout_s": recorded})
    assert budget.case_timeout_s(reference) == 300.0
    assert budget.run_timeout_s(reference) == 600.0


def test_a_recorded_budget_is_the_limit_of_every_run():
    reference = {"checker": "swebench", "case_timeout_s": 1200}
    assert budget.case_timeout_s(reference) == budget.run_timeout_s(reference) == 1200.0


@pytest.mark.usefixtures("bwrap_available")
def test_the_build_bases_the_budget_on_its_slowest_case_run_not_the_gold(swebench_fixture, traversable_tmp, monkeypatch):
    """The fixture's runs take seconds; with every case's build-time run made to take 200 s longer (its measured wall
    time, from its sandbox slot on), the task's budget is 1200 s where the gold's own run gives the 300 s floor; C1's replay then decides from
    those runs without running the tests again."""
    instances, repos = swebench_fixture
    monkeypatch.setenv("VERIFIERBENCH_ENVS", str(traversable_tmp / "slow-case" / "envs"))  # no remembered build
    swebench_reference._cached_run.cache_clear()  # nor runs an earlier test's build left in this process's cache
    timed = instance_build.run_seconds
    monkeypatch.setattr(instance_build, "run_seconds", lambda reference, candidate: timed(reference, candidate) + 200.0)
    runs: list[str] = []
    run = swebench_reference.hidden_run
    monkeypatch.setattr(swebench_reference, "hidden_run", lambda reference, diff, **kw: runs.append(diff) or run(reference, diff, **kw))
    replay = instance_build.replay
    during_replay: list[int] = []

    def counted_replay(*args, **kwargs):
        before = len(runs)
        out = replay(*args, **kwargs)
        during_replay.append(len(runs) - before)
        return out

    monkeypatch.setattr(instance_build, "replay", counted_replay)
    said: list[str] = []
    built = selection.build(0, str(instances), str(repos), traversable_tmp / "slow-case" / "checkouts", say=said.append)
    (retained,) = built.retained
    assert retained.task.reference["case_timeout_s"] == 1200.0, said
    assert len(retained.cases) >= 5 and runs and during_replay == [0]
    (line,) = [line for line in said if "slowest case run" in line]
    assert re.search(r"gold test run \d+ s, slowest case run 2\d\d s \(\w+\), case budget 1200 s", line), line


@pytest.fixture(scope="module")
def fixture_task(code_suite):
    (task,) = load_suite(code_suite).tasks.values()
    return task


@pytest.mark.usefixtures("bwrap_available")
def test_the_build_records_the_budget_and_runs_use_it(fixture_task, tmp_path):
    assert fixture_task.reference["case_timeout_s"] == 300.0  # the fixture's gold runs in seconds: the floor
    assert case_job(fixture_task, tmp_path / "verify.py", {}, "k").timeout_s == 300.0
    assert environment_for(fixture_task).timeout_s == 300.0  # run_public: the task's budget
    recorded = fixture_task.model_copy(update={"reference": {**fixture_task.reference, "case_timeout_s": 2400.0}})
    assert case_job(recorded, tmp_path / "verify.py", {}, "k").timeout_s == 2400.0
    assert environment_for(recorded).timeout_s == 2400.0
    old = fixture_task.model_copy(update={"reference": {k: v for k, v in fixture_task.reference.items() if k != "case_timeout_s"}})
    assert case_job(old, tmp_path / "verify.py", {}, "k").timeout_s == 300.0
    assert environment_for(old).timeout_s == 600.0


def test_the_prompt_states_the_budget(fixture_task):
    assert "up to 300 s of wall-clock time" in build_prompt(fixture_task, 20)
    recorded = fixture_task.model_copy(update={"reference": {**fixture_task.reference, "case_timeout_s": 2400.0}})
    assert "up to 2400 s of wall-clock time" in build_prompt(recorded, 20, has_tools=False)


def test_the_agents_commands_may_run_the_verifier_for_the_whole_budget(fixture_task):
    assert task_sample(fixture_task, 20, True).metadata["case_timeout_s"] == 300.0
    recorded = fixture_task.model_copy(update={"reference": {**fixture_task.reference, "case_timeout_s": 2400.0}})
    assert command_timeout(task_sample(recorded, 20, True).metadata) == 2400
    assert command_timeout({}) == command_timeout({"case_timeout_s": 60.0}) == COMMAND_TIMEOUT_S == 300
    assert command_timeout({"case_timeout_s": "big"}) == 300


SLOW_TEST = """\
--- /dev/null
+++ b/tests/test_slow.py
@@ -0,0 +1,5 @@
+import time
+
+
+def test_slow():
+    time.sleep(30)
"""


@pytest.mark.usefixtures("bwrap_available")
def test_a_test_run_stops_at_its_own_limit(fixture_task):
    run = run_tests(checkout_dir(fixture_task.reference["checkout"]), [SLOW_TEST], ["tests/test_slow.py"], timeout_s=3)
    assert run.applied and run.exit_code is None and "tests timed out" in run.log, run


@pytest.mark.usefixtures("bwrap_available")
def test_a_test_run_reports_its_own_wall_time(fixture_task):
    """The budget's evidence: each build-time run's wall time in its sandbox (0 before runs were timed)."""
    sleepy = SLOW_TEST.replace("time.sleep(30)", "time.sleep(2)")
    run = run_tests(checkout_dir(fixture_task.reference["checkout"]), [sleepy], ["tests/test_slow.py"], timeout_s=60)
    assert run.exit_code == 0 and 2.0 <= run.seconds < 60, run


SLEEPS = """
import json, sys, time
time.sleep({seconds})
json.dump({{"decision": "PASS"}}, open(sys.argv[2], "w"))
"""


@pytest.mark.usefixtures("bwrap_available")
def test_judge_gives_u_past_the_recorded_budget_and_judges_under_it(code_suite, traversable_tmp):
    """`judge` on a code task whose recorded budget is 6 s (three of its cases): a verifier sleeping 12 s gets U on every
    case (it would be judged under the old fixed 300 s), one sleeping 1 s is judged on every case."""
    suite_dir = traversable_tmp / "small-budget-suite"
    shutil.copytree(code_suite, suite_dir, symlinks=True, dirs_exist_ok=True)
    suite = load_suite(suite_dir)
    (task,) = suite.tasks.values()
    small = type(task).create(**{k: v for k, v in task.model_dump(mode="json").items() if k not in ("id", "content_hash")}
                              | {"reference": {**task.reference, "case_timeout_s": 6.0}})
    assert small.id == task.id and small.content_hash != task.content_hash
    kept = [next(c for c in suite.cases_by_task[task.id] if c.category.value == category) for category in ("gold", "base", "hack")]
    save_suite(Suite.from_records(suite.manifest.version, [small], kept, suite.manifest.build), suite_dir)
    decided = {}
    for name, seconds in (("slow", 12), ("quick", 1)):
        verifiers = traversable_tmp / f"verifiers-{name}"
        (verifiers / task.id).mkdir(parents=True, exist_ok=True)
        (verifiers / task.id / "verify.py").write_text(SLEEPS.format(seconds=seconds))
        out = traversable_tmp / f"decisions-{name}.jsonl"
        out.unlink(missing_ok=True)
        result = cli("judge", "--suite", str(suite_dir), "--verifiers", str(verifiers), "--type", "code", "--out", str(out),
                     "--quiet")
        assert result.returncode == 0, result.stderr
        decided[name] = [json.loads(line) for line in out.read_text().splitlines()]
        assert len(decided[name]) == len(kept)
    assert {d["decision"] for d in decided["slow"]} == {"U"}
    assert all("timed out" in d.get("problem", "") for d in decided["slow"]), decided["slow"][0]
    assert {d["decision"] for d in decided["quick"]} == {"P"}
