"""`verifierbench run-verifier VERIFIER CANDIDATE.json`: one sandboxed run, with diagnostics."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from verifierbench.cli.options import add_executor_options, executor_from
from verifierbench.errors import UserError
from verifierbench.executor import Job


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
    try:
        candidate = json.loads(Path(args.candidate).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{args.candidate}: no such file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{args.candidate}: not valid JSON ({exc})") from None
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
