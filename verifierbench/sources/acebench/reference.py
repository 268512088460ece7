"""ACEBench's part of the tool-call reference: its checker on parsed calls, and its answer key's calls.

Stdlib only (the checker is a port): runs inside the sandbox in an exported reference verifier.
"""

from __future__ import annotations

from typing import Any

from verifierbench.sources.acebench import checker


def check_calls(reference: dict[str, Any], calls: list[dict[str, Any]]) -> tuple[bool, str]:
    """(PASS?, reason) from ACEBench's checker."""
    return checker.check(reference["functions"], reference["ground_truth"], calls)


def expected_calls(reference: dict[str, Any]) -> list[dict[str, Any]]:
    return checker.expected_calls(reference["ground_truth"], reference["functions"])
