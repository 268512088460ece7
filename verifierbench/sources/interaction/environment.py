"""The public environment of a state task: what `run_public` executes (docs/state-suite.md).

`replay(calls)` applies tool calls, in order, to a fresh copy of the task's initial environment and
returns every observation and the resulting public state. It must be deterministic: the same calls
give the same observations and the same `state_hash`, every time and in every process.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from verifierbench.core.hashing import content_hash


@dataclass
class Replay:
    observations: list[dict[str, Any]] = field(default_factory=list)  # per call: {"name", "arguments", "result"} or {..., "error"}
    state: dict[str, Any] = field(default_factory=dict)  # the public state after the calls, JSON-able

    @property
    def state_hash(self) -> str:
        return content_hash(self.state)

    def to_json(self) -> dict[str, Any]:
        return {"observations": self.observations, "state": self.state, "state_hash": self.state_hash}


def observed_result(observation: dict[str, Any]) -> str:
    """What an interaction record shows as a replayed call's result: its result, or "Error: <message>"."""
    return observation["result"] if "result" in observation else "Error: " + str(observation.get("error"))


class ReplyNotEncodable(Exception):
    """An environment's reply has a value JSON cannot hold (an environment's bug, not the request's)."""


class ServedEnvironment(ABC):
    """What a run_public service serves: one reply per request (docs/state-suite.md)."""

    @abstractmethod
    def run_request(self, request: dict[str, Any]) -> dict[str, Any]:
        """The reply to `{"op": "run_public", ...}`; raises ValueError for a malformed request."""

    def run_request_text(self, request: dict[str, Any]) -> str:
        """run_request's reply as JSON text, which a run_public worker writes as is; raises ValueError for a malformed
        request, ReplyNotEncodable. An environment that has its state's JSON text anyway (tau2) overrides it, to skip
        parsing that text and encoding it again (a tau2 state is 0.25-1.5 MB)."""
        reply = self.run_request(request)
        try:
            return json.dumps(reply)
        except (TypeError, ValueError, RecursionError) as e:
            raise ReplyNotEncodable(type(e).__name__) from None

    @abstractmethod
    def reset_reply(self) -> dict[str, Any]:
        """The reply to `{"op": "reset"}`: the initial state."""

    def run_counts(self) -> dict[str, dict[str, int]]:
        """Counts of what its requests ran, by scope, so far in this process (a code task's test runs made and reused):
        a run_public worker reports them to the harness (public_env/run_counts.py). None by default."""
        return {}


class PublicEnvironment(ServedEnvironment):
    """One task's environment. Implementations keep the pristine initial state and copy it per replay."""

    def run_request(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.replay(requested_calls(request)).to_json()

    def reset_reply(self) -> dict[str, Any]:
        return self.replay([]).to_json()

    @abstractmethod
    def replay(self, calls: list[dict[str, Any]]) -> Replay:
        """`calls`: [{"name", "arguments", "role"?}], role "assistant" by default (tau2 also has "user")."""

    def tools(self) -> list[dict[str, Any]]:
        """Tool definitions the agent had (public)."""
        return []


def requested_calls(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The calls of a run_public request: an interaction record's, or `calls` given directly."""
    from verifierbench.sources.interaction import record

    if "record" in request:
        return record.calls(request["record"])
    calls = request.get("calls")
    if not isinstance(calls, list) or not all(isinstance(c, dict) and isinstance(c.get("name"), str)
                                              and isinstance(c.get("arguments", {}), dict) for c in calls):
        raise ValueError("`calls` must be a list of {name, arguments}")
    return [{"name": c["name"], "arguments": c.get("arguments", {}), "role": c.get("role", "assistant")} for c in calls]
