"""The Docker sandbox of `-T sandbox=docker`: Inspect's own, with one change: an exec that runc could not start is
started again.

Under load runc sometimes fails to start a process in a running container ("OCI runtime exec failed: exec failed:
unable to start container process: waiting for init preliminary setup: read init-p: connection reset by peer",
exit 126). CI saw it on the first probe of Claude Code's tool injection, which made the whole sample an error. The
process never started, so starting it again is safe; a command that started and failed (any other result) is
returned as it is. The retries are bounded, so a command that prints the same words and exits 126 only runs itself
again, at most RUNC_ATTEMPTS times.

And one addition: a compose file that names ENDPOINT_VARIABLE (docker/harness.compose.yaml, the code tasks' CLI
overlay) gets, per sample, a fresh host directory bound read-only into the container at ENDPOINT_INSIDE, where the
harness later makes the project's model endpoint socket (harness/endpoint_docker.py). It must exist before the
container does, so it is made here; Inspect hands a sample's metadata to compose as SAMPLE_METADATA_* variables, and
this directory goes the same way. It is removed with the sample.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path

import anyio
from inspect_ai.util import ExecResult, SandboxEnvironment, SandboxEnvironmentConfigType, sandboxenv
from verifierbench.inspect_api.private import DockerSandboxEnvironment

logger = logging.getLogger(__name__)

SANDBOX_TYPE = "verifierbench-docker"  # what eval logs record as the sample's sandbox
RUNC_EXEC_FAILED = "OCI runtime exec failed"  # how Docker reports a process runc could not start
RUNC_EXIT = 126
RUNC_ATTEMPTS = 3
RUNC_BACKOFF_S = 0.5
ENDPOINT_METADATA = "verifierbench_endpoint_dir"  # a sample metadata key, as compose sees it:
ENDPOINT_VARIABLE = "SAMPLE_METADATA_VERIFIERBENCH_ENDPOINT_DIR"
ENDPOINT_INSIDE = "/run/vgb-bridge"  # where the container sees it (the compose files bind it there)


def runc_could_not_start(result: ExecResult[str]) -> bool:
    """Whether an exec's result is Docker's report that the process never started (exit 126 and that message)."""
    return result.returncode == RUNC_EXIT and (result.stdout + result.stderr).lstrip().startswith(RUNC_EXEC_FAILED)


@sandboxenv(name=SANDBOX_TYPE)
class RetryingDockerSandbox(DockerSandboxEnvironment):
    """Inspect's Docker sandbox whose exec starts again a process runc could not start (see the module's docstring)."""

    endpoint_dir: Path | None = None  # the host directory bound at ENDPOINT_INSIDE, when the compose file binds one

    @classmethod
    async def sample_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                          metadata: dict[str, str]) -> dict[str, SandboxEnvironment]:
        endpoint = endpoint_directory(config)
        if endpoint is not None:
            metadata = {**metadata, ENDPOINT_METADATA: str(endpoint)}
        try:
            # Inspect's sample_init builds its own class: the same containers, re-wrapped in this one.
            environments = await super().sample_init(task_name, config, metadata)
        except BaseException:
            if endpoint is not None:
                shutil.rmtree(endpoint, ignore_errors=True)
            raise
        wrapped = {name: cls(env._service, env._project, env._working_dir)  # type: ignore[attr-defined]
                   for name, env in environments.items()}
        for env in wrapped.values():
            env.endpoint_dir = endpoint
        return dict(wrapped)

    @classmethod
    async def sample_cleanup(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                             environments: dict[str, SandboxEnvironment], interrupted: bool) -> None:
        try:
            await super().sample_cleanup(task_name, config, environments, interrupted)
        finally:
            for env in environments.values():
                endpoint = getattr(env, "endpoint_dir", None)
                if endpoint is not None:
                    shutil.rmtree(endpoint, ignore_errors=True)

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


def endpoint_directory(config: SandboxEnvironmentConfigType | None) -> Path | None:
    """A fresh directory for one sample's model endpoint (root's, 0755: the container's user reads it, writes nothing),
    when the compose file binds ENDPOINT_VARIABLE; else None. Under /tmp, which scripts/docker-engine.sh's engine
    sees at the same path."""
    if not isinstance(config, str) or not Path(config).is_file() or ENDPOINT_VARIABLE not in Path(config).read_text():
        return None
    directory = Path(tempfile.mkdtemp(prefix="verifierbench-endpoint-"))
    directory.chmod(0o755)
    return directory
