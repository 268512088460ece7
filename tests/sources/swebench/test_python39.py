"""The Python 3.9 fallback (`python39_rootfs`, issue #16): a code task whose gold does not resolve on Python 3.11 runs on
3.9 if and only if the gold resolves there and the empty diff does not. The decision is tested with fake environment
makers and runs (no debootstrap); one test builds django__django-11292 (argparse's 3.11 wording breaks its
PASS_TO_PASS) through the CLI when the bullseye root file system exists."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import _build, root_only, SHARED, skip_unless_required
from verifierbench.sources.swebench import instance_build, python39_rootfs, venv_store
from verifierbench.sources.swebench.build_profile import BuildProfile
from verifierbench.sources.swebench.testrun import TestRun


def test_gold_resolving_on_311_stays_on_311_and_makes_nothing():
    def try_39():
        raise AssertionError("no 3.9 environment for an instance whose gold resolves on 3.11")
    assert python39_rootfs.choose(True, try_39) == "3.11"


@pytest.mark.parametrize("gold_39, empty_39, chosen", [(True, False, "3.9"), (False, False, ""), (True, True, "")])
def test_39_only_when_its_gold_resolves_and_its_empty_diff_does_not(gold_39, empty_39, chosen):
    assert python39_rootfs.choose(False, lambda: (gold_39, empty_39)) == chosen


def test_switched_off_the_fallback_tries_nothing(monkeypatch):
    monkeypatch.setenv(python39_rootfs.SWITCH_ENV, "0")
    assert python39_rootfs.choose(False, lambda: (_ for _ in ()).throw(AssertionError("tried 3.9"))) == ""


def test_requirements_without_the_packages_needing_a_compiler():
    text = "argon2-cffi >= 16.1.0\npylibmc; sys.platform != 'win32'\npywatchman; sys.platform != 'win32'\nPyYAML\n"
    assert python39_rootfs.requirements_for_39(text) == "argon2-cffi >= 16.1.0\nPyYAML\n"


def _fake_build(monkeypatch, outcomes: dict[str, bool], make_fails: bool = False) -> list[str]:
    """build's collaborators replaced: `outcomes` maps (python, diff) to SWE-bench's verdict; returns what was made."""
    made: list[str] = []

    def ensure_rootfs(say):
        if make_fails:
            raise python39_rootfs.RootfsError("debootstrap bullseye failed (exit 1): E: no mirror")
        made.append("rootfs")
        return Path("/nonexistent-rootfs")

    monkeypatch.setattr(python39_rootfs, "ensure_rootfs", ensure_rootfs)
    monkeypatch.setattr(instance_build, "checkout_dir", lambda digest: Path("/nonexistent-checkout"))
    monkeypatch.setattr(venv_store, "spec_for", lambda repo, version, checkout, python="3.11": ("spec", python))
    monkeypatch.setattr(venv_store, "ensure", lambda spec, checkout, say=None: made.append(f"env {spec[1]}"))
    monkeypatch.setattr(instance_build, "hidden_run", lambda reference, diff, reuse=False: TestRun(
        True, exit_code=0 if outcomes[(reference["environment"].get("python", "3.11"), diff)] else 1))
    monkeypatch.setattr(instance_build.grading, "upstream_resolved", lambda run, f2p, p2p, runner="pytest": run.exit_code == 0)
    return made


def _fallback(gold_outcomes_311=None):
    inst = type("Inst", (), {"instance_id": "django__django-1", "repo": "django/django", "version": "3.0", "patch": "GOLD",
                             "fail_to_pass": ["a"], "pass_to_pass": ["b"]})()
    reference = {"checkout": "digest", "environment": {"repo": "django/django", "version": "3.0"}}
    return instance_build.python_39_fallback(inst, reference, gold_outcomes_311 or {"a": "passed", "b": "failed"}, "django",
                                     BuildProfile(), lambda line: None)


def test_build_uses_39_and_records_why(monkeypatch):
    made = _fake_build(monkeypatch, {("3.9", "GOLD"): True, ("3.9", ""): False})
    environment, reference, gold_run, empty = _fallback()
    assert made == ["rootfs", "env 3.9"]
    assert environment["python"] == "3.9" and reference["environment"] is environment
    assert environment["why"] == {"gold_not_passing_on_3_11": {"b": "failed"}, "count": 1}
    assert gold_run.exit_code == 0 and empty.result().exit_code == 1


@pytest.mark.parametrize("gold_39, empty_39", [(False, False), (True, True)])
def test_build_keeps_the_311_exclusion_when_39_does_not_decide_it(monkeypatch, gold_39, empty_39):
    _fake_build(monkeypatch, {("3.9", "GOLD"): gold_39, ("3.9", ""): empty_39})
    assert _fallback() is None


def test_a_rootfs_that_cannot_be_made_is_a_reason_for_code_v(monkeypatch):
    made = _fake_build(monkeypatch, {}, make_fails=True)
    reason = _fallback()
    assert isinstance(reason, str) and "debootstrap bullseye failed" in reason and made == []


@root_only("making a root file system needs root")
def test_failed_debootstrap_leaves_nothing(monkeypatch, tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "debootstrap").write_text("#!/bin/sh\nmkdir -p \"$4/usr/bin\"; echo 'E: Failed getting release file' >&2; exit 1\n")
    (fake / "debootstrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    monkeypatch.setenv(python39_rootfs.ROOTFS_ENV, str(tmp_path / "rootfs"))
    with pytest.raises(python39_rootfs.RootfsError, match="Failed getting release file"):
        python39_rootfs.ensure_rootfs(lambda line: None)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".rootfs.lock", "bin"]


COPY = SHARED / "upstream" / "swebench"


@pytest.mark.sandbox
@pytest.mark.real_data
@pytest.mark.usefixtures("bwrap_available", "persistent_envs")
@pytest.mark.timeout(3600)
def test_real_11292_builds_on_python_39(traversable_tmp):
    if not (COPY / "instances.jsonl").is_file():
        skip_unless_required("swebench-copy", f"the offline SWE-bench Verified copy is not at {COPY}")
    try:  # made here if missing, as the build would: as root with debootstrap (bootstrap installs it), about 2 min once
        python39_rootfs.ensure_rootfs(print)
    except python39_rootfs.RootfsError as cannot:
        skip_unless_required("rootfs-py39", f"no bullseye root file system at {python39_rootfs.rootfs()}: {cannot}")
    suite = _build(traversable_tmp / "py39-suite", "--source", "swebench", "--swebench-ids", "django__django-11292", timeout=3000)
    tasks = [json.loads(line) for line in (suite / "tasks.jsonl").read_text().splitlines()]
    assert [t["source_id"] for t in tasks] == ["django__django-11292"]
    environment = tasks[0]["reference"]["environment"]
    assert environment["python"] == "3.9" and environment["why"]["count"] >= 1
    assert all(tasks[0]["reference"]["gold_outcomes"][t] == "passed" for t in tasks[0]["reference"]["FAIL_TO_PASS"])
