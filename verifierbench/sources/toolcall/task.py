"""What the verifier-writing agent sees for a tool-call task (paper §2.2): the request, the tools, the candidate format."""

from __future__ import annotations

from typing import Any

import json

CANDIDATE_FORMAT = {
    "raw": "the assistant's reply exactly as emitted (text; tool calls may be written in Python call syntax or as JSON)",
    "parsed": "the tool calls parsed from that reply: a list of {\"name\": str, \"arguments\": object}, in emitted order",
}


def instruction(request: str, tools: list[dict[str, Any]], context: dict[str, Any] | None = None) -> str:
    parts = [
        "An assistant was given the user request and the tools below and replied with tool calls.",
        "Write a verifier that returns PASS when the reply's tool calls correctly fulfil the request and FAIL otherwise.",
        "",
        "User request:",
        request.strip(),
    ]
    for key, value in (context or {}).items():
        parts += ["", f"{key}:", value if isinstance(value, str) else json.dumps(value, indent=2)]
    parts += [
        "",
        "Tools available to the assistant (as given to it):",
        json.dumps(tools, indent=2),
        "",
        "Each candidate your verifier receives is a JSON object:",
        *(f"- `{k}`: {v}" for k, v in CANDIDATE_FORMAT.items()),
    ]
    return "\n".join(parts)


def environment(tools: list[dict[str, Any]], context: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"tools": tools, "candidate_format": CANDIDATE_FORMAT, **({"context": context} if context else {})}
