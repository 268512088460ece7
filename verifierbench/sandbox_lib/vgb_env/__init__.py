"""Helpers importable inside every VerifierBench sandbox (`import vgb_env`), stdlib only.

The generation agent and the delivered verifier see the same module. It holds the verifier I/O
conventions and the public environment interface:

- `read_candidate()` returns the candidate of this run (the JSON file named by argv[1] or
  `$VGB_CANDIDATE`);
- `write_decision("PASS" | "FAIL", confidence=None, reason=None)` writes the one result object to
  the path named by argv[2] or `$VGB_RESULT`;
- `run_public(...)` and `reset()` reach the task's public environment. Tool-call tasks have no
  environment to execute, so both raise `RunPublicUnavailable` there.
"""

from __future__ import annotations

import json
import os
import sys

__all__ = ["RunPublicUnavailable", "read_candidate", "reset", "run_public", "write_decision"]


class RunPublicUnavailable(RuntimeError):
    """This task has no public environment to execute (tool-call tasks)."""


def _arg(index: int, variable: str) -> str:
    if len(sys.argv) > index:
        return sys.argv[index]
    value = os.environ.get(variable)
    if not value:
        raise RuntimeError(f"no path given: pass it as argument {index} or set {variable}")
    return value


def read_candidate(path: str | None = None) -> object:
    with open(path or _arg(1, "VGB_CANDIDATE"), encoding="utf-8") as handle:
        return json.load(handle)


def write_decision(decision: str, confidence: float | None = None, reason: str | None = None, path: str | None = None) -> None:
    if decision not in ("PASS", "FAIL"):
        raise ValueError('decision must be "PASS" or "FAIL"')
    result: dict[str, object] = {"decision": decision}
    if confidence is not None:
        result["confidence"] = float(confidence)
    if reason:
        result["reason"] = str(reason)[:2000]
    with open(path or _arg(2, "VGB_RESULT"), "w", encoding="utf-8") as handle:
        json.dump(result, handle)


def run_public(*args: object, **kwargs: object) -> object:
    raise RunPublicUnavailable(f"run_public: task type {os.environ.get('VGB_TASK_TYPE', 'tool-call')} has no public environment to execute")


def reset() -> None:
    raise RunPublicUnavailable(f"reset: task type {os.environ.get('VGB_TASK_TYPE', 'tool-call')} has no public environment to reset")
