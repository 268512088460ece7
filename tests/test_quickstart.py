"""The README's main command as a user runs it: a fresh clone in a 0700 parent directory (root's home on Debian),
`scripts/quickstart.sh --per-source 1`, then `verifierbench leaderboard` and `verifierbench paper` on its logs.

The sandbox's unprivileged uid cannot search a 0700 parent, so this is what fails when a sandbox binds a file of
the checkout in place (issue #39, item 0). The clone's .venv borrows this environment's packages (a link to it, the
clone first on PYTHONPATH): the clone's code is what runs, without minutes of pip; tests/test_install.py covers the
installs themselves."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from tests.conftest import BIN, REPO_ROOT

pytestmark = [pytest.mark.slow, pytest.mark.sandbox, pytest.mark.usefixtures("bwrap_available"), pytest.mark.timeout(1500)]
POLICIES = {"verifierbench/always_accept", "verifierbench/always_reject", "verifierbench/random", "verifierbench/heuristic"}


def run(*args: str | Path, cwd: Path, env: dict, timeout: int) -> subprocess.CompletedProcess:
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(map(str, args))} exited {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-4000:]}"
    return result


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> tuple[Path, dict]:
    home = tmp_path_factory.mktemp("home")
    home.chmod(0o700)  # as /root on Debian: the sandbox uid cannot search it
    checkout = home / "verifierbench"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(REPO_ROOT), str(checkout)], check=True, timeout=300)
    # bootstrap.sh finds the borrowed environment current and only checks it; were it stale (a pyproject.toml changed
    # since this environment was made) it would rebuild this very .venv through the link: refused here instead.
    stamp = (BIN.parent / ".bootstrap-stamp").read_text().strip()
    pyproject = (checkout / "pyproject.toml").read_bytes()
    pin = re.search(rb"bfcl-eval==[0-9.]*", pyproject)
    # the stamp scripts/bootstrap.sh writes: pyproject.toml, constraints.txt, then the BFCL pin
    want = hashlib.sha256(pyproject + (checkout / "constraints.txt").read_bytes() + (pin.group(0) if pin else b"") + b"\n").hexdigest()
    assert stamp == want, "this environment predates the clone's pyproject.toml: run scripts/bootstrap.sh first"
    (checkout / ".venv").symlink_to(BIN.parent)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VERIFIERBENCH_", "PYTHON", "INSPECT_"))}
    env = {**clean, "PYTHONPATH": str(checkout), "HOME": str(home)}
    return checkout, env


@pytest.fixture(scope="module")
def quickstart_run(clone) -> subprocess.CompletedProcess:
    checkout, env = clone
    return run("bash", "scripts/quickstart.sh", "--per-source", "1", cwd=checkout, env=env, timeout=1200)


@pytest.fixture(scope="module")
def quickstart(quickstart_run, clone) -> Path:
    return clone[0] / "results" / "quickstart" / "smoke" / "logs"


def test_quickstart_from_a_0700_home_runs_every_policy_with_verdicts(quickstart, clone):
    checkout, env = clone
    imported = run(BIN / "python", "-c", "import verifierbench; print(verifierbench.__file__)", cwd=checkout, env=env, timeout=60)
    assert imported.stdout.strip().startswith(str(checkout)), imported.stdout  # the clone's code ran, not this one's
    logs = [read_eval_log(info) for info in list_eval_logs(str(quickstart), recursive=True)]
    assert {log.eval.model for log in logs} == POLICIES and all(log.status == "success" for log in logs)
    heuristic = [log for log in logs if log.eval.model == "verifierbench/heuristic"]
    for log in heuristic:
        for sample in log.samples:
            cases = sample.scores["hidden_cases"].metadata["cases"]
            decisions = {d for case in cases for d in case["decisions"]}
            # a verifier the sandbox could not run answers U on every case: what the 0700 home gave
            assert decisions and decisions <= {"P", "F"}, (sample.id, [c.get("problem") for c in cases if c.get("problem")][:3])
    assert {s.metadata["source"] for log in heuristic for s in log.samples} >= {"bfcl", "acebench", "tau2", "agentdojo"}


def test_leaderboard_and_paper_on_the_quickstart_logs(quickstart_run, quickstart, clone, tmp_path):
    checkout, env = clone
    # The leaderboard the quick start itself made (its last step), read rather than made again.
    for policy in POLICIES:
        assert policy in quickstart_run.stdout
    board = quickstart.parent / "leaderboard"
    assert (board / "index.html").is_file() and (board / "table_02_main.csv").is_file()
    assert any((quickstart.parent / "figures").glob("*.png"))
    paper = run(BIN / "verifierbench", "paper", "--logs", quickstart, "--suite", "tasks/suite", "--out", tmp_path / "paper",
                "--figures", tmp_path / "paper-figures", cwd=checkout, env=env, timeout=600)
    assert (tmp_path / "paper" / "index.html").is_file(), paper.stdout[-2000:]
    assert any((tmp_path / "paper-figures").glob("*.png"))
    shutil.rmtree(checkout / "results", ignore_errors=True)
