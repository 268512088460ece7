"""Python 3.9 for code tasks whose gold patch does not resolve on this machine's Python 3.11 (issue #16): a Debian
bullseye root file system made once with debootstrap, whose python3.9 the test environments' venvs point into.

Measured 2026-12-02 (load 3-5): debootstrap 128 s; django__django-11292 (argparse's 3.11 error wording) and
django__django-13212 (Debian 3.11.2's bracketed-host check in urlsplit) resolve on 3.9, their empty diffs do not.

The root file system is made as root in a staging directory renamed into place when debootstrap succeeded, so a
failure leaves nothing; it is owned by root and not writable by others. Test runs see it read-only at the same path,
and its python3.9 runs with the host's C library: only the libraries the host lacks (libssl1.1, libffi7, ...) are
linked from the root file system into the environment (`link_missing_libraries`), found on LD_LIBRARY_PATH.

matplotlib 3.4 runs here too (profile "new-py39", `extensions`): its extensions are compiled with the host's compiler
against the root file system's python3.9-dev headers, which a root file system made before they were in `PACKAGES`
gets from its own apt sources (`ensure_headers`, about 30 s).
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Callable

from verifierbench.core import safe_fs
from verifierbench.core.errors import UserError

SWITCH_ENV = "VERIFIERBENCH_PY39_FALLBACK"  # "0": never try Python 3.9 (the build excludes with code S as before)
ROOTFS_ENV = "VERIFIERBENCH_ROOTFS_PY39"
DEFAULT_ROOTFS = "/var/tmp/verifierbench/rootfs-bullseye-py39"
PYTHON_IN_ROOTFS = "usr/bin/python3.9"
# debootstrap does not resolve python3.9-venv's virtual dependency; python3.9-dev: the headers matplotlib 3.4's
# extensions are compiled against (`ensure_headers` adds them to a root file system made before)
PACKAGES = "python3.9,python3.9-venv,python3-distutils,python3.9-dev"
HEADERS_IN_ROOTFS = "usr/include/python3.9/Python.h"
HEADERS_PACKAGE = "python3.9-dev"
APT_TIMEOUT_S = 900
MIRROR = "http://deb.debian.org/debian"
LIB_DIRS = ("usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu")
DEBOOTSTRAP_TIMEOUT_S = 1800
# Test requirements with no wheel for 3.9 that need a compiler the root file system lacks: optional for the tests
# (django skips the memcached and watchman tests without them).
NEEDS_COMPILER = ("pywatchman", "pylibmc")


class RootfsError(UserError):
    """The root file system could not be made (the instance is excluded with code V and this reason)."""


def enabled() -> bool:
    return os.environ.get(SWITCH_ENV, "1") != "0"


def rootfs() -> Path:
    return Path(os.environ.get(ROOTFS_ENV) or DEFAULT_ROOTFS)


def python() -> Path:
    return rootfs() / PYTHON_IN_ROOTFS


def ensure_rootfs(say: Callable[[str], None], mirror: str = MIRROR) -> Path:
    """The root file system, made first if missing (one maker at a time, across processes)."""
    target = rootfs()
    try:  # the way to it: ours or root's and writable by no one else (its interpreter runs every 3.9 test)
        safe_fs.trusted_store(target.parent)
    except safe_fs.UntrustedStore as exc:
        raise RootfsError(f"Python 3.9 root file system {target}: {exc}; set ${ROOTFS_ENV} to a directory of yours") from None
    if (target / PYTHON_IN_ROOTFS).is_file():
        return _trusted(target)
    if os.geteuid() != 0:
        raise RootfsError(f"Python 3.9 root file system {target} is missing and only root can make it (debootstrap)")
    if not shutil.which("debootstrap"):
        raise RootfsError("Python 3.9 root file system: debootstrap is not installed (as root: apt-get install debootstrap)")
    with os.fdopen(safe_fs.open_store_file(target.parent, f".{target.name}.lock"), "w") as lock:  # never through a link
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / PYTHON_IN_ROOTFS).is_file():
            return target
        staging = target.parent / f".staging-{target.name}"
        shutil.rmtree(staging, ignore_errors=True)
        say(f"build: swebench: making the Python 3.9 root file system {target} (debootstrap bullseye) ...")
        started = time.monotonic()
        try:
            staging.mkdir(mode=0o755)
            done = subprocess.run(["debootstrap", "--variant=minbase", f"--include={PACKAGES}", "bullseye", str(staging), mirror],
                                  capture_output=True, text=True, timeout=DEBOOTSTRAP_TIMEOUT_S)
            if done.returncode != 0 or not (staging / PYTHON_IN_ROOTFS).is_file():
                tail = " | ".join((done.stdout + done.stderr).strip().splitlines()[-3:])
                raise RootfsError(f"debootstrap bullseye failed (exit {done.returncode}): {tail[-300:]}")
            shutil.rmtree(staging / "debootstrap", ignore_errors=True)
            os.chmod(staging, 0o755)
            shutil.rmtree(target, ignore_errors=True)  # a directory without python3.9 is not a root file system
            os.rename(staging, target)
        except subprocess.TimeoutExpired as e:
            shutil.rmtree(staging, ignore_errors=True)
            raise RootfsError(f"debootstrap bullseye timed out after {DEBOOTSTRAP_TIMEOUT_S} s") from e
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        say(f"build: swebench: made the Python 3.9 root file system in {time.monotonic() - started:.0f} s")
        return target


def ensure_headers(root: Path, say: Callable[[str], None]) -> None:
    """The root file system's Python headers (python3.9-dev), installed from its own apt sources (bullseye) when a
    root file system made without them lacks them: only files are added, its interpreter stays as it was.

    Raises:
        RootfsError: they are missing and cannot be installed here (not root, or apt failed).
    """
    if (root / HEADERS_IN_ROOTFS).is_file():
        return
    if os.geteuid() != 0:
        raise RootfsError(f"Python 3.9 root file system {root} has no Python headers and only root can add them "
                          f"(chroot {root} apt-get install {HEADERS_PACKAGE})")
    with os.fdopen(safe_fs.open_store_file(root.parent, f".{root.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (root / HEADERS_IN_ROOTFS).is_file():
            return
        say(f"build: swebench: adding {HEADERS_PACKAGE} to the Python 3.9 root file system {root} ...")
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive"}
        for argv in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "--no-install-recommends", HEADERS_PACKAGE],
                     ["apt-get", "clean"]):
            try:
                done = subprocess.run(["chroot", str(root), *argv], capture_output=True, text=True, env=env, timeout=APT_TIMEOUT_S)
            except subprocess.TimeoutExpired as e:
                raise RootfsError(f"adding {HEADERS_PACKAGE} to {root} timed out after {APT_TIMEOUT_S} s") from e
            if done.returncode != 0:
                tail = " | ".join((done.stdout + done.stderr).strip().splitlines()[-3:])
                raise RootfsError(f"adding {HEADERS_PACKAGE} to {root} failed at `{' '.join(argv)}`: {tail[-300:]}")
        if not (root / HEADERS_IN_ROOTFS).is_file():
            raise RootfsError(f"{HEADERS_PACKAGE} installed in {root}, but {HEADERS_IN_ROOTFS} is not there")


def _trusted(target: Path) -> Path:
    """Test runs execute its interpreter: it must be root's and not writable by others (when we are root)."""
    if os.geteuid() == 0:
        for path in (target, target / "usr", target / "usr/bin", target / PYTHON_IN_ROOTFS):
            info = os.stat(path)
            if info.st_uid != 0 or info.st_mode & 0o022:
                raise RootfsError(f"Python 3.9 root file system {target}: {path} is not root's or is writable by others")
    return target


def python_version() -> str:
    done = subprocess.run([str(python()), "-c", "import platform; print(platform.python_version())"], capture_output=True,
                          text=True)
    return done.stdout.strip() or "unknown"


def missing_libraries(root: Path) -> dict[str, Path]:
    """Shared libraries the interpreter's modules need that the host lacks (soname -> the file in the root file
    system), by ldd, transitively."""
    found: dict[str, Path] = {}
    queue = [root / PYTHON_IN_ROOTFS, *sorted((root / "usr/lib/python3.9/lib-dynload").glob("*.so"))]
    while queue:
        done = subprocess.run(["ldd", str(queue.pop())], capture_output=True, text=True)
        for soname in re.findall(r"^\s*(\S+) => not found", done.stdout, re.M):
            if soname in found:
                continue
            for lib_dir in LIB_DIRS:
                if (root / lib_dir / soname).exists():
                    found[soname] = root / lib_dir / soname
                    queue.append(found[soname])
                    break
    return found


def link_missing_libraries(root: Path, directory: Path) -> list[str]:
    """Links the libraries the host lacks into `directory` (the environment's LD_LIBRARY_PATH); their sonames."""
    directory.mkdir(parents=True, exist_ok=True)
    libraries = missing_libraries(root)
    for soname, path in libraries.items():
        (directory / soname).symlink_to(path)
    return sorted(libraries)


def requirements_for_39(text: str) -> str:
    """The requirements file without the optional packages that need a compiler on 3.9 (`NEEDS_COMPILER`)."""
    kept = [line for line in text.splitlines()
            if re.split(r"[\s;<>=!~\[]", line.strip(), maxsplit=1)[0].lower() not in NEEDS_COMPILER]
    return "\n".join(kept) + "\n"


def choose(gold_311_resolves: bool, try_39: Callable[[], tuple[bool, bool]]) -> str:
    """The Python a code task runs on: "3.11" when its gold resolves there; else "3.9" when, in the 3.9 environment
    (`try_39()` makes it and returns (gold resolves, empty diff resolves)), the gold resolves and the empty diff does
    not; else "" (excluded as before). Nothing is made for an instance whose gold resolves on 3.11.

    Args:
        gold_311_resolves: SWE-bench's grading of the gold run on 3.11.
        try_39: makes (or reuses) the 3.9 environment and runs the gold and the empty diff there.
    """
    if gold_311_resolves:
        return "3.11"
    if not enabled():
        return ""
    gold_39, empty_39 = try_39()
    return "3.9" if gold_39 and not empty_39 else ""
