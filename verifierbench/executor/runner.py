"""The executor: runs verifiers on candidates, isolated, at most `slots` at a time, and turns what happened into P, F
or U. Its parts, one job each:

- jobs: a run's Job and its Outcome (and `decide`: what an ended run means);
- staging: the verifiers' frozen copies and read-only inputs the sandbox uid can reach;
- layout: what a sandbox holds and where (paths, mounts, environment), for cold and warm runs alike;
- workdirs: the executor's private root on the host and its slots' directories;
- scheduler: which cases run cold and which in which warm sandbox;
- warm: a warm sandbox (one per slot, forking a process per case); this module runs the cold path itself.

The names callers used from this module before the split are re-exported below.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import secrets
import signal
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable, Iterator

from verifierbench.core.errors import UserError
from verifierbench.executor import layout, memcg, netns, process, uid_range
from verifierbench.executor.isolation import IsolationLevel, resolve_isolation, running_as_root, slot_uid
from verifierbench.executor.jobs import Job, Outcome, decide
from verifierbench.executor.limits import Limits
from verifierbench.executor.scheduler import (GENERATED_FAMILY, cold_from_environment,
                                                   shared_from_environment, warm_chunks)
from verifierbench.executor.staging import FrozenVerifier, MissingVerifier, VerifierStage
from verifierbench.executor.warm import WarmCrash, WarmSandbox, trusted_preload
from verifierbench.executor.workdirs import WorkDirs, clear, remove, tail
from verifierbench.core.protocol import ENTRYPOINT, Decision

DEFAULT_INTERPRETER = "/usr/bin/python3"

logger = logging.getLogger(__name__)


class Executor:
    """Runs jobs in isolated processes, at most `slots` at a time, each slot with its own uid."""

    def __init__(
        self,
        limits: Limits | None = None,
        isolation: str = "auto",
        allow_unsandboxed: bool = False,
        slots: int | None = None,
        interpreter: str = DEFAULT_INTERPRETER,
        workdir: str | Path | None = None,
        libraries: tuple[tuple[str, str], ...] = (),
        site_packages: tuple[str, ...] = (),
        warm: bool | None = None,
        trusted_preload: bool = False,
    ) -> None:
        """Args:
            warm: whether `run_batch` (judging) uses warm sandboxes (`run_warm`) or a sandbox per
                case (`run_many`); None: warm unless the environment sets VERIFIERBENCH_COLD=1.
            trusted_preload: the verifiers are ours (exported references): a warm sandbox imports the
                modules a verifier's preload.json names once, before forking its cases. Never for generated ones.
        """
        self.limits = limits or Limits()
        self.level = resolve_isolation(isolation, allow_unsandboxed)
        self.slots = min(max(1, slots or os.cpu_count() or 1), uid_range.BLOCK)
        self.interpreter = interpreter
        self.warm = not cold_from_environment() if warm is None else warm
        self.trusted_preload = trusted_preload
        # (host package directory, package name): mounted read-only under LIBRARY_ROOT and put on PYTHONPATH.
        # Only trusted verifiers get these (the exported reference verifiers); generated ones never do.
        self.libraries = tuple(libraries)
        # Whole package directories (a venv's site-packages) for trusted verifiers whose checkers have
        # many dependencies (AgentDojo): mounted read-only under SITE_ROOT/<i>, each put on PYTHONPATH.
        self.site_packages = tuple(site_packages)
        if not os.access(interpreter, os.X_OK):
            raise UserError(f"verifier interpreter {interpreter} is missing or not executable")
        # Private root for staged verifiers and per-run directories; readable by the sandbox uids.
        self.workdirs = WorkDirs(workdir, self.level, self.limits)
        self.root = self.workdirs.root
        # Each slot's empty network namespace (executor.netns), made at the slot's first run; root only.
        self._share_network = self.level is IsolationLevel.bwrap and netns.supported()
        self._networks: dict[int, int] = {}
        self._socket_tables: dict[int, int] = {}  # the unix socket table of each slot's namespace (slot_network)
        # This executor's own slot uids, apart from every other executor's in this process (uid_range.take_block).
        self._uid_block = uid_range.take_block() if running_as_root() and self.level is IsolationLevel.bwrap else 0
        self._cleanup = weakref.finalize(self, _release, str(self.root), self.workdirs.mounts, self._networks,
                                         self._socket_tables, self._uid_block)
        _live.add(self)
        _clean_up_on_signals()
        self._verifiers = VerifierStage(self.workdirs.verifiers)
        self._free_slots: queue.Queue[int] = queue.Queue()
        for slot in range(self.slots):
            self._free_slots.put(slot)

    # -- public API -------------------------------------------------------------------------

    def close(self) -> None:
        self._cleanup()

    def slot_uid(self, slot: int) -> int:
        """The uid slot `slot` of this executor runs untrusted code as."""
        return slot_uid(slot, self._uid_block)

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def freeze(self, verifier: "str | Path | FrozenVerifier") -> FrozenVerifier:
        """Copies a verifier (directory with verify.py, or one file) into the executor's root (staging.VerifierStage):
        runs use that copy. MissingVerifier if it cannot be staged."""
        return self._verifiers.freeze(verifier)

    def freeze_copy(self, verifier: "str | Path") -> FrozenVerifier:
        """Like `freeze`, but always a new copy: for sources in temporary places whose path may recur."""
        return self._verifiers.freeze_copy(verifier)

    def run(self, job: Job) -> Outcome:
        return self._run_cold(job)

    def _run_cold(self, job: Job) -> Outcome:
        """One job in a sandbox of its own, on the first free slot."""
        slot = self._free_slots.get()
        try:
            if job.public is not None:
                with job.public() as directory:
                    return self._run_in_slot(replace(job, public=None, public_socket_dir=directory), slot)
            return self._run_in_slot(job, slot)
        finally:
            self._free_slots.put(slot)

    def run_many(self, jobs: Iterable[Job], on_done: Callable[[Outcome], None] | None = None) -> Iterator[Outcome]:
        """Yields outcomes in completion order; `on_done` is called for each (e.g. a progress bar)."""
        with ThreadPoolExecutor(max_workers=self.slots) as pool:
            futures = [pool.submit(self.run, job) for job in jobs]
            try:
                for future in as_completed(futures):
                    outcome = future.result()
                    if on_done:
                        on_done(outcome)
                    yield outcome
            finally:
                for future in futures:  # on an early exit, do not start the rest
                    future.cancel()

    def run_batch(self, jobs: Iterable[Job], on_done: Callable[[Outcome], None] | None = None) -> Iterator[Outcome]:
        """Judging's entry point: `run_warm` by default, `run_many` on an executor made cold. Completion order."""
        return self.run_warm(jobs, on_done) if self.warm else self.run_many(jobs, on_done)

    # -- one run ----------------------------------------------------------------------------

    def run_warm(self, jobs: Iterable[Job], on_done: Callable[[Outcome], None] | None = None) -> Iterator[Outcome]:
        """Like `run_many`, but the cases of one verifier with the same inputs run in warm sandboxes
        (executor.warm): one per slot they use, set up once, a fresh forked process per case.

        A job with a run_public service factory (`public`) gets a fresh service per case, started when
        its case runs, as on the cold path. Every job where bubblewrap is not the isolation, or with an
        already running service (`public_socket_dir`), runs cold as in `run_many`. If a warm sandbox
        fails, its remaining cases run cold (Outcome.path says which path ran each case). Yields
        outcomes in completion order.
        """
        groups: dict[tuple[Path | tuple[str, ...], tuple[tuple[str, str], ...], bool], list[Job]] = {}
        cold: list[Job] = []
        for job in jobs:
            if self.level is not IsolationLevel.bwrap or job.public_socket_dir is not None or job.loopback:
                cold.append(job)
                continue
            try:
                frozen = self.freeze(job.verifier)
            except MissingVerifier:
                cold.append(job)  # run() turns it into U with the reason
                continue
            groups.setdefault((self._warm_family(frozen), job.extra_ro, job.public is not None), []).append(replace(job, verifier=frozen))
        # A family's cases verifier by verifier: a shared sandbox switches verifiers as rarely as it can.
        chunks = warm_chunks([sorted(group, key=lambda job: str(job.verifier.directory))  # type: ignore[union-attr]
                              for group in groups.values()], self.slots)
        done: queue.Queue[Outcome | BaseException] = queue.Queue()

        def run_chunk(chunk: list[Job]) -> None:
            try:
                self._run_warm_chunk(chunk, done.put)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
                done.put(exc)

        def run_cold(job: Job) -> None:
            try:
                done.put(self._run_cold(job))
            except BaseException as exc:  # noqa: BLE001
                done.put(exc)

        expected = sum(map(len, chunks)) + len(cold)
        with ThreadPoolExecutor(max_workers=self.slots) as pool:
            for chunk in sorted(chunks, key=len, reverse=True):
                pool.submit(run_chunk, chunk)
            for job in cold:
                pool.submit(run_cold, job)
            for _ in range(expected):
                item = done.get()
                if isinstance(item, BaseException):
                    raise item
                if on_done:
                    on_done(item)
                yield item

    def _warm_family(self, frozen: FrozenVerifier) -> "Path | tuple[str, ...]":
        """What a warm sandbox is shared by (executor.warm): for trusted verifiers with a warm-up call (exported
        references), the modules they preload, so one sandbox imports them once for all; other trusted verifiers
        have a sandbox each; generated verifiers all share, each switch costing a task server's fork instead of a
        sandbox's start (unless VERIFIERBENCH_WARM_SHARED=0)."""
        if self.trusted_preload:
            preload = trusted_preload(frozen)
            if preload.modules and preload.warm_up:
                return preload.modules
            return frozen.directory
        return GENERATED_FAMILY if shared_from_environment() else frozen.directory

    def _run_warm_chunk(self, jobs: list[Job], emit: Callable[[Outcome], None]) -> None:
        """Runs `jobs` (one frozen verifier, or a family's verifiers, the same inputs) on one slot through one
        warm sandbox."""
        slot = self._free_slots.get()
        shared = len({job.verifier for job in jobs}) > 1

        def start() -> WarmSandbox | None:
            try:
                return WarmSandbox(self, _frozen(jobs[0]), jobs[0], slot, shared=shared)
            except (OSError, WarmCrash) as exc:
                logger.warning("warm sandbox did not start (%s); its %d cases run cold", exc, len(jobs))
                return None

        sandbox = start()
        try:
            for job in jobs:
                with job.public() if job.public is not None else nullcontext(None) as service_dir:
                    started = replace(job, public=None, public_socket_dir=service_dir)
                    if sandbox is not None:
                        try:
                            emit(sandbox.run(started))
                        except WarmCrash as exc:
                            logger.warning("warm sandbox crashed (%s); the remaining cases run cold", exc)
                            sandbox.close()
                            sandbox = None
                        else:
                            if sandbox.left_a_socket():  # see netns.unix_sockets_in: a new sandbox, a new namespace
                                logger.info("slot %d: a unix socket outlived its case; the warm sandbox starts again", slot)
                                sandbox.close()
                                sandbox = start()
                            continue
                    outcome = self._run_in_slot(started, slot)
                outcome.path = "cold-fallback"
                emit(outcome)
        finally:
            if sandbox is not None:
                sandbox.close()
            self._free_slots.put(slot)

    def _run_in_slot(self, job: Job, slot: int) -> Outcome:
        try:
            frozen = self.freeze(job.verifier)
        except MissingVerifier as exc:
            return Outcome(job.key, Decision.U, problem=str(exc), isolation=self.level.value)
        run_dir = self.slot_dir(slot)
        try:
            network = None if job.loopback else self.slot_network(slot)  # None: bwrap makes the run's own
            return self._execute(job, frozen.directory / ENTRYPOINT, self.slot_uid(slot), run_dir, network)
        finally:
            # Each run starts from empty output and scratch directories (bwrap's /tmp is a fresh tmpfs).
            clear(run_dir / "out")
            clear(run_dir / "scratch")

    def slot_dir(self, slot: int) -> Path:
        """The slot's directories (workdirs.WorkDirs.slot_dir), made at its first run."""
        return self.workdirs.slot_dir(slot, self.slot_uid(slot))

    def slot_network(self, slot: int) -> int | None:
        """The slot's network namespace descriptor, or None when bubblewrap makes one per run. A namespace an earlier
        run left a unix socket in (netns.unix_sockets_in) is replaced by a fresh one: nothing crosses to this run."""
        if not self._share_network:
            return None
        # only the thread holding the slot gets here
        if self.slot_left_a_socket(slot):
            logger.info("slot %d: a unix socket outlived its run; the slot gets a new network namespace", slot)
            os.close(self._networks.pop(slot))
            os.close(self._socket_tables.pop(slot))
        if slot not in self._networks:
            self._networks[slot] = netns.create()
            self._socket_tables[slot] = netns.unix_socket_table(self._networks[slot])
        return self._networks[slot]

    def slot_left_a_socket(self, slot: int) -> bool:
        """Whether a unix socket outlived the slot's last run in its network namespace (netns.unix_socket_table)."""
        return slot in self._socket_tables and netns.unix_sockets_left(self._socket_tables[slot])

    def _execute(self, job: Job, entry: Path, uid: int, run_dir: Path, network: int | None = None) -> Outcome:
        token = secrets.token_hex(8)  # a fresh result name per run: a stale file never counts
        limits = self.limits if job.timeout_s is None else replace(self.limits, timeout_s=job.timeout_s)
        in_dir, out_dir = run_dir / "in", run_dir / "out"
        candidate_file = in_dir / layout.CANDIDATE_FILE
        candidate_file.write_text(json.dumps(job.candidate), encoding="utf-8")
        os.chmod(candidate_file, 0o644)

        if self.level is IsolationLevel.bwrap:
            candidate_path, result_path = layout.CANDIDATE, layout.result_path(token)
            verifier_path = f"{layout.VERIFIER_DIR}/{ENTRYPOINT}"
            env = self._environment(candidate_path, result_path, home=layout.SCRATCH,
                                    public=layout.PUBLIC_DIR if job.public_socket_dir else None)
            binds = layout.binds(str(entry.parent), run_dir, job.extra_ro, job.public_socket_dir,
                                 self.workdirs.hosts if job.loopback else None, self.libraries, self.site_packages)
            command = process.Command([self.interpreter, verifier_path, candidate_path, result_path], env, limits, binds,
                                      join_network=network is not None)
            cwd = str(run_dir)
        else:
            # Degraded mode (opted in): real paths, rlimits and a process group, nothing more.
            candidate_path, result_path = str(candidate_file), str(out_dir / layout.result_name(token))
            scratch = run_dir / "scratch"
            env = self._environment(candidate_path, result_path, home=str(scratch), public=job.public_socket_dir)
            command = process.Command([self.interpreter, str(entry), candidate_path, result_path], env, limits)
            cwd = str(scratch)

        # stdout is discarded (the protocol ignores it); stderr goes to a file capped by RLIMIT_FSIZE.
        with open(run_dir / "stderr", "wb") as err:
            started = time.monotonic()
            exit_status, timed_out = process.run(command, self.level, uid, cwd, err, limits.timeout_s, network)
            wall = time.monotonic() - started
        stderr_tail = tail(run_dir / "stderr", self.limits.stderr_tail_bytes)
        return decide(job, limits, self.level.value, exit_status, timed_out, wall, stderr_tail, out_dir, token)

    def _environment(self, candidate: str, result: str, home: str, public: str | None) -> dict[str, str]:
        return layout.environment(self.level, candidate, result, home, public, self.libraries, self.site_packages)


def _frozen(job: Job) -> FrozenVerifier:
    """A job of a warm chunk: its verifier was frozen when the batch was grouped (`run_warm`)."""
    assert isinstance(job.verifier, FrozenVerifier)
    return job.verifier


_live: "weakref.WeakSet[Executor]" = weakref.WeakSet()  # this process's open executors, closed on SIGTERM and SIGHUP


def _clean_up_on_signals() -> None:
    """SIGTERM and SIGHUP end a Python process without its finalizers, leaving the slots' /output tmpfs mounted
    (issue 35). Where they still have the default action, they now close every executor first, then end the
    process by the same signal (so its parent sees what it always saw). Only the main thread can set handlers."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _close_and_end)


def _close_and_end(signum: int, frame: object) -> None:
    for executor in list(_live):
        executor.close()
    memcg.release()  # the sandboxes' memory cgroups (the next harness sweeps any still busy)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _release(root: str, mounts: list[str], networks: dict[int, int], socket_tables: dict[int, int], uid_block: int = 0) -> None:
    """An executor's finalizer: its slots' network namespaces (and their socket tables), its root (workdirs.remove)
    and its uid block."""
    for descriptors in (networks, socket_tables):
        for fd in descriptors.values():
            os.close(fd)
        descriptors.clear()
    remove(root, mounts)
    if uid_block:
        uid_range.give_back(uid_block)
