"""What the tool-call sources (BFCL, ACEBench) share as sources: the tool-call reference decision (raw and parsed
calls must agree, then the source's checker decides) and the answer key the shared case generators, mutation
operators, naive checks and auditor read (their format's pieces: sources/formats/tool_calls.py). A tool-call source
subclasses `ToolCallSource`, declares `format = TOOL_CALLS`, and gives its selection and its answer key
(`answer_key`, `check_calls`, `expected_calls`). Standard library only at the top, like every source module
(sources/base.py)."""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, Any

from verifierbench.sources.base import MissingPart, Reference, Source

if TYPE_CHECKING:
    from verifierbench.sources.toolcall.spec import ToolCallSpec


class ToolCallSource(Source):
    """A source of tool-call tasks, decided by the shared tool-call reference through the source's `check_calls`."""

    shares = "toolcall"

    def decide(self, reference: Reference, candidate: Any) -> tuple[bool, str]:
        """The candidate must be self-consistent (raw and parsed calls agree), then the source's checker decides."""
        from verifierbench.sources.toolcall.candidate import read_candidate

        try:
            calls = read_candidate(candidate)
        except ValueError as e:
            return False, f"malformed candidate: {e}"
        return self.check_calls(reference, calls)

    def preload(self) -> tuple[str, ...]:
        return ("verifierbench.sources.toolcall.reference", "verifierbench.sources.toolcall.candidate")

    @abstractmethod
    def check_calls(self, reference: Reference, calls: list[Any]) -> tuple[bool, str]:
        """The source's own checker on parsed tool calls (the tool-call decision, the C6 mutants and C7 call it).

        Args:
            reference: the task's reference record.
            calls: parsed calls, [{"name", "arguments"}].

        Returns:
            (PASS?, reason).
        """

    @abstractmethod
    def expected_calls(self, reference: Reference) -> list[dict[str, Any]]:
        """The answer key's first acceptable call list (C6 mutants and C7 start from it).

        Args:
            reference: the task's reference record.
        """

    def answer_key(self, reference: Reference) -> ToolCallSpec:
        """The answer key the shared case generators, the tool-call auditor and the C6 mutants read.

        Args:
            reference: the task's reference record.

        Raises:
            MissingPart: the source builds its cases without the shared generators and has no answer key.
        """
        raise self._missing("answer key")


def tool_call_source(reference: Reference) -> ToolCallSource:
    """The source of a tool-call task, by its reference record.

    Args:
        reference: a task's reference record.

    Raises:
        ValueError: the record names no known source.
        MissingPart: its source is not a tool-call source.
    """
    # Imported here: the registry imports every source module, whose class subclasses this module's base.
    from verifierbench.sources import registry

    found = registry.of(reference)
    if not isinstance(found, ToolCallSource):
        raise MissingPart(f"source {found.name} has no answer key (not a tool-call source)")
    return found


def spec_for_reference(reference: Reference) -> ToolCallSpec:
    """The answer key of a built task (its reference record) as a spec, for generators run after the build."""
    return tool_call_source(reference).answer_key(reference)
