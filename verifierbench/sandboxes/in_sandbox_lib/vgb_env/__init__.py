"""Helpers importable inside every VerifierBench sandbox (`import vgb_env`), stdlib only.

The generation agent and the delivered verifier see the same module. It holds the verifier I/O
conventions and the public environment interface:

- `read_candidate()` returns the candidate of this run (the JSON file named by argv[1] or
  `$VGB_CANDIDATE`);
- `write_decision("PASS" | "FAIL", confidence=None, reason=None)` writes the one result object to
  the path named by argv[2] or `$VGB_RESULT`;
- `run_public(record)` replays an interaction record's tool calls (or `calls=[{"name", "arguments"}]`)
  on a fresh copy of the task's public environment and returns `{"observations", "state",
  "state_hash"}`; `reset()` returns the initial state. On code tasks `run_public(diff=..., tests=[...])`
  applies the diff to a scratch copy of the read-only checkout at /repo, runs the named pytest tests
  and returns `{"applied", "apply_error", "exit_code", "outcomes": {node id: outcome}, "log"}`. Calls are budgeted: past the budget they raise
  `BudgetExceeded("BudgetExceeded: run_public")`. Tool-call tasks have no environment to execute, so
  both raise `RunPublicUnavailable` there. In the vgb sandbox calls go to a unix socket; in container sandboxes
  through Inspect's sandbox_service() files (the harness serves both from the same host-side budget).
"""

from __future__ import annotations

import json
import os
import sys

__all__ = ["BudgetExceeded", "RunPublicUnavailable", "read_candidate", "reset", "run_public", "write_decision"]


class RunPublicUnavailable(RuntimeError):
    """This task has no public environment to execute (tool-call tasks)."""


class BudgetExceeded(RuntimeError):
    """The run_public budget of this generation or evaluation is spent."""


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


def run_public(record: object = None, calls: object = None, diff: str | None = None, tests: list[str] | None = None) -> dict:
    """Replay `record` (an interaction record) or `calls` in the public environment; on code tasks, apply
    `diff` and run `tests`."""
    request: dict[str, object]
    if diff is not None or tests is not None:
        request = {"op": "run_public", "diff": diff or "", "tests": list(tests or [])}
    else:
        request = {"op": "run_public", **({"record": record} if record is not None else {"calls": calls or []})}
    return _ask(request, "run_public")


def reset() -> dict:
    """The public environment's initial state (every run_public starts from it)."""
    return _ask({"op": "reset"}, "reset")


# In a container sandbox (docker, k8s) the harness serves run_public through Inspect's sandbox_service():
# request and reply files under this directory instead of a socket.
CONTAINER_SERVICE = "/var/tmp/sandbox-services/vgb_public/vgb_public.py"


def _ask(request: dict, name: str) -> dict:
    path = os.environ.get("VGB_PUBLIC_SOCKET")
    if path and os.path.exists(path):
        reply = _ask_socket(path, request)
    elif os.path.exists(CONTAINER_SERVICE):
        reply = _ask_container_service(request)
    else:
        raise RunPublicUnavailable(f"{name}: task type {os.environ.get('VGB_TASK_TYPE', 'tool-call')} has no public environment to execute")
    if not isinstance(reply, dict):
        raise RuntimeError(f"{name}: malformed reply")
    error = reply.get("error")
    if error:
        if str(error).startswith("BudgetExceeded"):
            raise BudgetExceeded(error)
        raise RuntimeError(f"{name}: {error}")
    return reply


def _ask_container_service(request: dict) -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location("vgb_public", CONTAINER_SERVICE)
    if spec is None or spec.loader is None:
        raise RunPublicUnavailable(f"the sandbox service client at {CONTAINER_SERVICE} cannot be loaded")
    client = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(client)
    return client.call_vgb_public("request", request=request)


def _ask_socket(path: str, request: dict) -> object:
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(path)
        client.sendall(json.dumps(request).encode() + b"\n")
        client.shutdown(socket.SHUT_WR)
        data = b""
        while True:
            chunk = client.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    return json.loads(data)
