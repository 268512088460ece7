"""The reference verifier as screening runs it: in process (it is our own trusted code wrapping the
sources' checkers), with a version that names exactly the code and upstream release deciding."""

from __future__ import annotations

from verifierbench.sources.references import decide as reference_decide
from verifierbench.core.schema import Task
from verifierbench.sources import registry


def decide(task: Task, candidate: dict, reuse_runs: bool = False) -> bool:
    """PASS? for one candidate; raises for a task whose source has no in-process reference.

    Args:
        task: the task.
        candidate: the candidate.
        reuse_runs: a recorded test run of identical inputs may decide (code tasks' run cache: C1); False runs
            afresh (C2's repeats).
    """
    try:
        return reference_decide(task.reference, candidate, reuse_runs)[0]
    except ValueError as e:
        if "unknown checker" in str(e):
            raise NotImplementedError(f"no reference verifier for {task.source.value} tasks yet") from None
        raise


def version(source: str) -> str:
    """The version of a source's reference: its code and upstream release (sources/registry.py `code_version`)."""
    return registry.code_version(source)


def decide_reusing_runs(task: Task, candidate: dict) -> bool:
    """`decide` from the build's recorded test runs where the source keeps them (C1 and C6 of code tasks)."""
    return decide(task, candidate, reuse_runs=True)
