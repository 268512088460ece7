"""Fresh decisions of code tasks: the full test run against the run stopped at its first failure.

For every case of the chosen code tasks of a built suite, the reference decides twice from fresh sandboxed runs
(never the run cache): once with the full run, once stopped at the first failing test (pytest `-x`, django
`--failfast`; what screening's C2 repeats, exported references and the audit use where `reference.failfast_decides`
says it decides the same). The two alternate which goes first, case by case, so machine noise hits both alike.
Cases the static check rejects make no run and are left out. Prints per task the summed wall time of each way,
their ratio, the cases whose run stopped early, and any decision that differs (there must be none).

    .venv/bin/python benchmarks/failfast_decisions.py --suite DIR [--ids ID,ID] [--max-cases N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifierbench.core.schema import TaskType  # noqa: E402
from verifierbench.sources.swebench import grading  # noqa: E402
from verifierbench.sources.swebench.reference import failfast_decides, hidden_run  # noqa: E402
from verifierbench.suite.store import load_suite  # noqa: E402


def decide(reference: dict, diff: str, failfast: bool) -> tuple[bool, float, int]:
    """(PASS?, wall seconds, tests in the report) from a fresh run."""
    started = time.perf_counter()
    run = hidden_run(reference, diff, failfast=failfast)
    seconds = time.perf_counter() - started
    accepted, _ = grading.grade(run, reference["FAIL_TO_PASS"], reference["PASS_TO_PASS"], reference.get("gold_outcomes", {}),
                                runner=reference.get("runner", "pytest"), gold_exit_code=reference.get("gold_exit_code", 0))
    return accepted, seconds, len(run.outcomes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", required=True, help="a built suite with code tasks")
    parser.add_argument("--ids", help="SWE-bench instance ids (default: every code task)")
    parser.add_argument("--max-cases", type=int, default=0, help="at most this many cases a task (0: all)")
    args = parser.parse_args()
    suite = load_suite(Path(args.suite))
    wanted = set(args.ids.split(",")) if args.ids else None
    tasks = [t for t in suite.tasks.values() if t.type is TaskType.code and (wanted is None or t.source_id in wanted)]
    if not tasks:
        sys.exit("benchmark: no such code task in the suite")
    totals = [0.0, 0.0]
    for task in sorted(tasks, key=lambda t: t.source_id):
        reference = task.reference
        if not failfast_decides(reference):
            print(f"{task.source_id}: the gold's run exits {reference.get('gold_exit_code')}: fresh runs stay full; skipped")
            continue
        cases = [c for c in suite.cases_by_task[task.id] if grading.static_problem(c.candidate["diff"], reference["test_files"]) is None]
        cases = cases[: args.max_cases] if args.max_cases else cases
        full_s = fast_s = 0.0
        stopped, differ = [], []
        for number, case in enumerate(cases):
            order = (False, True) if number % 2 == 0 else (True, False)
            results = {failfast: decide(reference, case.candidate["diff"], failfast) for failfast in order}
            (full_ok, full_t, full_n), (fast_ok, fast_t, fast_n) = results[False], results[True]
            full_s, fast_s = full_s + full_t, fast_s + fast_t
            if fast_n < full_n:
                stopped.append(case.category.value)
            if full_ok != fast_ok or full_ok != (case.label.value == "PASS"):
                differ.append((case.id, case.category.value, case.label.value, full_ok, fast_ok))
        totals[0], totals[1] = totals[0] + full_s, totals[1] + fast_s
        print(f"{task.source_id}: {len(cases)} cases with runs; full {full_s:.1f} s, stopped at first failure {fast_s:.1f} s, "
              f"ratio {fast_s / full_s:.2f}; stopped early: {len(stopped)} ({', '.join(sorted(set(stopped)))}); "
              f"decisions differing or against the label: {differ or 'none'}", flush=True)
    if totals[0]:
        print(f"all: full {totals[0]:.1f} s, stopped at first failure {totals[1]:.1f} s, ratio {totals[1] / totals[0]:.2f}")


if __name__ == "__main__":
    main()
