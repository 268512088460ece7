"""`verifierbench leaderboard LOG_DIR [--json]`: ranks configurations from Inspect logs."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from verifierbench.leaderboard.logs import leaderboard
from verifierbench.metrics import display


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "leaderboard",
        help="rank configurations from Inspect logs (inspect eval / eval-set of verifierbench)",
        description="Reads every VerifierBench log under LOG_DIR through Inspect's API, merges samples per configuration "
        "(model, model args, harness, scoring options) and ranks by unrounded BA_norm. Per-case decisions come from the "
        "score metadata; state and code tasks use the round with the median aggregate BA_norm.",
    )
    p.add_argument("log_dir", metavar="LOG_DIR")
    p.add_argument("--json", action="store_true", help="print unrounded values as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    rows = leaderboard(args.log_dir)
    if args.json:
        print(json.dumps({name: result for name, result in rows}, indent=1))
        return 0
    table = Table(title="Leaderboard (task-weighted, %; ranked by unrounded BA_norm)")
    for column in ("rank", "configuration", "tasks", "BA_norm", "TPR", "TNR", "FPR_h", "submitted", "valid outputs"):
        table.add_column(column, justify="left" if column == "configuration" else "right")
    for rank, (name, r) in enumerate(rows, start=1):
        table.add_row(str(rank), name, str(r["n_tasks"]), display(r["ba_norm"]), display(r["tpr"]), display(r["tnr"]),
                      display(r["fpr_h"]), f"{r['n_submitted']}/{r['n_tasks']}", display(r["valid_output_rate"]))
    Console(width=None if sys.stdout.isatty() else 160).print(table)
    return 0
