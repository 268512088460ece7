"""Bad input to `verifierbench build --source swebench`, through the CLI as users run it (issue #16's acceptance):
a corrupted repository, a missing base commit, an instance row missing a field (and one with a malformed test
list) and an environment whose install fails, each beside a good instance. Each defect is one line naming the
instance and what is wrong, the rest of the build goes on, and nothing half-built is kept: no task, checkout or
environment of a failed instance, no staging directory."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sources.swebench.fixture import INSTANCE_ID, REPO, _git, make_fixture

pytestmark = pytest.mark.usefixtures("bwrap_available")

BIN = Path(sys.executable).parent / "verifierbench"
CORRUPT_ID = "vgb-fixtures__corrupt-1"
NO_BASE_ID = "vgb-fixtures__httpdate-nobase"
NO_FIELD_ID = "vgb-fixtures__httpdate-nofield"
BAD_TESTS_ID = "vgb-fixtures__httpdate-badtests"
ENV_ID = "django__django-99999"
UNINSTALLABLE = "vgb-not-on-any-index==1.0"  # with pip's index off ($PIP_NO_INDEX), it cannot install


def _corrupt_repository(good: Path, target: Path) -> None:
    """A copy of the good clone whose object of httpdate/parse.py at the base commit holds garbage (a disk error)."""
    shutil.copytree(good, target)
    blob = _git(target, "rev-parse", "HEAD:httpdate/parse.py").strip()
    path = target / ".git" / "objects" / blob[:2] / blob[2:]
    path.chmod(0o644)
    path.write_bytes(b"not a zlib stream")


def _django_with_uninstallable_requirement(target: Path) -> str:
    """A django/django clone (SWE-bench specifies its environments) whose test requirements name a package no index
    has; returns its base commit."""
    target.mkdir(parents=True)
    _git(target, "init", "-q", "-b", "main")
    (target / "tests" / "requirements").mkdir(parents=True)
    (target / "tests" / "requirements" / "py3.txt").write_text(UNINSTALLABLE + "\n")
    (target / "tests" / "runtests.py").write_text("raise SystemExit(1)\n")
    _git(target, "add", "-A")
    _git(target, "commit", "-q", "-m", "base")
    return _git(target, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="module")
def bad_build(traversable_tmp):
    """Builds the four defects and the good instance (last, so the build must go on past every defect)."""
    root = traversable_tmp / "bad-input"
    instances, repos = make_fixture(root / "data")
    good = json.loads(instances.read_text())
    _corrupt_repository(repos / REPO.replace("/", "__"), repos / "vgb-fixtures__corrupt")
    django_base = _django_with_uninstallable_requirement(repos / "django__django")
    no_field = {k: v for k, v in good.items() if k != "patch"}
    rows = [{**good, "instance_id": CORRUPT_ID, "repo": "vgb-fixtures/corrupt"},
            {**good, "instance_id": NO_BASE_ID, "base_commit": "0" * 40},
            {**no_field, "instance_id": NO_FIELD_ID},
            {**good, "instance_id": BAD_TESTS_ID, "FAIL_TO_PASS": "not a JSON list"},
            {**good, "instance_id": ENV_ID, "repo": "django/django", "version": "3.0", "base_commit": django_base,
             "FAIL_TO_PASS": json.dumps(["test_x (utils_tests.test_http.Tests)"]), "PASS_TO_PASS": "[]"},
            good]
    instances.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out, env_root = root / "suite", root / "envs"
    env = {**os.environ, "VERIFIERBENCH_ENVS": str(env_root), "PIP_NO_INDEX": "1", "VERIFIERBENCH_SWEBENCH_COPY": ""}
    # A django row makes the seeded selection the paper's repositories only: name the instances instead.
    ids = ",".join([CORRUPT_ID, NO_BASE_ID, ENV_ID, INSTANCE_ID])
    done = subprocess.run([str(BIN), "build", "--out", str(out), "--source", "swebench", "--swebench-instances", str(instances),
                           "--swebench-repos", str(repos), "--swebench-ids", ids], capture_output=True, text=True, timeout=600,
                          env=env, cwd=root)
    return done, out, env_root


def _lines_about(done: subprocess.CompletedProcess, instance_id: str) -> list[str]:
    return [line for line in (done.stdout + done.stderr).splitlines()
            if instance_id in line and ("excluded" in line or "skipped" in line)]


def test_each_defect_is_one_line_naming_the_instance_and_the_defect(bad_build):
    done, _, _ = bad_build
    assert done.returncode == 0, done.stderr[-3000:]
    expected = {NO_FIELD_ID: f"skipped a row: .* SWE-bench row {NO_FIELD_ID} lacks patch",
                BAD_TESTS_ID: f"skipped a row: .* SWE-bench row {BAD_TESTS_ID}: FAIL_TO_PASS/PASS_TO_PASS must be a list",
                NO_BASE_ID: f"{NO_BASE_ID} excluded \\(T\\): base commit 000000000000 is not in vgb-fixtures__httpdate",
                CORRUPT_ID: f"{CORRUPT_ID} excluded \\(T\\): vgb-fixtures__corrupt is corrupt: .* httpdate/parse.py \\(error: inflate",
                ENV_ID: f"{ENV_ID} excluded \\(V\\): making the environment django__django-3.0-.* failed: ERROR: .*{UNINSTALLABLE}.* \\(at `pip install -q -r requirements.txt`; full log "}
    for instance_id, pattern in expected.items():
        lines = _lines_about(done, instance_id)
        assert len(lines) == 1, (instance_id, lines, done.stdout[-3000:], done.stderr[-3000:])
        assert re.search(pattern, lines[0]), (instance_id, lines[0])
    assert "swebench unavailable" not in done.stdout + done.stderr


def test_the_good_instance_is_built_and_the_defects_recorded(bad_build):
    done, out, _ = bad_build
    tasks = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    assert [t["source_id"] for t in tasks] == [INSTANCE_ID]
    cases = [json.loads(line) for line in (out / "cases.jsonl").read_text().splitlines()]
    assert {c["category"] for c in cases} >= {"gold", "base", "hack"}
    excluded = {e["task"]: e["code"] for e in json.loads((out / "screening.json").read_text())["excluded"]}
    assert excluded == {f"swebench/{CORRUPT_ID}": "T", f"swebench/{NO_BASE_ID}": "T", f"swebench/{ENV_ID}": "V"}
    record = json.loads((out / "manifest.json").read_text())["build"]["sources"]["swebench"]
    assert [row.split(": ", 1)[1] for row in record["bad_rows"]] == [
        f"SWE-bench row {NO_FIELD_ID} lacks patch",
        f"SWE-bench row {BAD_TESTS_ID}: FAIL_TO_PASS/PASS_TO_PASS must be a list of test names, got not a JSON list"]


def test_nothing_half_built_is_kept(bad_build):
    _, out, env_root = bad_build
    tasks = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    # The suite carries its tasks' checkouts and nothing else: none of an excluded instance, no staging directory.
    assert sorted(p.name for p in (out / "checkouts").iterdir()) == [tasks[0]["reference"]["checkout"]]
    # The failed environment left its log (named in the line) and no directory, finished or staging.
    assert [p.name for p in env_root.iterdir() if p.is_dir()] == []
    (log,) = env_root.glob(".django__django-3.0-*.log")
    assert UNINSTALLABLE in log.read_text()
    assert not list(out.parent.rglob(".staging-*")) and not list(out.parent.rglob("*.partial"))


def test_a_build_whose_every_instance_is_excluded_says_so(bad_build, traversable_tmp):
    """The error named no reason at all ("no source could be built: ") when the source ran but kept nothing."""
    root = traversable_tmp / "bad-input"
    env = {**os.environ, "PIP_NO_INDEX": "1", "VERIFIERBENCH_SWEBENCH_COPY": ""}
    done = subprocess.run([str(BIN), "build", "--out", str(root / "nothing"), "--source", "swebench", "--swebench-instances",
                           str(root / "data" / "instances.jsonl"), "--swebench-repos", str(root / "data" / "repos"),
                           "--swebench-ids", NO_BASE_ID], capture_output=True, text=True, timeout=600, env=env, cwd=root)
    assert done.returncode != 0
    screening = root / "nothing" / "screening.json"
    assert f"no source could be built: swebench: every task was excluded (T; evidence in {screening})" in done.stderr, \
        done.stderr[-2000:]
    # The exclusion's evidence is kept (it was lost before), and nothing that looks like a suite is written.
    (excluded,) = json.loads(screening.read_text())["excluded"]
    assert excluded["task"] == f"swebench/{NO_BASE_ID}" and excluded["code"] == "T"
    assert sorted(p.name for p in (root / "nothing").iterdir()) == ["screening.json"]


def test_an_instance_named_twice_is_a_one_line_error(traversable_tmp):
    """`--swebench-ids A,A` built A twice (the suite kept one); it is refused before anything is built or read: with
    neither the offline copy nor the dataset hub (offline), the error is still this one."""
    out = traversable_tmp / "twice"
    env = {k: v for k, v in os.environ.items() if k != "VERIFIERBENCH_SWEBENCH_INSTANCES"}
    env.update(VERIFIERBENCH_SWEBENCH_COPY="", HF_HUB_OFFLINE="1")
    done = subprocess.run([str(BIN), "build", "--out", str(out), "--source", "swebench", "--swebench-ids",
                           f"{INSTANCE_ID},{NO_BASE_ID}, {INSTANCE_ID}"], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode != 0 and not out.exists()
    assert f"--swebench-ids: {INSTANCE_ID} is named 2 times; name each instance once" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
