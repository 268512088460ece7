"""What judging and building SWE-bench tasks need on this machine beyond the package: the checkout, and what a test
environment is made from when it is not made yet (the Python 3.9 root file system, matplotlib's Debian build packages).
The source's `judging_problem` and `doctor_lines` (sources/base.py) answer with these."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from verifierbench.core.errors import UserError
from verifierbench.executor.isolation import running_as_root
from verifierbench.sources.swebench import checkout, extensions, python39_rootfs, venv_store


def code_task_problem(reference: dict[str, Any]) -> str | None:
    try:
        tree = checkout.checkout_dir(reference["checkout"])
    except UserError as exc:
        return str(exc)
    environment = reference.get("environment")
    if not environment:  # the harness's own pytest
        return None
    if environment.get("python") == "3.9":  # reference.environment_of makes the root file system first
        problem = rootfs_problem()
        if problem:
            return problem
    repo, version = environment["repo"], environment["version"]
    if not extensions.built_in_place(repo):
        return None
    missing = extensions.missing_system_packages(repo, version)
    # Only making the environment needs them, and a shared store may hand it over made (venv_store._copy_shared).
    if not missing or os.environ.get(venv_store.SHARED_ENV) or environment_made(environment, tree):
        return None
    return (f"its {repo} {version} test environment is not made yet and making it needs Debian packages this machine "
            f"lacks (as root: apt-get install --no-install-recommends {' '.join(missing)})")


def environment_made(environment: dict[str, Any], tree: Path) -> bool:
    """Whether the environment a task's record names is made in the store (`environment`: repo, version, ...)."""
    if not venv_store.root().is_dir():  # not made: and venv_store.store() would create the directory
        return False
    try:
        spec = venv_store.spec_of_environment(environment, tree)
    except venv_store.EnvironmentError_:
        return False
    return venv_store.env_dir(spec.key, spec) is not None


def rootfs_problem() -> str | None:
    """Whether the Python 3.9 root file system is there or can be made here (as python39_rootfs.ensure_rootfs does)."""
    root = python39_rootfs.rootfs()
    if (root / python39_rootfs.PYTHON_IN_ROOTFS).is_file():
        return None
    if os.geteuid() != 0:
        return (f"the Python 3.9 root file system {root} is missing and only root can make it (debootstrap; or set "
                f"${python39_rootfs.ROOTFS_ENV} to a made one)")
    if not shutil.which("debootstrap"):
        return (f"the Python 3.9 root file system {root} is missing and debootstrap is not installed "
                "(apt-get install debootstrap)")
    return None


def doctor_lines() -> list[str]:
    """One line per prerequisite of code tasks' builds: a Python 3.9 root file system (or what makes one), and the
    Debian packages matplotlib's extensions need. Reported, not required: a suite without those tasks needs neither."""
    root = python39_rootfs.rootfs()
    if (root / python39_rootfs.PYTHON_IN_ROOTFS).is_file():
        py39 = f"present at {root}"
    elif not python39_rootfs.enabled():
        py39 = f"missing at {root}, and off ({python39_rootfs.SWITCH_ENV}=0): instances needing 3.9 are excluded"
    elif not shutil.which("debootstrap"):
        py39 = (f"missing at {root}, and debootstrap is not installed: instances needing 3.9 are excluded "
                "(as root: apt-get install debootstrap, or set $VERIFIERBENCH_ROOTFS_PY39 to a made one)")
    elif not running_as_root():
        py39 = f"missing at {root}; only root can make it (debootstrap, about 2 minutes): build once as root"
    else:
        py39 = f"missing at {root}; debootstrap is installed: the first build needing it makes it (about 2 minutes)"
    missing = extensions.missing_system_packages(extensions.MATPLOTLIB, "3.5")  # 3.4 on: qhull too
    matplotlib = ("all present" if not missing else
                  f"missing {' '.join(missing)} (as root: apt-get install --no-install-recommends {' '.join(missing)})")
    return [f"code tasks, Python 3.9 root file system: {py39}", f"code tasks, matplotlib's build packages: {matplotlib}"]


def build_notes() -> list[str]:
    """The doctor lines of what this machine lacks, said when a build starts: an instance needing it (and whose test
    environment is not made yet) is excluded (V) when the walk reaches it, possibly hours in; this comes first."""
    return [f"{line}; an instance needing it is excluded (V) unless its environment is made" for line in doctor_lines()
            if not line.endswith(("all present",)) and ": present at " not in line]
