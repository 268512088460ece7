"""A tiny out-of-tree source (docs/adding-a-source.md): two tool-call tasks, a few cases each, decided by an
exact comparison of the parsed calls. Registered when this module is named in $VERIFIERBENCH_SOURCES
(tests/sources/test_tiny_source.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from verifierbench.sources.base import BuildOption, Reference, SourcePaths, register_source
from verifierbench.sources.formats.tool_calls import TOOL_CALLS
from verifierbench.sources.toolcall.base import ToolCallSource

if TYPE_CHECKING:
    from verifierbench.construction.selection import Selection


@register_source
class Tiny(ToolCallSource):
    name = "tiny"
    format = TOOL_CALLS
    build_options = (BuildOption("tiny-only", "build only these task ids (comma-separated)", metavar="ID,..."),)

    def select(self, seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
        from tests.sources.tiny.build import select_tasks

        only = paths.get("tiny_only")
        return select_tasks(seed, only.split(",") if only else None)

    def check_calls(self, reference: Reference, calls: list[Any]) -> tuple[bool, str]:
        from tests.sources.tiny.reference import check_calls

        return check_calls(reference, calls)

    def expected_calls(self, reference: Reference) -> list[dict[str, Any]]:
        return list(reference["expected"])

    def mutation_operators(self) -> tuple[Any, ...]:
        # Its five hand-made cases per task are too few to detect the tool-call format's C6 operators (the shared
        # case generators make those cases for BFCL and ACEBench): it screens with none, as a new source may.
        return ()
