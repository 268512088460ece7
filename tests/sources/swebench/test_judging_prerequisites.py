"""What judging a code task needs beyond its checkout (sources/swebench/prerequisites.py), named in one line when the
task is created (harness/prerequisites.py): the Debian packages its test environment is built with, and the Python 3.9
root file system, when the environment is not made yet. Through `inspect eval`, tests/harness/test_prerequisites.py
shows the missing checkout's line; these are the same check's other branches."""

from __future__ import annotations

import dataclasses

from verifierbench.core.errors import UserError
from verifierbench.harness import prerequisites as harness_prerequisites
from verifierbench.core.schema import Task
from verifierbench.sources.swebench import extensions, python39_rootfs, venv_store
from verifierbench.suite.store import load_suite


def code_task(suite, environment: dict) -> Task:
    """The fixture's code task (found in its suite's checkouts), as if its tests ran in this environment."""
    (task,) = load_suite(suite).tasks.values()
    return task.model_copy(update={"reference": {**task.reference, "environment": environment}})


def problem_named(task: Task) -> str:
    try:
        harness_prerequisites.check("default", "vgb", [task])
    except UserError as exc:
        return str(exc)
    raise AssertionError("no prerequisite named")


def test_an_environment_not_made_whose_build_packages_are_missing_is_one_line(code_suite, monkeypatch, tmp_path):
    needs = (("/nonexistent/libqhull_r/qhull_ra.h", "libqhull-dev"), ("sh", "dash"))  # one missing, one there
    monkeypatch.setitem(extensions.RECIPES, extensions.MATPLOTLIB,
                        dataclasses.replace(extensions.RECIPES[extensions.MATPLOTLIB], system_needs=lambda version: needs))
    monkeypatch.setenv(venv_store.ROOT_ENV, str(tmp_path / "no-envs"))
    monkeypatch.delenv(venv_store.SHARED_ENV, raising=False)
    message = problem_named(code_task(code_suite, {"repo": extensions.MATPLOTLIB, "version": "3.5"}))
    assert "\n" not in message
    assert message.endswith("its matplotlib/matplotlib 3.5 test environment is not made yet and making it needs Debian "
                            "packages this machine lacks (as root: apt-get install --no-install-recommends libqhull-dev)")


def test_a_python_3_9_environment_without_its_root_file_system_is_one_line(code_suite, monkeypatch, tmp_path):
    monkeypatch.setenv(python39_rootfs.ROOTFS_ENV, str(tmp_path / "no-rootfs"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no debootstrap on it
    message = problem_named(code_task(code_suite, {"repo": "vgb-fixtures/httpdate", "version": "1", "python": "3.9"}))
    assert "\n" not in message and f"the Python 3.9 root file system {tmp_path / 'no-rootfs'} is missing and " in message
    assert "only root can make it" in message or "debootstrap is not installed (apt-get install debootstrap)" in message


def test_a_python_3_9_matplotlib_environment_names_its_build_packages_once_the_root_is_there(code_suite, monkeypatch, tmp_path):
    # matplotlib 3.4 runs on 3.9 (issue 55): the root file system being there is not all its environment needs.
    root = tmp_path / "rootfs"
    (root / "usr/bin").mkdir(parents=True)
    (root / python39_rootfs.PYTHON_IN_ROOTFS).write_text("")
    monkeypatch.setenv(python39_rootfs.ROOTFS_ENV, str(root))
    needs = (("/nonexistent/libqhull_r/qhull_ra.h", "libqhull-dev"),)
    monkeypatch.setitem(extensions.RECIPES, extensions.MATPLOTLIB,
                        dataclasses.replace(extensions.RECIPES[extensions.MATPLOTLIB], system_needs=lambda version: needs))
    monkeypatch.setenv(venv_store.ROOT_ENV, str(tmp_path / "no-envs"))
    monkeypatch.delenv(venv_store.SHARED_ENV, raising=False)
    message = problem_named(code_task(code_suite, {"repo": extensions.MATPLOTLIB, "version": "3.4", "python": "3.9"}))
    assert message.endswith("its matplotlib/matplotlib 3.4 test environment is not made yet and making it needs Debian "
                            "packages this machine lacks (as root: apt-get install --no-install-recommends libqhull-dev)")
