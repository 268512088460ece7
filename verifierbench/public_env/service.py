"""One task's public environment behind a unix socket: one JSON request per connection, one JSON reply.

Requests: for state tasks `{"op": "run_public", "record": <interaction record>}` (or `"calls": [...]`)
replays the calls on a fresh copy of the initial environment and answers `{"observations", "state",
"state_hash"}`; for code tasks `{"op": "run_public", "diff": str, "tests": [...]}` applies the diff to a
scratch copy of the checkout and runs the tests. `{"op": "reset"}` answers the initial state. Each `run_public`
counts against the budget, blocked ones included; past it the answer is `{"error": "BudgetExceeded: run_public"}`.
Resets are counted too (`resets`, in the log beside the run_public count): the initial state is computed once per
service, and past the budget plus RESET_ALLOWANCE the answer is `{"error": "BudgetExceeded: reset"}`.
The socket's directory is bind-mounted read-only into sandboxes; the counters live only here.
A malformed request gets an error reply; once the service is stopped (its run has ended), nothing more is replayed.
"""

from __future__ import annotations

import json
import os
import shutil
import socketserver
import tempfile
import threading
from pathlib import Path
from typing import Any

from verifierbench.executor.layout import PUBLIC_SOCKET as SOCKET_NAME  # the socket's one spelling
from verifierbench.sources.interaction.environment import ServedEnvironment

BUDGET_EXCEEDED = "BudgetExceeded: run_public"
MAX_REQUEST_BYTES = 16 << 20
POLL_S = 0.02
READ_TIMEOUT_S = 30.0  # a client that connects and never finishes its line does not hold a thread forever
SERVICE_ENDED = "run_public: the run has ended"
STOP_WAIT_S = 120.0  # longest stop() waits for a replay in progress
RESET_ALLOWANCE = 20  # resets a run may ask for beyond its run_public budget (issue 35: 306 in 8 s cost 3 s of CPU)
RESETS_EXCEEDED = "BudgetExceeded: reset"


class PublicService:
    def __init__(self, environment: ServedEnvironment, budget: int) -> None:
        self.environment = environment
        self.budget = budget
        self.uses = 0
        self.blocks = 0
        self.resets = 0  # reset requests, refused ones included
        self.reset_blocks = 0
        self._initial: dict[str, Any] | None = None  # the reset reply, computed at the first reset
        self._lock = threading.Lock()
        self._ended = threading.Event()  # set by stop(): no replay starts after the run is over
        self._server: socketserver.UnixStreamServer | None = None
        self.directory: Path | None = None

    # -- the one entry point, for socket clients and in-process tools alike ---------------------

    def handle(self, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict) or request.get("op") not in ("run_public", "reset"):
            return {"error": 'request must be {"op": "run_public", "record": ...} or {"op": "reset"}'}
        with self._lock:  # one replay at a time: environments need not be thread-safe
            # Requests queued behind a replay when the run ended must not replay on the harness's time.
            if self._ended.is_set():
                return {"error": SERVICE_ENDED}
            if request["op"] == "run_public":
                self.uses += 1
                if self.uses > self.budget:
                    self.blocks += 1
                    return {"error": BUDGET_EXCEEDED}
            if request["op"] == "reset":
                self.resets += 1
                if self.resets > self.budget + RESET_ALLOWANCE:
                    self.reset_blocks += 1
                    return {"error": RESETS_EXCEEDED}
            try:
                if request["op"] == "reset":
                    if self._initial is None:
                        self._initial = self.environment.reset_reply()
                    return json.loads(json.dumps(self._initial))  # a copy: no caller can change the next reply
                return self.environment.run_request(request)
            except ValueError as e:
                return {"error": f"bad request: {e}"}
            except Exception as e:  # noqa: BLE001 - an environment failure is an answer, not a crash of the service
                return {"error": f"replay failed: {type(e).__name__}: {e}"}

    # -- socket ---------------------------------------------------------------------------------

    @property
    def socket_path(self) -> Path:
        assert self.directory is not None, "service not started"
        return self.directory / SOCKET_NAME

    def reply_to(self, line: bytes) -> bytes:
        """The encoded reply to one raw request line; a malformed request gets an error reply, never an exception."""
        if len(line) > MAX_REQUEST_BYTES:
            reply: dict[str, Any] = {"error": f"request larger than {MAX_REQUEST_BYTES} bytes"}
        else:
            try:
                request = json.loads(line)
            except RecursionError:
                reply = {"error": "request is nested too deeply"}
            except ValueError:  # bad JSON, bad UTF-8, integers too long to convert
                reply = {"error": "request is not one line of JSON"}
            else:
                reply = self.handle(request)
        try:
            return json.dumps(reply).encode() + b"\n"
        except (TypeError, ValueError, RecursionError) as e:
            return json.dumps({"error": f"replay failed: its reply cannot be encoded ({type(e).__name__})"}).encode() + b"\n"

    def start(self) -> "PublicService":
        self._ended.clear()
        self.directory = Path(tempfile.mkdtemp(prefix="verifierbench-public-"))
        os.chmod(self.directory, 0o755)
        service = self

        class Handler(socketserver.StreamRequestHandler):
            timeout = READ_TIMEOUT_S

            def handle(self) -> None:
                try:
                    line = self.rfile.readline(MAX_REQUEST_BYTES + 1)
                    if len(line) > MAX_REQUEST_BYTES:
                        self._discard_rest(line)
                    if not service._ended.is_set():
                        self.wfile.write(service.reply_to(line))
                except OSError:  # the client went away or never finished its request: nothing to answer
                    pass

            def _discard_rest(self, line: bytes) -> None:
                # Unread input would reset the connection before the client reads the error reply.
                while line and not line.endswith(b"\n") and not service._ended.is_set():
                    line = self.rfile.readline(1 << 16)

        self._server = socketserver.ThreadingUnixStreamServer(str(self.socket_path), Handler)
        self._server.daemon_threads = True
        os.chmod(self.socket_path, 0o666)  # sandboxes run as other uids
        # A short poll interval: stop() waits for the loop to notice, once per case at scoring time.
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": POLL_S}, name="verifierbench-public",
                         daemon=True).start()
        return self

    def stop(self) -> None:
        self._ended.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
        # A replay already running cannot be interrupted: wait for it (boundedly, should an environment hang),
        # so it ends within the run's slot and none is left working for a run that is over.
        if self._lock.acquire(timeout=STOP_WAIT_S):
            self._lock.release()

    def __enter__(self) -> "PublicService":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

