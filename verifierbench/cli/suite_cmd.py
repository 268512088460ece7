"""`verifierbench suite check|inventory DIR`: verify a suite on disk, list its tasks."""

from __future__ import annotations

import argparse
import json
from collections import Counter

from verifierbench.suite import load_suite


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("suite", help="check a suite directory or list its tasks",
                       description="Works on a suite directory (manifest.json, tasks.jsonl, cases.jsonl).")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser("check", help="verify every hash and the manifest; print counts",
                               description="Loads the suite, verifying content hashes and the manifest; exits 2 on the first problem.")
    check.add_argument("directory", metavar="DIR")
    check.set_defaults(handler=run_check)
    inventory = actions.add_parser("inventory", help="print the task inventory as JSONL (for `metrics --tasks`)",
                                   description="Prints one {task_id, task_type, source} line per task.")
    inventory.add_argument("directory", metavar="DIR")
    inventory.set_defaults(handler=run_inventory)


def run_check(args: argparse.Namespace) -> int:
    suite = load_suite(args.directory)
    categories = Counter(c.category.value for c in suite.cases.values())
    sources = Counter(t.source.value for t in suite.tasks.values())
    print(f"suite {suite.manifest.version}: {len(suite.tasks)} tasks, {len(suite.cases)} cases, all hashes verified")
    print("sources: " + ", ".join(f"{k} {v}" for k, v in sorted(sources.items())))
    print("categories: " + ", ".join(f"{k} {v}" for k, v in sorted(categories.items())))
    return 0


def run_inventory(args: argparse.Namespace) -> int:
    suite = load_suite(args.directory)
    for task in suite.tasks.values():
        print(json.dumps({"task_id": task.id, "task_type": task.type.value, "source": task.source.value}))
    return 0
