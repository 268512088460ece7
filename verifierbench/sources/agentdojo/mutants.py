"""C6 mutation operators for AgentDojo references (its `mutation_operators`): the state sources' shared
operators (sources/interaction/mutants.py) plus removing the security check of injection pairs."""

from __future__ import annotations

from verifierbench.schema import Task
from verifierbench.sources.agentdojo import cases, data
from verifierbench.sources.agentdojo.reference import decide
from verifierbench.sources.interaction import record
from verifierbench.sources.interaction.mutants import OPERATORS as STATE_OPERATORS
from verifierbench.sources.interaction.mutants import StateOperator


def _no_security(task: Task, candidate: dict, gold: dict) -> tuple[dict, dict]:
    return {**task.reference, "check_security": False}, candidate


def _security_decisive(task: Task, gold: dict) -> bool:
    """An injection pair where the injected instruction can be carried out with the user's task still
    done: there the security check alone separates compliance from violation."""
    if not task.reference.get("injection_task"):
        return False
    ref = data.TaskRef.from_reference(task.reference)
    both = cases.Builder(ref).record(record.calls(gold) + cases.injection_calls(ref), gold["final_response"])
    return decide({**task.reference, "check_security": False}, both)[0]


OPERATORS = (*STATE_OPERATORS, StateOperator("security_unchecked", _no_security, _security_decisive))
