"""`verifierbench judge (--verifier PATH | --verifiers DIR) (--task ID | --source S | --type T | --all)`: run verifiers on hidden cases."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from verifierbench.cli.metrics_cmd import print_report
from verifierbench.cli.options import add_backend_options, add_executor_options, add_suite_option, backend_from, output_file
from verifierbench.judging.decisions import read_decisions
from verifierbench.core.errors import UserError
from verifierbench.judging.judge import judge, one_verifier, per_task_verifiers, select_tasks
from verifierbench.core.metrics import compute, display, tally
from verifierbench.core.schema import TaskType
from verifierbench.sources import registry


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "judge",
        help="run a verifier (or one per task) on the hidden cases of selected tasks",
        description="Freezes the verifier, runs it in the sandbox on every hidden case of each selected task and prints "
        "per-task r+, r- and FPR_h, then the metrics. Decisions are appended to --out as they finish (resumable with "
        "--resume). With --verifiers DIR, each task uses DIR/<task id>/verify.py or DIR/<task id>.py; a task without one "
        "gets U on every case and counts as not submitted.",
    )
    add_suite_option(p)
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--logs", metavar="LOGDIR", help="judge the `inspect eval --no-score` logs here (their frozen verifiers), "
                       "writing each scored log back in place; no task selection")
    which.add_argument("--verifier", metavar="PATH", help="one verifier (a .py file, or a directory with verify.py) for every selected task")
    which.add_argument("--verifiers", metavar="DIR", help="one verifier per task id")
    tasks = p.add_mutually_exclusive_group()
    tasks.add_argument("--task", action="append", dest="tasks", metavar="ID", help="this task (vgb-t- id or source/source_id); repeatable")
    tasks.add_argument("--source", choices=registry.NAMES, help="every task of this source")
    tasks.add_argument("--type", dest="task_type", choices=[t.value for t in TaskType], help="every task of this type")
    tasks.add_argument("--all", action="store_true", help="every task in the suite")
    p.add_argument("--out", metavar="DECISIONS.jsonl", help="append decision lines here (default: a temporary file, not kept)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted --out: keep decisions already made for the same case and verifier")
    p.add_argument("--json", action="store_true", help="print one decision line per case (the `metrics` input format) instead of tables")
    p.add_argument("--quiet", action="store_true", help="no progress bar or report")
    p.add_argument("--rescore", action="store_true", help="with --logs: judge logs that already have scores again")
    add_executor_options(p)
    add_backend_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.logs:
        return run_logs(args)
    if not (args.tasks or args.source or args.task_type or args.all):
        raise UserError("choose the tasks: --task ID, --source S, --type T or --all")
    from verifierbench.suite.resolver import open_suite

    if args.out:
        output_file(args.out, "--out")
        if Path(args.out).exists() and not args.resume:  # before the progress bar, so the error stays one line
            raise UserError(f"{args.out}: already exists; pass --resume to continue it, or remove it")
    suite_dir, suite = open_suite(args.suite)  # the one resolver: the ray backend gets the directory it resolved
    if args.verifier:
        path = Path(args.verifier)
        if not path.exists():
            raise UserError(f"{path}: no such verifier file or directory")
        locate = one_verifier(path)
    else:
        directory = Path(args.verifiers)
        if not directory.is_dir():
            raise UserError(f"{directory}: not a directory of verifiers")
        locate = per_task_verifiers(directory)
    tasks = select_tasks(suite, args.tasks, args.source, args.task_type)
    with tempfile.TemporaryDirectory(prefix="verifierbench-judge-") as scratch:
        out = Path(args.out) if args.out else Path(scratch) / "decisions.jsonl"
        console = Console(stderr=True)
        with backend_from(args, str(suite_dir)) as executor, Progress(
            TextColumn("judging"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
            console=console, disable=args.quiet or args.json,
        ) as progress:
            bar = progress.add_task("judge", total=None)
            judge(suite, locate, executor, out, resume=args.resume, tasks=tasks,
                  on_progress=lambda done, total: progress.update(bar, completed=done, total=total))
        if args.json:  # the whole file, so resumed decisions are printed too
            sys.stdout.write(out.read_text(encoding="utf-8"))
        elif not args.quiet:
            records = list(read_decisions(out))
            report = Console(width=None if sys.stdout.isatty() else 160)
            print_task_table(records, suite, report)
            # Every selected task has lines (U for a missing verifier), so the file alone is complete.
            print_report(compute(records), report)
    return 0


def run_logs(args: argparse.Namespace) -> int:
    from verifierbench.judging.judge_logs import judge_logs

    directory = Path(args.logs)
    if not directory.is_dir():
        raise UserError(f"{directory}: not a log directory")
    judged = judge_logs(directory, backend=args.backend, ray_address=args.ray_address, rescore=args.rescore,
                        on_log=None if args.quiet else lambda path, summary: print(f"{path}: {summary}"),
                        on_skip=lambda path, why: print(f"warning: skipping {path.removeprefix('file://')}: {why}", file=sys.stderr))
    print(f"judge: {len(judged)} log(s) judged in {directory}", file=sys.stderr)
    return 0


def print_task_table(records: list, suite, console: Console) -> None:
    table = Table("task", "source id", "r+", "r-", "FPR_h", "cases", title="per task (percent)")
    for task_id, t in sorted(tally(records).items(), key=lambda kv: (kv[1].info.source, suite.tasks[kv[0]].source_id)):
        attack = t.attack_accept()
        table.add_row(task_id, f"{t.info.source}/{suite.tasks[task_id].source_id}", display(100 * t.r_pos()),
                      display(100 * t.r_neg()), display(None if attack is None else 100 * attack),
                      str(sum(t.positive.values()) + sum(t.negative.values())))
    console.print(table)
