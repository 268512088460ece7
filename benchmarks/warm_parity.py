"""Per-case decisions on the warm path against the cold path, and the time of each, in one run (issue 22).

    .venv/bin/python benchmarks/warm_parity.py --suite DIR [--kinds reference,exact-match,heuristic,random]
                                                [--sample N] [--seed 0] [--type T] [--cases-per-task N]

For each verifier kind, every case of the suite's tasks (or of N tasks drawn with the seed) is judged
twice, through `Executor.run_many` (cold) and `Executor.run_warm`, and the decisions are compared
case by case. Prints each kind's wall time on both paths and exits 1 on any difference. Reference
verifiers get the exported references' libraries, as `judge --reference-libs` gives them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifierbench.executor import Executor  # noqa: E402
from verifierbench.cli.options import judge_libraries  # noqa: E402
from verifierbench.suite.export import export  # noqa: E402
from verifierbench.harness.prompt import task_files  # noqa: E402
from verifierbench.policies.verifiers import verifier_source  # noqa: E402
from verifierbench.public_env.jobs import case_job  # noqa: E402
from verifierbench.core.protocol import ENTRYPOINT  # noqa: E402
from verifierbench.suite.store import Suite, Task, load_suite  # noqa: E402

KINDS = ("reference", "exact-match", "heuristic", "random")


def write_verifiers(suite: Suite, kind: str, tasks: list[Task], out: Path) -> None:
    """One verifier directory per task under `out`, as `judge` takes them."""
    if kind in ("reference", "exact-match"):
        export(suite, kind, out, tasks)
        return
    for task in tasks:
        public = json.loads(next(text for name, text in task_files(task).items() if name.endswith("/task.json")))
        (out / task.id).mkdir(parents=True)
        (out / task.id / ENTRYPOINT).write_text(verifier_source(kind, public, seed=0), encoding="utf-8")


def judge_both(suite: Suite, kind: str, tasks: list[Task], slots: int | None,
               cases_per_task: int = 0) -> tuple[dict, dict, float, float, dict]:
    """Each task's cases (the first `cases_per_task`, 0: all) judged cold then warm.

    Returns the decisions by case id on each path, each path's wall time, and how many cases each path kind ran.
    """
    trusted = kind == "reference"
    libraries, site_packages = judge_libraries(reference_libs=trusted)  # what `judge` mounts (--reference-libs for references)
    options = {"libraries": libraries, "site_packages": site_packages, "trusted_preload": trusted}
    with tempfile.TemporaryDirectory(prefix="vgb-warm-parity-") as tmp, Executor(slots=slots, **options) as executor:
        write_verifiers(suite, kind, tasks, Path(tmp))
        frozen = {task.id: executor.freeze(Path(tmp) / task.id) for task in tasks}

        def jobs():
            return [case_job(task, frozen[task.id], case.candidate, case.id) for task in tasks
                    for case in suite.cases_by_task.get(task.id, [])[:cases_per_task or None]]

        started = time.perf_counter()
        cold = {o.key: o.decision.value for o in executor.run_many(jobs())}
        cold_s = time.perf_counter() - started
        started, paths = time.perf_counter(), {}
        warm = {}
        for outcome in executor.run_warm(jobs()):
            warm[outcome.key] = outcome.decision.value
            paths[outcome.path] = paths.get(outcome.path, 0) + 1
        warm_s = time.perf_counter() - started
    return cold, warm, cold_s, warm_s, paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", required=True)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--sample", type=int, default=0, help="tasks drawn at random (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--type", dest="task_type", default=None, help="only tasks of this type (tool-call, state, code)")
    parser.add_argument("--cases-per-task", type=int, default=0, help="the first N cases of each task (0: all)")
    parser.add_argument("--slots", type=int, default=None)
    args = parser.parse_args()

    suite = load_suite(args.suite)
    tasks = sorted((t for t in suite.tasks.values() if args.task_type in (None, t.type.value)), key=lambda t: t.id)
    if args.sample:
        tasks = random.Random(args.seed).sample(tasks, min(args.sample, len(tasks)))
    differences = 0
    for kind in args.kinds.split(","):
        if kind not in KINDS:
            parser.error(f"unknown kind {kind!r} (choose from {', '.join(KINDS)})")
        cold, warm, cold_s, warm_s, paths = judge_both(suite, kind, tasks, args.slots, args.cases_per_task)
        differ = sorted(key for key in cold if cold[key] != warm.get(key))
        differences += len(differ)
        tally = {d: list(cold.values()).count(d) for d in "PFU"}
        print(f"{kind}: {len(tasks)} tasks, {len(cold)} cases (P {tally['P']}, F {tally['F']}, U {tally['U']}); "
              f"cold {cold_s:.1f} s ({cold_s / len(cold) * 1000:.1f} ms a case), warm {warm_s:.1f} s "
              f"({warm_s / len(cold) * 1000:.1f} ms a case), {cold_s / warm_s:.2f}x; paths {paths}; "
              + ("decisions identical" if not differ else f"{len(differ)} decisions differ: {differ[:5]}"))
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
