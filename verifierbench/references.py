"""The reference verifier of every task, by the checker its reference record names: our code around
each source's own evaluator. Used by the build (C1), screening, the audit, and exported verifiers."""

from __future__ import annotations

import importlib
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


# Each checker's module (its `decide(reference, candidate)`), imported when a reference of it is first decided.
CHECKER_MODULES = {
    **{checker: "verifierbench.sources.toolcall.reference" for checker in TOOL_CALL_CHECKERS},
    "agentdojo": "verifierbench.sources.agentdojo.reference",
    "tau2": "verifierbench.sources.tau2.reference",
    "swebench": "verifierbench.sources.swebench.reference",
    "appworld": "verifierbench.sources.appworld.reference",
}

# What each checker imports lazily, inside its functions (the upstream packages, seconds to import):
# an exported reference's warm sandbox imports these once before its cases (export.py, executor.warm).
CHECKER_PRELOAD = {
    "tau2": ("inspect_ai.model", "inspect_ai.solver", "inspect_ai.tool", "inspect_ai.util", "inspect_evals.tau2.common.scorer",
             "inspect_evals.tau2.common.agents", "inspect_evals.tau2.utils", "inspect_evals.tau2.common.tools",
             "inspect_evals.tau2.retail.data_model", "inspect_evals.tau2.retail.RetailAgentTools",
             "inspect_evals.tau2.banking.BankingAgentTools", "inspect_evals.tau2.banking.BankingUserTools",
             "inspect_evals.tau2.banking.data_model", "inspect_evals.tau2.banking.environment"),
    "agentdojo": ("yaml", "agentdojo.task_suite.load_suites", "agentdojo.agent_pipeline.tool_execution",
                  "agentdojo.functions_runtime", "agentdojo.default_suites.v1.tools"),
}


def preload_modules(checker: str) -> list[str]:
    """The modules a reference of this checker imports: its own module first, then its lazy imports."""
    module = CHECKER_MODULES.get(checker)
    return ["verifierbench.references", *([module] if module else []), *CHECKER_PRELOAD.get(checker, ())]


def decide(reference: dict, candidate: Any) -> tuple[bool, str]:
    """(PASS?, reason) for one candidate against one task's reference record."""
    checker = reference.get("checker")
    if checker not in CHECKER_MODULES:
        raise ValueError(f"unknown checker {checker!r}")
    return importlib.import_module(CHECKER_MODULES[checker]).decide(reference, candidate)
