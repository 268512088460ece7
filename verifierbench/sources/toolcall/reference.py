"""The reference verifier for tool-call tasks: the candidate must be self-consistent, then the source's checker
decides (`ToolCallSource.decide`, sources/toolcall/base.py).

Stdlib plus the source's checker (its `check_calls`) only, so the same function runs in the build (C1 replay) and inside
the sandbox as an exported verifier file.
"""

from __future__ import annotations

from typing import Any

from verifierbench.sources.toolcall.base import tool_call_source


def decide(reference: dict[str, Any], candidate: dict[str, Any]) -> tuple[bool, str]:
    """(PASS?, reason) for one candidate against one task's reference record."""
    return tool_call_source(reference).decide(reference, candidate)
