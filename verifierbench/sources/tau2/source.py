"""tau2-bench (retail, banking): state tasks on inspect_evals' tau2 environments, interaction records as candidates.
Its folder has the layout `InteractionSource` reads (sources/interaction/base.py): build, reference, environment and
cases modules."""

from __future__ import annotations

from typing import Any

from verifierbench.sources.base import Reference, register_source
from verifierbench.sources.formats.interaction_record import INTERACTION_RECORD
from verifierbench.sources.interaction.base import InteractionSource


@register_source
class Tau2(InteractionSource):
    name = "tau2"
    format = INTERACTION_RECORD
    upstream = "inspect-evals"
    upstream_modules = (
        "inspect_ai.model", "inspect_ai.solver", "inspect_ai.tool", "inspect_ai.util", "inspect_evals.tau2.common.scorer",
        "inspect_evals.tau2.common.agents", "inspect_evals.tau2.utils", "inspect_evals.tau2.common.tools",
        "inspect_evals.tau2.retail.data_model", "inspect_evals.tau2.retail.RetailAgentTools",
        "inspect_evals.tau2.banking.BankingAgentTools", "inspect_evals.tau2.banking.BankingUserTools",
        "inspect_evals.tau2.banking.data_model", "inspect_evals.tau2.banking.environment")
    audit_caps = {"partial": 16, "near_miss": 32}  # the build's: partial 3, near_miss 4

    def replay(self, reference: Reference, calls: list[dict[str, Any]]) -> tuple[list[Any], str]:
        # tau2's environment memoises a call list's observations and state hash without building the state dict
        # (`run`): C7 and the state auditor replay the same records many times.
        from verifierbench.sources.tau2.environment import environment_for, recorded_result

        observations, state_hash = environment_for(reference).run(calls)
        return [recorded_result(o) for o in observations], state_hash
