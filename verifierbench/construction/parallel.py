"""Reference decisions a few at a time: a code task's decision is a sandboxed test run of seconds to minutes, so its
build (case runs), screening (C1, C2) and the audit's certification run them in parallel; other decisions run in order."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, TypeVar

TEST_RUNS_IN_FLIGHT = 4  # code tasks: each reference decision is a sandboxed test run (the executor caps them at its slots)
T = TypeVar("T")
R = TypeVar("R")


def each(parallel: bool, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """`fn` over `items`, in order; a few at a time when `parallel` (reference decisions of code tasks)."""
    if not parallel:
        return [fn(item) for item in items]
    with ThreadPoolExecutor(TEST_RUNS_IN_FLIGHT) as pool:
        return list(pool.map(fn, items))
