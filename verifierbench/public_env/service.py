"""One task's public environment behind a unix socket: one JSON request per connection, one JSON reply.

Requests: for state tasks `{"op": "run_public", "record": <interaction record>}` (or `"calls": [...]`)
replays the calls on a fresh copy of the initial environment and answers `{"observations", "state",
"state_hash"}`; for code tasks `{"op": "run_public", "diff": str, "tests": [...]}` applies the diff to a
scratch copy of the checkout and runs the tests. `{"op": "reset"}` answers the initial state. Each `run_public`
counts against the budget, blocked ones included; past it the answer is `{"error": "BudgetExceeded: run_public"}`.
Resets are counted too (`resets`, in the log beside the run_public count): the initial state is computed once per
environment, and past the budget plus RESET_ALLOWANCE the answer is `{"error": "BudgetExceeded: reset"}`.
The socket's directory is bind-mounted read-only into sandboxes; the counters live only here.

Nothing of a request is read, parsed or run in this process (issue 51): a connection's descriptor is handed to a
worker process (public_env.worker, public_env.pool), which reads the request (at most MAX_REQUEST_BYTES), runs it
under RLIMIT_AS and a CPU limit, and writes the reply; it reports each request's op before running it, and the
counters are kept here. Requests run one at a time per service; at most MAX_CONNECTIONS connections are held at once
(those waiting hold only their socket: the bytes stay in the kernel's buffer). A request running longer than
`request_timeout_s` gets its worker killed and `{"error": "run_public: request exceeded N s"}`. stop() waits on
nothing: a request still running has its worker killed, and none starts after it.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import socket
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable

from verifierbench.executor.layout import PUBLIC_SOCKET as SOCKET_NAME  # the socket's one spelling
from verifierbench.public_env import pool
from verifierbench.public_env.worker import BUDGET_EXCEEDED, RESETS_EXCEEDED
from verifierbench.sources.interaction.environment import ServedEnvironment

__all__ = ["BUDGET_EXCEEDED", "MAX_REQUEST_BYTES", "RESETS_EXCEEDED", "PublicService", "SOCKET_NAME"]

MAX_REQUEST_BYTES = 16 << 20  # enforced by the worker as it reads
MAX_CONNECTIONS = 8  # per service; more at once are refused (each waiting one is a thread here)
MAX_REPLY_BYTES = 64 << 20  # what handle() reads back for an in-process caller
DRAIN_CHUNKS = 64  # 4 MiB at most, discarded, before closing an unread connection
POLL_S = 0.05  # how often a connection waiting for its turn checks that the run has not ended
REQUEST_TIMEOUT_S = 30.0  # per request, wall clock and CPU (a replay takes milliseconds, a tau2 retail one up to 0.5 s)
SERVICE_ENDED = "run_public: the run has ended"
TOO_MANY_CONNECTIONS = f"run_public: more than {MAX_CONNECTIONS} connections at once"
RESET_ALLOWANCE = 20  # resets a run may ask for beyond its run_public budget (issue 35: 306 in 8 s cost 3 s of CPU)

Recipe = Callable[[], ServedEnvironment]  # picklable; called in the worker (public_env.registry.recipe_for)


class PublicService:
    def __init__(self, recipe: Recipe, budget: int, request_timeout_s: float = REQUEST_TIMEOUT_S) -> None:
        """
        Args:
            recipe: builds the environment, in the worker process: a picklable callable (an environment class, a
                functools.partial), never an environment built here.
            budget: run_public calls allowed.
            request_timeout_s: one request's limit, wall clock and CPU.
        """
        if isinstance(recipe, ServedEnvironment):
            raise TypeError("PublicService takes a recipe for the environment (built in its worker process), not an environment")
        self.recipe = pickle.dumps(recipe)
        self.budget = budget
        self.request_timeout_s = request_timeout_s
        self.uses = 0
        self.blocks = 0
        self.resets = 0  # reset requests, refused ones included
        self.reset_blocks = 0
        self._turn = threading.Lock()  # one request at a time: its worker runs it
        self._state = threading.Lock()  # guards _busy against stop()
        self._busy: pool.Worker | None = None
        self._connections = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._ended = threading.Event()  # set by stop(): no request starts after the run is over
        self._listener: socket.socket | None = None
        self.directory: Path | None = None

    # -- in-process callers (the run_public and reset tools): through the socket, like any client ---------------

    def handle(self, request: Any) -> dict[str, Any]:
        """The reply to `request`, served by the worker like a sandbox's; blocks (call it from a thread)."""
        line = json.dumps(request).encode() + b"\n"
        if self.directory is None or self._ended.is_set():
            return {"error": SERVICE_ENDED}
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
                client.connect(str(self.socket_path))
                client.sendall(line)
                client.shutdown(socket.SHUT_WR)
                # To the end, not the first line: the end comes once this side has counted the request (the worker
                # writes the reply before the count may be in), so the caller reads up-to-date counters.
                reply = client.makefile("rb").read(MAX_REPLY_BYTES + 1)
        except OSError:  # stopped meanwhile, or reset by the service
            return {"error": SERVICE_ENDED}
        if not reply:
            return {"error": SERVICE_ENDED}
        if len(reply) > MAX_REPLY_BYTES:
            return {"error": f"run_public: reply larger than {MAX_REPLY_BYTES} bytes"}
        answer: dict[str, Any] = json.loads(reply)
        return answer

    # -- socket ---------------------------------------------------------------------------------

    @property
    def socket_path(self) -> Path:
        assert self.directory is not None, "service not started"
        return self.directory / SOCKET_NAME

    def start(self) -> "PublicService":
        self._ended.clear()
        self.directory = Path(tempfile.mkdtemp(prefix="verifierbench-public-"))
        os.chmod(self.directory, 0o755)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.socket_path))
        os.chmod(self.socket_path, 0o666)  # sandboxes run as other uids
        listener.listen(MAX_CONNECTIONS)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), name="verifierbench-public", daemon=True).start()
        return self

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:  # stop() shut the listener down
                return
            if not self._connections.acquire(blocking=False):
                _answer(connection, {"error": TOO_MANY_CONNECTIONS})
                _close(connection)
                continue
            threading.Thread(target=self._connection, args=(connection,), name="verifierbench-public-request", daemon=True).start()

    def _connection(self, connection: socket.socket) -> None:
        try:
            while not self._turn.acquire(timeout=POLL_S):
                if self._ended.is_set():
                    return
            try:
                if not self._ended.is_set():  # requests queued when the run ended must not run on its time
                    self._serve(connection)
            finally:
                self._turn.release()
        finally:
            _close(connection)
            self._connections.release()

    def _serve(self, connection: socket.socket) -> None:
        try:
            worker = pool.checkout(self.recipe)
        except OSError as e:  # no process could be started (out of memory or pids)
            _answer(connection, {"error": f"run_public: no worker process ({e})"})
            return
        with self._state:
            if self._ended.is_set():
                pool.give_back(worker)
                return
            self._busy = worker
        counters = {"uses": self.uses, "resets": self.resets, "budget": self.budget, "reset_allowance": RESET_ALLOWANCE,
                    "max_request_bytes": MAX_REQUEST_BYTES}
        try:
            worker.serve(connection, self.recipe, counters, self.request_timeout_s, self._count)
        except pool.RequestTimeout:
            worker.kill()
            _answer(connection, {"error": f"run_public: request exceeded {self.request_timeout_s:g} s"})
        except pool.WorkerEnded as e:
            if not self._ended.is_set():
                _answer(connection, {"error": f"run_public: request exceeded {self.request_timeout_s:g} s" if e.out_of_cpu
                                     else f"run_public: the environment's worker ended ({e})"})
        finally:
            with self._state:
                self._busy = None
            pool.give_back(worker)

    def _count(self, report: dict[str, Any]) -> None:
        blocked = bool(report.get("blocked"))
        if report.get("op") == "run_public":
            self.uses += 1
            self.blocks += blocked
        elif report.get("op") == "reset":
            self.resets += 1
            self.reset_blocks += blocked

    def stop(self) -> None:
        """Ends the service at once: a request still running has its worker killed; no other starts."""
        self._ended.set()
        listener, self._listener = self._listener, None
        if listener is not None:
            try:
                listener.shutdown(socket.SHUT_RDWR)  # wakes the accept loop
            except OSError:
                pass
            listener.close()
        with self._state:
            if self._busy is not None:
                self._busy.kill()
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> "PublicService":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _answer(connection: socket.socket, reply: dict[str, Any]) -> None:
    """Best effort: the client may be gone, or not reading."""
    try:
        connection.settimeout(1.0)
        connection.sendall(json.dumps(reply).encode() + b"\n")
    except OSError:
        pass


def _close(connection: socket.socket) -> None:
    """Closes a connection whose request may be unread (refused, or the run ended) without resetting it, so the client
    reads the reply or the end: what is already buffered is discarded (at most the kernel's buffer, read 64 KiB at a
    time, never kept)."""
    try:
        connection.setblocking(False)
        for _ in range(DRAIN_CHUNKS):
            if not connection.recv(1 << 16):
                break
    except OSError:  # nothing more buffered (or the client is gone)
        pass
    connection.close()
