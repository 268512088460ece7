"""Runs the plain `inspect` CLI the way users do and reads the log back through Inspect's API."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from tests.conftest import REPO_ROOT

INSPECT = [str(Path(sys.executable).parent / "inspect")]


def inspect(*args: str, env: dict | None = None, timeout: int = 900) -> subprocess.CompletedProcess:
    # Run from the repository root: Inspect resolves task files relative to the working directory.
    return subprocess.run([*INSPECT, *args], capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT,
                          env={**os.environ, "INSPECT_DISPLAY": "none", **(env or {})})


def eval_log(log_dir: Path) -> EvalLog:
    logs = list_eval_logs(str(log_dir))
    assert len(logs) == 1, [l.name for l in logs]
    return read_eval_log(logs[0])


def metrics(log: EvalLog) -> dict[str, float]:
    (score,) = log.results.scores
    return {name: m.value for name, m in score.metrics.items()}
