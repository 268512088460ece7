"""`verifierbench run-verifier VERIFIER CANDIDATE.json`: one sandboxed run, with diagnostics."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from verifierbench.core import safe_fs
from verifierbench.cli.options import add_executor_options, executor_from
from verifierbench.core.errors import UserError
from verifierbench.executor import Job
from verifierbench.core.jsonl import loads

MAX_CANDIDATE_BYTES = 64 << 20  # hidden cases are far smaller; the harness holds the candidate several times over


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run-verifier",
        help="run a verifier on one candidate in the sandbox",
        description="Runs VERIFIER (a directory with verify.py, or the file) on one candidate JSON file, isolated, "
        "and prints the outcome (P, F or U) with exit status, timeout, wall time and stderr tail.",
    )
    p.add_argument("verifier", metavar="VERIFIER")
    p.add_argument("candidate", metavar="CANDIDATE.json")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    add_executor_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    verifier = Path(args.verifier)
    if not verifier.exists():
        raise UserError(f"{verifier}: no such verifier")
    candidate = read_candidate(args.candidate)
    with executor_from(args) as executor:
        outcome = executor.run(Job(verifier, candidate, key=Path(args.candidate).name))
    if args.json:
        print(json.dumps(outcome.to_json(), indent=1))
    else:
        print(f"decision: {outcome.decision.value}" + (f"  ({outcome.problem})" if outcome.problem else ""))
        print(f"exit status: {outcome.exit_status}  timed out: {outcome.timed_out}  wall time: {outcome.wall_time_s:.3f} s  isolation: {outcome.isolation}")
        if outcome.reason:
            print(f"reason: {outcome.reason}")
        if outcome.stderr_tail:
            print("stderr (tail):\n" + outcome.stderr_tail.rstrip())
    return 0


def read_candidate(name: str):
    """The candidate JSON value; a FIFO, device, directory or oversized file is refused before it is read."""
    try:
        raw = safe_fs.read_named_file(name, MAX_CANDIDATE_BYTES)
    except FileNotFoundError:
        raise UserError(f"{name}: no such file") from None
    except (safe_fs.UnsafePath, IsADirectoryError):
        raise UserError(f"{name}: not a regular file") from None
    except safe_fs.FileTooLarge:
        raise UserError(f"{name}: larger than {MAX_CANDIDATE_BYTES >> 20} MiB") from None
    except OSError as exc:
        raise UserError(f"{name}: cannot read ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return loads(text, name)
