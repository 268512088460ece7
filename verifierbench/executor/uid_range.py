"""Each harness process's own range of sandbox uids, so two harnesses on one machine never share a uid.

Two harness processes running at once (two `inspect eval`s, a judge and an eval) would otherwise run
untrusted code under the same uids, and same-uid processes are not isolated from each other beyond their
namespaces (/proc, signals, files both can reach). A range is RANGE_SIZE uids: the executor's slot uids at
its start, the vgb sandbox's generation uids at GENERATION_OFFSET. The process claims the first free range
of RANGES, starting at POOL_BASE, with an exclusive flock on the range's claim file in a root-only
directory; the kernel drops the lock when the process dies, however it dies, so a crashed holder's range is
free again. Within a range each executor takes a BLOCK of its own (`take_block`), so two executors of one process (the
judge's and the test runs') never share a uid either. A range whose uids still own a process (a sandbox a dead holder left behind) is skipped.

`VERIFIERBENCH_SANDBOX_UID_BASE` pins the base instead: the operator then promises that no other pinned harness
uses those uids. A pinned base inside the pool holds a shared lock on the claim files of the ranges it overlaps, so
no claiming harness takes them while it runs (processes pinned to the same base, such as a test run and the
`inspect eval` it starts, share them), and it is refused while a claiming harness holds one. A harness that is not
root runs sandboxes as itself and claims nothing.
"""

from __future__ import annotations

import fcntl
import os
import stat
import threading
from pathlib import Path

from verifierbench.core.errors import IsolationUnavailable

BASE_ENV = "VERIFIERBENCH_SANDBOX_UID_BASE"
CLAIM_DIR_ENV = "VERIFIERBENCH_UID_CLAIM_DIR"
DEFAULT_CLAIM_DIR = "/run/verifierbench/uid-ranges"  # tmpfs: claim files go with a reboot
POOL_BASE = 200_000
RANGE_SIZE = 20_000
GENERATION_OFFSET = 10_000  # the vgb sandbox's uids within a range, apart from the executor's slot uids
RANGES = 100  # uids 200000 to 2199999

BLOCK = 256  # each executor's slot uids: a block of its own within the range's first GENERATION_OFFSET uids
BLOCKS = GENERATION_OFFSET // BLOCK  # block 0 is the process's own probes' (isolation.probe_bwrap, doctor)

# Re-entrant: the SIGTERM/SIGHUP handler (runner._close_and_end) gives executors' blocks back on the main thread,
# maybe while that same thread holds this lock (claiming a range, taking a block).
_lock = threading.RLock()
_blocks_taken: set[int] = set()
_claimed: tuple[int, int] | None = None  # (base, the claim file's descriptor, kept open for the process's life)
_reserved: int | None = None  # the pinned base whose overlapped ranges this process holds shared locks on


def pinned_base() -> int | None:
    """The base `VERIFIERBENCH_SANDBOX_UID_BASE` pins, or None."""
    value = os.environ.get(BASE_ENV, "").strip()
    if not value:
        return None
    try:
        base = int(value)
    except ValueError:
        raise IsolationUnavailable(f"{BASE_ENV}={value!r} is not an integer uid") from None
    if base < 1000:
        raise IsolationUnavailable(f"{BASE_ENV}={base} would run sandboxes as system uids; choose one >= 1000")
    return base


def base() -> int:
    """This process's first sandbox uid: the pinned base, or the range it claimed (claimed on first use).

    Raises IsolationUnavailable when every range is held by a live harness.
    """
    global _claimed, _reserved
    pinned = pinned_base()
    if pinned is not None:
        with _lock:
            if _reserved != pinned and os.geteuid() == 0:
                reserve(Path(os.environ.get(CLAIM_DIR_ENV) or DEFAULT_CLAIM_DIR), pinned)
                _reserved = pinned
        return pinned
    with _lock:
        # A forked child (multiprocessing) shares the parent's lock and is part of the same harness.
        if _claimed is None:
            _claimed = claim(Path(os.environ.get(CLAIM_DIR_ENV) or DEFAULT_CLAIM_DIR))
        return _claimed[0]


def claim(directory: Path, busy_uids: set[int] | None = None) -> tuple[int, int]:
    """Claims the first free range under `directory`: (its base, the open claim file holding the lock).

    Args:
        directory: the claim files' directory, created root-only if missing and refused if others can write it.
        busy_uids: the uids that own a process now (read from /proc when None); a range holding one is skipped.
    """
    _claim_directory(directory)
    busy = running_uids() if busy_uids is None else busy_uids
    for index in range(RANGES):
        start = POOL_BASE + index * RANGE_SIZE
        fd = _lock_claim_file(directory, start, fcntl.LOCK_EX)
        if fd is None:
            continue
        if any(start <= uid < start + RANGE_SIZE for uid in busy):
            os.close(fd)  # a dead holder's sandbox still runs as one of these uids: leave the range alone
            continue
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())  # for people looking; the lock is what counts
        return start, fd
    raise IsolationUnavailable(f"all {RANGES} sandbox uid ranges under {directory} are held by running harnesses; "
                               f"wait for one to end or pin a free base with {BASE_ENV}")


def reserve(directory: Path, pinned: int) -> list[int]:
    """Takes a shared lock on the claim file of every pool range that `pinned`'s range overlaps, held (the
    descriptors open) for the process's life; returns the descriptors.

    Args:
        directory: the claim files' directory.
        pinned: the pinned base; its range is `pinned` to `pinned + RANGE_SIZE`.
    """
    first = max(0, (pinned - POOL_BASE) // RANGE_SIZE)
    last = min(RANGES - 1, (pinned + RANGE_SIZE - 1 - POOL_BASE) // RANGE_SIZE)
    if pinned + RANGE_SIZE <= POOL_BASE or first > last:
        return []
    _claim_directory(directory)
    held: list[int] = []
    for index in range(first, last + 1):
        start = POOL_BASE + index * RANGE_SIZE
        fd = _lock_claim_file(directory, start, fcntl.LOCK_SH)
        if fd is None:
            for other in held:
                os.close(other)
            raise IsolationUnavailable(f"{BASE_ENV}={pinned} overlaps uids {start}-{start + RANGE_SIZE - 1}, which a running "
                                       f"harness has claimed; pin a base outside {POOL_BASE}-{POOL_BASE + RANGES * RANGE_SIZE - 1} "
                                       "or unset it") from None
        held.append(fd)
    return held


def _lock_claim_file(directory: Path, start: int, mode: int) -> int | None:
    """The open claim file of the range at `start`, locked with `mode` (LOCK_EX to claim, LOCK_SH to reserve for a
    pinned base) without waiting; None when another process's lock conflicts."""
    fd = os.open(directory / f"{start}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def running_uids() -> set[int]:
    """The real uids of every process on the machine (those /proc shows)."""
    uids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                uids.add(os.stat(f"/proc/{entry}").st_uid)
            except OSError:
                continue  # the process ended meanwhile
    return uids


def _claim_directory(directory: Path) -> None:
    """Creates `directory` (0700) if missing; refuses one that is not ours or that others can write (a
    sandbox uid able to plant or hold claim files could deny ranges or make two harnesses share one)."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise IsolationUnavailable(f"the uid claim directory {directory} must be a directory of uid {os.geteuid()} "
                                   f"that group and others cannot write")


def take_block() -> int:
    """A block of slot uids for one executor, apart from every other executor's in this process (issue 35: two
    executors sharing slot uids let one's verifier take the other's process limit). Give it back with `give_back`."""
    with _lock:
        for block in range(1, BLOCKS):
            if block not in _blocks_taken:
                _blocks_taken.add(block)
                return block
    raise IsolationUnavailable(f"more than {BLOCKS - 1} executors at once in one harness process; close some first")


def give_back(block: int) -> None:
    with _lock:
        _blocks_taken.discard(block)
