"""The hidden-case scorer's time per case against the executor's, measured in the same run (issue 5).

    .venv/bin/python benchmarks/scorer_overhead.py [--suite tasks/suite] [--repeats 5]

For every task of the suite, the full Inspect scorer (`hidden_cases`: verifier files from the
store, freezing, every hidden case through the shared executor, the score value and metadata) is
timed against `Executor.run_many` on the same cases with the same trivial verifier, alternating
task by task so machine noise hits both alike. Prints the per-case medians and their ratio
(target <= 3.0).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inspect_ai.model import ModelName  # noqa: E402
from inspect_ai.scorer import Target  # noqa: E402
from inspect_ai.solver import TaskState  # noqa: E402
from inspect_ai.util import store  # noqa: E402

from verifierbench.executor import Job  # noqa: E402
from verifierbench.suite.resolver import open_suite  # noqa: E402
from verifierbench.scorers import verifier_files  # noqa: E402
from verifierbench.scorers.hidden_cases import hidden_cases, shared_executor  # noqa: E402

TRIVIAL = 'import sys\nopen(sys.argv[2], "w").write(\'{"decision": "PASS"}\')\n'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", default=None, help="suite directory (default: as `inspect eval` resolves it)")
    parser.add_argument("--repeats", type=int, default=3, help="passes over the suite")
    args = parser.parse_args()

    directory, suite = open_suite(args.suite)
    executor = shared_executor()
    score = hidden_cases(suite=str(directory), rounds=1)
    files = {"verify.py": verifier_files.encode(TRIVIAL.encode())}
    frozen = executor.freeze_copy(_write(files))
    list(executor.run_many([Job(frozen, {}, key="warm-up")]))

    scorer_per_case, executor_per_case = [], []
    for _ in range(args.repeats):
        for task in suite.tasks.values():
            cases = suite.cases_by_task[task.id]
            started = time.perf_counter()
            outcomes = list(executor.run_many(Job(frozen, c.candidate, key=c.id) for c in cases))
            executor_per_case.append((time.perf_counter() - started) / len(cases))
            assert all(o.decision.value == "P" for o in outcomes)

            state = TaskState(ModelName("verifierbench/always_accept"), task.id, 1, "", [], metadata={"task_id": task.id})
            store().set(verifier_files.STORE_KEY, {"files": files, "skipped": []})
            started = time.perf_counter()
            result = asyncio.run(score(state, Target("")))
            scorer_per_case.append((time.perf_counter() - started) / len(cases))
            assert result.value["r_pos@0"] == 1.0

    s, e = statistics.median(scorer_per_case), statistics.median(executor_per_case)
    print(f"suite {suite.manifest.version}: {len(suite.tasks)} tasks, {len(suite.cases)} cases, {args.repeats} passes; "
          f"isolation {executor.level.value}, {executor.slots} slots")
    print(f"executor run_many: median {e * 1000:.2f} ms per case")
    print(f"hidden_cases scorer: median {s * 1000:.2f} ms per case")
    print(f"ratio scorer/executor: {s / e:.2f} (target <= 3.0)")
    return 0 if s / e <= 3.0 else 1


def _write(files: dict) -> Path:
    import tempfile

    return verifier_files.materialize(files, Path(tempfile.mkdtemp(prefix="vgb-bench-")) / "verifier")


if __name__ == "__main__":
    raise SystemExit(main())
