"""Where an exported state reference's time goes in a trusted warm worker (issue 22), for one task.

    .venv/bin/python benchmarks/reference_case_profile.py --suite DIR --task TASK_ID [--profile]

Does what a trusted warm server does, in this process, unsandboxed (the reference is ours): imports the
reference's modules, calls its source's warm-up hook, freezes the heap out of the collector, then forks
one child per hidden case of the task, which decides it (`references.decide`) and exits. Prints the
import and warm-up times once, and per case: the decision alone (in the child), fork + decision + exit
as the parent sees it, and an empty fork + exit from the same heap. With --profile, each child's
decision is profiled and the cumulative profile of all cases printed. Also prints how many cases it
accepted (to compare with a judge run of the same task).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import importlib
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifierbench.sources.references import decide, preload_modules, warm_up  # noqa: E402
from verifierbench.suite.store import load_suite  # noqa: E402


def forked(work, profile_path: str | None = None) -> tuple[float, float, object]:
    """(seconds the parent waited, seconds `work` took in the child, its JSON result)."""
    read, write = os.pipe()
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        profiler = cProfile.Profile() if profile_path else None
        begun = time.perf_counter()
        if profiler:
            profiler.enable()
        result = work()
        if profiler:
            profiler.disable()
            profiler.dump_stats(profile_path)
        os.write(write, json.dumps([time.perf_counter() - begun, result]).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as reply:
        data = reply.read()
    os.waitpid(pid, 0)
    inner, result = json.loads(data) if data else (0.0, None)
    return time.perf_counter() - started, inner, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", default=os.environ.get("VERIFIERBENCH_SUITE", "tasks/suite"))
    parser.add_argument("--task", required=True)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    suite = load_suite(args.suite)
    task = suite.tasks[args.task]
    reference = json.loads(json.dumps(task.reference))  # as the worker reads it: reference.json
    started = time.perf_counter()
    for name in preload_modules(str(reference.get("checker"))):
        importlib.import_module(name)
    imported = time.perf_counter()
    warm_up(json.loads(json.dumps(reference)))
    warmed = time.perf_counter()
    gc.freeze()
    with open("/proc/self/status") as status:
        rss = next(line.split()[1] for line in status if line.startswith("VmRSS"))
    cases = suite.cases_by_task[task.id]
    print(f"load average {os.getloadavg()[0]:.1f}; {task.source.value}/{task.source_id}: imports {imported - started:.2f} s, "
          f"warm-up {warmed - imported:.2f} s, server RSS {int(rss) // 1024} MB, {len(cases)} cases")
    empty, seen, alone, passed = [], [], [], 0
    with tempfile.TemporaryDirectory() as profiles:
        for number, case in enumerate(cases):
            empty.append(forked(lambda: None)[0])
            candidate = json.dumps(case.candidate)
            wall, inner, accepted = forked(lambda text=candidate: decide(json.loads(json.dumps(reference)), json.loads(text))[0],
                                           f"{profiles}/{number}.prof" if args.profile else None)
            seen.append(wall)
            alone.append(inner)
            passed += bool(accepted)
        mean = lambda values: sum(values) / len(values) * 1000  # noqa: E731
        print(f"per case: decision {mean(alone):.0f} ms, fork + decision + exit {mean(seen):.0f} ms, "
              f"empty fork + exit {mean(empty):.0f} ms; {passed} PASS")
        if args.profile:
            pstats.Stats(*(f"{profiles}/{n}.prof" for n in range(len(cases)))).sort_stats("cumulative").print_stats(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
