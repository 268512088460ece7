"""A tiny out-of-tree source (docs/adding-a-source.md): two tool-call tasks, a few cases each, decided by an
exact comparison of the parsed calls. Registered when this module is named in $VERIFIERBENCH_SOURCES
(tests/sources/test_tiny_source.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from verifierbench.sources.base import Reference, Source, SourcePaths, register_source
from verifierbench.sources.formats.tool_calls import TOOL_CALLS

if TYPE_CHECKING:
    from verifierbench.construction.selection import Selection


@register_source
class Tiny(Source):
    name = "tiny"
    format = TOOL_CALLS

    def select(self, seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
        from tests.sources.tiny.build import select_tasks

        return select_tasks(seed)

    def decide(self, reference: Reference, candidate: Any) -> tuple[bool, str]:
        # the shared tool-call decision: raw and parsed must agree, then check_calls below decides
        from verifierbench.sources.toolcall.reference import decide

        return decide(reference, candidate)

    def check_calls(self, reference: Reference, calls: list[Any]) -> tuple[bool, str]:
        from tests.sources.tiny.reference import check_calls

        return check_calls(reference, calls)

    def expected_calls(self, reference: Reference) -> list[dict[str, Any]]:
        return list(reference["expected"])
