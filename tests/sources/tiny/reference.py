"""The tiny source's checker: the parsed calls must be exactly the expected ones, in order."""

from __future__ import annotations

from typing import Any


def check_calls(reference: dict[str, Any], calls: list[Any]) -> tuple[bool, str]:
    if calls == reference["expected"]:
        return True, "the expected calls"
    return False, f"expected {reference['expected']}, got {calls}"
