"""One Inspect sample per VerifierBench task; the sample id is the task id (stable, canonical)."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.dataset import MemoryDataset, Sample

from verifierbench.sandboxes.cli_overlay import with_clis
from verifierbench.sandboxes.docker_provider import SANDBOX_TYPE as DOCKER_SANDBOX
from verifierbench.harness.prompt import build_prompt, task_files
from verifierbench.public_env.registry import case_timeout, has_environment
from verifierbench.core.schema import Task
from verifierbench.sources import registry
from verifierbench.sources.formats.registry import SAMPLE_FORMAT, SAMPLE_PUBLIC, format_of
from verifierbench.suite.store import Suite


def task_sample(task: Task, run_public_budget: int, has_tools: bool, suite_dir: Path | None = None, sandbox: str = "vgb",
                cli_image: bool = False) -> Sample:
    return Sample(
        sandbox=_own_sandbox(task, sandbox, cli_image),
        id=task.id,
        input=build_prompt(task, run_public_budget, has_tools),
        # suite_dir and the budget let the sandbox start the task's run_public service (host side)
        metadata={"task_id": task.id, "source": task.source.value, "source_id": task.source_id,
                  "task_type": task.type.value, "task_hash": task.content_hash, "run_public_budget": run_public_budget,
                  # what the harness offers: run_public and reset only where the task has a public environment
                  SAMPLE_FORMAT: task.candidate_format.value, SAMPLE_PUBLIC: has_environment(task),
                  # a code task's budget per verifier run: the agent's commands may run its verifier that long
                  **({"case_timeout_s": case_timeout(task)} if format_of(task).runs_tests else {}),
                  **({"suite_dir": str(suite_dir)} if suite_dir else {})},
        files=task_files(task),
    )


def _own_sandbox(task: Task, sandbox: str, cli_image: bool) -> tuple[str, str] | None:
    """Under Docker, a task whose source has its own compose file (SWE-bench: the instance's environment image)
    gets it, on an image derived with the harness's CLIs for a CLI harness (sandboxes/cli_overlay.py); the task's
    default sandbox otherwise."""
    compose = registry.source(task.source.value).docker_compose(task) if sandbox == "docker" else None
    if compose is not None and cli_image:
        compose = with_clis(compose)
    return (DOCKER_SANDBOX, str(compose)) if compose is not None else None


def suite_dataset(suite: Suite, tasks: list[Task], run_public_budget: int, has_tools: bool,
                  suite_dir: Path | None = None, sandbox: str = "vgb", cli_image: bool = False) -> MemoryDataset:
    return MemoryDataset([task_sample(t, run_public_budget, has_tools, suite_dir, sandbox, cli_image) for t in tasks],
                         name=f"verifierbench-{suite.manifest.version}", shuffled=False)
