"""Where a `run_public` test run that is not reused spends its time (issue 56): the sandbox's start and end, the
copy of the checkout to scratch, `git apply`, the interpreter's and the test runner's start-up (django: settings,
apps, the test database), the tests themselves, and the rest (mostly removing the copy at the end).

Each run is the run a verifier's request makes (the sandbox runner `sandbox_runner/run_tests.py` in the executor,
with the task's checkout, test environment, limits and loopback), with a timing shim around it: a copy of the runner
in a directory of its own whose entry point times the runner's copy, its `git apply` calls and its test command,
then reports those seconds beside the result. The runner's own files are not changed (their digest keys the run
caches). The tests' own seconds are the runner's "Ran N tests in X s" (django) or pytest's "in X s" line.

    .venv/bin/python benchmarks/code_miss_profile.py --suite DIR [--task ID] [--repeats 3]

The request: a case's diff of the task (its first PASS case, else the first) and the test modules the heuristic
verifier would name for it (`policies/verifiers.py`: test files that mention a touched module, at most 5 labels).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifierbench.executor import Job  # noqa: E402
from verifierbench.sources.swebench import testrun  # noqa: E402
from verifierbench.sources.swebench.budget import RUN_OVERHEAD_S, run_timeout_s  # noqa: E402
from verifierbench.sources.swebench.checkout import checkout_dir  # noqa: E402
from verifierbench.sources.swebench.reference import environment_of  # noqa: E402
from verifierbench.suite.store import load_suite  # noqa: E402

# The shim's entry point: the runner's module with its copy, `git apply` and test command timed (monotonic seconds).
SHIM = '''
import json, shutil, subprocess, sys, time
import run_tests as runner

spent = {"copy": 0.0, "apply": 0.0, "command": 0.0}
started = time.monotonic()


def timed(name, call):
    depth = [0]  # copytree calls itself through the module's name, now this wrapper: only the outermost call counts

    def wrapper(*args, **kwargs):
        begun = time.monotonic()
        depth[0] += 1
        try:
            return call(*args, **kwargs)
        finally:
            depth[0] -= 1
            if not depth[0]:
                spent[name if name != "run" else ("apply" if args and args[0][0] == "git" else "command")] += time.monotonic() - begun
    return wrapper


runner.shutil.copytree = timed("copy", shutil.copytree)
runner.subprocess.run = timed("run", subprocess.run)
with open(sys.argv[1], encoding="utf-8") as handle:
    job = json.load(handle)
result = runner.run(job["repo"], job["diffs"], job["tests"], runner=job["runner"], python=job.get("python"),
                    timeout_s=float(job["timeout_s"]))
result["profile"] = {**spent, "in_sandbox": time.monotonic() - started}
with open(sys.argv[2], "w", encoding="utf-8") as handle:
    json.dump({"decision": "PASS", "result": result}, handle)
'''
TESTS_SECONDS = re.compile(r"^Ran \d+ tests? in ([0-9.]+)s$|in ([0-9.]+)s(?: \([0-9:]+\))? =+$", re.M)


def heuristic_tests(checkout: Path, diff: str, runner: str) -> list[str]:
    """The test labels the heuristic verifier names for `diff` (policies/verifiers.py, django's branch)."""
    touched = re.findall(r"^\+\+\+ b/(\S+)", diff, re.M) + re.findall(r"^--- a/(\S+)", diff, re.M)
    modules = {os.path.splitext(os.path.basename(p))[0] for p in touched if p.endswith(".py")} - {"__init__"}
    modules |= {m.lstrip("_") for m in modules if m.lstrip("_")}
    found = []
    for root, dirs, files in os.walk(checkout):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if (name.startswith("test_") or name == "tests.py") and name.endswith(".py"):
                text = (Path(root) / name).read_text(errors="replace")
                if any(re.search(r"\b" + re.escape(m) + r"\b", text) for m in modules):
                    rank = 0 if name in {f"test_{m}.py" for m in modules} else 1 if any(m in name for m in modules) else 2
                    found.append((rank, len(text), os.path.relpath(Path(root) / name, checkout)))
    found.sort()
    if runner == "django":
        return [p[len("tests/"):-len(".py")].replace("/", ".") for _, _, p in found[:20] if p.startswith("tests/")][:5]
    return [p for _, _, p in found[:3]]


def profile_once(shim: Path, reference: dict[str, Any], diff: str, tests: list[str]) -> dict[str, float]:
    """One sandboxed run, as testrun.run_tests makes it for run_public, with the shim's phases."""
    checkout, environment = checkout_dir(reference["checkout"]), environment_of(reference)
    timeout_s = run_timeout_s(reference)
    executor = testrun._executor(environment is not None)
    extra_ro: tuple[tuple[str, str], ...] = ((str(checkout), testrun.SANDBOX_REPO),)
    job: dict[str, Any] = {"diffs": [diff], "tests": tests, "runner": reference.get("runner", "pytest"), "timeout_s": timeout_s,
                           "repo": testrun.SANDBOX_REPO}
    if environment is not None:
        extra_ro += ((str(environment), testrun.SANDBOX_ENV),)
        rootfs = testrun.rootfs_of(environment)
        extra_ro += ((rootfs, rootfs),) if rootfs else ()
        job["python"] = testrun.SANDBOX_PYTHON
    outcome = executor.run(Job(shim, job, key="profile", extra_ro=extra_ro, keep_result=True, timeout_s=timeout_s + RUN_OVERHEAD_S,
                               loopback=True))
    result = (outcome.result or {}).get("result") or {}
    if "profile" not in result:
        raise SystemExit(f"the profiled run failed: {outcome.problem} {outcome.stderr_tail[-2000:]}")
    phases = dict(result["profile"])
    found = TESTS_SECONDS.findall(str(result.get("log") or ""))
    phases["tests"] = float(next(filter(None, found[-1]))) if found else 0.0
    phases["start_up"] = phases["command"] - phases["tests"]  # interpreter, runner, settings, apps, test database
    phases["other"] = phases["in_sandbox"] - phases["copy"] - phases["apply"] - phases["command"]  # mostly removing the copy
    phases["sandbox"] = outcome.wall_time_s - phases["in_sandbox"]  # namespaces, mounts, the shim's own interpreter
    phases["total"] = outcome.wall_time_s
    phases["exit_code"] = result.get("exit_code")
    return phases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, required=True, help="a built code suite")
    parser.add_argument("--task", help="the task's instance id (default: every task of the suite)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    suite = load_suite(args.suite)
    with tempfile.TemporaryDirectory(prefix="vgb-miss-profile-") as scratch:
        shim = Path(scratch) / "shim"
        shutil.copytree(testrun.RUNNER, shim)
        (shim / "verify.py").write_text(SHIM)
        os.chmod(scratch, 0o755)
        for task in suite.tasks.values():
            if args.task and task.source_id != args.task:
                continue
            cases = suite.cases_by_task[task.id]
            case = next((c for c in cases if c.label.value == "PASS"), cases[0])
            diff = case.candidate["diff"]
            tests = heuristic_tests(checkout_dir(task.reference["checkout"]), diff, task.reference.get("runner", "pytest"))
            runs = [profile_once(shim, task.reference, diff, tests) for _ in range(args.repeats)]
            medians = {name: statistics.median(r[name] for r in runs) for name in
                       ("sandbox", "copy", "apply", "start_up", "tests", "other", "total")}
            shares = ", ".join(f"{name} {seconds:.2f} s ({100 * seconds / medians['total']:.0f} %)" for name, seconds in medians.items()
                               if name != "total")
            print(f"{task.source_id}: {len(tests)} labels {tests}, exit {runs[-1]['exit_code']}; median of {len(runs)}: "
                  f"total {medians['total']:.2f} s = {shares} (load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
