"""A toy candidate format added from this folder alone (docs/adding-a-format.md): one tool call as an object,
`{"call": {"name": str, "arguments": {...}}}`, decided on the call alone (tasks of type tool-call). Registered when
this module is imported: the source declaring it (source.py) imports it, so it is registered wherever the source is
(tests/sources/test_single_call_format.py)."""

from __future__ import annotations

from typing import Any

from verifierbench.sources.formats.base import Auditor, Format, NaiveChecks, register_format


class SingleCall(Format):
    """`{"call": {"name", "arguments"}}`: exactly one call, nothing executed, no public environment."""

    name = "single_call"
    task_type = "tool-call"
    example = {"call": {"name": "example_tool", "arguments": {"city": "Paris", "days": 3}}}
    repeat_runs = 2
    audit_failure_modes = (
        "rejecting a call the requirements allow (an omitted argument that has a documented default, a number\n"
        "   written as 7.0 for 7) and accepting a wrong one (another tool, a wrong value, a number given as text).")

    def judge_rounds(self, requested: int) -> int:
        return 1  # a decision on one call object is deterministic

    def well_formed(self, candidate: Any) -> bool:
        call = candidate.get("call") if isinstance(candidate, dict) and set(candidate) == {"call"} else None
        return (isinstance(call, dict) and set(call) == {"name", "arguments"} and isinstance(call["name"], str)
                and isinstance(call["arguments"], dict))

    def naive_checks(self) -> NaiveChecks | None:
        from tests.sources.single_call.checks import naive_checks_fooled

        return naive_checks_fooled

    def mutation_operators(self) -> tuple[Any, ...]:
        from tests.sources.single_call.checks import OPERATORS

        return OPERATORS

    def auditor(self) -> Auditor | None:
        from tests.sources.single_call.checks import propose

        return propose


SINGLE_CALL = register_format(SingleCall())
