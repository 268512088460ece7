"""`judge --reference-libs` on a sample of state tasks: exported references with and without the warm-up (issue 22).

    .venv/bin/python benchmarks/reference_warm_up.py [--suite DIR] [--tasks 4] [--seed 0] [--modules] [--cold]

Exports the reference verifiers of a seeded sample of state tasks (half tau2, half AgentDojo), then
judges them through the CLI as a user does, in one run: "per-task" (a warm sandbox per task imports the
reference's modules and calls the source's warm-up hook: as before shared sandboxes; reproduced by making
each task's module list differ, repeating a module, so no two references share a sandbox), "shared" (the
export as it is: the references of one source share a sandbox per slot, which imports their modules once
and forks a task server per task for its warm-up), with --modules "modules" (preload.json as a list: a
sandbox per task, no warm-up hook, as before the hook) and with --cold a sandbox per case. Prints each
one's wall time, its time per case, the ratio to "per-task", and whether the decisions are identical case
by case.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifierbench.executor.warm import PRELOAD_FILE  # noqa: E402
from verifierbench.suite.store import load_suite  # noqa: E402

CLI = [sys.executable, "-m", "verifierbench"]


def judge(suite: str, verifiers: Path, task_args: list[str], extra: list[str]) -> tuple[float, dict[str, str]]:
    """Wall time and decisions by case id of one `judge` run."""
    started = time.perf_counter()
    done = subprocess.run([*CLI, "judge", "--suite", suite, "--verifiers", str(verifiers), *task_args, "--reference-libs",
                           "--json", "--quiet", *extra], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"judge failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return wall, {line["case_id"]: line["decision"] for line in lines}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", default=os.environ.get("VERIFIERBENCH_SUITE", "tasks/suite"))
    parser.add_argument("--tasks", type=int, default=4, help="state tasks drawn, half from each source")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modules", action="store_true", help="also judge with preload.json as a list of modules")
    parser.add_argument("--cold", action="store_true", help="also judge with a sandbox per case (--cold)")
    args = parser.parse_args()

    suite = load_suite(args.suite)
    rng = random.Random(args.seed)
    chosen = []
    for source in ("tau2", "agentdojo"):
        pool = sorted((t for t in suite.tasks.values() if t.source.value == source), key=lambda t: t.id)
        chosen += rng.sample(pool, min(len(pool), args.tasks // 2))
    task_args = [arg for task in chosen for arg in ("--task", task.id)]
    with tempfile.TemporaryDirectory(prefix="vgb-warm-up-") as tmp:
        shared, per_task, before = Path(tmp) / "shared", Path(tmp) / "per-task", Path(tmp) / "modules"
        subprocess.run([*CLI, "export-verifiers", "reference", "--suite", args.suite, "--out", str(shared), *task_args],
                       check=True, capture_output=True)
        shutil.copytree(shared, per_task)
        for i, preload in enumerate(sorted(per_task.glob(f"*/{PRELOAD_FILE}"))):  # a module list of its own: no sharing
            declared = json.loads(preload.read_text())
            declared["modules"] += [declared["modules"][0]] * (i + 1)
            preload.write_text(json.dumps(declared))
        runs = {"per-task": (per_task, []), "shared": (shared, [])}
        if args.modules:
            shutil.copytree(shared, before)
            for preload in before.glob(f"*/{PRELOAD_FILE}"):  # as before the hook: the modules only
                preload.write_text(json.dumps(json.loads(preload.read_text())["modules"]))
            runs["modules"] = (before, [])
        if args.cold:
            runs["cold"] = (shared, ["--cold"])
        results = {name: judge(args.suite, directory, task_args, extra) for name, (directory, extra) in runs.items()}
    base_wall, base = results["per-task"]
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"{len(chosen)} state tasks ({', '.join(t.source.value + '/' + t.source_id for t in chosen)}), {len(base)} cases, seed {args.seed}")
    for name, (wall, decisions) in results.items():
        same = "identical" if decisions == base else f"{sum(decisions.get(k) != v for k, v in base.items())} differ"
        print(f"{name:8s} {wall:7.1f} s ({wall / max(1, len(decisions)) * 1000:.0f} ms a case), "
              f"{base_wall / wall:.2f}x the per-task run; decisions {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
