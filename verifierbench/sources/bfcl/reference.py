"""BFCL's part of the tool-call reference: its checker on parsed calls, and its answer key's first acceptable calls.

Stdlib plus BFCL's checker only: runs inside the sandbox in an exported reference verifier.
"""

from __future__ import annotations

from typing import Any

from verifierbench.sources.bfcl.checker import check


def check_calls(reference: dict[str, Any], calls: list[dict[str, Any]]) -> tuple[bool, str]:
    """(PASS?, reason) from BFCL's own AST checker, for the task's category."""
    return check(reference["functions"], reference["ground_truth"], reference["category"], calls)


def expected_calls(reference: dict[str, Any]) -> list[dict[str, Any]]:
    """The answer key's first acceptable value of every argument (an argument whose only option is omission is left out)."""
    calls = []
    for entry in reference["ground_truth"]:
        for name, args in entry.items():
            chosen = {}
            for arg, options in args.items():
                values = [v for v in options if v != ""]
                if values:
                    chosen[arg] = values[0]
            calls.append({"name": name, "arguments": chosen})
    return calls
