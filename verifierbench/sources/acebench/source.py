"""ACEBench: tool-call tasks judged by a port of ACEBench's checker."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from verifierbench.sources.base import BuildOption, Reference, SourcePaths, register_source
from verifierbench.sources.formats.tool_calls import TOOL_CALLS
from verifierbench.sources.toolcall.base import ToolCallSource

if TYPE_CHECKING:
    from verifierbench.construction.selection import Selection
    from verifierbench.sources.toolcall.spec import ToolCallSpec


@register_source
class AceBench(ToolCallSource):
    name = "acebench"
    format = TOOL_CALLS
    build_options = (BuildOption("acebench-dir", "ACEBench data_en directory (default $VERIFIERBENCH_ACEBENCH_DIR, else "
                                 "the copy shipped in the package)"),)

    def select(self, seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
        from verifierbench.sources.acebench.build import select_tasks

        return select_tasks(seed, paths, say)

    def answer_key(self, reference: Reference) -> ToolCallSpec:
        from verifierbench.sources.acebench.spec import spec_for_reference

        return spec_for_reference(reference)

    def check_calls(self, reference: Reference, calls: list[Any]) -> tuple[bool, str]:
        from verifierbench.sources.acebench.reference import check_calls

        return check_calls(reference, calls)

    def expected_calls(self, reference: Reference) -> list[dict[str, Any]]:
        from verifierbench.sources.acebench.reference import expected_calls

        return expected_calls(reference)
