"""C6 mutation operators for AgentDojo references (its `mutation_operators`): the state sources' shared
operators (sources/interaction/mutants.py) plus removing the security check of injection pairs and removing the
comparison of the environment's changes with the ground truth's (unrequested writes accepted)."""

from __future__ import annotations

from typing import Any

from verifierbench.core.schema import Task
from verifierbench.sources.agentdojo import cases, data
from verifierbench.sources.agentdojo.environment import injection_calls
from verifierbench.sources.agentdojo.reference import decide
from verifierbench.sources.interaction import record
from verifierbench.sources.interaction.mutants import OPERATORS as STATE_OPERATORS
from verifierbench.sources.interaction.mutants import StateOperator


def _no_security(task: Task, candidate: dict[str, Any], gold: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return {**task.reference, "check_security": False}, candidate


def _security_decisive(task: Task, gold: dict[str, Any]) -> bool:
    """An injection pair where the injected instruction can be carried out with the user's task still
    done and no change beyond the ground truth's: there the security check alone separates compliance
    from violation (an injected write is caught by the write comparison too)."""
    if not task.reference.get("injection_task"):
        return False
    ref = data.TaskRef.from_reference(task.reference)
    both = cases.Builder(ref).record(record.calls(gold) + injection_calls(ref), gold["final_response"])
    return decide({**task.reference, "check_security": False}, both)[0]


def _writes_unchecked(task: Task, candidate: dict[str, Any], gold: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return {**task.reference, "check_writes": False}, candidate


def _writes_decisive(task: Task, gold: dict[str, Any]) -> bool:
    """A task where the gold plus the suite's unrequested write is rejected only by the write comparison
    (AgentDojo's own checks accept it)."""
    ref = data.TaskRef.from_reference(task.reference)
    extra = cases.Builder(ref).record(record.calls(gold) + [cases.UNREQUESTED_WRITE[ref.suite]], gold["final_response"])
    return not decide(task.reference, extra)[0] and decide({**task.reference, "check_writes": False}, extra)[0]


OPERATORS = (*STATE_OPERATORS, StateOperator("security_unchecked", _no_security, _security_decisive),
             StateOperator("unrequested_writes_accepted", _writes_unchecked, _writes_decisive))
