"""What a TestJack audit costs against scoring the hidden suite, measured in the same run (issue 8).

    .venv/bin/python benchmarks/audit_cost.py [--suite tasks/suite] [--tasks 20] [--repeats 3]

For each task, alternating so machine noise hits all alike, with the same sandboxed executor:
- hidden: the verifier on every hidden case (what `hidden_cases` pays);
- fresh audit: a full deterministic audit with an empty pool on a verifier that is never refuted
  (the reference verifier: all rounds spent, the worst case);
- pool replay: the lightweight path on a new trial, replaying the pooled witnesses of a verifier that
  was refuted (exact-match, which rejects valid rewrites) before any new round.
Prints the medians per task and the ratios to the hidden-suite time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifierbench.audit import engine  # noqa: E402
from verifierbench.audit.pool import WitnessPool  # noqa: E402
from verifierbench.suite.export import TEMPLATES, reference_libraries  # noqa: E402
from verifierbench.executor import Executor, Limits  # noqa: E402
from verifierbench.suite.resolver import open_suite  # noqa: E402
from verifierbench.core.schema import Category  # noqa: E402
from verifierbench.core import verifier_files  # noqa: E402


def files(task, suite, kind):
    extra = {"reference.json": json.dumps(task.reference)} if kind == "reference" else {
        "gold.json": json.dumps(next(c.candidate for c in suite.cases_by_task[task.id] if c.category is Category.gold))}
    return {p: verifier_files.encode(t.encode()) for p, t in {"verify.py": TEMPLATES[kind], **extra}.items()}


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default=None)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    _, suite = open_suite(args.suite)
    tasks = sorted(suite.tasks.values(), key=lambda t: t.id)[: args.tasks]
    times = {"hidden": [], "fresh audit": [], "pool replay": []}
    with Executor(Limits(), isolation="auto", libraries=reference_libraries()) as executor, tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            pool = WitnessPool(Path(tmp) / f"pool-{repeat}", suite.manifest.version)
            for task in tasks:
                hidden = suite.cases_by_task[task.id]
                reference, exact = files(task, suite, "reference"), files(task, suite, "exact-match")
                asyncio.run(engine.audit(task, hidden, engine.freeze(executor, exact), executor, pool, engine.Auditors()))  # fills the pool
                trial = engine.freeze(executor, reference)
                # Each lambda is called at once by timed(), inside this iteration (B023 does not apply).
                times["hidden"].append(timed(lambda: engine.decide_all(executor, trial, {c.id: c.candidate for c in hidden})))  # noqa: B023
                fresh = WitnessPool(Path(tmp) / f"empty-{repeat}-{task.id}", suite.manifest.version)
                times["fresh audit"].append(timed(lambda: asyncio.run(engine.audit(
                    task, hidden, engine.freeze(executor, reference), executor, fresh, engine.Auditors()))))  # noqa: B023
                times["pool replay"].append(timed(lambda: asyncio.run(engine.audit(
                    task, hidden, engine.freeze(executor, exact), executor, pool, engine.Auditors()))))  # noqa: B023
    base = statistics.median(times["hidden"])
    print(f"{len(tasks)} tasks x {args.repeats} repeats, median seconds per task:")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:12s} {median:7.3f} s   ratio to hidden {median / base:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
