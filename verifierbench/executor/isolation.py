"""Which isolation this machine offers, and the refusal when it offers none.

Levels, recorded in every outcome:
- `bwrap`: bubblewrap as an unprivileged uid, no network, read-only system, fresh tmpfs scratch.
- `none`: rlimits and a separate process group only. Used only when the user opts in with
  `--allow-unsandboxed` or `VERIFIERBENCH_ALLOW_UNSANDBOXED=1`.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from enum import Enum
from typing import TypedDict

from verifierbench.core.errors import IsolationUnavailable
from verifierbench.executor import uid_range
from verifierbench.executor.bwrap import sandbox_command

ALLOW_ENV = "VERIFIERBENCH_ALLOW_UNSANDBOXED"
SETPRIV = "/usr/bin/setpriv"


class IsolationLevel(str, Enum):
    bwrap = "bwrap"
    none = "none"


def running_as_root() -> bool:
    return os.geteuid() == 0


class DropPrivileges(TypedDict, total=False):
    """subprocess keyword arguments that run the child as another uid."""

    user: int
    group: int
    extra_groups: list[int]


def drop_to(uid: int) -> DropPrivileges:
    """The child runs as `uid`, its group and no supplementary groups when we are root; as ourselves otherwise."""
    return {"user": uid, "group": uid, "extra_groups": []} if running_as_root() else {}


def started_as(uid: int, argv: list[str]) -> tuple[list[str], DropPrivileges]:
    """The command line and Popen keyword arguments that run `argv` as `uid` (when we are root; `drop_to`) and SIGKILL it
    when the thread that spawned it ends, from before bubblewrap starts. bwrap's --die-with-parent arms the signal in
    its monitor only after making the sandbox's namespaces: a harness killed before that (a Ray node removed mid-run)
    left bwrap running, reparented to init. setpriv (util-linux) drops the uid, then arms the signal (a uid change
    clears it), then execs `argv`; the signal outlives the exec of prlimit and bwrap, which are not set-uid. Without
    setpriv, Popen drops the uid and bwrap arms the signal itself, later.

    Args:
        uid: the unprivileged uid to run as (ignored when the harness is not root).
        argv: the host command (bwrap, or prlimit around it).
    """
    if not os.path.exists(SETPRIV):
        return argv, drop_to(uid)
    drop = [f"--reuid={uid}", f"--regid={uid}", "--clear-groups"] if running_as_root() else []
    return [SETPRIV, *drop, "--pdeathsig", "KILL", "--", *argv], {}


def slot_uid(slot: int, block: int = 0) -> int:
    """One unprivileged uid per parallel slot (no passwd entry needed), in this harness process's own range
    (executor.uid_range), in the executor's own block of it (`uid_range.take_block`; 0: the probes'). Non-root
    harnesses use their own."""
    if not running_as_root():
        return os.getuid()
    if not 0 <= slot < uid_range.BLOCK:
        raise IsolationUnavailable(f"slot {slot}: an executor has at most {uid_range.BLOCK} slots")
    return uid_range.base() + block * uid_range.BLOCK + slot


@functools.lru_cache(maxsize=1)
def probe_bwrap() -> tuple[bool, str]:
    """Starts one empty sandbox the way the executor does; (works, why not)."""
    if shutil.which("bwrap") is None:
        return False, "bubblewrap (bwrap) is not installed; `apt-get install bubblewrap` or run scripts/bootstrap.sh as root"
    if shutil.which("prlimit") is None:
        return False, "prlimit (util-linux) is not installed"
    try:
        uid = slot_uid(0)
    except IsolationUnavailable as exc:  # every uid range held by another harness
        return False, str(exc)
    cmd, drop = started_as(uid, sandbox_command(["/usr/bin/true"], binds=[], env={}))
    try:
        proc = subprocess.run(cmd, capture_output=True, timeout=20, process_group=0, **drop)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"bubblewrap could not start: {exc}"
    if proc.returncode != 0:
        tail = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return False, f"bubblewrap cannot create a sandbox here (user namespaces blocked?): {tail[0]}"
    return True, "ok"


def env_allows_unsandboxed() -> bool:
    return os.environ.get(ALLOW_ENV, "").strip().lower() in {"1", "true", "yes"}


def resolve_isolation(requested: str = "auto", allow_unsandboxed: bool = False) -> IsolationLevel:
    """The level to use, or IsolationUnavailable with the reason and how to opt in."""
    if requested not in ("auto", "bwrap", "none"):
        raise IsolationUnavailable(f"unknown isolation '{requested}' (choose auto, bwrap or none)")
    allowed = allow_unsandboxed or env_allows_unsandboxed()
    if requested == "none":
        if not allowed:
            raise IsolationUnavailable(
                f"isolation 'none' runs untrusted code unsandboxed; confirm with --allow-unsandboxed or {ALLOW_ENV}=1"
            )
        return IsolationLevel.none
    works, why = probe_bwrap()
    if works:
        return IsolationLevel.bwrap
    if requested == "auto" and allowed:
        return IsolationLevel.none
    raise IsolationUnavailable(
        f"refusing to run untrusted code without isolation: {why}. "
        f"To run it anyway (unsafe), pass --allow-unsandboxed or set {ALLOW_ENV}=1"
    )
