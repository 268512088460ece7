"""`verifierbench audit` on two source trees in one run: wall and CPU time, and the same decisions (issue 50).

    .venv/bin/python benchmarks/audit_speed.py LOG_DIR --suite DIR --before ../main-at-branch-point [--repeats 3]

Runs the audit command over the same logs and suite once per tree per repeat, alternating (before, after, before,
...), each with an empty witness pool, so machine noise hits both alike. "after" is this checkout. Prints each run's
wall and CPU seconds (the command's process and its children: sandboxes, run_public workers), the medians and their
ratio, and the load average. Exits 1 unless every run wrote the same summary.json (apart from the pool's path) and
pooled the same witnesses: the speed-up must not change a decision.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AFTER = Path(__file__).resolve().parents[1]


def run(tree: Path, logs: str, suite: str, work: Path) -> tuple[float, float, dict, list]:
    """One `verifierbench audit` of `tree`'s code: (wall s, CPU s, its summary, its pooled witnesses)."""
    pool, out = work / "pool", work / "out"
    command = [sys.executable, "-m", "verifierbench.cli.main", "audit", logs, "--suite", suite, "--pool", str(pool),
               "--out", str(out)]
    before = os.times()
    start = time.perf_counter()
    # cwd: `python -m` puts the working directory first on sys.path, ahead of PYTHONPATH
    subprocess.run(command, cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    summary = json.loads((out / "summary.json").read_text())
    summary.pop("pool", None)  # the one field that names this run's directory
    witnesses = sorted(line for path in sorted(pool.rglob("*.jsonl")) for line in path.read_text().splitlines())
    return wall, cpu, summary, [json.dumps(json.loads(w), sort_keys=True) for w in witnesses]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs")
    parser.add_argument("--suite", required=True)
    parser.add_argument("--before", required=True, type=Path, help="the source tree to compare against (a worktree)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    args.logs, args.suite = str(Path(args.logs).resolve()), str(Path(args.suite).resolve())  # the runs' cwd is their tree
    trees = {"before": args.before.resolve(), "after": AFTER}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    outputs: dict[str, set[str]] = {name: set() for name in trees}
    print(f"load average at start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="audit-speed-") as tmp:
        for repeat in range(args.repeats):
            for name, tree in trees.items():
                wall, cpu, summary, witnesses = run(tree, args.logs, args.suite, Path(tmp) / f"{name}-{repeat}")
                times[name].append((wall, cpu))
                outputs[name].add(json.dumps([summary, witnesses], sort_keys=True))
                print(f"  {name:6s} run {repeat + 1}: wall {wall:6.1f} s  CPU {cpu:6.1f} s  (load {os.getloadavg()[0]:.1f})", flush=True)
    medians = {name: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t)) for name, t in times.items()}
    for name, (wall, cpu) in medians.items():
        print(f"{name:6s} median wall {wall:6.1f} s  CPU {cpu:6.1f} s")
    print(f"after/before: wall {medians['after'][0] / medians['before'][0]:.2f}  CPU {medians['after'][1] / medians['before'][1]:.2f}")
    print(f"load average at end: {os.getloadavg()}")
    same = len(outputs["before"] | outputs["after"]) == 1
    print("decisions: " + ("identical (summary.json and pooled witnesses)" if same else "DIFFERENT"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
