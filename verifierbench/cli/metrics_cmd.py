"""`verifierbench metrics DECISIONS.jsonl... [--tasks INVENTORY.jsonl] [--json]`: one report, or a ranking of several runs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from verifierbench.judging.decisions import read_decisions, read_inventory
from verifierbench.core.errors import UserError
from verifierbench.core.metrics import compute, display


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "metrics",
        help="TPR, TNR, BA_norm, FPR_h and diagnostics from a decisions file",
        description="Computes the task-weighted metrics and pooled diagnostics from per-case decisions. "
        "Each line: {task_id, case_id, category, label, decision (P|F|U), task_type, source[, submitted]}.",
    )
    p.add_argument("decisions", metavar="DECISIONS.jsonl", nargs="+", help="decision lines, or - for stdin (e.g. `judge ... --json | verifierbench metrics -`); several files give one ranked row per file")
    p.add_argument("--tasks", metavar="INVENTORY.jsonl", help="every task of the run, one {task_id, task_type, source} per line; "
                   "tasks absent from the decisions count as missing verifiers")
    p.add_argument("--json", action="store_true", help="print unrounded values as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if len(args.decisions) > 1:
        return run_ranking(args)
    args.decisions = args.decisions[0]
    records = read_decisions(args.decisions)
    inventory = read_inventory(args.tasks) if args.tasks else []
    if not records and not inventory:
        raise UserError(f"{args.decisions}: no decisions")
    try:
        result = compute(records, inventory)
    except ValueError as exc:
        raise UserError(f"{args.decisions}: {exc}") from None
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        # Piped output keeps whole rows instead of wrapping at 80 columns.
        print_report(result, Console(width=None if sys.stdout.isatty() else 160))
    return 0


def print_report(result: dict[str, Any], console: Console) -> None:
    table = Table(title="VerifierBench metrics (task-weighted, %)")
    for column in ("slice", "tasks", "BA_norm", "TPR", "TNR", "FPR_h", "submitted", "valid outputs", "rejection share"):
        table.add_column(column, justify="left" if column == "slice" else "right")

    def row(name: str, r: dict[str, Any]) -> None:
        table.add_row(name, str(r["n_tasks"]), display(r["BA_norm"]), display(r["TPR"]), display(r["TNR"]), display(r["FPR_h"]),
                      f"{r['n_submitted']}/{r['n_tasks']}", display(r["valid_output_rate"]), display(r["rejection_share"]))

    row("all", result)
    for key in ("by_type", "by_source"):
        for name, r in result[key].items():
            row(f"{key[3:]}: {name}", r)
    console.print(table)

    cats = Table(title="Decisions per category (P / F / U)")
    for column in ("category", "P", "F", "U"):
        cats.add_column(column, justify="left" if column == "category" else "right")
    for name, counts in result["by_category"].items():
        cats.add_row(name, str(counts["P"]), str(counts["F"]), str(counts["U"]))
    console.print(cats)
    ar, acc = result["all_reject"], result["positive_acceptance"]
    console.print(
        f"all-reject verifiers: {ar['tasks']} tasks, {display(ar['share_cases'])}% of positive FAILs "
        f"({display(ar['share_tasks'])}% task-weighted); positive acceptance none/some/all: {acc['none']}/{acc['some']}/{acc['all']}"
    )


def run_ranking(args: argparse.Namespace) -> int:
    inventory = read_inventory(args.tasks) if args.tasks else []
    rows = {}
    for path in args.decisions:
        try:
            rows[Path(path).stem] = compute(read_decisions(path), inventory)
        except ValueError as exc:
            raise UserError(f"{path}: {exc}") from None
    ranked = sorted(rows.items(), key=lambda kv: -kv[1]["BA_norm"])  # rank on unrounded BA_norm
    if args.json:
        print(json.dumps({name: r for name, r in ranked}, indent=1))
        return 0
    table = Table(title="Leaderboard (task-weighted, %; ranked by unrounded BA_norm)")
    for column in ("rank", "run", "tasks", "BA_norm", "TPR", "TNR", "FPR_h", "submitted", "valid outputs"):
        table.add_column(column, justify="left" if column == "run" else "right")
    for rank, (name, r) in enumerate(ranked, start=1):
        table.add_row(str(rank), name, str(r["n_tasks"]), display(r["BA_norm"]), display(r["TPR"]), display(r["TNR"]),
                      display(r["FPR_h"]), f"{r['n_submitted']}/{r['n_tasks']}", display(r["valid_output_rate"]))
    Console(width=None if sys.stdout.isatty() else 160).print(table)
    return 0
