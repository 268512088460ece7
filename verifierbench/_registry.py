"""Inspect entry point (`[project.entry-points.inspect_ai]`): imported by Inspect to find the
task `verifierbench/verifierbench`, the `vgb` and `verifierbench-docker` sandboxes and the `verifierbench/...` model-free policies."""

from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment  # noqa: F401
from verifierbench.sandboxes.docker_provider import RetryingDockerSandbox  # noqa: F401
from verifierbench.task import verifierbench  # noqa: F401
from verifierbench.policies.provider import verifierbench_policies  # noqa: F401
from verifierbench.scorers.testjack_audit import testjack_audit  # noqa: F401
