"""`verifierbench export-verifiers KIND --out DIR`: per-task reference or baseline verifiers for `judge --verifiers`."""

from __future__ import annotations

import argparse
from pathlib import Path

from verifierbench.cli.options import add_suite_option, output_dir
from verifierbench.suite.export import KINDS, export
from verifierbench.judging.judge import select_tasks
from verifierbench.sources import registry


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export-verifiers", help="write the reference verifier or a baseline verifier for every task",
        description="Writes DIR/<task id>/verify.py (plus its data) for each selected task. Kinds: reference (judge it "
        "with --reference-libs), exact-match (PASS only on the gold's exact raw text, else its exact candidate), always-accept, always-reject.",
    )
    p.add_argument("kind", choices=KINDS)
    p.add_argument("--out", required=True, metavar="DIR")
    add_suite_option(p)
    p.add_argument("--task", action="append", dest="tasks", metavar="ID", help="only this task; repeatable")
    p.add_argument("--source", choices=registry.NAMES, help="only tasks of this source")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from verifierbench.suite.resolver import open_suite

    output_dir(args.out, "--out")
    _, suite = open_suite(args.suite)
    tasks = select_tasks(suite, args.tasks, args.source)
    n = export(suite, args.kind, Path(args.out), tasks)
    print(f"export-verifiers: wrote {args.kind} verifiers for {n} tasks to {args.out}")
    return 0
