"""One Inspect sample per VerifierBench task; the sample id is the task id (stable, canonical)."""

from __future__ import annotations

from inspect_ai.dataset import MemoryDataset, Sample

from verifierbench.harness.prompt import build_prompt, task_files
from verifierbench.schema import Task
from verifierbench.suite import Suite


def task_sample(task: Task, run_public_budget: int, has_tools: bool) -> Sample:
    return Sample(
        id=task.id,
        input=build_prompt(task, run_public_budget, has_tools),
        metadata={"task_id": task.id, "source": task.source.value, "source_id": task.source_id,
                  "task_type": task.type.value, "task_hash": task.content_hash},
        files=task_files(task),
    )


def suite_dataset(suite: Suite, tasks: list[Task], run_public_budget: int, has_tools: bool) -> MemoryDataset:
    return MemoryDataset([task_sample(t, run_public_budget, has_tools) for t in tasks],
                         name=f"verifierbench-{suite.manifest.version}", shuffled=False)
