"""The `-T sandbox=` choice: its names and the Inspect sandbox spec each one stands for."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from verifierbench.core.errors import UserError
from verifierbench.sandboxes import CONTAINER_CONFIGS
from verifierbench.sandboxes.docker_provider import SANDBOX_TYPE as DOCKER_SANDBOX
from verifierbench.sandboxes.vgb_provider import SANDBOX_TYPE as VGB_SANDBOX

SandboxName = Literal["vgb", "docker", "k8s"]


def sandbox_spec(name: str, cli_image: bool = False) -> str | tuple[str, str]:
    """`vgb` (no Docker), or `docker`/`k8s` with the configs shipped in verifierbench/sandboxes/.

    Args:
      name: The `sandbox` task option.
      cli_image: Whether the harness runs a CLI (its record's `runs_cli`, harness/registry.py): under docker those run on the
        image with their CLIs (docker/harness.compose.yaml, built by scripts/harness-clis.sh).

    Returns:
      The sandbox type, or (type, config file) for the container sandboxes.

    Raises:
      UserError: for a name that is none of vgb, docker and k8s.
    """
    if name == VGB_SANDBOX:
        return VGB_SANDBOX
    docker = "harness.compose.yaml" if cli_image else "compose.yaml"
    configs: dict[str, Path] = {"docker": CONTAINER_CONFIGS / "docker" / docker, "k8s": CONTAINER_CONFIGS / "k8s" / "values.yaml"}
    if name not in configs:
        raise UserError(f"unknown sandbox {name!r} (choose vgb, docker or k8s)")
    # docker: Inspect's Docker sandbox that starts again an exec runc could not start (docker_provider.py)
    return (DOCKER_SANDBOX if name == "docker" else name, str(configs[name]))
