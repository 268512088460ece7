"""The local judging path end to end: `verifierbench judge` of always-accept verifiers on every tool-call task of a
suite, from the command line, per case, against a bare `/usr/bin/python3 -c pass` (issue 38: at most 0.30x).

    .venv/bin/python benchmarks/judge_local_path.py --suite DIR [--repeat 3] [--bare 30]

One run, interleaved (judge, then a batch of bare spawns, repeated), medians: the machine is shared, so only the ratio
means anything. Also reported: the same judge on a single task, whose time is mostly the fixed cost of a judge process
(start-up, suite loading, result writing), and the per-case cost without it: (whole - one task) / (cases - its cases);
and the whole judge with VERIFIERBENCH_WARM_SHARED=0 (a warm sandbox per verifier, the path before generated verifiers
shared sandboxes), as the baseline of that change in the same run.
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

BIN = Path(sys.executable).parent
ACCEPT = """import json, os
json.dump({"decision": "PASS"}, open(os.environ["VGB_RESULT"], "w"))
"""


def _judge(suite: str, verifiers: Path, tasks: list[str], out: Path, shared: bool = True) -> tuple[float, int]:
    out.unlink(missing_ok=True)
    env = {**os.environ, "VERIFIERBENCH_WARM_SHARED": "1" if shared else "0"}
    started = time.perf_counter()
    subprocess.run([str(BIN / "verifierbench"), "judge", "--suite", suite, "--verifiers", str(verifiers), "--out", str(out),
                    "--quiet", *[a for t in tasks for a in ("--task", t)]], check=True, capture_output=True, env=env)
    return time.perf_counter() - started, len(out.read_text().splitlines())


def _bare(count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        subprocess.run(["/usr/bin/python3", "-c", "pass"], check=True)  # not a PATH shim (pyenv's is a shell script)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bare", type=int, default=30, help="bare spawns per repeat")
    args = parser.parse_args()
    from verifierbench.suite.store import load_suite

    suite = load_suite(Path(args.suite))
    tasks = sorted(t.id for t in suite.tasks.values() if t.type.value == "tool-call")
    if not tasks:
        sys.exit("judge_local_path: the suite has no tool-call task")
    with tempfile.TemporaryDirectory(prefix="vgb-local-path-") as tmp:
        verifiers = Path(tmp) / "accept"
        for task in tasks:
            (verifiers / task).mkdir(parents=True)
            (verifiers / task / "verify.py").write_text(ACCEPT)
        whole, one, unshared, bare = [], [], [], []
        cases = one_cases = 0
        for _ in range(args.repeat):
            seconds, cases = _judge(args.suite, verifiers, tasks, Path(tmp) / "all.jsonl")
            whole.append(seconds)
            seconds, one_cases = _judge(args.suite, verifiers, tasks[:1], Path(tmp) / "one.jsonl")
            one.append(seconds)
            unshared.append(_judge(args.suite, verifiers, tasks, Path(tmp) / "unshared.jsonl", shared=False)[0])
            bare.extend(_bare(args.bare))
    bare_ms = 1000 * statistics.median(bare)
    whole_s, one_s = statistics.median(whole), statistics.median(one)
    per_case_ms = 1000 * whole_s / cases
    marginal_ms = 1000 * (whole_s - one_s) / max(cases - one_cases, 1)
    print(json.dumps({"tasks": len(tasks), "cases": cases, "judge_s": round(whole_s, 2), "one_task_s": round(one_s, 2),
                      "per_case_ms": round(per_case_ms, 2), "marginal_ms_per_case": round(marginal_ms, 2),
                      "bare_spawn_ms": round(bare_ms, 2), "ratio": round(per_case_ms / bare_ms, 2),
                      "marginal_ratio": round(marginal_ms / bare_ms, 2), "target_ratio": 0.30,
                      "unshared_judge_s": round(statistics.median(unshared), 2),
                      "unshared_ratio": round(1000 * statistics.median(unshared) / cases / bare_ms, 2)}, indent=1))


if __name__ == "__main__":
    main()
