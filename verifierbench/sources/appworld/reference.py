"""The reference verifier of AppWorld tasks: AppWorld's own evaluation after running the candidate code."""

from __future__ import annotations

from typing import Any

from verifierbench.sources.appworld import runtime


def decide(reference: dict[str, Any], candidate: Any) -> tuple[bool, str]:
    if not isinstance(candidate, dict) or not isinstance(candidate.get("code"), str):
        return False, 'malformed candidate: expected {"code": str}'
    result = runtime.call({"op": "evaluate", "task_id": reference["task_id"], "code": candidate["code"]})
    if result["success"]:
        return True, f"AppWorld: all {result['pass_count']} checks pass"
    return False, "AppWorld: " + ("; ".join(result["failures"][:2]) or "not successful")
