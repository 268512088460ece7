"""The reference verifier as screening runs it: in process (it is our own trusted code wrapping the
sources' checkers), with a version that names exactly the code and upstream release deciding."""

from __future__ import annotations

from verifierbench.references import decide as reference_decide
from verifierbench.schema import Task
from verifierbench.sources import registry


def decide(task: Task, candidate: dict) -> bool:
    """PASS? for one candidate; raises for a task whose source has no in-process reference."""
    try:
        return reference_decide(task.reference, candidate)[0]
    except ValueError as e:
        if "unknown checker" in str(e):
            raise NotImplementedError(f"no reference verifier for {task.source.value} tasks yet") from None
        raise


def version(source: str) -> str:
    """The version of a source's reference: its code and upstream release (sources/registry.py `code_version`)."""
    return registry.code_version(source)
