"""The Docker sandbox of `-T sandbox=docker`: Inspect's own, with one change: an exec that runc could not start is
started again.

Under load runc sometimes fails to start a process in a running container ("OCI runtime exec failed: exec failed:
unable to start container process: waiting for init preliminary setup: read init-p: connection reset by peer",
exit 126). CI saw it on the first probe of Claude Code's tool injection, which made the whole sample an error. The
process never started, so starting it again is safe; a command that started and failed (any other result) is
returned as it is. The retries are bounded, so a command that prints the same words and exits 126 only runs itself
again, at most RUNC_ATTEMPTS times.
"""

from __future__ import annotations

import logging

import anyio
from inspect_ai.util import ExecResult, SandboxEnvironment, SandboxEnvironmentConfigType, sandboxenv
from verifierbench.inspect_api.private import DockerSandboxEnvironment

logger = logging.getLogger(__name__)

SANDBOX_TYPE = "verifierbench-docker"  # what eval logs record as the sample's sandbox
RUNC_EXEC_FAILED = "OCI runtime exec failed"  # how Docker reports a process runc could not start
RUNC_EXIT = 126
RUNC_ATTEMPTS = 3
RUNC_BACKOFF_S = 0.5


def runc_could_not_start(result: ExecResult[str]) -> bool:
    """Whether an exec's result is Docker's report that the process never started (exit 126 and that message)."""
    return result.returncode == RUNC_EXIT and (result.stdout + result.stderr).lstrip().startswith(RUNC_EXEC_FAILED)


@sandboxenv(name=SANDBOX_TYPE)
class RetryingDockerSandbox(DockerSandboxEnvironment):
    """Inspect's Docker sandbox whose exec starts again a process runc could not start (see the module's docstring)."""

    @classmethod
    async def sample_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                          metadata: dict[str, str]) -> dict[str, SandboxEnvironment]:
        # Inspect's sample_init builds its own class: the same containers, re-wrapped in this one.
        environments = await super().sample_init(task_name, config, metadata)
        return {name: cls(env._service, env._project, env._working_dir)  # type: ignore[attr-defined]
                for name, env in environments.items()}

    async def exec(self, cmd: list[str], input: str | bytes | None = None, cwd: str | None = None,
                   env: dict[str, str] | None = None, user: str | None = None, timeout: int | None = None,
                   timeout_retry: bool = True, concurrency: bool = True) -> ExecResult[str]:
        for attempt in range(1, RUNC_ATTEMPTS + 1):
            result = await super().exec(cmd, input=input, cwd=cwd, env=env, user=user, timeout=timeout,
                                        timeout_retry=timeout_retry, concurrency=concurrency)
            if attempt == RUNC_ATTEMPTS or not runc_could_not_start(result):
                return result
            logger.warning("docker exec: runc could not start the process (attempt %d of %d), starting it again: %s",
                           attempt, RUNC_ATTEMPTS, result.stdout.strip()[:300])
            await anyio.sleep(RUNC_BACKOFF_S * attempt)
        raise AssertionError("unreachable")
