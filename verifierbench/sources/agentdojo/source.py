"""AgentDojo: state tasks and injection pairs on AgentDojo's suites, interaction records as candidates. Its folder
has the layout `InteractionSource` reads (sources/interaction/base.py): build, reference, environment and cases
modules."""

from __future__ import annotations

from typing import Any

from verifierbench.sources.base import Reference, register_source
from verifierbench.sources.formats.interaction_record import INTERACTION_RECORD
from verifierbench.sources.interaction.base import InteractionSource


@register_source
class AgentDojo(InteractionSource):
    name = "agentdojo"
    format = INTERACTION_RECORD
    upstream = "agentdojo"
    upstream_modules = ("yaml", "agentdojo.task_suite.load_suites", "agentdojo.agent_pipeline.tool_execution",
                        "agentdojo.functions_runtime", "agentdojo.default_suites.v1.tools")
    audit_caps = {"writes": 16, "permitted_reads": 8}  # the build's (cases.CAPS): 2 writes, 2 permitted reads

    def reference_site_packages(self) -> tuple[str, ...]:
        return ("agentdojo",)

    def case_task(self, reference: Reference) -> Any:
        from verifierbench.sources.agentdojo.data import TaskRef

        return TaskRef.from_reference(reference)

    def mutation_operators(self) -> tuple[Any, ...]:
        from verifierbench.sources.agentdojo.mutants import OPERATORS

        return OPERATORS
