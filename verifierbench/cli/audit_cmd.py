"""`verifierbench audit LOG_DIR`: lightweight TestJack audit of every configuration's verifiers in the logs."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from verifierbench.cli.options import add_backend_options, add_suite_option, output_dir
from verifierbench.core.errors import UserError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit",
        help="TestJack-style audit of the verifiers in Inspect logs (lightweight mode, witnesses shared across configurations)",
        description="For each task: replays the witness pool on every configuration's frozen verifier, then, within "
        "--rounds audit rounds, audits a verifier chosen at random among those not yet refuted and shares new "
        "witnesses with the rest. Writes OUT/summary.json and prints refuted shares and BA_norm before and after. "
        "Witnesses are certified by the reference verifier and kept in the pool for later audits.",
    )
    p.add_argument("log_dir", metavar="LOG_DIR", help="directory of Inspect logs scored by hidden_cases")
    add_suite_option(p)
    p.add_argument("--pool", default=None, metavar="DIR", help="witness pool (default $VERIFIERBENCH_WITNESS_POOL, else ~/.cache/verifierbench/witnesses)")
    p.add_argument("--rounds", type=int, default=3, metavar="N", help="audit rounds per task (default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed for the auditor and for choosing which verifier to audit")
    p.add_argument("--auditor-model", default=None, metavar="MODEL", help="Inspect model for the LLM auditor (default: none, model-free)")
    p.add_argument("--task-analysis", default=None, metavar="MODEL",
                   help="Inspect model for the task analysis pass: once per task, before any audit, it proposes witnesses for "
                   "requirements the hidden cases leave unchecked; certified ones are pooled for every configuration "
                   "(cached per task and model; without --reviewer-model they stay questionable and do not refute)")
    p.add_argument("--reviewer-model", default=None, metavar="MODEL", help="Inspect model that re-judges witnesses (default: rule review)")
    p.add_argument("--out", default="results/audit", metavar="DIR", help="summary directory (default %(default)s)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_backend_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from verifierbench.audit import engine, lightweight
    from verifierbench.audit.pool import WitnessPool
    from verifierbench.suite.resolver import open_logged_suite
    from verifierbench.leaderboard.logs import read_runs
    from verifierbench.scorers.hidden_cases import judging_backend

    if args.rounds < 0:
        raise UserError("--rounds must be at least 0")
    output_dir(args.out, "--out")
    if args.pool:
        output_dir(args.pool, "--pool")
    runs = read_runs(args.log_dir)
    suite_dir, suite = open_logged_suite(args.suite, args.log_dir)
    by_task: dict[str, dict[str, dict]] = {}
    for run in runs.values():
        for task_id, meta in run.samples.items():
            by_task.setdefault(task_id, {})[run.name] = meta
    missing = sorted(t for t in by_task if t not in suite.tasks)
    if missing:
        raise UserError(f"{len(missing)} task(s) in the logs are not in suite {suite.manifest.version} (e.g. {missing[0]}); pass --suite")
    auditors = engine.Auditors(True, _model(args.auditor_model), _model(args.reviewer_model), args.seed,
                               task_analyst=_model(args.task_analysis))
    pool = WitnessPool(args.pool, suite.manifest.version)
    rng = random.Random(args.seed)
    executor = judging_backend(args.backend, args.ray_address, str(suite_dir))  # candidates run where hidden cases do
    audits = []
    with Progress(TextColumn("audit"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), disable=args.json or not sys.stderr.isatty()) as progress:
        bar = progress.add_task("audit", total=len(by_task))
        for task_id in sorted(by_task):
            task = suite.tasks[task_id]
            audits.append(asyncio.run(lightweight.audit_task(task, suite.cases_by_task[task_id], by_task[task_id], executor,
                                                             pool, auditors, args.rounds, rng)))
            progress.advance(bar)
    summary = lightweight.summarize(audits, suite.cases_by_task)
    summary.update({"suite": suite.manifest.version, "pool": str(pool.directory), "rounds_per_task": args.rounds, "seed": args.seed})
    if auditors.task_analyst is not None:
        summary["task_analysis"] = {a.task_id: a.task_analysis for a in audits if a.task_analysis is not None}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    table = Table(title=f"TestJack audit: {len(by_task)} tasks, {summary['witnesses']} witnesses, "
                        f"{summary['audit_rounds']} audit rounds, {summary['executions']} executions")
    for column in ("configuration", "tasks", "refuted %", "perfect→refuted", "BA_norm", "audited BA_norm", "audited TPR", "audited TNR"):
        table.add_column(column, justify="left" if column == "configuration" else "right")
    for row in summary["configurations"]:
        table.add_row(Text(row["configuration"]), str(row["tasks"]), f"{row['refuted_rate']:.1f}",
                      f"{row['perfect_refuted']}/{row['perfect_on_hidden']}", f"{row['BA_norm']:.1f}",
                      f"{row['audited_BA_norm']:.1f}", f"{row['audited_TPR']:.1f}", f"{row['audited_TNR']:.1f}")
    Console(width=None if sys.stdout.isatty() else 160).print(table)
    if "task_analysis" in summary:
        analysed = summary["task_analysis"].values()
        print(f"task analysis ({args.task_analysis}): {len(analysed)} tasks, {sum(a['proposed'] for a in analysed)} proposed, "
              f"{sum(a['certified'] for a in analysed)} certified, {sum(a['valid'] for a in analysed)} valid")
    print(f"summary: {out / 'summary.json'}; witness pool: {pool.directory}")
    return 0


def _model(name: str | None):
    if not name:
        return None
    from inspect_ai.model import get_model

    return get_model(name)
