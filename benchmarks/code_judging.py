"""Code judging's cost with and without reuse of run_public test runs (issue 56), measured as a user runs it:
`inspect eval verifierbench/verifierbench --model verifierbench/heuristic -T suite=S -T rounds=N`, one process per
eval, in this order:

1. reuse off (`VERIFIERBENCH_RUN_REUSE=0`), rounds=1, then rounds=3: today's cost, and the decisions to match;
2. reuse on, rounds=1, on an empty run cache of its own (`VERIFIERBENCH_RUNS`);
3. reuse on, rounds=3, on another empty run cache (so rounds=3 is not helped by step 2's runs);
4. reuse on, rounds=3 again on step 3's cache (a second configuration, or the same command run again).

It reports each eval's wall time, the test runs made and reused while judging (the score metadata's `run_public`
counts, summed over samples), and whether every case's decision in every round equals the reuse-off eval's with the
same rounds, with the machine's load average (1 min) at its start and end: on a shared machine, compare ratios. The
suite: `--suite DIR` (for example the four named django tasks), else the offline fixture's code suite, built here with
`verifierbench build --source swebench` from `tests/sources/swebench/fixture.py`. Last, one configuration on the 47
(`--project-cases`, 1,060 cases) projected from each eval's seconds per case.

    .venv/bin/python benchmarks/code_judging.py [--suite DIR] [--work DIR] [--limit N] [--project-cases 1060]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from inspect_ai.log import list_eval_logs, read_eval_log  # noqa: E402

INSPECT = str(Path(sys.executable).parent / "inspect")
MODEL = "verifierbench/heuristic"


def _environment(extra: dict[str, str]) -> dict[str, str]:
    env = {**os.environ, "INSPECT_DISPLAY": "none", **extra}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return env


def fixture_suite(work: Path) -> Path:
    """The offline fixture's code suite, built the way users build one."""
    from tests.sources.swebench.fixture import make_fixture

    instances, repos = make_fixture(work / "fixture-data")
    suite = work / "fixture-suite"
    done = subprocess.run([sys.executable, "-m", "verifierbench", "build", "--source", "swebench",
                           "--swebench-instances", str(instances), "--swebench-repos", str(repos), "--out", str(suite)],
                          cwd=ROOT, env=_environment({}), capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the fixture suite's build failed:\n{done.stderr[-3000:]}")
    return suite


def one_eval(suite: Path, rounds: int, logs: Path, extra: dict[str, str], limit: int | None) -> dict[str, Any]:
    """Runs one `inspect eval` and reads its log back: wall time, test-run counts and every case's decisions."""
    argv = [INSPECT, "eval", "verifierbench/verifierbench", "--model", MODEL, "-T", f"suite={suite}", "-T", f"rounds={rounds}",
            "--log-dir", str(logs), *(["--limit", str(limit)] if limit else [])]
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    done = subprocess.run(argv, cwd=ROOT, env=_environment(extra), capture_output=True, text=True)
    wall = time.monotonic() - started
    load = (load_before, os.getloadavg()[0])
    if done.returncode:
        raise SystemExit(f"inspect eval failed ({' '.join(argv)}):\n{done.stderr[-3000:]}")
    (info,) = list_eval_logs(str(logs))
    log = read_eval_log(info)
    if log.status != "success":
        raise SystemExit(f"eval {logs}: {log.status}: {log.error}")
    made = reused = not_kept = cases = 0
    decisions: dict[str, list[str]] = {}
    for sample in log.samples or []:
        score = sample.scores["hidden_cases"] if sample.scores else None
        if score is None or score.metadata is None:
            continue
        counts = score.metadata.get("run_public", {})
        made += counts.get("test_runs_made", 0)
        reused += counts.get("test_runs_reused", 0)
        not_kept += counts.get("test_runs_not_kept", 0)
        for case in score.metadata["cases"]:
            decisions[f"{sample.id}/{case['case_id']}"] = case["decisions"]
            cases += 1
    return {"rounds": rounds, "wall_s": wall, "load": load, "made": made, "reused": reused, "not_kept": not_kept, "cases": cases,
            "samples": len(log.samples or []), "decisions": decisions}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, help="a built code suite (default: the offline fixture's, built here)")
    parser.add_argument("--work", type=Path, help="where logs and the run caches go (default: a temporary directory, removed)")
    parser.add_argument("--limit", type=int, help="only the first N samples")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--project-cases", type=int, default=1060, help="the cases of the configuration to project (the 47: 1,060)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="vgb-code-judging-"))
    work.mkdir(parents=True, exist_ok=True)
    os.chmod(work, 0o755)
    try:
        suite = args.suite or fixture_suite(work)
        cold = [work / "runs-rounds1", work / "runs-rounds3"]
        for directory in cold:
            shutil.rmtree(directory, ignore_errors=True)
        plan = [("reuse off", 1, {"VERIFIERBENCH_RUN_REUSE": "0"}), ("reuse off", 3, {"VERIFIERBENCH_RUN_REUSE": "0"}),
                ("reuse on, cold cache", 1, {"VERIFIERBENCH_RUNS": str(cold[0])}),
                ("reuse on, cold cache", 3, {"VERIFIERBENCH_RUNS": str(cold[1])}),
                ("reuse on, again", 3, {"VERIFIERBENCH_RUNS": str(cold[1])})]
        results = []
        for index, (name, rounds, extra) in enumerate(plan):
            logs = work / f"logs-{index}"
            shutil.rmtree(logs, ignore_errors=True)
            result = one_eval(suite, rounds, logs, {"VERIFIERBENCH_RUN_REUSE": "1", **extra}, args.limit)
            result["name"] = name
            results.append(result)
            print(f"{name}, rounds={rounds}: {result['wall_s']:.1f} s, {result['made']} runs made, {result['reused']} reused "
                  f"(load {result['load'][0]:.1f} -> {result['load'][1]:.1f})", flush=True)
        baseline = {1: results[0], 3: results[1]}
        print(f"\nsuite {suite}: {results[0]['samples']} samples, {results[0]['cases']} cases\n")
        print("| eval | rounds | wall s | x rounds=1 (same reuse) | s per case | test runs made | reused | not kept | "
              "decisions = reuse off | load |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for result in results:
            same = result["decisions"] == baseline[result["rounds"]]["decisions"]
            base = results[0] if result["name"] == "reuse off" else results[2]
            print(f"| {result['name']} | {result['rounds']} | {result['wall_s']:.1f} | {result['wall_s'] / base['wall_s']:.2f} | "
                  f"{result['wall_s'] / max(result['cases'], 1):.2f} | {result['made']} | {result['reused']} | {result['not_kept']} | "
                  f"{'identical' if same else 'DIFFERENT'} | {result['load'][0]:.1f}-{result['load'][1]:.1f} |")
        again, first = results[4], results[3]
        print(f"\nrepeat / first (reuse on, rounds=3): {again['wall_s'] / first['wall_s']:.2f}; "
              f"rounds=3 / rounds=1 (reuse on, cold caches): {first['wall_s'] / results[2]['wall_s']:.2f}; "
              f"rounds=3 reuse on / off: {first['wall_s'] / results[1]['wall_s']:.2f}")
        for result in results:
            if result["rounds"] == 3:
                minutes = result["wall_s"] / max(result["cases"], 1) * args.project_cases / 60
                print(f"projected, {args.project_cases} cases at this eval's seconds per case ({result['name']}, rounds=3): "
                      f"{minutes:.0f} min")
        if args.json:
            args.json.write_text(json.dumps([{k: v for k, v in r.items() if k != "decisions"} for r in results], indent=1))
        return 0 if all(r["decisions"] == baseline[r["rounds"]]["decisions"] for r in results) else 1
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
