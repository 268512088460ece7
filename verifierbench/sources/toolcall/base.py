"""What the tool-call sources (BFCL, ACEBench) share as sources: the tool-call reference decision (raw and parsed
calls must agree, then the source's checker decides), the tool-call mutation operators and the tool-call auditor.
A tool-call source subclasses `ToolCallSource` and gives its selection and its answer key (`answer_key`,
`check_calls`, `expected_calls`). Standard library only at the top, like every source module (sources/base.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from verifierbench.sources.base import Reference, Source

if TYPE_CHECKING:
    from verifierbench.construction.proposals import Proposal
    from verifierbench.schema import Task


class ToolCallSource(Source):
    """A source of tool-call tasks, decided by the shared tool-call reference through the source's `check_calls`."""

    shares = "toolcall"

    def decide(self, reference: Reference, candidate: Any) -> tuple[bool, str]:
        from verifierbench.sources.toolcall.reference import decide

        return decide(reference, candidate)

    def preload(self) -> tuple[str, ...]:
        return ("verifierbench.sources.toolcall.reference",)

    def mutation_operators(self) -> tuple[Any, ...]:
        from verifierbench.sources.toolcall.mutants import OPERATORS

        return OPERATORS

    def audit_proposals(self, task: Task, round_index: int, seed: int) -> list[Proposal]:
        from verifierbench.sources.toolcall.audit import propose

        return propose(task, round_index, seed)
