"""BFCL (Berkeley Function-Calling Leaderboard): tool-call tasks judged by BFCL's own AST checker."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from verifierbench.sources.base import Reference, SourcePaths, register_source
from verifierbench.sources.formats.tool_calls import TOOL_CALLS
from verifierbench.sources.toolcall.base import ToolCallSource

if TYPE_CHECKING:
    from verifierbench.construction.selection import Selection
    from verifierbench.sources.toolcall.spec import ToolCallSpec


@register_source
class Bfcl(ToolCallSource):
    name = "bfcl"
    format = TOOL_CALLS
    upstream = "bfcl-eval"

    def select(self, seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
        from verifierbench.sources.bfcl.build import select_tasks

        return select_tasks(seed, paths, say)

    def reference_packages(self) -> tuple[str, ...]:
        return ("bfcl_eval",)

    def answer_key(self, reference: Reference) -> ToolCallSpec:
        from verifierbench.sources.bfcl.spec import spec_for_reference

        return spec_for_reference(reference)

    def check_calls(self, reference: Reference, calls: list[Any]) -> tuple[bool, str]:
        from verifierbench.sources.bfcl.reference import check_calls

        return check_calls(reference, calls)

    def expected_calls(self, reference: Reference) -> list[dict[str, Any]]:
        from verifierbench.sources.bfcl.reference import expected_calls

        return expected_calls(reference)
