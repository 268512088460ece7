"""Runs one verifier on one case, isolated, and turns what happened into P, F or U."""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import queue
import secrets
import shutil
import signal
import stat
import tempfile
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from verifierbench import safe_fs
from verifierbench.errors import UserError
from verifierbench.executor import memcg, netns, process, tmpfs, uid_range
from verifierbench.executor.bwrap import Bind, hosts_file
from verifierbench.executor.isolation import IsolationLevel, resolve_isolation, running_as_root, slot_uid
from verifierbench.executor.limits import Limits
from verifierbench.protocol import ENTRYPOINT, NO_RESULT, RESULT_MAX_BYTES, Decision, parse_result_file

DEFAULT_INTERPRETER = "/usr/bin/python3"
SITE_ROOT = "/opt/vgb/site"
PUBLIC_DIR = "/run/vgb"  # where a run_public service's socket directory appears inside the sandbox
PUBLIC_SOCKET = "public.sock"  # the service's socket in that directory (public_env.service)
ROOT_PREFIX = "verifierbench-exec-"  # then the harness's pid, so a later run can sweep a killed one's mounts
OUTPUT_SOURCE = "vgb-output"  # the name of the slots' /output tmpfs mounts
WARM_MIN_CASES = 8  # a warm sandbox's fewest cases when a verifier's are split over several
COLD_ENV = "VERIFIERBENCH_COLD"  # set to 1: judging takes a sandbox per case (today's path) instead of warm sandboxes

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    """One verifier run: the verifier (directory with verify.py, or the file) and one candidate."""

    verifier: "Path | str | FrozenVerifier"
    candidate: Any  # JSON value written to the candidate file
    key: str = ""  # the caller's handle, e.g. the case id
    extra_ro: tuple[tuple[str, str], ...] = ()  # (host path, sandbox path) read-only inputs, e.g. a checkout
    public_socket_dir: str | None = None  # a run_public service's directory (public_env.service), for state tasks
    # Or a context manager factory that starts such a service for this run only and yields its directory:
    # entered when the run gets a slot, so at most `slots` services are alive at once.
    public: Callable[[], AbstractContextManager[str]] | None = None
    keep_result: bool = False  # trusted jobs (test runs): keep the whole result object in Outcome.result
    timeout_s: float | None = None  # this run's wall-clock limit, instead of the executor's (code tasks run test suites)
    # A network namespace of the run's own with its loopback up and /etc/hosts naming localhost, instead of the slot's
    # (loopback down): code tasks, whose tests start local servers (django's LiveServerTestCase, django-14011). Still no
    # route out, and nothing shared with another run; such runs never go warm (a warm sandbox's cases would share it).
    loopback: bool = False


@dataclass
class Outcome:
    key: str
    decision: Decision
    confidence: float | None = None
    reason: str | None = None
    problem: str | None = None  # why U
    exit_status: int | None = None  # negative: killed by that signal
    timed_out: bool = False
    wall_time_s: float = 0.0
    stderr_tail: str = ""
    isolation: str = ""
    result: dict | None = None  # the result object, for jobs with keep_result
    # Which path ran the case: "cold" (a sandbox of its own), "warm" (forked in its verifier's warm
    # sandbox, executor.warm) or "cold-fallback" (cold, because that warm sandbox had crashed).
    path: str = "cold"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["decision"] = self.decision.value
        return data


LIBRARY_ROOT = "/opt/vgb/lib"


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
        network_per_run: bool = False,
        warm: bool | None = None,
        trusted_preload: bool = False,
    ) -> None:
        """Args:
            network_per_run: have bubblewrap create a network namespace per run even where the
                harness could make one per slot (executor.netns); for measuring the difference.
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
        base = Path(workdir or os.environ.get("VERIFIERBENCH_WORKDIR") or tempfile.gettempdir())
        _require_traversable(base)
        sweep_stale_outputs()
        # Private root for staged verifiers and per-run directories; readable by the sandbox uids.
        self.root = Path(tempfile.mkdtemp(prefix=f"{ROOT_PREFIX}{os.getpid()}-", dir=base))
        os.chmod(self.root, 0o755)
        self._hosts = hosts_file(self.root)  # /etc/hosts of loopback runs (Job.loopback)
        self._mounts: list[str] = []  # the slots' /output tmpfs mounts, unmounted before the root goes
        # Each slot's empty network namespace (executor.netns), made at the slot's first run; root only.
        self._share_network = self.level is IsolationLevel.bwrap and not network_per_run and netns.supported()
        self._networks: dict[int, int] = {}
        # This executor's own slot uids, apart from every other executor's in this process (uid_range.take_block).
        self._uid_block = uid_range.take_block() if running_as_root() and self.level is IsolationLevel.bwrap else 0
        self._cleanup = weakref.finalize(self, _remove_root, str(self.root), self._mounts, self._networks, self._uid_block)
        _live.add(self)
        _clean_up_on_signals()
        self._staged: dict[tuple[Path, tuple], FrozenVerifier] = {}
        self._stage_lock = threading.Lock()
        self._stage_numbers = itertools.count()
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

    def freeze(self, verifier: "str | Path | FrozenVerifier") -> "FrozenVerifier":
        """Copies a verifier (directory with verify.py, or one file) into the executor's root.

        Runs of a frozen verifier use that copy, so later edits to the original change nothing,
        and the sandbox uid can read it wherever the original lives. A plain path is re-frozen
        only when its files change (their sizes and mtimes).
        """
        if isinstance(verifier, FrozenVerifier):
            return verifier
        path = Path(os.path.abspath(verifier))  # not resolve(): a link named as the verifier is refused, not followed
        signature = (path, _tree_signature(path))
        with self._stage_lock:
            if signature not in self._staged:
                self._staged[signature] = _stage(path, self.root / "verifiers" / str(next(self._stage_numbers)))
            return self._staged[signature]

    def freeze_copy(self, verifier: "str | Path") -> "FrozenVerifier":
        """Like `freeze`, but always a new copy: for sources in temporary places whose path may recur."""
        with self._stage_lock:
            number = next(self._stage_numbers)
        return _stage(Path(os.path.abspath(verifier)), self.root / "verifiers" / str(number))

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
        groups: dict[tuple, list[Job]] = {}
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
        # A trusted family's cases verifier by verifier: a shared sandbox switches verifiers as rarely as it can.
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

    def _warm_family(self, frozen: "FrozenVerifier") -> "Path | tuple[str, ...]":
        """What a warm sandbox is shared by: the verifier itself, or for trusted verifiers with a warm-up call
        (exported references), the modules they preload, so one sandbox imports them once for all (executor.warm)."""
        if self.trusted_preload:
            from verifierbench.executor.warm import trusted_preload  # warm builds on this module

            preload = trusted_preload(frozen)
            if preload.modules and preload.warm_up:
                return preload.modules
        return frozen.directory

    def _run_warm_chunk(self, jobs: list[Job], emit: Callable[[Outcome], None]) -> None:
        """Runs `jobs` (one frozen verifier, or a trusted family's verifiers, the same inputs) on one slot through one
        warm sandbox."""
        from verifierbench.executor.warm import WarmCrash, WarmSandbox  # warm builds on this module

        slot = self._free_slots.get()
        sandbox = None
        shared = len({job.verifier for job in jobs}) > 1
        try:
            try:
                sandbox = WarmSandbox(self, jobs[0].verifier, jobs[0], slot, shared=shared)  # type: ignore[arg-type]
            except (OSError, WarmCrash) as exc:
                logger.warning("warm sandbox did not start (%s); its %d cases run cold", exc, len(jobs))
            for job in jobs:
                with job.public() if job.public is not None else nullcontext(None) as service_dir:
                    started = replace(job, public=None, public_socket_dir=service_dir)
                    if sandbox is not None:
                        try:
                            emit(sandbox.run(started))
                            continue
                        except WarmCrash as exc:
                            logger.warning("warm sandbox crashed (%s); the remaining cases run cold", exc)
                            sandbox.close()
                            sandbox = None
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
        run_dir = self._slot_dir(slot)
        try:
            network = None if job.loopback else self._slot_network(slot)  # None: bwrap makes the run's own
            return self._execute(job, frozen.directory / ENTRYPOINT, self.slot_uid(slot), run_dir, network)
        finally:
            # Each run starts from empty output and scratch directories (bwrap's /tmp is a fresh tmpfs).
            _clear(run_dir / "out")
            _clear(run_dir / "scratch")

    def _slot_dir(self, slot: int) -> Path:
        """A slot's directories, made once: in/ (read-only inside), out/ and scratch/ (the slot uid's).

        As root, out/ (the sandbox's /output) is a tmpfs capped in bytes and files, so a verifier
        cannot fill the host's disk through it; otherwise only each file is capped (RLIMIT_FSIZE)."""
        run_dir = self.root / "slots" / str(slot)
        if not run_dir.exists():
            uid = self.slot_uid(slot)
            for name, mode in (("in", 0o755), ("out", 0o700), ("scratch", 0o700)):
                (run_dir / name).mkdir(parents=True)
                if name != "in" and running_as_root():
                    os.chown(run_dir / name, uid, uid)
                os.chmod(run_dir / name, mode)
            if running_as_root() and self.level is IsolationLevel.bwrap:
                out = run_dir / "out"
                if tmpfs.mount(out, self.limits.output_bytes, self.limits.output_files, uid, OUTPUT_SOURCE):
                    self._mounts.append(str(out))
            os.chmod(run_dir, 0o755)
            os.chmod(run_dir.parent, 0o755)
        return run_dir

    def _slot_network(self, slot: int) -> int | None:
        """The slot's network namespace descriptor, or None when bubblewrap makes one per run."""
        if not self._share_network:
            return None
        if slot not in self._networks:  # only the thread holding the slot gets here
            self._networks[slot] = netns.create()
        return self._networks[slot]

    def _execute(self, job: Job, entry: Path, uid: int, run_dir: Path, network: int | None = None) -> Outcome:
        token = secrets.token_hex(8)  # a fresh result name per run: a stale file never counts
        limits = self.limits if job.timeout_s is None else replace(self.limits, timeout_s=job.timeout_s)
        in_dir, out_dir = run_dir / "in", run_dir / "out"
        candidate_file = in_dir / "candidate.json"
        candidate_file.write_text(json.dumps(job.candidate), encoding="utf-8")
        os.chmod(candidate_file, 0o644)

        if self.level is IsolationLevel.bwrap:
            candidate_path, result_path = "/input/candidate.json", f"/output/result-{token}.json"
            verifier_path = f"/verifier/{ENTRYPOINT}"
            env = self._env(candidate_path, result_path, home="/tmp", public=job.public_socket_dir and PUBLIC_DIR)
            binds = [Bind(str(entry.parent), "/verifier"), Bind(str(in_dir), "/input"), Bind(str(out_dir), "/output", writable=True)]
            binds += [Bind(host, inside) for host, inside in job.extra_ro]
            if job.public_socket_dir:
                binds.append(Bind(job.public_socket_dir, PUBLIC_DIR))
            if job.loopback:
                binds.append(Bind(self._hosts, "/etc/hosts"))
            binds += [Bind(host, f"{LIBRARY_ROOT}/{name}") for host, name in self.libraries]
            binds += [Bind(host, f"{SITE_ROOT}/{i}") for i, host in enumerate(self.site_packages)]
            command = process.Command([self.interpreter, verifier_path, candidate_path, result_path], env, limits, binds,
                                      join_network=network is not None)
            cwd = str(run_dir)
        else:
            # Degraded mode (opted in): real paths, rlimits and a process group, nothing more.
            candidate_path, result_path = str(in_dir / "candidate.json"), str(out_dir / f"result-{token}.json")
            scratch = run_dir / "scratch"
            env = self._env(candidate_path, result_path, home=str(scratch), public=job.public_socket_dir)
            command = process.Command([self.interpreter, str(entry), candidate_path, result_path], env, limits)
            cwd = str(scratch)

        # stdout is discarded (the protocol ignores it); stderr goes to a file capped by RLIMIT_FSIZE.
        with open(run_dir / "stderr", "wb") as err:
            started = time.monotonic()
            exit_status, timed_out = process.run(command, self.level, uid, cwd, err, limits.timeout_s, network)
            wall = time.monotonic() - started
        stderr_tail = _tail(run_dir / "stderr", self.limits.stderr_tail_bytes)
        return self._outcome(job, limits, exit_status, timed_out, wall, stderr_tail, out_dir, token)

    def _outcome(self, job: Job, limits: Limits, exit_status: int | None, timed_out: bool, wall: float, stderr_tail: str,
                 out_dir: Path, token: str, path: str = "cold") -> Outcome:
        """What a finished run means: P, F or U from its exit, its result file and whether it timed out."""
        outcome = Outcome(job.key, Decision.U, exit_status=exit_status, timed_out=timed_out,
                          wall_time_s=round(wall, 4), stderr_tail=stderr_tail, isolation=self.level.value, path=path)
        if timed_out:
            outcome.problem = f"timed out after {limits.timeout_s:g} s"
            return outcome
        parsed = parse_result_file(out_dir / f"result-{token}.json")
        if exit_status != 0:
            outcome.problem = f"verifier exited with status {exit_status}" + (f" ({parsed.problem})" if parsed.problem else "")
            return outcome
        outcome.decision, outcome.confidence, outcome.reason, outcome.problem = parsed.decision, parsed.confidence, parsed.reason, parsed.problem
        if parsed.problem == NO_RESULT:  # not a crash: the verifier finished without deciding
            outcome.problem = "verifier exited 0 without writing a result file"
        if job.keep_result and parsed.decision is not Decision.U:
            raw = safe_fs.read_below(out_dir, [f"result-{token}.json"], RESULT_MAX_BYTES)  # no link, no FIFO
            outcome.result = json.loads(raw.decode("utf-8"))
        return outcome

    def _env(self, candidate: str, result: str, home: str, public: str | None = None) -> dict[str, str]:
        return {
            **({"VGB_PUBLIC_SOCKET": f"{public}/{PUBLIC_SOCKET}"} if public else {}),
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": home,
            "TMPDIR": "/tmp" if self.level is IsolationLevel.bwrap else home,
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "VGB_CANDIDATE": candidate,
            "VGB_RESULT": result,
            **({"PYTHONPATH": self._python_path()} if self.libraries or self.site_packages else {}),
        }

    def _python_path(self) -> str:
        if self.level is IsolationLevel.bwrap:
            return os.pathsep.join([LIBRARY_ROOT, *(f"{SITE_ROOT}/{i}" for i in range(len(self.site_packages)))])
        return os.pathsep.join([*sorted({str(Path(host).parent) for host, _ in self.libraries}), *self.site_packages])


def warm_chunks(groups: list[list[Job]], slots: int) -> list[list[Job]]:
    """The batch's warm sandboxes: the cases each runs, from the cases of each verifier (and inputs).

    A sandbox's start costs as much as several cases, so a verifier's cases are split over several
    sandboxes (at most `slots`, at least WARM_MIN_CASES cases each) only when they are more than a
    slot's share of the batch: a batch of few verifiers with many cases each.

    Args:
        groups: the cases of one frozen verifier with the same inputs, per group.
        slots: the executor's slots.
    """
    share = max(WARM_MIN_CASES, -(-sum(map(len, groups)) // slots))
    chunks: list[list[Job]] = []
    for group in groups:
        count = max(1, min(slots, -(-len(group) // share), len(group) // WARM_MIN_CASES))
        if len({job.verifier for job in group}) > 1:  # a trusted family (sorted by verifier): contiguous runs
            chunks += [group[len(group) * i // count:len(group) * (i + 1) // count] for i in range(count)]
        else:
            chunks += [group[i::count] for i in range(count)]
    return chunks


def cold_from_environment() -> bool:
    """Whether VERIFIERBENCH_COLD asks for today's path (a sandbox per case); one-line error on a bad value."""
    value = os.environ.get(COLD_ENV, "").strip().lower()
    if value in ("", "0", "false", "no"):
        return False
    if value in ("1", "true", "yes"):
        return True
    raise UserError(f"{COLD_ENV}={value!r}: expected 1 (a sandbox per case) or 0 (warm sandboxes, the default)")


class MissingVerifier(Exception):
    pass


@dataclass(frozen=True)
class FrozenVerifier:
    source: Path
    directory: Path  # staged copy holding verify.py
    sha256: str  # over relative paths and contents of every file


def _stage(source: Path, target: Path) -> FrozenVerifier:
    """Copies the verifier at `source` (a directory holding verify.py, or one file) to `target`.

    No link is followed: `source` itself must not be one (it may name any host file), links inside
    a directory stay links (inside the sandbox they resolve in its view, not the host's). A FIFO,
    device or socket, or more than MAX_VERIFIER_FILES entries or MAX_VERIFIER_BYTES bytes, refuse
    the verifier with one line (MissingVerifier: U for its cases).
    """
    try:
        mode = os.lstat(source).st_mode
    except FileNotFoundError:
        raise MissingVerifier(f"missing verifier: no {source}") from None
    except OSError as exc:
        raise MissingVerifier(f"verifier {source}: {exc.strerror}") from None
    budget = _Budget(source)
    try:
        if stat.S_ISDIR(mode):
            with _opened_dir(source, follow=True) as fd:  # the path the caller named: its own, links allowed
                entry = _lstat_mode(fd, ENTRYPOINT)
                if entry is None or not stat.S_ISREG(entry):
                    what = "no" if entry is None else f"{safe_fs.kind(entry)} as its"
                    raise MissingVerifier(f"missing verifier: {source} has {what} {ENTRYPOINT}")
                target.mkdir(parents=True)
                _copy_tree(fd, target, budget, "", 0)
        elif stat.S_ISREG(mode):
            with _opened_dir(source.parent, follow=True) as fd:
                data = safe_fs.read_regular(fd, source.name, budget.bytes_left())
            target.mkdir(parents=True)
            (target / ENTRYPOINT).write_bytes(data)
        else:
            why = "a symbolic link (verifiers are staged without following links)" if stat.S_ISLNK(mode) else safe_fs.kind(mode)
            raise MissingVerifier(f"verifier {source} is {why}, not a file or directory")
    except safe_fs.FileTooLarge:
        raise MissingVerifier(f"verifier {source}: more than {MAX_VERIFIER_BYTES} bytes") from None
    except OSError as exc:  # a link or special file found on the way (UnsafePath), or unreadable
        raise MissingVerifier(f"verifier {source}: {exc.strerror or exc}") from None
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(target):
        dirnames.sort()
        os.chmod(dirpath, 0o755)
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            if path.is_symlink():  # never chmod or read through a link (it may name a host file)
                content = b"link:" + os.readlink(path).encode()
            elif path.is_dir():
                continue
            else:
                os.chmod(path, 0o644)
                content = path.read_bytes()
            digest.update(str(path.relative_to(target)).encode() + b"\0" + content + b"\0")
    return FrozenVerifier(source, target, "sha256:" + digest.hexdigest())


MAX_VERIFIER_BYTES = 64 << 20  # a verifier's files together
MAX_VERIFIER_FILES = 2000  # its files, directories and links
MAX_VERIFIER_DEPTH = 32


class _Budget:
    def __init__(self, source: Path) -> None:
        self.source, self.entries, self.bytes = source, 0, 0

    def count_entry(self) -> None:
        self.entries += 1
        if self.entries > MAX_VERIFIER_FILES:
            raise MissingVerifier(f"verifier {self.source}: more than {MAX_VERIFIER_FILES} files")

    def bytes_left(self) -> int:
        return MAX_VERIFIER_BYTES - self.bytes


@contextmanager
def _opened_dir(path: Path | str, follow: bool = False, dir_fd: int | None = None) -> Iterator[int]:
    flags = safe_fs.DIR_FLAGS & ~(os.O_NOFOLLOW if follow else 0)
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        yield fd
    finally:
        os.close(fd)


def _lstat_mode(dir_fd: int, name: str) -> int | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None


def _copy_tree(src_fd: int, target: Path, budget: _Budget, relative: str, depth: int) -> None:
    """Copies the directory open at `src_fd` into `target`, by descriptors only (no path is re-resolved)."""
    if depth > MAX_VERIFIER_DEPTH:
        raise MissingVerifier(f"verifier {budget.source}: directories nested deeper than {MAX_VERIFIER_DEPTH}")
    for name in sorted(os.listdir(src_fd)):
        if name == "__pycache__":
            continue
        budget.count_entry()
        mode = _lstat_mode(src_fd, name)
        if mode is None:
            continue  # removed meanwhile
        if stat.S_ISLNK(mode):
            os.symlink(os.readlink(name, dir_fd=src_fd), target / name)
        elif stat.S_ISDIR(mode):
            (target / name).mkdir()
            with _opened_dir(name, dir_fd=src_fd) as child:  # O_NOFOLLOW: a swap for a link is refused
                _copy_tree(child, target / name, budget, f"{relative}{name}/", depth + 1)
        elif stat.S_ISREG(mode):
            data = safe_fs.read_regular(src_fd, name, budget.bytes_left())
            budget.bytes += len(data)
            (target / name).write_bytes(data)
        else:
            raise MissingVerifier(f"verifier {budget.source}: {relative}{name} is {safe_fs.kind(mode)}, not a regular file")


def _tree_signature(path: Path) -> tuple:
    try:  # lstat throughout: a link is a change of its own, and nothing is followed
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            return ((path.name, info.st_mode, info.st_size, info.st_mtime_ns),)
        entries = []
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames.sort()
            for name in sorted(filenames):
                info = os.lstat(os.path.join(dirpath, name))
                entries.append((os.path.relpath(os.path.join(dirpath, name), path), info.st_mode, info.st_size, info.st_mtime_ns))
        return tuple(entries)
    except OSError:
        return ()


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


def _remove_root(root: str, mounts: list[str], networks: dict[int, int], uid_block: int = 0) -> None:
    for fd in networks.values():
        os.close(fd)
    networks.clear()
    for mount_point in mounts:
        tmpfs.unmount(mount_point)
    shutil.rmtree(root, ignore_errors=True)
    if uid_block:
        uid_range.give_back(uid_block)


def sweep_stale_outputs() -> list[str]:
    """Unmounts the slots' /output mounts of harnesses that no longer exist and removes their roots."""
    if not running_as_root():
        return []
    removed = []
    for mount_point in tmpfs.mount_points(OUTPUT_SOURCE):
        root = Path(mount_point).parents[2]  # <root>/slots/<n>/out
        if root.name.startswith(ROOT_PREFIX) and not tmpfs.owner_alive(root.name, ROOT_PREFIX):
            tmpfs.unmount(mount_point)
            shutil.rmtree(root, ignore_errors=True)
            removed.append(str(root))
    return removed


def _require_traversable(base: Path) -> None:
    """The sandbox uid must reach files under the work directory: every ancestor needs o+x."""
    if not running_as_root():
        return
    for part in [base.resolve(), *base.resolve().parents]:
        if not os.stat(part).st_mode & 0o001:
            raise UserError(f"work directory {base}: {part} is not searchable by other users; choose another with VERIFIERBENCH_WORKDIR")


def _clear(directory: Path) -> None:
    """Empties a directory without following links the sandbox may have planted."""
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)


def _tail(path: Path, limit: int) -> str:
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - limit))
        return handle.read().decode("utf-8", errors="replace")
