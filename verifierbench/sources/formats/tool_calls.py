"""The tool-call format: a reply and its parsed calls, judged on the calls; nothing to execute (BFCL, ACEBench)."""

from __future__ import annotations

from typing import Any

from verifierbench.sources.formats.base import Auditor, Format, NaiveChecks, register_format


class ToolCalls(Format):
    """`{"raw": str, "parsed": [{"name", "arguments"}]}`: tasks of type tool-call, no public environment."""

    name = "tool_calls"
    task_type = "tool-call"
    example = {"raw": "[example_tool(city=\"Paris\", days=3)]",
               "parsed": [{"name": "example_tool", "arguments": {"city": "Paris", "days": 3}}]}
    repeat_runs = 2
    exact_match_field = "raw"  # the reply as emitted: two replies with the same calls may be written differently
    audit_failure_modes = (
        "rejecting permitted tools or calls the requirements allow, mishandling default\n"
        "   arguments (an omitted argument with a documented default, or the default passed explicitly), restricting\n"
        "   representations (number forms, argument or call order, text layout), over-broad restrictions, and\n"
        "   accepting violations (wrong values, missing or extra calls, text that disagrees with the calls).")

    def judge_rounds(self, requested: int) -> int:
        return 1  # a decision on parsed calls is deterministic: more rounds would repeat it

    def well_formed(self, candidate: Any) -> bool:
        return (isinstance(candidate, dict) and set(candidate) == {"raw", "parsed"} and isinstance(candidate["raw"], str)
                and isinstance(candidate["parsed"], list))

    def naive_checks(self) -> NaiveChecks | None:
        from verifierbench.sources.toolcall.naive_checks import naive_checks_fooled

        return naive_checks_fooled

    def mutation_operators(self) -> tuple[Any, ...]:
        from verifierbench.sources.toolcall.mutants import OPERATORS

        return OPERATORS

    def auditor(self) -> Auditor | None:
        from verifierbench.sources.toolcall.audit import propose

        return propose


TOOL_CALLS = register_format(ToolCalls())
