"""Per-case cost of the executor's paths against bare `python3 -c pass`, in one run (issue 22).

    .venv/bin/python benchmarks/case_cost.py [--samples 60] [--cases 400]

Paths: `warm` (Executor.run_warm, batches only) and `cold` (a sandbox per case; each slot's sandboxes join one empty
network namespace made once). The verifier imports
`json` and `re`, as real ones do. Prints, for each path, the median wall time of one case (samples
interleaved with the bare spawn so machine noise hits all alike) and its ratio to the bare spawn,
then the wall and system CPU time of `--cases` cases through `run_many` on all slots.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifierbench.executor import Executor, Job  # noqa: E402
from verifierbench.executor.runner import DEFAULT_INTERPRETER  # noqa: E402

VERIFIER = """import json, re, sys
candidate = json.load(open(sys.argv[1]))
ok = re.fullmatch(r"case-\\d+", candidate["id"]) is not None
json.dump({"decision": "PASS" if ok else "FAIL"}, open(sys.argv[2], "w"))
"""


def children_cpu() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime, usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--cases", type=int, default=400)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, Executor() as per_slot:
        verifier = Path(tmp) / "verify.py"
        verifier.write_text(VERIFIER)
        paths = {"cold": per_slot}
        frozen = {name: executor.freeze(verifier) for name, executor in paths.items()}
        for name, executor in paths.items():  # warm-up: slot directories, namespaces, page cache
            assert executor.run(Job(frozen[name], {"id": "case-0"})).decision.value == "P"

        timings: dict[str, list[float]] = {"bare": [], **{name: [] for name in paths}}
        for i in range(args.samples):
            started = time.perf_counter()
            subprocess.run([DEFAULT_INTERPRETER, "-c", "pass"], check=True)
            timings["bare"].append(time.perf_counter() - started)
            for name, executor in paths.items():
                started = time.perf_counter()
                outcome = executor.run(Job(frozen[name], {"id": f"case-{i}"}, key=str(i)))
                timings[name].append(time.perf_counter() - started)
                assert outcome.decision.value == "P", outcome

        batches = {}
        for name, executor in paths.items():
            cpu_before, started = children_cpu(), time.perf_counter()
            outcomes = list(executor.run_many(Job(frozen[name], {"id": f"case-{i}"}, key=str(i)) for i in range(args.cases)))
            wall, cpu_after = time.perf_counter() - started, children_cpu()
            assert all(o.decision.value == "P" for o in outcomes)
            batches[name] = (wall, cpu_after[0] - cpu_before[0], cpu_after[1] - cpu_before[1])
        # The warm path: one warm sandbox per slot for the verifier's cases.
        cpu_before, started = children_cpu(), time.perf_counter()
        outcomes = list(per_slot.run_warm(Job(frozen["cold"], {"id": f"case-{i}"}, key=str(i)) for i in range(args.cases)))
        wall, cpu_after = time.perf_counter() - started, children_cpu()
        assert all(o.decision.value == "P" and o.path == "warm" for o in outcomes)
        batches["warm"] = (wall, cpu_after[0] - cpu_before[0], cpu_after[1] - cpu_before[1])
        bare_batch_started = time.perf_counter()
        for _ in range(args.cases // per_slot.slots):  # bare spawns, as many per slot as the batches ran
            subprocess.run([DEFAULT_INTERPRETER, "-c", "pass"], check=True)
        bare_batch = (time.perf_counter() - bare_batch_started) * per_slot.slots / args.cases

    bare = statistics.median(timings["bare"])
    print(f"isolation: {per_slot.level.value}, slots: {per_slot.slots}, samples: {args.samples}")
    print(f"bare `python3 -c pass`: median {bare * 1000:.1f} ms")
    for name in paths:
        median = statistics.median(timings[name])
        print(f"{name:14s} one case: median {median * 1000:.1f} ms, ratio to bare {median / bare:.2f}")
    print(f"bare spawn, sequential in the batch phase: {bare_batch * 1000:.1f} ms each")
    for name, (wall, user, system) in batches.items():
        print(f"{name:14s} {args.cases} cases ({'run_warm' if name == 'warm' else 'run_many'}): {wall:.1f} s wall "
              f"({wall / args.cases * 1000:.1f} ms a case amortised, {wall / args.cases * per_slot.slots / bare_batch:.2f}x a bare spawn per slot), "
              f"children's CPU {user:.1f} s user + {system:.1f} s sys")
    return 0


if __name__ == "__main__":
    sys.exit(main())
