"""Cost of one tau2 `replay` (what `run_public` serves), retail and banking_knowledge.

    .venv/bin/python benchmarks/run_public_tau2.py [--repeats 5] [--tasks 16]

Replays the gold actions of the first `--tasks` retail and banking tasks `--repeats` times each through
`Tau2Environment.replay` (fresh environment, every observation, the full public state as a dict and its hash;
no memo), and the reference decision on a gold record. Prints the one-off domain load, then the median per
replay (target on retail: <= 0.5 s) and per decision.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifierbench.sources.tau2 import data  # noqa: E402
from verifierbench.sources.tau2 import environment  # noqa: E402
from verifierbench.sources.tau2.environment import Tau2Environment, recorded_result  # noqa: E402
from verifierbench.sources.tau2.reference import decide, gold_calls  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tasks", type=int, default=16)
    args = parser.parse_args()
    data.package_dir()
    print(f"inspect-evals {data.installed_version()}")
    for domain in data.DOMAINS:
        ids = list(data.task_ids(domain))[: args.tasks]
        started = time.perf_counter()
        Tau2Environment(domain, ids[0]).replay([])
        load = time.perf_counter() - started
        replays, decisions = [], []
        for task_id in ids:
            calls = gold_calls(domain, task_id)
            for _ in range(args.repeats):
                env = Tau2Environment(domain, task_id)  # a new environment: nothing memoised
                started = time.perf_counter()
                replay = env.replay(calls)
                replays.append(time.perf_counter() - started)
                assert replay.state_hash.startswith("sha256:")
            env = Tau2Environment(domain, task_id)
            record = {"messages": [{"role": c["role"], "content": "", "tool_calls": [{**c, "result": recorded_result(o)}]}
                                   for c, o in zip(calls, env.replay(calls).observations)], "final_response": "Done."}
            for _ in range(args.repeats):
                environment._environment.cache_clear()  # no memoised replay (the gold state's hash stays cached)
                started = time.perf_counter()
                decide({"domain": domain, "task_id": task_id}, record)
                decisions.append(time.perf_counter() - started)
        median = statistics.median(replays)
        print(f"{domain}: domain load {load:.2f} s once per process; replay median {median * 1000:.1f} ms "
              f"(max {max(replays) * 1000:.1f} ms) over {len(replays)} replays of {len(ids)} gold trajectories; "
              f"reference decision median {statistics.median(decisions) * 1000:.1f} ms")
        if domain == "retail":
            print(f"retail replay median: {median:.3f} s (target <= 0.5 s): {'ok' if median <= 0.5 else 'TOO SLOW'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
