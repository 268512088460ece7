"""AppWorld's own environment, found and called from the harness. Its interpreter only answers where its
packages are (trusted: the user's install); tasks and candidate code run in the executor's sandbox."""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path
from typing import Any

from verifierbench.core.errors import UserError
from verifierbench.executor import Executor, Job, Limits

PYTHON_ENV = "VERIFIERBENCH_APPWORLD_PYTHON"
BRIDGE = Path(__file__).resolve().parent / "bridge"
LIMITS = Limits(timeout_s=300, memory_bytes=6 << 30, max_processes=128, scratch_bytes=2 << 30, max_file_bytes=512 << 20)
SETUP = (f"install AppWorld in its own venv built from /usr/bin/python3 (it pins pydantic<2), run `appworld install` and "
         f"`appworld download data` there, then set ${PYTHON_ENV} to its python and $APPWORLD_ROOT to its root")


@functools.lru_cache(maxsize=1)
def locate() -> tuple[str, Path]:
    """(AppWorld's site-packages, its data directory), or UserError with what is missing."""
    python = os.environ.get(PYTHON_ENV)
    if not python:
        raise UserError(f"AppWorld is not configured: {SETUP}")
    if not os.access(python, os.X_OK):
        raise UserError(f"${PYTHON_ENV}={python} is not an executable interpreter")
    found = subprocess.run([python, "-c", "import appworld, os; print(os.path.dirname(os.path.dirname(appworld.__file__)))"],
                           capture_output=True, text=True, timeout=120)
    if found.returncode:
        last = (found.stderr.strip().splitlines() or ["no error output"])[-1]
        raise UserError(f"{python} cannot import appworld ({last}); {SETUP}")
    root = os.environ.get("APPWORLD_ROOT")
    data = Path(root) / "data" if root else None
    missing = "$APPWORLD_ROOT is not set" if data is None else \
        next((f"no {data / part}" for part in ("tasks", "datasets") if not (data / part).is_dir()), None)
    if missing or data is None:
        raise UserError(f"AppWorld task data not found ({missing}): run `appworld download data` where the network allows, "
                        "and set $APPWORLD_ROOT")
    return found.stdout.strip(), data


@functools.lru_cache(maxsize=1)
def _executor() -> Executor:
    site, _ = locate()
    return Executor(LIMITS, site_packages=(site,))


def call(request: dict[str, Any]) -> dict[str, Any]:
    """Runs one bridge request in the sandbox; raises RuntimeError when the bridge itself fails."""
    _, data = locate()
    executor = _executor()
    if executor.level.value != "bwrap":
        raise UserError("AppWorld runs only in the bubblewrap sandbox (its data is mounted there)")
    outcome = executor.run(Job(BRIDGE, request, key=request["op"], keep_result=True, extra_ro=((str(data), "/appworld/data"),)))
    if outcome.result is None:
        last = (outcome.stderr_tail.strip().splitlines() or [outcome.problem or "no output"])[-1]
        raise RuntimeError(f"AppWorld ({request['op']}) failed in the sandbox: {last}")
    result: dict[str, Any] = outcome.result["result"]
    return result
