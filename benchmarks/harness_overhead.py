"""Each harness on the same tasks in the Docker sandbox with a model-free policy, one `inspect eval` per harness and
suite: per sample wall time, the verifier's P/F decisions on the hidden cases, run_public calls, and the metrics
(BA_norm). Same policy, same tasks: a difference in BA_norm between harnesses means a harness changed what the
policy delivered. Needs the engine (scripts/docker-engine.sh) and the image of scripts/harness-clis.sh.

    .venv/bin/python benchmarks/harness_overhead.py --suite tool-call=SUITE_DIR --suite state=SUITE_DIR \\
        --harness default --harness pi --limit 10 [--model verifierbench/heuristic] [--out results.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from inspect_ai.log import list_eval_logs, read_eval_log

REPO_ROOT = Path(__file__).resolve().parents[1]
INSPECT = str(Path(sys.executable).parent / "inspect")


def run(harness: str, suite: Path, limit: int, model: str, extra: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="vgb-harness-bench-") as log_dir:
        started = time.monotonic()
        result = subprocess.run([INSPECT, "eval", "verifierbench/verifierbench", "--model", model, "-T", f"suite={suite}",
                                 "-T", f"harness={harness}", "-T", "sandbox=docker", "--limit", str(limit), *extra,
                                 "--log-dir", log_dir], capture_output=True, text=True, cwd=REPO_ROOT,
                                env={**os.environ, "INSPECT_DISPLAY": "none"})
        elapsed = time.monotonic() - started
        logs = list_eval_logs(log_dir)
        if result.returncode != 0 or not logs:
            return {"harness": harness, "error": (result.stderr + result.stdout)[-1500:]}
        log = read_eval_log(logs[0])
    samples = log.samples or []
    decisions = [d for s in samples if "hidden_cases" in s.scores for case in s.scores["hidden_cases"].metadata.get("cases", [])
                 for d in case["decisions"]]
    scores = log.results.scores[0].metrics if log.results and log.results.scores else {}
    return {
        "harness": harness, "status": log.status, "samples": len(samples), "eval_s": round(elapsed, 1),
        "sample_s": [round(s.total_time or 0, 1) for s in samples],
        # model turns per sample: under Inspect's sandbox bridge each one waits for a 2 s poll (docs/performance.md)
        "model_calls": [sum(1 for e in s.events if e.event == "model") for s in samples],
        "errors": [str(s.error.message)[:200] for s in samples if s.error],
        "P": decisions.count("P"), "F": decisions.count("F"), "U": decisions.count("U"),
        "run_public": [s.scores["hidden_cases"].value.get("run_public") for s in samples if "hidden_cases" in s.scores],
        "submitted": [s.scores["hidden_cases"].value.get("submitted") for s in samples if "hidden_cases" in s.scores],
        "metrics": {name: round(m.value, 2) for name, m in scores.items() if name.startswith(("BA_norm", "TPR", "TNR"))},
        "harness_version": (log.eval.metadata or {}).get("harness_version"),
        "harness_transport": (log.eval.metadata or {}).get("harness_transport"),
    }


def engine_environment() -> None:
    """Points this process (and so Inspect) at the engine of scripts/docker-engine.sh unless DOCKER_HOST is set."""
    if "DOCKER_HOST" in os.environ:
        return
    exports = subprocess.run(["bash", str(REPO_ROOT / "scripts" / "docker-engine.sh"), "env"], capture_output=True,
                             text=True).stdout
    for item in exports.removeprefix("export ").split():
        name, value = item.split("=", 1)
        os.environ[name] = value.replace("$PATH", os.environ.get("PATH", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", action="append", required=True, help="LABEL=DIR")
    parser.add_argument("--harness", action="append", required=True)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--model", default="verifierbench/heuristic")
    parser.add_argument("--out")
    parser.add_argument("extra", nargs="*", help="more inspect eval arguments (after --)")
    args = parser.parse_args()
    engine_environment()
    for label, directory in (item.split("=", 1) for item in args.suite):
        for harness in args.harness:
            row = {"suite": label, **run(harness, Path(directory), args.limit, args.model, args.extra)}
            print(json.dumps(row), flush=True)
            if args.out:
                with open(args.out, "a") as out:
                    out.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
