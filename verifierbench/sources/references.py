"""The reference verifier of every task, by the checker its reference record names: our code around
each source's own evaluator (each source's `decide`, sources/base.py). Used by the build (C1),
screening, the audit, and exported verifiers (inside the sandbox: standard library only up to the source's `decide`)."""

from __future__ import annotations

from typing import Any

from verifierbench.sources import registry

WARM_UP = "verifierbench.sources.references:warm_up"  # what an exported reference's trusted warm sandbox calls (export.py)


def preload_modules(checker: str) -> list[str]:
    """The modules a reference of this checker imports: the decision path first, then its source's lazy imports."""
    return ["verifierbench.sources.references", *registry.source(checker).preload()]


def warm_up(reference: dict) -> None:
    """Loads what deciding on this task reads into memory (its source's `warm_up`): once per warm sandbox."""
    registry.of(reference).warm_up(reference)


def decide(reference: dict, candidate: Any, reuse_runs: bool = False) -> tuple[bool, str]:
    """(PASS?, reason) for one candidate against one task's reference record (its source's `decide`; with
    `reuse_runs`, its `decide_reusing`: a recorded test run of identical inputs may decide, screening's C1)."""
    declared = registry.of(reference)
    return declared.decide_reusing(reference, candidate) if reuse_runs else declared.decide(reference, candidate)
