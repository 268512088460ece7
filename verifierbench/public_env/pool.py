"""The harness's run_public worker processes (public_env.worker): spawned, handed one connection at a time, reused
between services, killed when a request overruns or its run ends.

Starting a worker costs 2-3 s (the interpreter, the source's packages, a tau2 domain's data), more than a case, and a
state task's service starts per case (public_env.jobs): so a worker outlives its service. Idle workers wait here, each
keeping the environments it has built, and the next service of the same task takes one that has its environment. Every
request still replays on a fresh copy of the initial environment (ServedEnvironment), so a reused worker carries
nothing from one run to the next that a request could see.
"""

from __future__ import annotations

import atexit
import json
import os
import pickle
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from queue import SimpleQueue
from typing import Any, Callable

from verifierbench.executor import memcg
from verifierbench.public_env import run_counts

MEMORY_BYTES = 4 << 30  # RLIMIT_AS of a worker: a tau2 worker maps about 1 GiB
# The memory cgroup of each worker (executor.memcg, as root): what RLIMIT_AS does not see, the kernel's memory for
# it (socket buffers, page tables), counts too; past it the kernel kills the worker, whose request then errs.
CGROUP_BYTES = 4 << 30
BUILD_TIMEOUT_S = 300.0  # building an environment is trusted code (the source's loaders), not the request's time
IDLE_KEPT = max(2, os.cpu_count() or 1)
MAX_REPORT = 4096


class WorkerEnded(Exception):
    """The worker died mid-request (killed by stop(), by its CPU limit, or crashed)."""

    def __init__(self, returncode: int | None) -> None:
        super().__init__(_status(returncode))
        self.returncode = returncode

    @property
    def out_of_cpu(self) -> bool:
        return self.returncode == -signal.SIGXCPU  # its per-request CPU limit (worker._limit_cpu)


class RequestTimeout(Exception):
    pass


class Worker:
    def __init__(self, process: subprocess.Popen[bytes], channel: socket.socket) -> None:
        self.process = process
        self.channel = channel
        self.recipes: set[bytes] = set()  # recipes it has served: a hint for checkout (the worker says when it builds)
        self.killed = False
        self.run_counts: dict[str, dict[str, int]] = {}  # what its requests ran (ServedEnvironment.run_counts), as last reported
        self.cgroup: str | None = None  # its memory cgroup's name (executor.memcg), removed with it

    def alive(self) -> bool:
        return not self.killed and self.process.poll() is None

    def kill(self) -> None:
        """Ends the worker now, whatever it runs; the thread serving through it sees the channel close and reaps it."""
        self.killed = True
        try:
            self.process.kill()
        except ProcessLookupError:
            pass

    def close(self) -> None:
        self.kill()
        self.process.wait()
        self.channel.close()
        if self.cgroup is not None:
            memcg.forget(self.cgroup)

    def serve(self, client: socket.socket, recipe: bytes, counters: dict[str, int], timeout_s: float,
              on_report: Callable[[dict[str, Any]], None]) -> None:
        """Hands `client` to the worker, which reads the request and writes the reply to it itself.

        Args:
            client: the accepted connection (the harness keeps its own copy, to answer should the worker die).
            recipe: the pickled environment recipe.
            counters: the service's budget, counters and request size cap, from which the worker decides whether the
                budget refuses it.
            timeout_s: the request's wall-clock (and CPU) limit, from the moment the environment is ready.
            on_report: called with the worker's `{"op", "blocked"}` report, before the request runs.
        Raises RequestTimeout (the worker must then be killed) or WorkerEnded.
        """
        # The harness's settings as they are now: a pooled worker may have started under others (a test's stores).
        settings = {name: value for name, value in os.environ.items() if name.startswith("VERIFIERBENCH_")}
        order = {"recipe": recipe, "cpu_s": timeout_s, "build_cpu_s": BUILD_TIMEOUT_S, "settings": settings, **counters}
        try:
            socket.send_fds(self.channel, [pickle.dumps(order)], [client.fileno()])
        except OSError as e:
            raise WorkerEnded(self.process.poll()) from e
        # The first message: "building" at once if the worker must build the environment (trusted code, under its own
        # limit; the request's time starts once it is "ready"), else already the request's op report. Only the worker
        # knows which (it keeps environments per recipe and settings, and evicts): the request's time starts now
        # unless it says so, so a client that never finishes its line is still ended at timeout_s.
        self.recipes.add(recipe)
        deadline = time.monotonic() + timeout_s
        report = self._receive(deadline)
        if report.get("building"):
            report = self._receive(time.monotonic() + BUILD_TIMEOUT_S)
        if report.get("ready"):
            deadline = time.monotonic() + timeout_s
            report = self._receive(deadline)
        while not report.get("done"):
            on_report(report)
            report = self._receive(deadline)
        self._add_run_counts(report.get("run_counts") or {})

    def _add_run_counts(self, reported: dict[str, dict[str, int]]) -> None:
        """What this request ran (the worker reports its running totals) added to this process's counts, which the
        hidden-case scorer reads per sample (public_env/run_counts.py). A scope missing from a report keeps its last
        totals: an environment without counts (a tool-call task's, one that failed to build) reports none, and the
        worker's totals never shrink, so forgetting them would count its earlier runs again at its next code request."""
        run_counts.add({scope: {what: count - self.run_counts.get(scope, {}).get(what, 0) for what, count in counts.items()}
                        for scope, counts in reported.items()})
        self.run_counts = {**self.run_counts, **reported}

    def _receive(self, deadline: float) -> dict[str, Any]:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([self.channel], [], [], remaining)[0]:
            raise RequestTimeout()
        try:
            message = self.channel.recv(MAX_REPORT)
        except OSError:
            message = b""
        if not message:
            self.process.wait()
            raise WorkerEnded(self.process.returncode)
        report: dict[str, Any] = json.loads(message)
        return report


def _status(returncode: int | None) -> str:
    if returncode is None:
        return "its channel is closed"
    if returncode < 0:
        return f"killed by {signal.Signals(-returncode).name}"
    return f"exit status {returncode}"


_idle: list[Worker] = []
_idle_lock = threading.Lock()
_spawns: SimpleQueue[Future[Worker]] = SimpleQueue()
_spawner: threading.Thread | None = None


def checkout(recipe: bytes) -> Worker:
    """An idle worker that has built `recipe`'s environment, else any idle one, else a new one (seconds)."""
    with _idle_lock:
        for dead in [w for w in _idle if not w.alive()]:
            _idle.remove(dead)
            dead.close()
        ready = [w for w in _idle if recipe in w.recipes] or _idle
        if ready:
            worker = ready[-1]
            _idle.remove(worker)
            return worker
    return _spawn()


def give_back(worker: Worker) -> None:
    """Keeps `worker` for the next service if it is alive and idle; reaps it otherwise."""
    if not worker.alive():
        worker.close()
        return
    with _idle_lock:
        _idle.append(worker)
        surplus = _idle[:-IDLE_KEPT] if len(_idle) > IDLE_KEPT else []
        del _idle[:len(surplus)]
    for extra in surplus:
        extra.close()


def _spawn() -> Worker:
    global _spawner
    future: Future[Worker] = Future()
    with _idle_lock:
        if _spawner is None:
            # One long-lived thread spawns every worker: a worker's parent-death signal (worker.die_with_parent) fires
            # when the thread that forked it ends, not the process.
            _spawner = threading.Thread(target=_spawn_loop, name="verifierbench-public-spawner", daemon=True)
            _spawner.start()
    _spawns.put(future)
    return future.result()


def _spawn_loop() -> None:
    while True:
        future = _spawns.get()
        try:
            future.set_result(_start())
        except BaseException as e:  # noqa: BLE001 - handed to the service that asked
            future.set_exception(e)


def _start() -> Worker:
    global _started
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    _started += 1  # only the spawner thread starts workers
    cgroup = f"public-worker-{_started}"
    argv = [sys.executable, "-m", "verifierbench.public_env.worker", str(theirs.fileno())]
    procs = memcg.cgroup_named(cgroup, CGROUP_BYTES)
    with theirs:
        # The harness's own path, so recipes name what it imports (this checkout; a test module's environment class).
        path = os.pathsep.join(p for p in sys.path if p)
        process = subprocess.Popen(memcg.enter_argv(procs, argv) if procs is not None else argv,
                                   pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True,
                                   env={**os.environ, "PYTHONPATH": path})
    ours.send(pickle.dumps({"memory_bytes": MEMORY_BYTES}))
    worker = Worker(process, ours)
    worker.cgroup = cgroup if procs is not None else None
    if _started == 1:  # after memcg's own exit handler (made with the first cgroup), so this one runs before it
        atexit.register(_close_idle)
    return worker


_started = 0  # workers started by this process: each one's cgroup name


def _close_idle() -> None:
    """At exit: the idle workers end, so their cgroups are empty when executor.memcg removes them."""
    with _idle_lock:
        idle, _idle[:] = list(_idle), []
    for worker in idle:
        worker.close()
