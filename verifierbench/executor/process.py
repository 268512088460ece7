"""The bubblewrap process runner: the one way untrusted code is started, waited for and killed.

Both the executor (one verifier on one case, `runner.py`) and the vgb Inspect sandbox provider (an agent's
command, `sandboxes/vgb_provider.py`) run their commands through here, so they share the isolation exactly:
the bubblewrap command line (`bwrap.py`) or, in opted-in degraded mode, `env -i`; rlimits through
util-linux `prlimit`; the seccomp filter; a process group of its own, a minimal host environment and the
sandbox uid; on timeout or cancellation, the sandbox's pid 1 killed first, then the process group.
`run` is the synchronous front-end (stdout discarded, stderr to a file), `run_async` the asyncio one
(stdin fed, both streams captured with a cap).
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import IO, Any

from verifierbench.executor import memcg, netns, seccomp
from verifierbench.executor.bwrap import Bind, sandbox_command
from verifierbench.executor.isolation import IsolationLevel, running_as_root, started_as
from verifierbench.executor.limits import Limits

KILL_GRACE_S = 1.0  # after a timeout kill, how long to wait for the sandbox to disappear
HOST_ENV = {"PATH": "/usr/bin:/bin"}  # the environment prlimit and bwrap themselves start with; nothing of ours


@dataclass(frozen=True)
class Command:
    """One sandboxed command: what runs, what it sees and the limits it runs under.

    Args:
        argv: the command as the sandbox sees it (in degraded mode: as the host sees it).
        env: its whole environment (nothing else is inherited).
        limits: its rlimits and tmpfs sizes (`Limits.prlimit_args`, `scratch_bytes`, `shm_bytes`).
        binds: host paths mounted into the sandbox (bubblewrap only).
        chdir: its working directory inside the sandbox (bubblewrap only).
        join_network: start in the caller's network namespace (executor.netns) instead of a fresh one.
    """

    argv: list[str]
    env: dict[str, str]
    limits: Limits
    binds: Sequence[Bind] = field(default_factory=tuple)
    chdir: str = "/tmp"
    join_network: bool = False

    def host_argv(self, level: IsolationLevel, seccomp_fd: int | None = None) -> list[str]:
        """The host command line: prlimit around bubblewrap (or, degraded, around `env -i`).

        Args:
            level: the isolation the harness resolved (executor.isolation).
            seccomp_fd: the filter descriptor bubblewrap loads (`seccomp_filter`), if any.
        """
        if level is IsolationLevel.bwrap:
            inner = sandbox_command(self.argv, list(self.binds), self.env, self.limits.scratch_bytes, chdir=self.chdir,
                                    shm_bytes=self.limits.shm_bytes, seccomp_fd=seccomp_fd, join_network=self.join_network)
        else:  # degraded mode, opted into by the user: real paths, rlimits and a process group only
            inner = ["env", "-i", *[f"{key}={value}" for key, value in self.env.items()], *self.argv]
        return ["prlimit", *self.limits.prlimit_args(), "--", *inner]


@contextmanager
def seccomp_filter(level: IsolationLevel) -> Iterator[int | None]:
    """The seccomp filter's descriptor for one spawn (None when bubblewrap is not the isolation); closed after.

    Args:
        level: the isolation the harness resolved.
    """
    filter_fd = seccomp.filter_fd() if level is IsolationLevel.bwrap else None
    try:
        yield filter_fd
    finally:
        if filter_fd is not None:
            os.close(filter_fd)


def spawn_options(pass_fds: tuple[int, ...] = ()) -> dict[str, Any]:
    """The Popen keyword arguments every sandboxed process starts with: its own process group, no inherited
    descriptor but `pass_fds`, a minimal environment (the uid: `isolation.started_as`).

    Args:
        pass_fds: descriptors the child keeps (the seccomp filter).
    """
    return {"close_fds": True, "pass_fds": pass_fds, "process_group": 0, "env": dict(HOST_ENV)}


@contextmanager
def spawning(argv: list[str], uid: int, limits: Limits, pass_fds: tuple[int, ...] = (),
             same_thread: bool = True) -> Iterator[tuple[list[str], dict[str, Any]]]:
    """The host command line and Popen keyword arguments of a sandbox, to start inside the block: `spawn_options`,
    as `uid` and dying with the spawning thread (`isolation.started_as`), and where the machine has memory cgroups
    (executor.memcg), in the sandbox uid's cgroup, capped at `limits.sandbox_memory_bytes`, from its first instruction.
    On cgroup v1 the calling thread is in that cgroup for the block (its child is born there); otherwise the child
    starts as root in a shell only to enter it, then setpriv drops to `uid`.

    Args:
        argv: the host command (prlimit around bubblewrap).
        uid: the sandbox uid.
        limits: the sandbox's limits.
        pass_fds: descriptors the child keeps (the seccomp filter).
        same_thread: the child is forked by this thread within the block, nothing else runs on it meanwhile (not so
            for asyncio, whose loop runs other tasks: then always the shell).
    """
    argv, drop = started_as(uid, argv)
    options = {**spawn_options(pass_fds), **drop}
    procs = memcg.cgroup_for(uid, limits.sandbox_memory_bytes) if running_as_root() else None
    if procs is None:
        yield argv, options
        return
    with memcg.thread_in(procs) if same_thread else nullcontext(False) as moved:
        if moved:
            yield argv, options
            return
    # memcg needs setpriv (memcg.hierarchy), so `argv` drops the uid itself: the shell runs as root to enter the cgroup.
    yield memcg.enter_argv(procs, argv), spawn_options(pass_fds)


def run(command: Command, level: IsolationLevel, uid: int, cwd: str, stderr: IO[bytes], timeout_s: float,
        network: int | None = None) -> tuple[int | None, bool]:
    """Runs `command` to its end or its timeout; stdin empty, stdout discarded. Returns (exit status, timed out).

    Args:
        command: what to run.
        level: the isolation the harness resolved.
        uid: the uid to run as.
        cwd: the host working directory bubblewrap (or the degraded command) starts in.
        stderr: where the command's stderr goes (a file capped by RLIMIT_FSIZE).
        timeout_s: wall-clock limit; then the sandbox is killed.
        network: a network namespace descriptor to start in (with `command.join_network`), or None.
    """
    with seccomp_filter(level) as filter_fd:
        # The child is born in the slot's network namespace when there is one (bwrap --share-net keeps it).
        with netns.entered(network):
            with spawning(command.host_argv(level, filter_fd), uid, command.limits, _fds(filter_fd)) as (argv, options):
                proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr, cwd=cwd,
                                        **options)
    # A pidfd wakes us the moment the process ends; Popen.wait(timeout) polls with sleeps.
    pidfd = os.pidfd_open(proc.pid)
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        ready = poller.poll(timeout_s * 1000)
    finally:
        os.close(pidfd)
    if ready:
        return proc.wait(), False
    kill(proc)
    return proc.returncode, True


async def run_async(command: Command, level: IsolationLevel, uid: int, cwd: str, input: bytes | None, timeout_s: float,
                    output_limit: int) -> tuple[int, bytes, bytes]:
    """Runs `command` with `input` on stdin; returns (exit status, stdout, stderr), each stream's last
    `output_limit` bytes. TimeoutError after `timeout_s`; on cancellation the sandbox is killed too.

    Args:
        command: what to run.
        level: the isolation the harness resolved.
        uid: the uid to run as.
        cwd: the host working directory bubblewrap (or the degraded command) starts in.
        input: the bytes fed to stdin, or None.
        timeout_s: wall-clock limit.
        output_limit: bytes kept of each stream (the end).
    """
    with seccomp_filter(level) as filter_fd:
        with spawning(command.host_argv(level, filter_fd), uid, command.limits, _fds(filter_fd), same_thread=False) as (argv, options):
            process = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=cwd,
                **options,
            )
    try:
        stdout, stderr = await asyncio.wait_for(_communicate(process, input, output_limit), timeout=timeout_s)
    except asyncio.TimeoutError:
        _kill_init(process.pid)
        try:
            await asyncio.wait_for(process.wait(), KILL_GRACE_S)
        except asyncio.TimeoutError:
            pass
        _kill_group(process.pid)
        await process.wait()
        raise TimeoutError(f"command timed out after {timeout_s} s") from None
    except BaseException:  # cancelled: never leave the sandbox running
        _kill_init(process.pid)
        _kill_group(process.pid)
        raise
    return process.returncode or 0, stdout, stderr


def kill(proc: subprocess.Popen[bytes]) -> None:
    """Kills a sandbox started here and waits for it.

    Its pid 1 first: the kernel then kills the rest of its pid namespace and bwrap reaps it, so no zombie is
    left for the machine's init to collect late (zombies count against the uid's process limit). Then the
    process group, for degraded mode and for a bwrap that has not started its child yet.

    Args:
        proc: the process `run` (or a caller with `spawn_options`) started.
    """
    _kill_init(proc.pid)
    try:
        proc.wait(timeout=KILL_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    _kill_group(proc.pid)
    proc.wait()


def _kill_init(pid: int) -> None:
    for child in _children(pid):
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(child) for child in handle.read().split()]
    except (OSError, ValueError):
        return []


def _fds(filter_fd: int | None) -> tuple[int, ...]:
    return () if filter_fd is None else (filter_fd,)


async def _communicate(process: asyncio.subprocess.Process, data: bytes | None, limit: int) -> tuple[bytes, bytes]:
    async def drain(stream: asyncio.StreamReader) -> bytes:
        kept = bytearray()
        while chunk := await stream.read(1 << 16):
            kept += chunk
            if len(kept) > limit:
                del kept[: len(kept) - limit]
        return bytes(kept)

    async def feed() -> None:
        assert process.stdin is not None
        try:
            if data:
                process.stdin.write(data)
                await process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            process.stdin.close()

    assert process.stdout is not None and process.stderr is not None
    _, stdout, stderr = await asyncio.gather(feed(), drain(process.stdout), drain(process.stderr))
    await process.wait()
    return stdout, stderr
