"""scripts/check_eval_logs.py, which .ci/run runs on the tests' temporary directory: an eval log that ended in
error fails CI even when the test that wrote it checked only the exit code."""

from __future__ import annotations

import subprocess
import sys

from inspect_ai.log import EvalError, EvalLog, EvalSpec, write_eval_log
from inspect_ai.log._log import EvalConfig, EvalDataset

from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "scripts" / "check_eval_logs.py"


def _write(path, status: str) -> None:
    spec = EvalSpec(created="2026-01-01T00:00:00+00:00", task="verifierbench", dataset=EvalDataset(), model="verifierbench/heuristic",
                    config=EvalConfig())
    error = EvalError(message="RuntimeError: unable to locate claude code in sandbox", traceback="", traceback_ansi="") \
        if status == "error" else None
    write_eval_log(EvalLog(eval=spec, status=status, error=error), str(path))


def _check(directory) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(directory)], capture_output=True, text=True, timeout=120)


def test_an_error_log_anywhere_under_the_directory_fails_with_its_message(tmp_path):
    _write(tmp_path / "a" / "ok.eval", "success")
    _write(tmp_path / "b" / "interrupted.eval", "cancelled")
    assert _check(tmp_path).returncode == 0
    _write(tmp_path / "b" / "deep" / "failed.eval", "error")
    result = _check(tmp_path)
    assert result.returncode == 1
    assert "failed.eval: status error: RuntimeError: unable to locate claude code in sandbox" in result.stderr
    assert "cancelled 1, error 1, success 1" in result.stdout
    (tmp_path / "b" / "deep" / "EXPECTED_ERROR").touch()  # .ci/run checks this directory too; and the marker works:
    assert _check(tmp_path).returncode == 0


def test_a_missing_directory_is_a_usage_error(tmp_path):
    result = _check(tmp_path / "absent")
    assert result.returncode == 2 and result.stderr.startswith("usage:")
