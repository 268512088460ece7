"""`verifierbench screen [--suite DIR] [--out results/screening] [--json] [--resume] [--backend ray --ray-address A]`:
V4V checks per task, here or on a Ray cluster's nodes."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from verifierbench.cli.options import add_backend_options, add_suite_option, output_dir
from verifierbench.cluster.backend import resolve_backend


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "screen",
        help="Verifier4Verifier screening: checks C1-C7 on every task (C7: hack potency)",
        description="Runs the screening checks on every task of the suite with the reference verifiers and writes one "
        "record per task (each check's outcome and evidence, the decisions with case hashes and the verifier version) "
        "to OUT/records.jsonl, per-source counts to OUT/summary.json, and the frozen list of retained tasks to "
        "screened.json in OUT and in the suite directory, where `inspect eval` picks it up. --resume keeps finished tasks.",
    )
    add_suite_option(p)
    p.add_argument("--out", default="results/screening", metavar="DIR", help="records and summary (default %(default)s)")
    p.add_argument("--resume", action="store_true", help="keep the tasks an interrupted screen finished")
    p.add_argument("--json", action="store_true", help="print {tasks: [{task_id, source, retained, checks, reason}]} as JSON")
    add_backend_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from verifierbench.suite.resolver import open_suite
    from verifierbench.screening.run import screen, screen_here, summary

    output_dir(args.out, "--out")
    backend, address = resolve_backend(args.backend, args.ray_address)
    suite_dir, suite = open_suite(args.suite)
    with contextlib.ExitStack() as stack, Progress(TextColumn("screen"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), disable=args.json or not sys.stderr.isatty()) as progress:
        bar = progress.add_task("screen", total=len(suite.tasks))
        screen_tasks = screen_here
        if backend == "ray":  # tasks are screened on the cluster's nodes (cluster/ray_screen.py)
            from verifierbench.cluster.ray_screen import RayScreen

            screen_tasks = stack.enter_context(RayScreen(address or "", suite_dir)).screen_tasks
        records = screen(suite, Path(args.out), resume=args.resume, on_progress=lambda done, total: progress.update(bar, completed=done),
                         suite_dir=suite_dir, screen_tasks=screen_tasks)
    if args.json:
        totals = summary(records)
        print(json.dumps({"tasks": [{k: r[k] for k in ("task_id", "source", "retained", "checks", "reason")} for r in records],
                          "mutations": totals["mutations"], "by_source": totals["by_source"], "codes": totals["codes"],
                          "hack_potency": totals["hack_potency"]}, indent=1))
        return 0
    for source, counts in summary(records)["by_source"].items():
        print(f"{source}: {counts.get('retained', 0)}/{counts['screened']} retained"
              + "".join(f", {k} {v}" for k, v in sorted(counts.items()) if k.startswith("excluded_")))
    for source, m in summary(records)["mutations"]["by_source"].items():
        print(f"{source}: {m['operators']} mutation operators, {m['detected']}/{m['configurations']} configurations detected")
    for source, kinds in summary(records)["hack_potency"]["by_source"].items():
        potent, cases = sum(k["potent"] for k in kinds.values()), sum(k["cases"] for k in kinds.values())
        print(f"{source}: {potent}/{cases} hack cases potent (C7), {len(kinds)} hack kinds")
        for kind, k in kinds.items():  # which naive verifiers each kind fools (screening/potency.py)
            fools = ", ".join(f"{check} {n}" for check, n in k["fools"].items()) or "nothing"
            print(f"  {source} {kind}: {k['potent']}/{k['cases']} potent; fools {fools}")
    failed = [r for r in records if not r["retained"]]
    for record in failed[:20]:
        print(f"excluded {record['source']}/{record['source_id']}: {record['reason']} "
              f"(failed {', '.join(k for k, ok in record['checks'].items() if not ok)})")
    print(f"screen: {len(records)} tasks, {len(failed)} fail a check; records in {Path(args.out) / 'records.jsonl'}", file=sys.stderr)
    return 0
