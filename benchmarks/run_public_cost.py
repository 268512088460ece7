"""Cost of one `run_public` call as a verifier pays it (issue 4): through the task's service socket with
the `vgb_env` client, the full reply (observations, state, hash) decoded, against the in-process
replay it wraps, interleaved call by call so machine noise hits both alike.

    .venv/bin/python benchmarks/run_public_cost.py [--suite DIR] [--repeats 5]

Per source of state tasks in the suite: medians per call, their ratio, and for tau2 retail the target
(median <= 0.5 s per call).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verifierbench" / "sandboxes" / "in_sandbox_lib"))

import vgb_env  # noqa: E402

from verifierbench.suite.resolver import open_suite  # noqa: E402
from verifierbench.public_env.registry import environment_for, has_environment, recipe_for  # noqa: E402
from verifierbench.public_env.service import PublicService  # noqa: E402
from verifierbench.core.schema import Category  # noqa: E402
from verifierbench.sources.interaction import record  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default=None)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    _, suite = open_suite(args.suite)
    served, direct = defaultdict(list), defaultdict(list)
    for task in sorted(suite.tasks.values(), key=lambda t: t.id):
        if not has_environment(task):
            continue
        group = task.source.value + ("/" + task.source_id.split("/")[0] if task.source.value == "tau2" else "")
        gold = next(c.candidate for c in suite.cases_by_task[task.id] if c.category is Category.gold)
        environment = environment_for(task)
        environment.replay([])  # one-off loads are not per call
        with PublicService(recipe_for(task), budget=10 * args.repeats) as service:
            os.environ["VGB_PUBLIC_SOCKET"] = str(service.socket_path)
            vgb_env.run_public(gold)  # the service's worker started and its environment built: not per call
            for _ in range(args.repeats):
                started = time.perf_counter()
                reply = vgb_env.run_public(gold)
                served[group].append(time.perf_counter() - started)
                started = time.perf_counter()
                environment.replay(record.calls(gold))
                direct[group].append(time.perf_counter() - started)
                assert reply["state_hash"].startswith("sha256:")
    if not served:
        print("no state tasks with a public environment in this suite")
        return 1
    for group in sorted(served):
        s, d = statistics.median(served[group]), statistics.median(direct[group])
        line = f"{group:18s} run_public median {s * 1000:7.1f} ms per call; in-process replay {d * 1000:7.1f} ms; ratio {s / d:5.2f} ({len(served[group])} calls)"
        if group == "tau2/retail":
            line += f"; target <= 500 ms: {'ok' if s <= 0.5 else 'TOO SLOW'}"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
