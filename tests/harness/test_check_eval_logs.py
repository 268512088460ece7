"""scripts/check_eval_logs.py, which .ci/run runs on the tests' temporary directory: an eval log that ended in
error fails CI even when the test that wrote it checked only the exit code."""

from __future__ import annotations

import subprocess
import sys

from inspect_ai.log import EvalError, EvalLog, EvalSpec, write_eval_log
from inspect_ai.log._log import EvalConfig, EvalDataset

from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "scripts" / "check_eval_logs.py"
STAMP = "2026-01-01T00-00-00-00-00_verifierbench"  # Inspect's log names: only such files are read


def _write(path, status: str) -> None:
    spec = EvalSpec(created="2026-01-01T00:00:00+00:00", task="verifierbench", dataset=EvalDataset(), model="verifierbench/heuristic",
                    config=EvalConfig())
    error = EvalError(message="RuntimeError: unable to locate claude code in sandbox", traceback="", traceback_ansi="") \
        if status == "error" else None
    write_eval_log(EvalLog(eval=spec, status=status, error=error), str(path))


def _check(directory) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(directory)], capture_output=True, text=True, timeout=120)


def test_an_error_log_anywhere_under_the_directory_fails_with_its_message(tmp_path):
    _write(tmp_path / "a" / f"{STAMP}_ok.eval", "success")
    _write(tmp_path / "b" / f"{STAMP}_interrupted.eval", "cancelled")
    assert _check(tmp_path).returncode == 0
    _write(tmp_path / "b" / "deep" / f"{STAMP}_failed.eval", "error")
    result = _check(tmp_path)
    assert result.returncode == 1
    assert "_failed.eval: status error: RuntimeError: unable to locate claude code in sandbox" in result.stderr
    assert "cancelled 1, error 1, success 1" in result.stdout
    (tmp_path / "b" / "deep" / "EXPECTED_ERROR").touch()  # .ci/run checks this directory too; and the marker works:
    assert _check(tmp_path).returncode == 0


def test_a_missing_directory_is_a_usage_error(tmp_path):
    result = _check(tmp_path / "absent")
    assert result.returncode == 2 and result.stderr.startswith("usage:")


def test_other_json_is_not_read_as_a_log(tmp_path):
    # A hostile verifier's result file, nested a million deep: read as a log, it took 24 GB and was killed.
    (tmp_path / "result.json").write_text("[" * 1_000_000 + "]" * 1_000_000)
    _write(tmp_path / f"{STAMP}_ok.eval", "success")
    result = _check(tmp_path)
    assert result.returncode == 0 and "success 1" in result.stdout, result.stderr


def test_an_unreadable_eval_log_fails_unless_its_directory_expects_it(tmp_path):
    (tmp_path / f"{STAMP}_corrupt.eval").write_bytes(b"not a zip archive")
    result = _check(tmp_path)
    assert result.returncode == 1 and "_corrupt.eval: unreadable eval log" in result.stderr
    (tmp_path / "EXPECTED_ERROR").touch()
    assert _check(tmp_path).returncode == 0
