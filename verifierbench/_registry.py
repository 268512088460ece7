"""Inspect entry point (`[project.entry-points.inspect_ai]`): imported by Inspect to find the
task `verifierbench/verifierbench`, the `vgb` sandbox and the `verifierbench/...` model-free policies."""

from verifierbench.harness.sandbox import VgbSandboxEnvironment  # noqa: F401
from verifierbench.task import verifierbench  # noqa: F401
from verifierbench.policies.provider import verifierbench_policies  # noqa: F401
from verifierbench.scorers.testjack_audit import testjack_audit  # noqa: F401
