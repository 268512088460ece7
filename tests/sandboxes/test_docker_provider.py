"""The `-T sandbox=docker` sandbox starts again an exec runc could not start, and nothing else (no engine needed:
Inspect's Docker exec is replaced by a script of results). The container tests of tests/harness/test_docker.py run on this class."""

from __future__ import annotations

import asyncio

import pytest
from inspect_ai.util import ExecResult
from inspect_ai.util._sandbox.docker.docker import DockerSandboxEnvironment

from verifierbench.sandboxes import docker_provider
from verifierbench.sandboxes.docker_provider import RUNC_ATTEMPTS, RetryingDockerSandbox

# What CI's eval log recorded for the failed probe (exit 126, the message on stdout, nothing on stderr).
RUNC_FAILED = ExecResult(False, 126, "OCI runtime exec failed: exec failed: unable to start container process: waiting "
                                     "for init preliminary setup: read init-p: connection reset by peer: unknown\n", "")
RAN = ExecResult(True, 0, "x86_64\n", "")


def _run(monkeypatch, results: list[ExecResult]) -> tuple[ExecResult, int]:
    """The result of one exec whose successive docker attempts return `results`, and how many attempts it made."""
    attempts = []

    async def scripted(self, cmd, **kwargs):
        attempts.append(cmd)
        return results[len(attempts) - 1]

    monkeypatch.setattr(DockerSandboxEnvironment, "exec", scripted)
    monkeypatch.setattr(docker_provider, "RUNC_BACKOFF_S", 0)
    box = RetryingDockerSandbox("default", project=None, working_dir="/workspace")  # type: ignore[arg-type]
    return asyncio.run(box.exec(["uname", "-m"])), len(attempts)


def test_a_process_runc_could_not_start_is_started_again(monkeypatch):
    assert _run(monkeypatch, [RUNC_FAILED, RAN]) == (RAN, 2)


@pytest.mark.parametrize("result", [
    ExecResult(False, 126, "", "bash: ./verify.py: Permission denied\n"),  # the process ran and could not exec
    ExecResult(False, 1, RUNC_FAILED.stdout, ""),  # a command that printed the words but exited otherwise
    ExecResult(True, 0, "", ""),
])
def test_any_other_result_is_returned_at_once(monkeypatch, result):
    assert _run(monkeypatch, [result]) == (result, 1)


def test_the_retries_are_bounded_and_the_last_failure_is_returned(monkeypatch):
    assert _run(monkeypatch, [RUNC_FAILED] * RUNC_ATTEMPTS) == (RUNC_FAILED, RUNC_ATTEMPTS)
