"""`verifierbench suite check|inventory DIR`: verify a suite on disk, list its tasks."""

from __future__ import annotations

import argparse
import json
from collections import Counter

from verifierbench.cli.options import SUITE_HELP
from verifierbench.core.schema import Category
from verifierbench.suite.stats import suite_stats
from verifierbench.suite.store import load_suite


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("suite", help="check a suite directory or list its tasks",
                       description="Works on a suite directory (manifest.json, tasks.jsonl, cases.jsonl).")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser("check", help="verify every hash and the manifest; print counts",
                               description="Loads the suite, verifying content hashes and the manifest; exits 2 on the first problem.")
    check.add_argument("directory", metavar="DIR", nargs="?", default=None, help=SUITE_HELP)
    check.set_defaults(handler=run_check)
    inventory = actions.add_parser("inventory", help="print the task inventory as JSONL (for `metrics --tasks`)",
                                   description="Prints one {task_id, task_type, source} line per task.")
    inventory.add_argument("directory", metavar="DIR", nargs="?", default=None, help=SUITE_HELP)
    inventory.set_defaults(handler=run_inventory)
    stats = actions.add_parser("stats", help="tasks by source and type, cases by label and category (paper Tables 1, 6, 10)",
                               description="Counts what the suite holds. --json prints the counts as one JSON object.")
    stats.add_argument("directory", metavar="DIR", nargs="?", default=None, help=SUITE_HELP)
    stats.add_argument("--json", action="store_true", help="print JSON instead of tables")
    stats.set_defaults(handler=run_stats)


def run_check(args: argparse.Namespace) -> int:
    suite = _load(args.directory)
    categories = Counter(c.category.value for c in suite.cases.values())
    sources = Counter(t.source.value for t in suite.tasks.values())
    print(f"suite {suite.manifest.version}: {len(suite.tasks)} tasks, {len(suite.cases)} cases, all hashes verified")
    print("sources: " + ", ".join(f"{k} {v}" for k, v in sorted(sources.items())))
    print("categories: " + ", ".join(f"{k} {v}" for k, v in sorted(categories.items())))
    return 0


def run_inventory(args: argparse.Namespace) -> int:
    suite = _load(args.directory)
    for task in suite.tasks.values():
        print(json.dumps({"task_id": task.id, "task_type": task.type.value, "source": task.source.value}))
    return 0


def run_stats(args: argparse.Namespace) -> int:
    stats = suite_stats(_load(args.directory))
    if args.json:
        print(json.dumps(stats))
        return 0
    from rich.console import Console
    from rich.table import Table

    console = Console()
    t = stats["tasks"]
    console.print(f"{t['total']} tasks: " + ", ".join(f"{k} {v}" for k, v in t["by_source"].items())
                  + " | by type: " + ", ".join(f"{k} {v}" for k, v in t["by_type"].items()))
    by_source = stats["cases"]["by_source_and_category"]
    table = Table("category", "label", *by_source, "total", title=f"{stats['cases']['total']} cases")
    for category, total in stats["cases"]["by_category"].items():
        table.add_row(category, Category(category).label.value, *(str(counts.get(category, 0)) for counts in by_source.values()), str(total))
    per = stats["per_task_by_source"]
    table.add_row("cases per task", "", *(f"{per[s]['cases']:.1f}" for s in by_source), "")
    table.add_row("positives per task", "", *(f"{per[s]['positives']:.1f}" for s in by_source), "")
    console.print(table)
    return 0


def _load(directory: str | None):
    """The suite as every command finds it; `suite` only reads one, it never builds the default."""
    from verifierbench.suite.resolver import resolve_suite_dir

    return load_suite(resolve_suite_dir(directory))
