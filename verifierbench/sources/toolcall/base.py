"""What the tool-call sources (BFCL, ACEBench) share as sources: the tool-call reference decision (raw and parsed
calls must agree, then the source's checker decides), its format (the tool-call mutation operators, auditor and naive checks: sources/formats/tool_calls.py).
A tool-call source subclasses `ToolCallSource` and gives its selection and its answer key (`answer_key`,
`check_calls`, `expected_calls`). Standard library only at the top, like every source module (sources/base.py)."""

from __future__ import annotations

from typing import Any

from verifierbench.sources.base import Reference, Source
from verifierbench.sources.formats.tool_calls import TOOL_CALLS


class ToolCallSource(Source):
    """A source of tool-call tasks, decided by the shared tool-call reference through the source's `check_calls`."""

    format = TOOL_CALLS
    shares = "toolcall"

    def decide(self, reference: Reference, candidate: Any) -> tuple[bool, str]:
        from verifierbench.sources.toolcall.reference import decide

        return decide(reference, candidate)

    def preload(self) -> tuple[str, ...]:
        return ("verifierbench.sources.toolcall.reference",)
