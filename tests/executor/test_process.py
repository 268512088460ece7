"""The one bubblewrap process runner (executor/process.py): both the executor and the vgb sandbox start through it."""

from __future__ import annotations

import ast
import asyncio
import time
from pathlib import Path

import pytest

from verifierbench.executor import process
from verifierbench.executor.bwrap import Bind
from verifierbench.executor.isolation import IsolationLevel, resolve_isolation, slot_uid
from verifierbench.executor.limits import Limits

PACKAGE = Path(__file__).resolve().parents[2] / "verifierbench"
SPAWNERS = {"Popen", "create_subprocess_exec", "sandbox_command"}


def _calls(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return names


def test_the_executor_and_the_sandbox_provider_spawn_only_through_the_runner():
    for module in ("executor/runner.py", "sandboxes/vgb_provider.py"):
        calls = _calls(PACKAGE / module)
        assert not calls & SPAWNERS, f"{module} starts processes itself: {calls & SPAWNERS}"
        assert "run" in calls or "run_async" in calls


def test_degraded_and_bwrap_command_lines_share_the_limits():
    limits = Limits(timeout_s=5)
    command = process.Command(["python3", "-c", "pass"], {"A": "1"}, limits, (Bind("/host", "/inside"),), chdir="/inside")
    degraded = command.host_argv(IsolationLevel.none)
    assert degraded == ["prlimit", *limits.prlimit_args(), "--", "env", "-i", "A=1", "python3", "-c", "pass"]
    sandboxed = command.host_argv(IsolationLevel.bwrap, seccomp_fd=7)
    assert sandboxed[: len(limits.prlimit_args()) + 2] == ["prlimit", *limits.prlimit_args(), "--"]
    assert sandboxed[len(limits.prlimit_args()) + 2] == "bwrap"
    assert sandboxed[-4:] == ["--", "python3", "-c", "pass"]
    for fragment in (["--ro-bind", "/host", "/inside"], ["--seccomp", "7"], ["--chdir", "/inside"], ["--setenv", "A", "1"]):
        assert any(sandboxed[i:i + len(fragment)] == fragment for i in range(len(sandboxed))), fragment


@pytest.fixture(scope="module")
def level() -> IsolationLevel:
    return resolve_isolation("auto")


def test_sync_run_reports_exit_status_and_kills_on_timeout(level, tmp_path):
    limits = Limits(timeout_s=1)
    with open(tmp_path / "err", "wb") as err:
        status, timed_out = process.run(process.Command(["/bin/sh", "-c", "echo oops >&2; exit 3"], {}, limits),
                                        level, slot_uid(0), str(tmp_path), err, limits.timeout_s)
    assert (status, timed_out) == (3, False)
    assert (tmp_path / "err").read_bytes() == b"oops\n"
    started = time.monotonic()
    with open(tmp_path / "err", "wb") as err:
        status, timed_out = process.run(process.Command(["/bin/sh", "-c", "sleep 30"], {}, limits), level, slot_uid(0),
                                        str(tmp_path), err, 0.5)
    assert timed_out and status != 0
    assert time.monotonic() - started < 10


def test_async_run_feeds_input_caps_output_and_raises_on_timeout(level, tmp_path):
    command = process.Command(["/bin/sh", "-c", "cat; head -c 5000 /dev/zero >&2"], {}, Limits(timeout_s=5))
    status, stdout, stderr = asyncio.run(process.run_async(command, level, slot_uid(0), str(tmp_path), b"hello", 5, 1000))
    assert (status, stdout, len(stderr)) == (0, b"hello", 1000)
    with pytest.raises(TimeoutError, match="timed out after 0.5 s"):
        asyncio.run(process.run_async(process.Command(["/bin/sleep", "30"], {}, Limits(timeout_s=5)), level, slot_uid(0),
                                      str(tmp_path), None, 0.5, 1000))
