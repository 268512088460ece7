"""Runs inside a VerifierBench sandbox (stdlib only): copy the read-only checkout to scratch, apply
diffs, reset and re-apply the hidden test patch, run named tests with pytest, and report.

Used two ways: as the entry point of a harness test run (`verify.py` in this folder), and imported by
an exported reference verifier, which is already sandboxed. The report has the raw log (what
SWE-bench's log parser reads), pytest's exit code, and a structured per-test report written by the
`vgb_pytest_report` plugin to a file whose name the tested code is not told.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
LOG_LIMIT = 400_000  # characters of test output kept: every test's status line, then the end (pytest's summary is last)
# The lines SWE-bench's log parsers read a test's status from: pytest's `-rA` summary (`PASSED name`), django's
# `name ... ok` and the `ok` / `FAIL:` / `ERROR:` lines that follow a test's own output.
STATUS_LINE = re.compile(r"^(PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\b| \.\.\. |^\s*(ok\b|FAIL:|ERROR:)")
TEST_TIMEOUT_S = 600  # unless the job says (the task's budget): a few django test modules (admin_scripts) take minutes


def _git_apply(work: str, diff: str) -> str | None:
    """None when applied, else git's complaint."""
    if not diff.strip():
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".diff", delete=False, dir=os.path.dirname(work)) as handle:
        handle.write(diff if diff.endswith("\n") else diff + "\n")
    try:
        done = subprocess.run(["git", "apply", "--whitespace=nowarn", "--recount", handle.name], cwd=work,
                              capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "HOME": os.path.dirname(work)})
    finally:
        os.unlink(handle.name)
    return None if done.returncode == 0 else (done.stderr or done.stdout).strip()[-2000:]


def _reset(work: str, repo: str, paths: list[str]) -> None:
    """Test files the hidden test patch touches go back to the checkout's version (as SWE-bench does)."""
    for rel in paths:
        target, original = os.path.join(work, rel), os.path.join(repo, rel)
        if os.path.isdir(target) and not os.path.islink(target):
            shutil.rmtree(target)
        elif os.path.lexists(target):
            os.unlink(target)
        if os.path.isfile(original):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(original, target)


def _command(runner: str, python: str, tests: list[str], failfast: bool = False) -> list[str]:
    """The repository's own test command (SWE-bench's), with our structured report attached; `failfast`: stop at the
    first failing or erroring test (django's `--failfast`, pytest's `-x`)."""
    if runner == "django":
        return [python, os.path.join(HERE, "vgb_django_report.py"), "tests/runtests.py", "--verbosity", "2",
                "--settings=test_sqlite", "--parallel", "1", *(["--failfast"] if failfast else []), *tests]
    return [python, "-m", "pytest", "-p", "vgb_pytest_report", "-p", "no:cacheprovider", "-rA", "--tb=short",
            "-o", "addopts=", *(["-x"] if failfast else []), *tests]


def _environment_record(python: str | None) -> dict[str, Any]:
    """The record of the test environment `python` belongs to (<env>/bin/python), {} without one."""
    if not python:
        return {}
    try:
        with open(os.path.join(os.path.dirname(os.path.dirname(python)), "verifierbench-env.json"), encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def run(repo: str, diffs: list[str], tests: list[str], test_patch: str = "", reset: list[str] | None = None,
        scratch: str | None = None, runner: str = "pytest", python: str | None = None, timeout_s: float = TEST_TIMEOUT_S,
        reach: dict[str, Any] | None = None, failfast: bool = False) -> dict[str, Any]:
    base = tempfile.mkdtemp(prefix="vgb-run-", dir=scratch)
    try:
        return _run_in(base, repo, diffs, tests, test_patch, reset, runner, python, timeout_s, reach, failfast)
    finally:
        shutil.rmtree(base, ignore_errors=True)  # every way out, a diff that does not apply too


def _run_in(base: str, repo: str, diffs: list[str], tests: list[str], test_patch: str, reset: list[str] | None,
            runner: str, python: str | None, timeout_s: float, reach: dict[str, Any] | None = None, failfast: bool = False) -> dict[str, Any]:
    work = os.path.join(base, "work")
    shutil.copytree(repo, work, symlinks=True)
    record = _environment_record(python)
    if python and record.get("overlay"):
        # Compiled extensions built for this checkout (matplotlib's .so files), laid over it before any diff.
        shutil.copytree(os.path.join(os.path.dirname(os.path.dirname(python)), record["overlay"]), work, dirs_exist_ok=True)
    paths = [os.path.join(work, p) for p in record.get("pythonpath", []) if isinstance(p, str) and ".." not in p.split("/")]
    for number, diff in enumerate(diffs):
        problem = _git_apply(work, diff)
        if problem:
            return {"applied": False, "apply_error": f"diff {number}: {problem}"}
    if test_patch:
        _reset(work, repo, reset or [])
        problem = _git_apply(work, test_patch)
        if problem:
            return {"applied": False, "apply_error": f"test patch: {problem}"}
    if not tests:
        return {"applied": True, "exit_code": None, "log": "", "report": {}}
    report_path = os.path.join(base, f"report-{secrets.token_hex(8)}.json")
    env = {"PATH": "/usr/bin:/bin", "HOME": base, "TMPDIR": base, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
           "PYTHONIOENCODING": "utf8", "PYTHONDONTWRITEBYTECODE": "1",
           # An environment of the repository's own (`python`) brings its packages; else pytest is on our path.
           "PYTHONPATH": os.pathsep.join([HERE, *paths, work, *([] if python else filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep)))]),
           "VGB_REPORT_PATH": report_path}
    reach_path = os.path.join(base, f"reach-{secrets.token_hex(8)}.json")
    if reach:  # the functions only PASS_TO_PASS tests reach (`vgb_reach`): the build's gold run, for its regression cases
        with open(reach_path, "w", encoding="utf-8") as handle:
            json.dump({role: list(reach.get(role) or []) for role in ("fail_to_pass", "pass_to_pass")}, handle)
        env["VGB_REACH_PATH"] = reach_path
    if isinstance(record.get("ld_library_path"), str) and ".." not in record["ld_library_path"].split("/"):
        # A Python 3.9 environment: the root file system's libraries the host lacks (venv_store.LIBS_DIR).
        env["LD_LIBRARY_PATH"] = os.path.join(os.path.dirname(os.path.dirname(python or "")), record["ld_library_path"])
    if record.get("pytest_autoload") is not True:
        # Plugins installed beside pytest (the harness's own) are not the repository's: load only ours and those
        # its conftest.py names. Also most of pytest's start-up time in a large environment. An environment of the
        # repository's own whose configuration names its plugins' options and markers (astropy's setup.cfg) says so.
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    argv = _command(runner, python or sys.executable, tests, failfast)
    try:
        done = subprocess.run(argv, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout_s)
        exit_code, output = done.returncode, done.stdout
    except subprocess.TimeoutExpired as e:
        exit_code, output = None, (e.stdout or b"") + b"\n[verifierbench: tests timed out]\n"
    log = _cut(output.decode("utf-8", errors="replace"))
    report = _read_json(report_path)
    # (the log, the report and the reach map share the 1 MiB a sandboxed result may hold)
    out = {"applied": True, "exit_code": exit_code, "log": log, "report": report if isinstance(report, dict) else {}}
    if reach:
        mapped = _read_json(reach_path)
        out["reach"] = mapped if "functions" in mapped else {}  # else the names we wrote: the run never got to its end
    return out


def _cut(log: str, limit: int = LOG_LIMIT) -> str:
    """The log in at most about `limit` characters: a longer one keeps every status line, then as much of its end as fits.

    Keeping only the end lost the first tests' lines of a large run (matplotlib-25122: 2,490 tests, 270 kB of `-rA`
    summary), and SWE-bench's grading of that log then called the gold patch unresolved. When even the status lines do
    not fit, the end alone, as before.
    """
    if len(log) <= limit:
        return log
    lines = log.splitlines(keepends=True)
    keep = [bool(STATUS_LINE.search(line)) for line in lines]
    room = limit - sum(len(line) for line, kept in zip(lines, keep) if kept)
    if room < 0:
        return log[-limit:]
    for i in range(len(lines) - 1, -1, -1):
        if not keep[i]:
            if len(lines[i]) > room:
                break
            keep[i], room = True, room - len(lines[i])
    cut = keep.count(False)
    return f"[verifierbench: {cut} lines of output cut; every test's status line kept]\n" + "".join(
        line for line, kept in zip(lines, keep) if kept)


def _read_json(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as handle:
        job = json.load(handle)
    result = run(job["repo"], job.get("diffs", []), job.get("tests", []), job.get("test_patch", ""), job.get("reset", []),
                 job.get("scratch"), job.get("runner", "pytest"), job.get("python"), float(job.get("timeout_s", TEST_TIMEOUT_S)),
                 job.get("reach") if isinstance(job.get("reach"), dict) else None, job.get("failfast") is True)
    with open(sys.argv[2], "w", encoding="utf-8") as handle:
        json.dump({"decision": "PASS", "result": result}, handle)


if __name__ == "__main__":
    main()
