"""A verifier run's job (what to run on which candidate) and its outcome (P, F or U, and why)."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from verifierbench.core import safe_fs
from verifierbench.executor.layout import result_name
from verifierbench.executor.limits import Limits
from verifierbench.executor.staging import FrozenVerifier
from verifierbench.core.protocol import NO_RESULT, RESULT_MAX_BYTES, Decision, parse_result_file


@dataclass(frozen=True)
class Job:
    """One verifier run: the verifier (directory with verify.py, or the file) and one candidate."""

    verifier: Path | str | FrozenVerifier
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
    result: dict[str, Any] | None = None  # the result object, for jobs with keep_result
    # Which path ran the case: "cold" (a sandbox of its own), "warm" (forked in its verifier's warm
    # sandbox, executor.warm) or "cold-fallback" (cold, because that warm sandbox had crashed).
    path: str = "cold"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["decision"] = self.decision.value
        return data


def decide(job: Job, limits: Limits, isolation: str, exit_status: int | None, timed_out: bool, wall: float,
           stderr_tail: str, out_dir: Path, token: str, path: str = "cold") -> Outcome:
    """What a finished run means: P, F or U from its exit, its result file and whether it timed out.

    Args:
        job: the job that ran.
        limits: the limits it ran under (its timeout is reported).
        isolation: the isolation level's name, recorded in the outcome.
        exit_status: the verifier's exit status (negative: killed by that signal).
        timed_out: whether the run was killed at its timeout.
        wall: its wall time in seconds.
        stderr_tail: the end of its stderr.
        out_dir: the slot's out/ (host side), holding the result file.
        token: the run's result file token (layout.result_name).
        path: which path ran it (Outcome.path).

    Returns:
        The outcome.
    """
    outcome = Outcome(job.key, Decision.U, exit_status=exit_status, timed_out=timed_out,
                      wall_time_s=round(wall, 4), stderr_tail=stderr_tail, isolation=isolation, path=path)
    if timed_out:
        outcome.problem = f"timed out after {limits.timeout_s:g} s"
        return outcome
    parsed = parse_result_file(out_dir / result_name(token))
    if exit_status != 0:
        outcome.problem = f"verifier exited with status {exit_status}" + (f" ({parsed.problem})" if parsed.problem else "")
        return outcome
    outcome.decision, outcome.confidence, outcome.reason, outcome.problem = parsed.decision, parsed.confidence, parsed.reason, parsed.problem
    if parsed.problem == NO_RESULT:  # not a crash: the verifier finished without deciding
        outcome.problem = "verifier exited 0 without writing a result file"
    if job.keep_result and parsed.decision is not Decision.U:
        raw = safe_fs.read_below(out_dir, [result_name(token)], RESULT_MAX_BYTES)  # no link, no FIFO
        outcome.result = json.loads(raw.decode("utf-8"))
    return outcome
