"""tau2-bench (retail, banking): state tasks on inspect_evals' tau2 environments, interaction records as candidates."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Callable

from verifierbench.sources.base import Reference, SourcePaths, register_source
from verifierbench.sources.formats.interaction_record import INTERACTION_RECORD
from verifierbench.sources.interaction.base import InteractionSource

if TYPE_CHECKING:
    from verifierbench.sources.interaction.environment import ServedEnvironment
    from verifierbench.construction.drafts import Draft
    from verifierbench.construction.selection import Selection

# The state auditor's caps, wider than the build's (partial 3, near_miss 4).
AUDIT_CAPS = {"partial": 16, "near_miss": 32}


@register_source
class Tau2(InteractionSource):
    name = "tau2"
    format = INTERACTION_RECORD
    upstream = "inspect-evals"

    def select(self, seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
        from verifierbench.sources.tau2.build import select_tasks

        return select_tasks(seed, paths, say)

    def decide(self, reference: Reference, candidate: Any) -> tuple[bool, str]:
        from verifierbench.sources.tau2.reference import decide

        return decide(reference, candidate)

    def preload(self) -> tuple[str, ...]:
        return ("verifierbench.sources.tau2.reference",
                "inspect_ai.model", "inspect_ai.solver", "inspect_ai.tool", "inspect_ai.util", "inspect_evals.tau2.common.scorer",
                "inspect_evals.tau2.common.agents", "inspect_evals.tau2.utils", "inspect_evals.tau2.common.tools",
                "inspect_evals.tau2.retail.data_model", "inspect_evals.tau2.retail.RetailAgentTools",
                "inspect_evals.tau2.banking.BankingAgentTools", "inspect_evals.tau2.banking.BankingUserTools",
                "inspect_evals.tau2.banking.data_model", "inspect_evals.tau2.banking.environment")

    def warm_up(self, reference: Reference) -> None:
        from verifierbench.sources.tau2.reference import warm_up

        warm_up(reference)

    def environment(self, reference: Reference) -> ServedEnvironment:
        from verifierbench.sources.tau2.environment import environment_for

        return environment_for(reference)

    def gold_record(self, reference: Reference) -> dict[str, Any]:
        from verifierbench.sources.tau2 import cases

        return cases.gold_record(reference)

    def replay(self, reference: Reference, calls: list[dict[str, Any]]) -> tuple[list[Any], str]:
        from verifierbench.sources.tau2.environment import environment_for, recorded_result

        observations, state_hash = environment_for(reference).run(calls)
        return [recorded_result(o) for o in observations], state_hash

    def audit_drafts(self, reference: Reference, rng: random.Random) -> list[Draft]:
        from verifierbench.sources.tau2 import cases

        return cases.generate(reference, rng, AUDIT_CAPS)
