"""AgentDojo: state tasks and injection pairs on AgentDojo's suites, interaction records as candidates."""

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

# The state auditor's caps, wider than the build's (cases.CAPS: 2 writes, 2 permitted reads).
AUDIT_CAPS = {"writes": 16, "permitted_reads": 8}


@register_source
class AgentDojo(InteractionSource):
    name = "agentdojo"
    format = INTERACTION_RECORD
    upstream = "agentdojo"

    def select(self, seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
        from verifierbench.sources.agentdojo.build import select_tasks

        return select_tasks(seed, paths, say)

    def decide(self, reference: Reference, candidate: Any) -> tuple[bool, str]:
        from verifierbench.sources.agentdojo.reference import decide

        return decide(reference, candidate)

    def reference_site_packages(self) -> tuple[str, ...]:
        return ("agentdojo",)

    def preload(self) -> tuple[str, ...]:
        return ("verifierbench.sources.agentdojo.reference",
                "yaml", "agentdojo.task_suite.load_suites", "agentdojo.agent_pipeline.tool_execution",
                "agentdojo.functions_runtime", "agentdojo.default_suites.v1.tools")

    def warm_up(self, reference: Reference) -> None:
        from verifierbench.sources.agentdojo.reference import warm_up

        warm_up(reference)

    def environment(self, reference: Reference) -> ServedEnvironment:
        from verifierbench.sources.agentdojo.environment import environment_for

        return environment_for(reference)

    def gold_record(self, reference: Reference) -> dict[str, Any]:
        from verifierbench.sources.agentdojo import cases
        from verifierbench.sources.agentdojo.data import TaskRef

        return cases.gold_record(TaskRef.from_reference(reference))

    def replay(self, reference: Reference, calls: list[dict[str, Any]]) -> tuple[list[Any], str]:
        from verifierbench.sources.agentdojo.data import TaskRef
        from verifierbench.sources.agentdojo.environment import AgentDojoEnvironment

        replayed = AgentDojoEnvironment(TaskRef.from_reference(reference)).replay(calls)
        return [o["result"] for o in replayed.observations], replayed.state_hash

    def mutation_operators(self) -> tuple[Any, ...]:
        from verifierbench.sources.agentdojo.mutants import OPERATORS

        return OPERATORS

    def audit_drafts(self, reference: Reference, rng: random.Random) -> list[Draft]:
        from verifierbench.sources.agentdojo import cases
        from verifierbench.sources.agentdojo.data import TaskRef

        return cases.generate(TaskRef.from_reference(reference), rng, AUDIT_CAPS)
