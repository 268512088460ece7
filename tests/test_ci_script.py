""".ci/run as CI runs it, with the Docker engine's script and the test runner stood in for: as root on Debian, an
engine that cannot start fails CI with its reason before any test runs, instead of a green run without Docker."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, root_only

pytestmark = [root_only("the rule is for root on Debian (what CI is)"),
              pytest.mark.skipif(not Path("/etc/debian_version").is_file(),
                                 reason="root: the rule is for root on Debian (what CI is); this is not Debian")]

ENGINE = """#!/usr/bin/env bash
case "$1" in status) exit 1 ;; start) echo "starting"; echo "dockerd: cgroup mount refused" >&2; exit 1 ;; esac
"""
TESTS = """#!/usr/bin/env bash
echo "tests ran with VERIFIERBENCH_REQUIRE=$VERIFIERBENCH_REQUIRE" > "$(dirname "$0")/../ran"
"""


def copy_of_ci(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    shutil.copytree(REPO_ROOT / ".ci", root / ".ci")
    (root / "scripts" / "docker-engine.sh").write_text(ENGINE)
    (root / "scripts" / "test.sh").write_text(TESTS)
    (root / "scripts" / "check_eval_logs.py").write_text("")
    (root / "scripts" / "bootstrap.sh").write_text("")
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "python").symlink_to("/usr/bin/python3")
    return root


def test_an_engine_that_cannot_start_fails_ci_with_its_reason(tmp_path):
    root = copy_of_ci(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERIFIERBENCH_")}
    result = subprocess.run(["bash", str(root / ".ci" / "run")], capture_output=True, text=True, timeout=60, env={**env, "CI": "1"})
    assert result.returncode == 1 and "cgroup mount refused" in result.stderr, (result.stdout, result.stderr)
    assert not (root / "ran").exists()


def test_the_documented_override_runs_the_tests_without_docker(tmp_path):
    root = copy_of_ci(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERIFIERBENCH_")}
    result = subprocess.run(["bash", str(root / ".ci" / "run")], capture_output=True, text=True, timeout=60,
                            env={**env, "CI": "1", "VERIFIERBENCH_CI_ALLOW_NO_DOCKER": "1"})
    assert result.returncode == 0, result.stderr
    assert (root / "ran").read_text().strip() == "tests ran with VERIFIERBENCH_REQUIRE=sandbox,data,packages,browser,rootfs-py39,ray"
    # Beside ../shared (the offline SWE-bench copy, as CI runs), its tests are required too.
    (tmp_path / "shared").mkdir()
    result = subprocess.run(["bash", str(root / ".ci" / "run")], capture_output=True, text=True, timeout=60,
                            env={**env, "CI": "1", "VERIFIERBENCH_CI_ALLOW_NO_DOCKER": "1"})
    assert result.returncode == 0, result.stderr
    assert (root / "ran").read_text().strip().endswith("VERIFIERBENCH_REQUIRE=sandbox,data,packages,browser,rootfs-py39,ray,swebench-copy")


def test_a_passed_run_removes_its_temporary_files_and_a_failed_one_keeps_them(tmp_path):
    root = copy_of_ci(tmp_path)
    # The stand-in test runner writes into --basetemp, as pytest does, and exits with $STUB_STATUS.
    (root / "scripts" / "test.sh").write_text('#!/usr/bin/env bash\nwhile [ "$1" != --basetemp ]; do shift; done\n'
                                              'echo log > "$2/eval.log"\nexit "${STUB_STATUS:-0}"\n')
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERIFIERBENCH_")}
    env = {**env, "CI": "1", "VERIFIERBENCH_CI_ALLOW_NO_DOCKER": "1", "TMPDIR": str(temp)}
    passed = subprocess.run(["bash", str(root / ".ci" / "run")], capture_output=True, text=True, timeout=60, env=env)
    assert passed.returncode == 0, passed.stderr
    assert list(temp.glob("verifierbench-ci.*")) == []
    failed = subprocess.run(["bash", str(root / ".ci" / "run")], capture_output=True, text=True, timeout=60,
                            env={**env, "STUB_STATUS": "1"})
    assert failed.returncode == 1
    (kept,) = temp.glob("verifierbench-ci.*")
    assert (kept / "eval.log").is_file() and f"kept in {kept}" in failed.stdout
