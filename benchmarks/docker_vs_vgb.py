"""Per-sample wall time of `-T sandbox=docker` against `-T sandbox=vgb` on the same tasks, in one run (issue 17).

    eval "$(scripts/docker-engine.sh env)"
    .venv/bin/python benchmarks/docker_vs_vgb.py --suite tasks/suite [--source bfcl] [--tasks 10] [--rebuild]

Runs `inspect eval ... --model verifierbench/heuristic` once per sandbox (alternating order is not needed: one
sample at a time, `--max-samples 1`, so neither competes with itself), reads each sample's total time from the
logs and prints medians and the ratio. The sandbox image is built once (before the first docker eval) and reused;
`--rebuild` first times a build from scratch (`docker build --no-cache --network none`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from inspect_ai.log import list_eval_logs, read_eval_log  # noqa: E402

PACKAGE = ROOT / "verifierbench"
INSPECT = str(Path(sys.executable).parent / "inspect")


def sample_times(log_dir: Path) -> dict[str, float]:
    (info,) = list_eval_logs(str(log_dir))
    log = read_eval_log(info)
    assert log.status == "success", log.error
    return {str(sample.id): sample.total_time for sample in log.samples}


def run_eval(suite: str, sandbox: str, selection: list[str], log_dir: Path) -> float:
    started = time.monotonic()
    subprocess.run([INSPECT, "eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T", f"suite={suite}",
                    "-T", f"sandbox={sandbox}", *selection, "--max-samples", "1", "--log-dir", str(log_dir)],
                   check=True, cwd=ROOT, env={**os.environ, "INSPECT_DISPLAY": "none"}, capture_output=True)
    return time.monotonic() - started


def timed_build() -> float:
    started = time.monotonic()
    subprocess.run(["docker", "build", "--no-cache", "--force-rm", "--network", "none", "-q", "-t", "verifierbench-sandbox:latest",
                    "-f", str(PACKAGE / "sandboxes/docker/Dockerfile"), "--label", "org.verifierbench.sandbox=docker",
                    str(PACKAGE)], check=True, capture_output=True)
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default=str(ROOT / "tasks" / "suite"))
    parser.add_argument("--source", default="bfcl")
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--rebuild", action="store_true", help="time an image build from scratch first")
    args = parser.parse_args()
    selection = ["-T", f"source={args.source}", "--limit", str(args.tasks)]
    if args.rebuild:
        print(f"image build from scratch: {timed_build():.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        # Warm-up: the build (cache hit after --rebuild) happens here, not in the measured run.
        run_eval(args.suite, "docker", ["-T", f"source={args.source}", "--limit", "1"], Path(tmp) / "warm")
        walls = {box: run_eval(args.suite, box, selection, Path(tmp) / box) for box in ("vgb", "docker")}
        times = {box: sample_times(Path(tmp) / box) for box in walls}
    assert times["vgb"].keys() == times["docker"].keys()
    medians = {box: statistics.median(t.values()) for box, t in times.items()}
    for box in walls:
        print(f"{box:7s} {len(times[box])} samples: median {medians[box]:.1f} s per sample, "
              f"max {max(times[box].values()):.1f} s, eval wall {walls[box]:.1f} s")
    ratios = [times["docker"][i] / times["vgb"][i] for i in times["vgb"]]
    print(f"docker/vgb: median per-sample ratio {statistics.median(ratios):.2f}, ratio of medians "
          f"{medians['docker'] / medians['vgb']:.2f}, eval wall ratio {walls['docker'] / walls['vgb']:.2f}")


if __name__ == "__main__":
    main()
