"""The process a run_public request is served in (`python -m verifierbench.public_env.worker FD`), never the harness.

A request's bytes come from a sandbox (a verifier, an agent), and what it asks for (a tau2 knowledge-base `grep` with a
backtracking pattern, a deep replay) can take any time and memory. So the harness only accepts the connection and hands
its descriptor here (public_env.pool); this process reads the request, parses it, runs it against the task's
environment and writes the reply to the client itself. The harness kills it when a request overruns its time or the run
ends, and starts another: nothing of a request ever runs on the harness's threads.

Channel: a SOCK_SEQPACKET socket to the harness. In: pickled messages from the harness (trusted): first
`{"memory_bytes"}`, then per request `{"recipe", "uses", "resets", "budget", "reset_allowance", "cpu_s", "build_cpu_s",
"max_request_bytes", "settings"}` with the client's descriptor. Out: small JSON messages: `{"building": true}` before
it builds the environment and `{"ready": true}` once built (only when this request builds it: a build has its own time
and CPU limits, and the request's start after it), `{"op": ..., "blocked": bool}` once the request is parsed (before it
runs, so a request that is then killed is still counted), `{"done": true}` after the reply.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import pickle
import resource
import signal
import socket
import sys
from collections import OrderedDict
from typing import Any, Callable

from verifierbench.sources.interaction.environment import ReplyNotEncodable, ServedEnvironment

MAX_MESSAGE = 1 << 20  # a recipe (a task's reference record) and counters
READ_TIMEOUT_S = 30.0  # a client that never finishes its line: the harness's request limit ends it first anyway
SETTINGS_PREFIX = "VERIFIERBENCH_"  # the harness's variables a request is served under (stores, switches)
ENVIRONMENTS_KEPT = 8  # built environments kept per worker (a domain's data is shared between them)
PR_SET_PDEATHSIG = 1

BUDGET_EXCEEDED = "BudgetExceeded: run_public"
RESETS_EXCEEDED = "BudgetExceeded: reset"


def die_with_parent() -> None:
    """SIGKILL when the harness dies, whatever this process is doing (a regular expression holds the GIL: no thread of
    ours could notice). The harness spawns workers from one long-lived thread, as the signal follows the spawning thread."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() == 1:  # the harness was gone before the prctl
        os._exit(1)


def main(channel_fd: int) -> None:
    die_with_parent()
    channel = socket.socket(fileno=channel_fd)
    hello = pickle.loads(channel.recv(MAX_MESSAGE))
    if hello.get("memory_bytes"):
        # The soft limit: a code task's test runs (executor sandboxes) are started from here with their own limits.
        resource.setrlimit(resource.RLIMIT_AS, (hello["memory_bytes"], resource.getrlimit(resource.RLIMIT_AS)[1]))
    environments: OrderedDict[bytes, tuple[Any, list[bytes]]] = OrderedDict()
    while True:
        message, fds, _, _ = socket.recv_fds(channel, MAX_MESSAGE, 1)
        if not message:  # the harness closed the channel: this worker is no longer wanted
            return
        order = pickle.loads(message)
        counts: dict[str, dict[str, int]] = {}
        with socket.socket(fileno=fds[0]) as client:
            try:
                _settings(order.get("settings", {}))
                # A build runs under its own CPU limit: the one left from this worker's last request (its cpu_s, as
                # little as a second) would kill a build of a few seconds (AgentDojo's import) with SIGXCPU.
                _limit_cpu(order["build_cpu_s"])
                environment, initial = _environment(environments, order["recipe"], order.get("settings", {}),
                                                    lambda report: _send(channel, report))
            except Exception as e:  # noqa: BLE001 - the source's loaders failed: the client hears why, the worker goes on
                _send(channel, {"ready": True})
                _send(channel, {"op": None, "blocked": False})
                _answer(client, _encode({"error": f"run_public: the environment could not be built: {type(e).__name__}: {e}"}))
            else:
                _limit_cpu(order["cpu_s"])
                serve(client, environment, initial, order, lambda report: _send(channel, report))
                # Running totals in this worker (ServedEnvironment.run_counts; a duck-typed environment has none): the
                # pool adds the difference.
                run_counts = getattr(environment, "run_counts", None)
                counts = run_counts() if run_counts is not None else {}
        _send(channel, {"done": True, "run_counts": counts})


def _settings(settings: dict[str, str]) -> None:
    """The harness's VERIFIERBENCH_* variables as they are now (stores, switches: a pooled worker outlives changes to
    them), in place of the ones this worker started with."""
    for name in [name for name in os.environ if name.startswith(SETTINGS_PREFIX) and name not in settings]:
        del os.environ[name]
    os.environ.update(settings)


def _environment(environments: OrderedDict[bytes, tuple[Any, list[bytes]]], recipe: bytes,
                 settings: dict[str, str], report: Callable[[dict[str, Any]], None]) -> tuple[Any, list[bytes]]:
    """The environment of a recipe, built once under these settings and kept (at most ENVIRONMENTS_KEPT). Only this
    process knows whether it has one, so a build is reported before and after (the harness then gives it the build's
    limit and starts the request's time after it); one kept already costs no message."""
    key = recipe + json.dumps(settings, sort_keys=True).encode()
    if key not in environments:
        report({"building": True})
        environment = pickle.loads(recipe)()
        # The reset reply, computed once per environment (issue 35) and now, before any request's time starts: it loads
        # the environment's data (a tau2 domain's database), which a replay would otherwise pay within its limit.
        environments[key] = (environment, [_encode(environment.reset_reply())])
        while len(environments) > ENVIRONMENTS_KEPT:
            environments.popitem(last=False)
        report({"ready": True})
    environments.move_to_end(key)
    return environments[key]


def _limit_cpu(seconds: float) -> None:
    # Per request: the soft limit is what this process has used so far plus the request's share (SIGXCPU kills it).
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    soft = math.ceil(used + seconds)
    resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def _send(channel: socket.socket, report: dict[str, Any]) -> None:
    channel.send(json.dumps(report).encode())


def serve(client: socket.socket, environment: Any, initial: list[bytes], order: dict[str, Any],
          report: Callable[[dict[str, Any]], None]) -> None:
    """Reads one request line from `client`, reports its op (and whether the budget refuses it), writes the reply."""
    client.settimeout(READ_TIMEOUT_S)
    try:
        reader = client.makefile("rb")
        cap = order["max_request_bytes"]
        line = reader.readline(cap + 1)  # the cap holds while reading: no more is ever held
        if len(line) > cap:
            _discard_rest(reader, line)
            reply = _encode({"error": f"request larger than {cap} bytes"})
            report({"op": None, "blocked": False})
        else:
            reply = _reply(line, environment, initial, order, report)
        client.sendall(reply)
    except OSError:  # the client went away or never finished its request: nothing to answer
        pass


def _answer(client: socket.socket, reply: bytes) -> None:
    try:
        client.settimeout(READ_TIMEOUT_S)
        client.sendall(reply)
    except OSError:
        pass


def _discard_rest(reader: Any, line: bytes) -> None:
    # Unread input would reset the connection before the client reads the error reply.
    while line and not line.endswith(b"\n"):
        line = reader.readline(1 << 16)


def _reply(line: bytes, environment: Any, initial: list[bytes], order: dict[str, Any],
           report: Callable[[dict[str, Any]], None]) -> bytes:
    try:
        request = json.loads(line)
    except RecursionError:
        report({"op": None, "blocked": False})
        return _encode({"error": "request is nested too deeply"})
    except ValueError:  # bad JSON, bad UTF-8, integers too long to convert
        report({"op": None, "blocked": False})
        return _encode({"error": "request is not one line of JSON"})
    if not isinstance(request, dict) or request.get("op") not in ("run_public", "reset"):
        report({"op": None, "blocked": False})
        return _encode({"error": 'request must be {"op": "run_public", "record": ...} or {"op": "reset"}'})
    op = request["op"]
    blocked = (order["uses"] + 1 > order["budget"]) if op == "run_public" else (order["resets"] + 1 > order["budget"] + order["reset_allowance"])
    report({"op": op, "blocked": blocked})
    if blocked:
        return _encode({"error": BUDGET_EXCEEDED if op == "run_public" else RESETS_EXCEEDED})
    try:
        if op == "reset":
            return initial[0]
        return _run(environment, request)
    except ReplyNotEncodable as e:
        return _encode({"error": f"replay failed: its reply cannot be encoded ({e})"})
    except ValueError as e:
        return _encode({"error": f"bad request: {e}"})
    except MemoryError:
        return _encode({"error": "replay failed: it ran out of memory"})
    except Exception as e:  # noqa: BLE001 - an environment failure is an answer, not a crash of the worker
        return _encode({"error": f"replay failed: {type(e).__name__}: {e}"})


def _run(environment: Any, request: dict[str, Any]) -> bytes:
    """The reply's bytes: a ServedEnvironment writes its own text (tau2's holds its state's JSON already); a duck-typed
    environment's dict is encoded here."""
    if isinstance(environment, ServedEnvironment):
        return environment.run_request_text(request).encode() + b"\n"
    return _encode(environment.run_request(request))


def _encode(reply: Any) -> bytes:
    try:
        return json.dumps(reply).encode() + b"\n"
    except (TypeError, ValueError, RecursionError) as e:
        return json.dumps({"error": f"replay failed: its reply cannot be encoded ({type(e).__name__})"}).encode() + b"\n"


if __name__ == "__main__":
    main(int(sys.argv[1]))
