"""A real matplotlib instance end to end, offline: matplotlib-22719 (3.5, test_category.py) built through the CLI
in its own environment (the profile venv plus the instance's compiled extensions, made once and cached under
$VERIFIERBENCH_ENVS), then screened C1-C6.

Opt-in: a cold environment takes 15-20 minutes on 2 cores (the build compiles matplotlib), so the test runs only
with $VERIFIERBENCH_REAL_MATPLOTLIB=1 (and the offline copy beside the project, and the Debian packages of
docs/code-suite.md); otherwise it says why it skips."""

from __future__ import annotations

import json
import os

import pytest

from tests.cli.test_cli import cli
from tests.conftest import SHARED, _build, skip_unless_required

COPY = SHARED / "upstream" / "swebench"
IID = "matplotlib__matplotlib-22719"

pytestmark = [pytest.mark.sandbox, pytest.mark.usefixtures("bwrap_available"), pytest.mark.timeout(9000)]  # build (5000 s) + screening (3600 s)


@pytest.fixture(scope="module")
def matplotlib_suite(traversable_tmp, persistent_envs):
    if not (COPY / "instances.jsonl").is_file() or not (COPY / "repos").is_dir():
        skip_unless_required("swebench-copy", f"the offline SWE-bench Verified copy is not at {COPY}")
    if not os.environ.get("VERIFIERBENCH_REAL_MATPLOTLIB"):
        skip_unless_required("swebench-matplotlib", "a cold matplotlib environment compiles matplotlib (15-20 min): "
                             "set VERIFIERBENCH_REAL_MATPLOTLIB=1 to run")
    return _build(traversable_tmp / "mpl-suite", "--source", "swebench", "--swebench-ids", IID, timeout=5000)


def test_matplotlib_instance_is_built_in_its_environment_and_passes_screening(matplotlib_suite, tmp_path):
    (task,) = [json.loads(line) for line in (matplotlib_suite / "tasks.jsonl").read_text().splitlines()]
    reference = task["reference"]
    assert reference["runner"] == "pytest" and reference["environment"] == {"repo": "matplotlib/matplotlib", "version": "3.5"}
    assert all(reference["gold_outcomes"][t] == "passed" for t in reference["FAIL_TO_PASS"] + reference["PASS_TO_PASS"])
    cases = [json.loads(line) for line in (matplotlib_suite / "cases.jsonl").read_text().splitlines()]
    assert {"gold", "base", "hack", "near_miss"} <= {c["category"] for c in cases}
    # Screening runs every case twice (C1-C6) in the instance's environment: far beyond cli()'s default 120 s.
    screen = cli("screen", "--suite", str(matplotlib_suite), "--out", str(tmp_path / "screen"), "--json", timeout=3600)
    assert screen.returncode == 0, screen.stderr[-3000:]
    result = json.loads(screen.stdout)
    (screened,) = result["tasks"]
    assert screened["retained"], screened


# Issue 55: the two instances our own profiles excluded. 23299 (3.5) on the "new-pytest8" profile, its key's
# parametrised ids being pytest 8's; 20676 (3.4) on Python 3.9 with the 3.4.3 cp39 wheel's ft2font (FreeType 2.6.1).
PROFILED = {"matplotlib__matplotlib-23299": {"repo": "matplotlib/matplotlib", "version": "3.5", "profile": "new-pytest8"},
            "matplotlib__matplotlib-20676": {"repo": "matplotlib/matplotlib", "version": "3.4", "python": "3.9"}}


@pytest.fixture(scope="module")
def profiled_suite(traversable_tmp, persistent_envs):
    if not (COPY / "instances.jsonl").is_file() or not (COPY / "repos").is_dir():
        skip_unless_required("swebench-copy", f"the offline SWE-bench Verified copy is not at {COPY}")
    if not os.environ.get("VERIFIERBENCH_REAL_MATPLOTLIB"):
        skip_unless_required("swebench-matplotlib", "cold matplotlib environments compile matplotlib (5+ min each): "
                             "set VERIFIERBENCH_REAL_MATPLOTLIB=1 to run")
    return _build(traversable_tmp / "mpl-profiled", "--source", "swebench", "--swebench-ids", ",".join(PROFILED), timeout=5000)


def test_instances_with_their_own_profile_or_python_are_retained_with_every_named_test_passing(profiled_suite):
    tasks = {t["source_id"]: t for t in map(json.loads, (profiled_suite / "tasks.jsonl").read_text().splitlines())}
    assert json.loads((profiled_suite / "screening.json").read_text()).get("excluded", []) == []
    assert set(tasks) == set(PROFILED)
    for iid, environment in PROFILED.items():
        reference = tasks[iid]["reference"]
        assert reference["environment"] == environment
        assert reference["gold_exit_code"] == 0
        assert all(reference["gold_outcomes"][t] == "passed" for t in reference["FAIL_TO_PASS"] + reference["PASS_TO_PASS"])
    # pytest 8's ids for the duplicated parameter sets, which pytest 7.4.4 could not find
    assert tasks["matplotlib__matplotlib-23299"]["reference"]["gold_outcomes"][
        "lib/matplotlib/tests/test_rcparams.py::test_validate_fontweight[100-100_0]"] == "passed"
