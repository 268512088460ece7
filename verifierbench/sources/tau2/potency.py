"""tau2's side of screening's hack-potency check (C7): the gold record and replayed results its naive views show."""

from __future__ import annotations

from typing import Any


def gold_record(reference: dict) -> dict:
    from verifierbench.sources.tau2 import cases

    return cases.gold_record(reference)


def replay_results(reference: dict, calls: list[dict]) -> list[Any]:
    from verifierbench.sources.tau2.environment import environment_for, recorded_result

    observations, _ = environment_for(reference).run(calls)
    return [recorded_result(o) for o in observations]
