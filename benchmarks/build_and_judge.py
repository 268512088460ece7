"""Times the tool-call build and the sandboxed reference verifier against a trivial verifier, in one run.

    .venv/bin/python benchmarks/build_and_judge.py [--cases N]

Prints the build time (target <= 60 s) and the per-case judge time of the exported reference
verifier (which imports BFCL's checker or ours) as a ratio to always-accept on the same cases.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from verifierbench.suite.build import build_suite
from verifierbench.executor import Executor
from verifierbench.suite.export import export, reference_libraries
from verifierbench.judging.judge import judge


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=400, help="cases judged per verifier (spread over tasks)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        started = time.perf_counter()
        suite = build_suite(tmp / "suite", say=lambda _: None).suite
        build_s = time.perf_counter() - started
        # Every k-th task, so both sources and all categories are in the sample.
        tasks, total = [], 0
        for task in list(suite.tasks.values())[::3]:
            if total >= args.cases:
                break
            tasks.append(task)
            total += len(suite.cases_by_task[task.id])
        timings = {}
        for kind in ("always-accept", "reference"):
            export(suite, kind, tmp / kind, tasks)
            with Executor(libraries=reference_libraries() if kind == "reference" else ()) as executor:
                started = time.perf_counter()
                judge(suite, tmp / kind, executor, tmp / f"{kind}.jsonl", tasks=tasks)
                timings[kind] = (time.perf_counter() - started) / total
    print(f"build: {len(suite.tasks)} tasks, {len(suite.cases)} cases in {build_s:.2f} s (target <= 60 s)")
    print(f"judge: {total} cases on {len(tasks)} tasks; always-accept {1000 * timings['always-accept']:.1f} ms/case, "
          f"reference {1000 * timings['reference']:.1f} ms/case, ratio {timings['reference'] / timings['always-accept']:.2f}")


if __name__ == "__main__":
    main()
