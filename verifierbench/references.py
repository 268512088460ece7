"""The reference verifier of every task, by the checker its reference record names: our code around
each source's own evaluator. Used by the build (C1), screening, the audit, and exported verifiers."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, TypeVar

TOOL_CALL_CHECKERS = ("bfcl", "acebench")
TEST_RUNS_IN_FLIGHT = 4  # code tasks: each reference decision is a sandboxed test run (the executor caps them at its slots)
T = TypeVar("T")
R = TypeVar("R")


def each(parallel: bool, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """`fn` over `items`, in order; a few at a time when `parallel` (reference decisions of code tasks)."""
    if not parallel:
        return [fn(item) for item in items]
    with ThreadPoolExecutor(TEST_RUNS_IN_FLIGHT) as pool:
        return list(pool.map(fn, items))


def decide(reference: dict, candidate: Any) -> tuple[bool, str]:
    """(PASS?, reason) for one candidate against one task's reference record."""
    checker = reference.get("checker")
    if checker in TOOL_CALL_CHECKERS:
        from verifierbench.sources.toolcall.reference import decide as tool_call

        return tool_call(reference, candidate)
    if checker == "agentdojo":
        from verifierbench.sources.agentdojo.reference import decide as agentdojo

        return agentdojo(reference, candidate)
    if checker == "tau2":
        from verifierbench.sources.tau2.reference import decide as tau2

        return tau2(reference, candidate)
    if checker == "swebench":
        from verifierbench.sources.swebench.reference import decide as swebench

        return swebench(reference, candidate)
    if checker == "appworld":
        from verifierbench.sources.appworld.reference import decide as appworld

        return appworld(reference, candidate)
    raise ValueError(f"unknown checker {checker!r}")
