"""One task's public environment behind a unix socket: one JSON request per connection, one JSON reply.

Requests: for state tasks `{"op": "run_public", "record": <interaction record>}` (or `"calls": [...]`)
replays the calls on a fresh copy of the initial environment and answers `{"observations", "state",
"state_hash"}`; for code tasks `{"op": "run_public", "diff": str, "tests": [...]}` applies the diff to a
scratch copy of the checkout and runs the tests. `{"op": "reset"}` answers the initial state. Each `run_public`
counts against the budget, blocked ones included; past it the answer is `{"error": "BudgetExceeded: run_public"}`.
The socket's directory is bind-mounted read-only into sandboxes; the counters live only here.
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

from verifierbench.sources.interaction.environment import ServedEnvironment

BUDGET_EXCEEDED = "BudgetExceeded: run_public"
SOCKET_NAME = "public.sock"
MAX_REQUEST_BYTES = 16 << 20
POLL_S = 0.02


class PublicService:
    def __init__(self, environment: ServedEnvironment, budget: int) -> None:
        self.environment = environment
        self.budget = budget
        self.uses = 0
        self.blocks = 0
        self._lock = threading.Lock()
        self._server: socketserver.UnixStreamServer | None = None
        self.directory: Path | None = None

    # -- the one entry point, for socket clients and in-process tools alike ---------------------

    def handle(self, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict) or request.get("op") not in ("run_public", "reset"):
            return {"error": 'request must be {"op": "run_public", "record": ...} or {"op": "reset"}'}
        with self._lock:  # one replay at a time: environments need not be thread-safe
            if request["op"] == "reset":
                return self.environment.reset_reply()
            self.uses += 1
            if self.uses > self.budget:
                self.blocks += 1
                return {"error": BUDGET_EXCEEDED}
            try:
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

    def start(self) -> "PublicService":
        self.directory = Path(tempfile.mkdtemp(prefix="verifierbench-public-"))
        os.chmod(self.directory, 0o755)
        service = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                line = self.rfile.readline(MAX_REQUEST_BYTES)
                try:
                    request = json.loads(line)
                except json.JSONDecodeError:
                    reply: dict[str, Any] = {"error": "request is not one line of JSON"}
                else:
                    reply = service.handle(request)
                self.wfile.write(json.dumps(reply).encode() + b"\n")

        self._server = socketserver.ThreadingUnixStreamServer(str(self.socket_path), Handler)
        self._server.daemon_threads = True
        os.chmod(self.socket_path, 0o666)  # sandboxes run as other uids
        # A short poll interval: stop() waits for the loop to notice, once per case at scoring time.
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": POLL_S}, name="verifierbench-public",
                         daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> "PublicService":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

