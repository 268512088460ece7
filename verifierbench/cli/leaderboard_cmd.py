"""`verifierbench leaderboard LOG_DIR [--out results/leaderboard] [--figures paper_figures] [--audit SUMMARY] [--json]`."""

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
    from verifierbench.leaderboard.tables import Table


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "leaderboard",
        help="rank configurations from Inspect logs and write the paper's result tables and figures",
        description="Reads every VerifierBench log under LOG_DIR through Inspect's API, merges samples per configuration "
        "(model, model args, effort, harness, scoring options; not the task selection), ranks by unrounded BA_norm and "
        "writes Tables 2, 11-23 as CSV, Markdown and LaTeX, the figures as PNG, and a self-contained index.html. "
        "State and code tasks use the round with the median aggregate BA_norm. Where the logs hold TestJack audit scores "
        "(testjack_audit), or with --audit, the audited BA_norm, refuted share and perfect→refuted stand beside the "
        "hidden-suite numbers (Tables 2 and 16-18, and a per-source table); without any audit those columns are left out.",
    )
    p.add_argument("log_dir", metavar="LOG_DIR")
    p.add_argument("--out", default="results/leaderboard", metavar="DIR", help="tables and index.html (default %(default)s)")
    p.add_argument("--figures", default="paper_figures", metavar="DIR", help="figure PNGs (default %(default)s)")
    p.add_argument("--audit", default=None, metavar="SUMMARY", help="audited scores from this `verifierbench audit` summary.json "
                   "instead of the logs' testjack_audit scores")
    p.add_argument("--no-write", action="store_true", help="only print the ranking")
    p.add_argument("--json", action="store_true", help="print unrounded values as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not args.no_write:
        output_dir(args.out, "--out"), output_dir(args.figures, "--figures")
    from verifierbench.leaderboard.logs import scored_runs  # Inspect's log reader: only this command needs it

    scored = scored_runs(args.log_dir, args.audit)
    if not args.no_write:
        from verifierbench.leaderboard.figures import all_figures  # matplotlib only when writing
        from verifierbench.leaderboard.render import write_all
        from verifierbench.leaderboard.tables import all_tables
        from verifierbench.leaderboard.task_view import table_tasks

        tables = all_tables(scored) + [table_tasks(scored)]
        written = write_all(tables, all_figures(scored), Path(args.out), Path(args.figures), "VerifierBench leaderboard",
                            f"{len(scored)} configurations from {args.log_dir}")
        print(f"leaderboard: wrote {len(written)} files to {args.out} and {args.figures} (open {Path(args.out) / 'index.html'})",
              file=sys.stderr)
    if args.json:
        print(json.dumps({s.run.name: s.result for s in scored}, indent=1))
        return 0
    from verifierbench.leaderboard.tables import table_main

    print_table(table_main(scored))
    return 0


def print_table(table: Table) -> None:
    from verifierbench.leaderboard.render import cell

    rich = RichTable(title=table.title)
    for column in table.columns:
        name = column in ("Configuration", "Model", "Harness")
        rich.add_column(column, justify="left" if name else "right", no_wrap=name)  # a name stays on one line, greppable
    for row in table.rows:
        rich.add_row(*[Text(cell(v)) for v in row])  # Text: '[single_reply]' is not markup
    Console(width=None if sys.stdout.isatty() else 200).print(rich)
