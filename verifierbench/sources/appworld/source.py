"""AppWorld: state tasks with code candidates (the code format), judged by AppWorld's own evaluation, run in
AppWorld's separate venv. No public environment: `run_public` is not offered for its tasks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from verifierbench.sources.base import Reference, Source, SourcePaths, register_source
from verifierbench.sources.formats.code import CODE

if TYPE_CHECKING:
    from verifierbench.construction.selection import Selection


@register_source
class AppWorld(Source):
    name = "appworld"
    format = CODE

    def select(self, seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
        from verifierbench.sources.appworld.build import select_tasks

        return select_tasks(seed, paths, say)

    def decide(self, reference: Reference, candidate: Any) -> tuple[bool, str]:
        from verifierbench.sources.appworld.reference import decide

        return decide(reference, candidate)

    def preload(self) -> tuple[str, ...]:
        return ("verifierbench.sources.appworld.reference",)
