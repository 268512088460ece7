"""A memory cgroup per sandbox uid: a cap on everything one sandbox holds, kernel and socket memory included.

RLIMIT_AS caps each process's address space, not what the kernel keeps for it: unix socket buffers filled
from many processes held 1.7 GiB of host memory under a 2 GiB RLIMIT_AS per process (issue 35). A memory
cgroup charges those pages (slab, socket buffers, tmpfs pages) to the sandbox, and at its limit the kernel's
OOM killer ends a process of that sandbox only: its case comes back U (killed), the host keeps the rest.

One cgroup per sandbox uid (an executor slot's, a generation sandbox's), made at its first spawn and reused
for every later one: making and removing one per case would cost the warm path (executor.warm), and the slot's
cases run one at a time anyway. The sandbox is born in it, before it runs anything: on cgroup v1 the spawning
thread alone enters the cgroup for the fork (`thread_in`; v1 moves single threads, and charges memory by the
process's owner, so the harness's own memory stays where it was); on v2, and for asyncio spawns (whose thread runs
other tasks meanwhile), the spawn starts as root in a tiny shell that writes its own pid into the cgroup and then
execs setpriv, which drops to the sandbox uid (`enter_argv`, `isolation.started_as`). The uid cannot write the cgroup's files, so it cannot
leave it or raise its limit.

Both hierarchies are handled: cgroup v1 (a `memory` mount; memory.limit_in_bytes, which on current kernels
counts kernel memory too) and v2 (memory.max, with memory.swap.max 0). The cgroups live below the harness's
own cgroup, in `verifierbench-<pid>`, removed when the process ends (`release`) and swept by the next harness
when a killed one left them. A process that makes cgroups in its own (a run_public worker, in a named one, running a
code task's tests in sandboxes) makes them below it; killed, it cannot remove them, so every removal takes the whole
tree, deepest first (a cgroup with one below it is busy, and left every named one behind: issue 51).

Fallback, documented in docs: where neither is available or writable (not root, a read-only /sys/fs/cgroup, v2
without a delegated memory controller), sandboxes run with RLIMIT_AS only and the executor logs it once;
`VERIFIERBENCH_MEMCG=0` asks for that fallback.
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from verifierbench.executor.isolation import SETPRIV  # what drops a sandbox to its uid after the shell (started_as)

logger = logging.getLogger(__name__)

SWITCH = "VERIFIERBENCH_MEMCG"  # "0": no memory cgroups (RLIMIT_AS only)
PREFIX = "verifierbench-"  # then the harness's pid
# The spawned shell's script: $0 is the cgroup's procs file, then the command (setpriv's, for a sandbox).
ENTER = 'echo $$ > "$0" && exec "$@"'
ENDING_S = 2.0  # how long a removal waits for the processes it killed to leave their cgroups


@dataclass(frozen=True)
class Hierarchy:
    version: int  # 1 or 2
    own: Path  # the harness's own cgroup directory in that hierarchy


def enabled() -> bool:
    return os.environ.get(SWITCH, "").strip() != "0"


@functools.lru_cache(maxsize=1)
def hierarchy() -> Hierarchy | None:
    """Where this process's memory cgroup is, when we can make cgroups below it; None: the fallback."""
    if os.geteuid() != 0 or not os.path.exists(SETPRIV):
        return None
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = [line.split() for line in Path("/proc/self/mounts").read_text().splitlines()]
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            for fields in mounts:
                if fields[2] == "cgroup" and "memory" in fields[3].split(","):
                    own = Path(fields[1]) / path.lstrip("/")
                    if (own / "memory.limit_in_bytes").exists() and os.access(own, os.W_OK):
                        return Hierarchy(1, own)
    for line in lines:
        if line.startswith("0::"):
            for fields in mounts:
                if fields[2] == "cgroup2":
                    own = Path(fields[1]) / line[3:].lstrip("/")
                    if _v2_ready(own):
                        return Hierarchy(2, own)
    return None


def _v2_ready(own: Path) -> bool:
    """Whether cgroups below `own` can get the memory controller (v2 lets a cgroup with processes of its own have no
    controlled children, so the harness's cgroup must delegate it already, e.g. a systemd unit with Delegate=yes)."""
    try:
        if "memory" not in (own / "cgroup.controllers").read_text().split():
            return False
        if "memory" not in (own / "cgroup.subtree_control").read_text().split():
            (own / "cgroup.subtree_control").write_text("+memory")
        return os.access(own, os.W_OK)
    except OSError:
        return False


# Re-entrant: the SIGTERM/SIGHUP handler (runner._close_and_end) calls `release` on the main thread between any two
# bytecodes, maybe while that same thread holds this lock (making a cgroup): a plain Lock hung the process for good.
_lock = threading.RLock()
_made: dict[int | str, Path] = {}  # sandbox uid (or a named group's name, `cgroup_named`) -> its cgroup
_swept = False


def _parent(found: Hierarchy) -> Path:
    global _swept
    parent = found.own / f"{PREFIX}{os.getpid()}"
    if not _swept:
        _swept = True
        sweep(found.own)
        atexit.register(release)
    if not parent.is_dir():
        parent.mkdir(mode=0o755)
        if found.version == 2:
            (parent / "cgroup.subtree_control").write_text("+memory")
    return parent


def cgroup_for(uid: int, limit_bytes: int) -> Path | None:
    """The procs file of sandbox uid `uid`'s memory cgroup, capped at `limit_bytes` (made at first use, its limit
    kept up to date); None when memory cgroups are unavailable (RLIMIT_AS only)."""
    return _group(uid, f"uid-{uid}", limit_bytes)


def cgroup_named(name: str, limit_bytes: int) -> Path | None:
    """The procs file of a memory cgroup of the harness's own processes that serve untrusted requests (a run_public
    worker: public_env.pool), capped at `limit_bytes`; None when memory cgroups are unavailable. `forget(name)` removes
    it once its processes have ended. Spawn into it with `enter_argv(procs, None, argv)`."""
    return _group(name, f"named-{name}", limit_bytes)


def _group(key: int | str, directory: str, limit_bytes: int) -> Path | None:
    found = hierarchy() if enabled() else None
    if found is None:
        return None
    with _lock:
        try:
            group = _made.get(key)
            if group is None:
                group = _parent(found) / directory
                group.mkdir(mode=0o755, exist_ok=True)
                _made[key] = group
            _set_limit(found.version, group, limit_bytes)
        except OSError as exc:
            logger.warning("no memory cgroup %s (%s): RLIMIT_AS only", directory, exc)
            return None
    return group / "cgroup.procs"


def _set_limit(version: int, group: Path, limit_bytes: int) -> None:
    if version == 1:
        current = (group / "memory.limit_in_bytes").read_text().strip()
        if current != str(limit_bytes):
            (group / "memory.limit_in_bytes").write_text(str(limit_bytes))
            if (group / "memory.memsw.limit_in_bytes").exists():  # no escape into swap either
                (group / "memory.memsw.limit_in_bytes").write_text(str(limit_bytes))
    else:
        if (group / "memory.max").read_text().strip() != str(limit_bytes):
            (group / "memory.max").write_text(str(limit_bytes))
            if (group / "memory.swap.max").exists():
                (group / "memory.swap.max").write_text("0")


@contextmanager
def thread_in(procs_file: Path) -> Iterator[bool]:
    """cgroup v1 only: the calling thread in the cgroup of `procs_file` while the block runs, so a child it forks
    there is born in it (with no exec in between: the cold path's spawn stays as fast as before); then back in the
    harness's own. Yields False (nothing moved) on v2, where only whole processes move: use `enter_argv` there."""
    found = hierarchy()
    if found is None or found.version != 1:
        yield False
        return
    tid = str(threading.get_native_id())
    (procs_file.parent / "tasks").write_text(tid)  # v1's tasks file moves one thread, cgroup.procs the whole process
    try:
        yield True
    finally:
        (found.own / "tasks").write_text(tid)


def enter_argv(procs_file: Path, argv: list[str]) -> list[str]:
    """`argv` started as root in the cgroup whose procs file is `procs_file`: a sandbox's argv drops to its uid itself
    (setpriv: isolation.started_as); a harness-side worker's runs as the caller."""
    return ["/bin/sh", "-c", ENTER, str(procs_file), *argv]


def peak_bytes(uid: int | str) -> int | None:
    """The most memory sandbox uid `uid`'s cgroup has held (tests and measurements), or None."""
    group = _made.get(uid)
    if group is None:
        return None
    for name in ("memory.max_usage_in_bytes", "memory.peak"):
        if (group / name).exists():
            return int((group / name).read_text())
    return None


def forget(uid: int | str) -> None:
    """Removes sandbox uid `uid`'s cgroup (or a named group's), and any below it, once its sandbox is gone for good (a
    generation sandbox's at its end, a run_public worker's once killed); a later spawn as that uid makes a new one."""
    with _lock:
        group = _made.pop(uid, None)
    if group is not None:
        _end_processes(group)
        if _remove(group):  # a process of it that would not end: `release` tries again at exit, and reports it
            logger.debug("memory cgroup %s not removed yet", group)


def release() -> None:
    """Removes this process's cgroups at its end: every process still in one (a sandbox or run_public worker that
    outlived its executor or service) is killed first. What cannot be removed is reported in one line."""
    found = hierarchy()
    if found is None:
        return
    parent = found.own / f"{PREFIX}{os.getpid()}"
    with _lock:
        _made.clear()
        if parent.is_dir():
            _end_processes(parent)
            _report(_remove(parent), parent)


def sweep(own: Path) -> list[str]:
    """Removes the cgroups of harnesses that no longer run (killed ones leave theirs), and all below them. Their
    processes are left alone: a cgroup one still holds stays, reported in one line."""
    removed, left = [], []
    for entry in own.glob(f"{PREFIX}*"):
        pid = entry.name[len(PREFIX):]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            not_removed = _remove(entry)
            left += not_removed
            if not not_removed:
                removed.append(str(entry))
    _report(left, own)
    return removed


def _remove(top: Path) -> list[str]:
    """Removes `top` and every cgroup below it, deepest first (a cgroup with one below it is busy: a run_public worker,
    in a cgroup of ours, makes its own sandboxes' cgroups below that one, and cannot remove them once killed). Returns
    each cgroup not removed, with why."""
    left = []
    for directory, _, _ in os.walk(top, topdown=False):  # cgroup directories go with rmdir (their files are not files)
        try:
            os.rmdir(directory)
        except FileNotFoundError:
            pass
        except OSError as exc:
            left.append(f"{directory} ({exc.strerror})")
    return left


def _report(left: list[str], where: Path) -> None:
    if left:
        logger.warning("%d memory cgroup(s) not removed below %s: %s", len(left), where, "; ".join(left[:2])
                       + (" ..." if len(left) > 2 else ""))


def _end_processes(top: Path) -> None:
    """Kills every process in a cgroup at or below `top` but this one (whose threads may be in one: `thread_in`), and
    waits up to ENDING_S for them to leave (a process killed but not yet exited keeps its cgroup busy; a zombie does
    not)."""
    deadline = time.monotonic() + ENDING_S
    while pids := _processes(top) - {os.getpid()}:
        for pid in pids:
            _kill_if_in(pid, top)
        if time.monotonic() > deadline:
            return
        time.sleep(0.01)


def _processes(top: Path) -> set[int]:
    found: set[int] = set()
    for directory, _, _ in os.walk(top):
        try:
            found.update(int(pid) for pid in (Path(directory) / "cgroup.procs").read_text().split())
        except OSError:  # removed meanwhile
            pass
    return found


def _kill_if_in(pid: int, top: Path) -> None:
    """SIGKILL to `pid` if it is still a process of `top`'s tree once pinned (a pidfd), never to a process that took
    its number meanwhile."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:  # ended
        return
    try:
        if pid in _processes(top):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(pidfd)
