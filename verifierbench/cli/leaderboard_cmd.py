"""`verifierbench leaderboard LOG_DIR [--out results/leaderboard] [--figures paper_figures] [--audit SUMMARY] [--pad-missing] [--json]`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from verifierbench.cli.options import output_dir

if TYPE_CHECKING:  # the leaderboard's modules read Inspect logs: imported by the commands that use them, so that
    # every other command starts without loading inspect_ai
    from verifierbench.leaderboard.logs import Board
    from verifierbench.leaderboard.tables import Table

PAD_HELP = ("rank on every task any configuration scored, a task a configuration has no score for counting as a failure "
            "(default: rank on the tasks every configuration scored, naming the others)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "leaderboard",
        help="rank configurations from Inspect logs and write the paper's result tables and figures",
        description="Reads every VerifierBench log under LOG_DIR through Inspect's API, merges samples per configuration "
        "(model, model args, effort, harness, scoring options; not the task selection), ranks by unrounded BA_norm on the "
        "tasks every configuration scored (the others named; --pad-missing counts them as failures instead) and "
        "writes Tables 2, 11-23 as CSV, Markdown and LaTeX, the figures as PNG, and a self-contained index.html. "
        "State and code tasks use the round with the median aggregate BA_norm. Where the logs hold TestJack audit scores "
        "(testjack_audit), or with --audit, the audited BA_norm, refuted share and perfect→refuted stand beside the "
        "hidden-suite numbers (Tables 2 and 16-18, and a per-source table); without any audit those columns are left out. "
        "Every log read is accounted for: a table of each configuration's status (complete, partial, error, cancelled) and "
        "coverage, and a warning line per log that was skipped or is not complete.",
    )
    p.add_argument("log_dir", metavar="LOG_DIR")
    p.add_argument("--out", default="results/leaderboard", metavar="DIR", help="tables and index.html (default %(default)s)")
    p.add_argument("--figures", default="paper_figures", metavar="DIR", help="figure PNGs (default %(default)s)")
    p.add_argument("--audit", default=None, metavar="SUMMARY", help="audited scores from this `verifierbench audit` summary.json "
                   "instead of the logs' testjack_audit scores")
    p.add_argument("--pad-missing", action="store_true", help=PAD_HELP)
    p.add_argument("--no-write", action="store_true", help="only print the ranking")
    p.add_argument("--json", action="store_true", help="print unrounded values as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not args.no_write:
        output_dir(args.out, "--out"), output_dir(args.figures, "--figures")
    from verifierbench.leaderboard.logs import read_board  # Inspect's log reader: only this command needs it

    board = read_board(args.log_dir, args.audit, args.pad_missing)
    report(board, "leaderboard")
    scored = board.scored
    if not args.no_write:
        from verifierbench.leaderboard.figures import all_figures  # matplotlib only when writing
        from verifierbench.leaderboard.render import write_all
        from verifierbench.leaderboard.tables import all_tables, table_runs
        from verifierbench.leaderboard.task_view import table_tasks

        tables = [table_runs(board), *all_tables(scored, board.task_set), table_tasks(scored, board.task_set)]
        written = write_all(tables, all_figures(scored), Path(args.out), Path(args.figures), "VerifierBench leaderboard",
                            f"{len(scored)} configurations ranked from {args.log_dir}; {board.task_set.describe()}")
        print(f"leaderboard: wrote {len(written)} files to {args.out} and {args.figures} (open {Path(args.out) / 'index.html'})",
              file=sys.stderr)
    if args.json:
        print(json.dumps(board.as_json(), indent=1))
        return 0
    from verifierbench.leaderboard.tables import table_main, table_runs

    print_table(table_main(scored, board.task_set))
    print_table(table_runs(board))
    return 0


def report(board: Board, command: str) -> None:
    """On stderr: a warning line per skipped or not complete log, then the tasks the ranking is on."""
    for line in board.warnings():
        print(line, file=sys.stderr)
    print(f"{command}: {board.task_set.describe(most=10)}", file=sys.stderr)


def print_table(table: Table) -> None:
    from verifierbench.leaderboard.render import cell

    rich = RichTable(title=table.title)
    for i, column in enumerate(table.columns):
        name = column in ("Configuration", "Model", "Harness")
        numeric = all(row[i] is None or isinstance(row[i], (int, float)) for row in table.rows)
        # A name stays on one line, greppable; numbers align right, text left.
        rich.add_column(column, justify="right" if numeric and not name else "left", no_wrap=name)
    for row in table.rows:
        rich.add_row(*[Text(cell(v)) for v in row])  # Text: '[single_reply]' is not markup
    Console(width=None if sys.stdout.isatty() else 200).print(rich)
