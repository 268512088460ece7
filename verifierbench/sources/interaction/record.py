"""The interaction record, the candidate of state tasks (docs/protocol.md, docs/state-suite.md):

    {"messages": [{"role": "user" | "assistant", "content": str,
                   "tool_calls": [{"name": str, "arguments": {...}, "result": <recorded observation>}]}, ...],
     "final_response": str}

Tool calls sit on the message that made them, in order, each with the result the agent saw. A user
message may carry tool calls too (tau2's user-side tools). Stdlib only: verifiers may import it.
"""

from __future__ import annotations

import copy
from typing import Any

ROLES = ("user", "assistant")


def make(steps: list[tuple[str, str, list[dict[str, Any]]]], final_response: str) -> dict[str, Any]:
    """A record from (role, content, calls) steps; each call is {"name", "arguments", "result"}."""
    messages = []
    for role, content, calls in steps:
        message: dict[str, Any] = {"role": role, "content": content}
        if calls:
            message["tool_calls"] = [{"name": c["name"], "arguments": dict(c["arguments"]), "result": c.get("result")} for c in calls]
        messages.append(message)
    return {"messages": messages, "final_response": final_response}


def calls(record: Any) -> list[dict[str, Any]]:
    """Every tool call in order, as {"role", "name", "arguments", "result"}; ValueError when malformed."""
    if not isinstance(record, dict) or not isinstance(record.get("messages"), list) or not isinstance(record.get("final_response"), str):
        raise ValueError("an interaction record is an object with a `messages` list and a string `final_response`")
    out = []
    for i, message in enumerate(record["messages"]):
        if not isinstance(message, dict) or message.get("role") not in ROLES or not isinstance(message.get("content", ""), str):
            raise ValueError(f"message {i} needs a role ({'/'.join(ROLES)}) and string content")
        for call in message.get("tool_calls") or []:
            if not (isinstance(call, dict) and isinstance(call.get("name"), str) and isinstance(call.get("arguments"), dict)):
                raise ValueError(f"message {i}: every tool call needs a string `name` and an object `arguments`")
            out.append({"role": message["role"], "name": call["name"], "arguments": call["arguments"], "result": call.get("result")})
    return out


def final_response(record: dict[str, Any]) -> str:
    response: str = record["final_response"]
    return response


def replace_calls(record: dict[str, Any], new_calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The same conversation with its tool calls replaced (placed on the first assistant message)."""
    out = copy.deepcopy(record)
    for message in out["messages"]:
        message.pop("tool_calls", None)
    assistant = next((m for m in out["messages"] if m["role"] == "assistant"), None)
    if assistant is None:
        assistant = {"role": "assistant", "content": ""}
        out["messages"].append(assistant)
    if new_calls:
        assistant["tool_calls"] = [{"name": c["name"], "arguments": dict(c["arguments"]), "result": c.get("result")} for c in new_calls]
    return out
