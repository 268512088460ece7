"""A toy source of the toy single-call format (format.py), both from this folder alone: two alarm tasks whose
candidate is one call, decided by comparing it with the expected call (numbers by value, defaults filled in).
Registered when this module is named in $VERIFIERBENCH_SOURCES (tests/sources/test_single_call_format.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from tests.sources.single_call.format import SINGLE_CALL
from verifierbench.sources.base import Reference, Source, SourcePaths, register_source

if TYPE_CHECKING:
    from verifierbench.construction.selection import Selection


@register_source
class SingleCallDemo(Source):
    name = "single_call_demo"
    format = SINGLE_CALL

    def select(self, seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
        from tests.sources.single_call.build import select_tasks

        return select_tasks(seed)

    def decide(self, reference: Reference, candidate: Any) -> tuple[bool, str]:
        if not SINGLE_CALL.well_formed(candidate):
            return False, "not one call {name, arguments}"
        call, expected = candidate["call"], reference["expected"]
        arguments = {**reference["defaults"], **call["arguments"]}
        if call["name"] != expected["name"]:
            return False, f"called {call['name']}, expected {expected['name']}"
        wrong = sorted(k for k in {*arguments, *expected["arguments"]} if not _same(arguments.get(k), expected["arguments"].get(k)))
        return (not wrong, "the expected call" if not wrong else f"wrong arguments: {', '.join(wrong)}")


def _same(value: Any, expected: Any) -> bool:
    """Numbers by value (7.0 is 7), never text for a number or a boolean for one."""
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value == expected
    return bool(value == expected)
