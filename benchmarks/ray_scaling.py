"""Ray judging backend: per-case overhead against local, and throughput with 1, 2 and 4 worker nodes.

    .venv/bin/python benchmarks/ray_scaling.py --suite DIR [--tasks 5] [--sleep 0.5]

Overhead: the same always-accept verifier on the same tool-call tasks, `judge` end to end, local (1 slot) against a
cluster of one 1-CPU worker node. Scaling: a sleep-bound verifier (so the host's 2 cores are not the limit), nodes of
1 CPU each, cases per second with 1, 2 and 4 nodes; efficiency = rate(n) / (n * rate(1)). One run, ratios: the
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", required=True)
    parser.add_argument("--tasks", type=int, default=5)
    parser.add_argument("--sleep", type=float, default=0.5)
    args = parser.parse_args()
    from ray.cluster_utils import Cluster

    from verifierbench.suite import load_suite

    suite = load_suite(Path(args.suite))
    tasks = sorted(t.id for t in suite.tasks.values() if t.type.value == "tool-call")[:args.tasks]
    tmp = Path(tempfile.mkdtemp(prefix="vgb-ray-bench-"))
    tmp.chmod(0o755)
    accept = verifiers(tmp / "accept", tasks, ACCEPT)
    sleepy = verifiers(tmp / "sleep", tasks, SLEEP.format(sleep=args.sleep))
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "node_ip_address": "127.0.0.1",
                                                            "include_dashboard": False})
    report: dict = {"tasks": len(tasks), "sleep_s": args.sleep}
    try:
        local_s, cases = judge(args.suite, accept, tasks, tmp / "l.jsonl", "--slots", "1")
        nodes = 0
        rates = {}
        for wanted in (1, 2, 4):
            while nodes < wanted:
                cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
                nodes += 1
            cluster.wait_for_nodes()
            if wanted == 1:
                ray_s, _ = judge(args.suite, accept, tasks, tmp / "r.jsonl", "--backend", "ray", "--ray-address", cluster.address)
                report["overhead"] = {"cases": cases, "local_s": round(local_s, 2), "ray_1_node_s": round(ray_s, 2),
                                      "ratio": round(ray_s / local_s, 2)}
            seconds, decided = judge(args.suite, sleepy, tasks, tmp / f"s{wanted}.jsonl", "--backend", "ray",
                                     "--ray-address", cluster.address)
            rates[wanted] = decided / seconds
        report["scaling"] = {n: {"cases_per_s": round(r, 2), "efficiency": round(r / (n * rates[1]), 2)} for n, r in rates.items()}
    finally:
        cluster.shutdown()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
