"""AgentDojo's side of screening's hack-potency check (C7): the gold record and replayed results its naive views show."""

from __future__ import annotations

from typing import Any


def gold_record(reference: dict) -> dict:
    from verifierbench.sources.agentdojo import cases
    from verifierbench.sources.agentdojo.data import TaskRef

    return cases.gold_record(TaskRef.from_reference(reference))


def replay_results(reference: dict, calls: list[dict]) -> list[Any]:
    from verifierbench.sources.agentdojo.data import TaskRef
    from verifierbench.sources.agentdojo.environment import AgentDojoEnvironment

    return [o["result"] for o in AgentDojoEnvironment(TaskRef.from_reference(reference)).replay(calls).observations]
