"""`verifierbench judge SUITE --verifiers DIR --out DECISIONS.jsonl`: run verifiers on hidden cases."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from verifierbench.cli.metrics_cmd import print_report
from verifierbench.cli.options import add_executor_options, executor_from
from verifierbench.decisions import read_decisions
from verifierbench.errors import UserError
from verifierbench.judge import judge
from verifierbench.metrics import compute
from verifierbench.suite import load_suite


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "judge",
        help="run verifiers on a suite's hidden cases and write decisions",
        description="Freezes each task's verifier (DIR/<task id>/verify.py or DIR/<task id>.py), runs it in the sandbox "
        "on every hidden case of its task, appends one decision line per case to --out, then prints the metrics. "
        "Tasks without a verifier get U on every case and count as not submitted.",
    )
    p.add_argument("suite", metavar="SUITE_DIR")
    p.add_argument("--verifiers", required=True, metavar="DIR", help="one verifier per task id")
    p.add_argument("--out", required=True, metavar="DECISIONS.jsonl")
    p.add_argument("--task", action="append", dest="tasks", metavar="ID", help="only this task (vgb-t- id or source/source_id); repeatable")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run: keep decisions already made for the same case and verifier")
    p.add_argument("--quiet", action="store_true", help="no progress bar or report")
    add_executor_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    suite = load_suite(args.suite)
    verifiers = Path(args.verifiers)
    if not verifiers.is_dir():
        raise UserError(f"{verifiers}: not a directory of verifiers")
    out = Path(args.out)
    console = Console(stderr=True)
    with executor_from(args) as executor, Progress(
        TextColumn("judging"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console, disable=args.quiet,
    ) as progress:
        bar = progress.add_task("judge", total=None)
        judge(suite, verifiers, executor, out, task_ids=args.tasks, resume=args.resume,
              on_progress=lambda done, total: progress.update(bar, completed=done, total=total))
    if not args.quiet:
        # Every selected task has lines (U for a missing verifier), so the file alone is complete.
        print_report(compute(read_decisions(out)), Console(width=None if sys.stdout.isatty() else 160))
    return 0
