"""Ray judging backend: per-case overhead against local, and throughput with 1, 2 and 4 worker nodes.

    .venv/bin/python benchmarks/ray_scaling.py --suite DIR [--tasks 5] [--scale-tasks 16] [--sleep 1.0] [--code-suite DIR]

Overhead: the same always-accept verifier on the same tool-call tasks (and state tasks), `judge` end to end, local (1 slot) against a
cluster of one 1-CPU worker node, on `--tasks` tasks and on twice as many: the difference of the two runs is the
per-case cost without the fixed cost of a `judge` process (connecting, actors, loading the suite on the node). With
`--code-suite`, the same for the exported reference on the code suite's cases (each a sandboxed test run). Scaling: a sleep-bound verifier (so the host's 2 cores are not the limit: at 4
nodes of 2 slots and 1 s a case, about 8 sandbox starts a second), nodes of 1 CPU each, on `--scale-tasks` tasks (enough
chunks that 4 nodes stay busy to the end: with 5 tasks, one chunk each, the last wave left nodes idle), cases per
second with 1, 2 and 4 nodes; efficiency = rate(n) / (n * rate(1)). One run, ratios: the
machine is shared. Every Ray process is pinned to loopback with token authentication.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
os.environ.update({"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "token",
                   "RAY_AUTH_TOKEN": secrets.token_hex(32)})  # before Ray is imported

SLEEP = """import json, os, time
time.sleep({sleep})
json.dump({{"decision": "PASS"}}, open(os.environ["VGB_RESULT"], "w"))
"""
ACCEPT = """import json, os
json.dump({"decision": "PASS"}, open(os.environ["VGB_RESULT"], "w"))
"""


def verifiers(directory: Path, tasks: list[str], source: str) -> Path:
    for task in tasks:
        (directory / task).mkdir(parents=True, exist_ok=True)
        (directory / task / "verify.py").write_text(source)
    return directory


def judge(suite: str, directory: Path, tasks: list[str], out: Path, *extra: str) -> tuple[float, int]:
    start = time.perf_counter()
    subprocess.run([str(BIN / "verifierbench"), "judge", "--suite", suite, "--verifiers", str(directory), "--out", str(out),
                    "--quiet", *[a for t in tasks for a in ("--task", t)], *extra], check=True, capture_output=True)
    return time.perf_counter() - start, len(out.read_text().splitlines())


def overhead(suite: str, directory: Path, small: list[str], large: list[str], tmp: Path, address: str,
             *extra: str) -> dict:
    """Whole-run and marginal per-case times, local (1 slot) and on Ray; marginal = (large - small) / extra cases."""
    runs = {}
    for name, backend in (("local", ("--slots", "1")), ("ray", ("--backend", "ray", "--ray-address", address))):
        for size, tasks in (("small", small), ("large", large)):
            runs[name, size] = judge(suite, directory, tasks, tmp / f"{name}-{size}-{len(runs)}.jsonl", *extra, *backend)
    report: dict = {"cases": [runs["local", "small"][1], runs["local", "large"][1]]}
    for name in ("local", "ray"):
        (t1, c1), (t2, c2) = runs[name, "small"], runs[name, "large"]
        report[name] = {"small_s": round(t1, 2), "large_s": round(t2, 2),
                        "marginal_ms_per_case": round(1000 * (t2 - t1) / max(c2 - c1, 1), 1)}
    report["whole_run_ratio"] = round(runs["ray", "large"][0] / runs["local", "large"][0], 2)
    local_ms = report["local"]["marginal_ms_per_case"]
    # A local marginal cost below the runs' noise (the warm executor's cases take a few ms) makes no ratio.
    report["marginal_ratio"] = round(report["ray"]["marginal_ms_per_case"] / local_ms, 2) if local_ms >= 0.5 else None
    return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", required=True)
    parser.add_argument("--tasks", type=int, default=5)
    parser.add_argument("--scale-tasks", type=int, default=16)
    parser.add_argument("--sleep", type=float, default=1.0)
    parser.add_argument("--no-overhead", action="store_true", help="the scaling part only")
    parser.add_argument("--code-suite", help="a built code suite: also measure the exported reference's code cases")
    args = parser.parse_args()
    from ray.cluster_utils import Cluster

    from verifierbench.suite.store import load_suite

    suite = load_suite(Path(args.suite))
    tasks = sorted(t.id for t in suite.tasks.values() if t.type.value == "tool-call")[:args.tasks]
    tmp = Path(tempfile.mkdtemp(prefix="vgb-ray-bench-"))
    tmp.chmod(0o755)
    scale_tasks = sorted(t.id for t in suite.tasks.values() if t.type.value == "tool-call")[:args.scale_tasks]
    sleepy = verifiers(tmp / "sleep", scale_tasks, SLEEP.format(sleep=args.sleep))
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "node_ip_address": "127.0.0.1",
                                                            "include_dashboard": False})
    report: dict = {"tasks": len(tasks), "scale_tasks": len(scale_tasks), "sleep_s": args.sleep}
    try:
        nodes = 0
        rates = {}
        for wanted in (1, 2, 4):
            while nodes < wanted:
                cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
                nodes += 1
            cluster.wait_for_nodes()
            if wanted == 1 and not args.no_overhead:
                both = sorted(t.id for t in suite.tasks.values() if t.type.value == "tool-call")[:2 * args.tasks]
                report["overhead_tool_call"] = overhead(args.suite, verifiers(tmp / "accept", both, ACCEPT), tasks, both,
                                                        tmp, cluster.address)
                state = sorted(t.id for t in suite.tasks.values() if t.type.value == "state")[:2 * args.tasks]
                if state:  # state tasks: each case replays calls against the task's public environment
                    report["overhead_state"] = overhead(args.suite, verifiers(tmp / "accept-state", state, ACCEPT),
                                                        state[:args.tasks], state, tmp, cluster.address)
                if args.code_suite:
                    report["overhead_code"] = code_overhead(args.code_suite, tmp, cluster.address)
            seconds, decided = judge(args.suite, sleepy, scale_tasks, tmp / f"s{wanted}.jsonl", "--backend", "ray",
                                     "--ray-address", cluster.address)
            rates[wanted] = decided / seconds
        report["scaling"] = {n: {"cases_per_s": round(r, 2), "efficiency": round(r / (n * rates[1]), 2)} for n, r in rates.items()}
    finally:
        cluster.shutdown()
    print(json.dumps(report, indent=1))


def code_overhead(code_suite: str, tmp: Path, address: str) -> dict:
    """The exported reference on the code suite's cases: half the cases, then all (one task: split by case count is
    not possible through `judge`, so the small run is the suite's first task and the large one every task)."""
    from verifierbench.suite.store import load_suite

    tasks = sorted(load_suite(Path(code_suite)).tasks)
    subprocess.run([str(BIN / "verifierbench"), "export-verifiers", "reference", "--suite", code_suite, "--out",
                    str(tmp / "code-ref")], check=True, capture_output=True)
    if len(tasks) < 2:  # one task: whole runs only
        runs = {}
        for name, backend in (("local", ("--slots", "1")), ("ray", ("--backend", "ray", "--ray-address", address))):
            runs[name] = judge(code_suite, tmp / "code-ref", tasks, tmp / f"code-{name}.jsonl", "--reference-libs", *backend)
        return {"cases": runs["local"][1], "local_s": round(runs["local"][0], 2), "ray_s": round(runs["ray"][0], 2),
                "whole_run_ratio": round(runs["ray"][0] / runs["local"][0], 2)}
    return overhead(code_suite, tmp / "code-ref", tasks[:1], tasks, tmp, address, "--reference-libs")


if __name__ == "__main__":
    main()
