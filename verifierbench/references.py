"""The reference verifier of every task, by the checker its reference record names: our code around
each source's own evaluator (each source's `decide`, sources/base.py). Used by the build (C1),
screening, the audit, and exported verifiers (inside the sandbox: standard library only up to the source's `decide`)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, TypeVar

from verifierbench.sources import registry

TEST_RUNS_IN_FLIGHT = 4  # code tasks: each reference decision is a sandboxed test run (the executor caps them at its slots)
T = TypeVar("T")
R = TypeVar("R")


def each(parallel: bool, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """`fn` over `items`, in order; a few at a time when `parallel` (reference decisions of code tasks)."""
    if not parallel:
        return [fn(item) for item in items]
    with ThreadPoolExecutor(TEST_RUNS_IN_FLIGHT) as pool:
        return list(pool.map(fn, items))


WARM_UP = "verifierbench.references:warm_up"  # what an exported reference's trusted warm sandbox calls (export.py)


def preload_modules(checker: str) -> list[str]:
    """The modules a reference of this checker imports: the decision path first, then its source's lazy imports."""
    return ["verifierbench.references", *registry.source(checker).preload()]


def warm_up(reference: dict) -> None:
    """Loads what deciding on this task reads into memory (its source's `warm_up`): once per warm sandbox."""
    registry.of(reference).warm_up(reference)


def decide(reference: dict, candidate: Any, reuse_runs: bool = False) -> tuple[bool, str]:
    """(PASS?, reason) for one candidate against one task's reference record (its source's `decide`; with
    `reuse_runs`, its `decide_reusing`: a recorded test run of identical inputs may decide, screening's C1)."""
    declared = registry.of(reference)
    return declared.decide_reusing(reference, candidate) if reuse_runs else declared.decide(reference, candidate)
