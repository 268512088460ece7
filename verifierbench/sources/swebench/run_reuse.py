"""Reuse of the test runs a generated verifier triggers through `run_public` (issue 56): a request whose run is
provably the same run as one already made gets that run's raw result instead of a new sandbox.

Same run: the key (`runcache.run_key` with `purpose=PURPOSE`) holds everything that decides the result: the diff
bytes and the test selection (in order), the runner (django/pytest), the checkout by its tree digest, the test
environment by its content key and record (or the harness's Python and pytest), the runner program's digest
(`runcache.runner_digest`), the sandbox's level, limits and mounts. The time limit is not in the key: it is handled
by HEADROOM below. The reference's own runs (the build, screening) use keys without a purpose: the two kinds never
serve each other.

Kept only when the run says something about the code and nothing about the machine (`not_kept_because`): a run that
failed in its sandbox, timed out, was killed by a signal, crashed pytest, met its sandbox's limits (memory,
processes, file size, scratch, descriptors: `PRESSURE` in its log) or took more than 1/HEADROOM of its own limit is
answered to its requester and forgotten. Kept runs serve only requests whose limit is at least HEADROOM times the
kept run's seconds.

Where: an in-process memory (`MEMORY_ENTRIES` runs, the same process's later rounds and samples), then the
persistent run cache (`runcache`: later evals, other configurations), whose directory is this user's, 0700, refused
when it is a link, another user's or writable by others (then runs are made fresh: counted as `refused`). Only under
bubblewrap: a sandbox at level `none` runs as this user and could write the cache, so nothing is reused there.
docs/isolation.md ("Reused test runs") has the argument against a hostile verifier; docs/protocol.md what rounds
then measure.

`VERIFIERBENCH_RUN_REUSE=0` turns it off (every request runs); `VERIFIERBENCH_RUN_CACHE=0` leaves the memory only.
Counts per task (`tally`, keyed by `scope_of(reference)`), in the process that ran them: a run_public worker reports
them (`tallies`, via CodeEnvironment.run_counts) and the harness sums them (public_env/run_counts.py), whence the
hidden-case scorer records the judging rounds' counts in the score's `run_public` metadata.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections import Counter, OrderedDict
from pathlib import Path
from typing import Any

from verifierbench.core.errors import UserError
from verifierbench.sources.swebench import runcache

SWITCH = "VERIFIERBENCH_RUN_REUSE"  # "0": off
PURPOSE = "run_public"
HEADROOM = 2.0  # a kept run used at most half of its own limit, and serves requests with at least twice its seconds
MEMORY_ENTRIES = 256  # raw results of at most ~1 MiB each (the runner's result cap)
# A log line of a run that met its sandbox's limits rather than the code's behaviour: RLIMIT_AS, RLIMIT_NPROC (fork's
# EAGAIN), the scratch tmpfs, RLIMIT_FSIZE, RLIMIT_NOFILE, a kill, the runner's own timeout note.
PRESSURE = re.compile(r"MemoryError|Cannot allocate memory|Resource temporarily unavailable|No space left on device|"
                      r"File too large|Too many open files|Killed\b|Segmentation fault|core dumped|"
                      r"\[verifierbench: tests timed out\]")
PYTEST_INTERNAL_ERROR = 3

COUNTS = ("made", "reused", "not_kept", "refused")  # runs made in a sandbox, served from a kept run, made and not
# kept (why: in the log at debug level), and lookups that found the persistent cache unsafe

_log = logging.getLogger(__name__)
_lock = threading.Lock()
_memory: OrderedDict[str, tuple[bytes, float]] = OrderedDict()
_tallies: dict[str, Counter[str]] = {}
_warned: set[str] = set()


def enabled() -> bool:
    return os.environ.get(SWITCH, "").strip() != "0"


def scope_of(reference: dict[str, Any]) -> str:
    """The name counts are kept under: the task's instance (one task per instance in a suite)."""
    return str(reference.get("instance_id") or reference.get("checkout") or "")


def tally(scope: str) -> dict[str, int]:
    """This process's counts for `scope` so far (a copy)."""
    with _lock:
        counts = _tallies.get(scope, Counter())
        return {what: counts[what] for what in COUNTS}


def tallies() -> dict[str, dict[str, int]]:
    """This process's counts for every scope (a copy): what a run_public worker reports back to the harness."""
    with _lock:
        return {scope: {what: counts[what] for what in COUNTS} for scope, counts in _tallies.items()}


def _count(scope: str, what: str) -> None:
    with _lock:
        _tallies.setdefault(scope, Counter())[what] += 1


def key_for(job: dict[str, Any], checkout: Path, environment: Path | None, level: str, limits: Any,
            mounts: tuple[tuple[str, str], ...]) -> str | None:
    """The run's reuse key, None when nothing is reused for it (off, not bubblewrap, a checkout not named by its digest).

    Args:
        job: the sandbox runner's job, as `testrun.run_tests` builds it.
        checkout: the checkout's host directory.
        environment: the test environment's directory, None for the harness's pytest.
        level: the executor's isolation level.
        limits: the executor's limits.
        mounts: the run's read-only mounts.
    """
    if not enabled() or level != "bwrap" or job.get("reach") or job.get("failfast"):
        return None
    return runcache.run_key(job, checkout, environment, level, limits, mounts, loopback=True, purpose=PURPOSE)


def lookup(scope: str, key: str, timeout_s: float) -> tuple[dict[str, Any], float] | None:
    """A kept run under `key` that serves a request with limit `timeout_s` (its raw result and seconds), counted."""
    with _lock:
        held = _memory.get(key)
        if held is not None:
            _memory.move_to_end(key)
    if held is not None and held[1] * HEADROOM <= timeout_s:
        _count(scope, "reused")
        return json.loads(held[0]), held[1]
    record = None
    if runcache.enabled():
        try:
            record = runcache.load(key, timeout_s / HEADROOM)
        except UserError as e:  # a planted or loose directory: never read, the run is made fresh
            _refused(scope, e)
    if record is None:
        return None
    _remember(key, record["result"], float(record["seconds"]))
    _count(scope, "reused")
    return record["result"], float(record["seconds"])


def not_kept_because(result: dict[str, Any] | None, problem: str, seconds: float, timeout_s: float, runner: str,
                     tests: int = 1) -> str:
    """Why a run's raw result must not serve another request ("" when it may).

    Args:
        result: the sandbox runner's result object (None: the run gave none).
        problem: the sandbox's failure, "" when none.
        seconds: the run's measured wall time.
        timeout_s: the tests' own limit for this run.
        runner: django or pytest.
        tests: how many tests the run was asked for (none: the diff is only applied, no exit status).
    """
    if result is None or problem:
        return f"the run failed in its sandbox: {problem or 'no result'}"
    if seconds * HEADROOM > timeout_s:
        return f"it took {seconds:.1f} s of its {timeout_s:g} s limit (a slowed run, near its limit)"
    if not result.get("applied") or not tests:
        return ""  # git apply's verdict on the same bytes and the same tree
    exit_code = result.get("exit_code")
    if not isinstance(exit_code, int) or isinstance(exit_code, bool):
        return "its tests timed out (no exit status)"
    if exit_code < 0 or exit_code >= 128:
        return f"its tests were killed (exit status {exit_code})"
    if runner == "pytest" and exit_code == PYTEST_INTERNAL_ERROR:
        return "pytest crashed (internal error)"
    found = PRESSURE.search(str(result.get("log") or ""))
    if found:
        return f"its log shows a resource limit or a kill ({found.group(0)!r})"
    return ""


def record(scope: str, key: str | None, result: dict[str, Any] | None, problem: str, seconds: float, timeout_s: float,
           runner: str, tests: int, about: dict[str, Any]) -> None:
    """Counts a run made for `scope` and keeps it under `key` when it may serve others (`not_kept_because`).

    Args:
        scope: the task's counts (`scope_of`).
        key: the run's reuse key, None when nothing is reused for it.
        result, problem, seconds: the raw run (`testrun.RawRun`).
        timeout_s: its tests' limit.
        runner: django or pytest.
        tests: how many tests it was asked for.
        about: readable fields for the persistent file.
    """
    _count(scope, "made")
    if key is None:
        return
    why = not_kept_because(result, problem, seconds, timeout_s, runner, tests)
    if why or result is None:
        _count(scope, "not_kept")
        _log.debug("run_public test run not kept for reuse (%s): %s", scope, why)
        return
    _remember(key, result, seconds)
    if runcache.enabled():
        try:
            runcache.store(key, result, seconds, {**about, "purpose": PURPOSE})
        except UserError as e:
            _refused(scope, e)


def _remember(key: str, result: dict[str, Any], seconds: float) -> None:
    data = json.dumps(result).encode()  # bytes: no caller can change what a later request gets
    with _lock:
        _memory[key] = (data, seconds)
        _memory.move_to_end(key)
        while len(_memory) > MEMORY_ENTRIES:
            _memory.popitem(last=False)


def _refused(scope: str, error: UserError) -> None:
    _count(scope, "refused")
    if str(error) not in _warned:
        _warned.add(str(error))
        _log.warning("run_public test runs are not reused from disk: %s", error)


def forget() -> None:
    """Empties the memory (tests: a fresh process)."""
    with _lock:
        _memory.clear()
