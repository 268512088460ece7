"""Issue 51: run_public requests are served out of the harness process. Each test is an attack a hostile verifier or
agent made on the service when it ran requests in the harness: a catastrophic regular expression (tau2
banking_knowledge's knowledge-base `grep`), parked 16 MiB requests, a connection flood, a hostile replay during
generation."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from functools import partial

import pytest

from tests.conftest import require_module, skip_unless_required
from tests.public_env.environments import Logged, lines
from tests.public_env.test_service import _spinning_workers, _wait_for
from verifierbench.public_env.service import MAX_CONNECTIONS, TOO_MANY_CONNECTIONS, PublicService

CATASTROPHIC = "(?:.*){2}Q"  # backtracks over each of the knowledge base's 698 documents: minutes of CPU


def _banking():
    require_module("inspect_evals.tau2", "inspect-evals")
    from verifierbench.sources.tau2.environment import environment_for

    return partial(environment_for, {"domain": "banking_knowledge", "task_id": "task_037"})


def _grep(pattern: str) -> dict:
    return {"op": "run_public", "calls": [{"name": "grep", "arguments": {"pattern": pattern}}]}


def _ask(service: PublicService, request: dict, timeout: float) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(timeout)
        client.connect(str(service.socket_path))
        try:
            client.sendall(json.dumps(request).encode() + b"\n")
            client.shutdown(socket.SHUT_WR)
        except BrokenPipeError:  # refused before it read the request (past the cap): its answer is still there
            pass
        return json.loads(client.makefile("rb").readline())


def _rss_mb() -> float:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_a_catastrophic_regex_is_cut_off_at_the_request_limit_and_the_harness_stays_idle():
    """It ran in the harness, holding the GIL: the case's outcome came 125 s late and the regex kept burning CPU."""
    with PublicService(_banking(), budget=5, request_timeout_s=5) as service:
        assert "error" not in service.handle(_grep("identity verification"))  # the worker is up, the environment built
        cpu, started = time.process_time(), time.monotonic()
        reply = _ask(service, _grep(CATASTROPHIC), timeout=15)
        elapsed = time.monotonic() - started
        assert reply == {"error": "run_public: request exceeded 5 s"}
        assert elapsed < 5 + 2
        assert time.process_time() - cpu < 0.5  # none of it ran here
        _wait_for(lambda: not _spinning_workers(), "no worker left burning CPU", timeout=2)
        cpu = time.process_time()
        time.sleep(1)
        assert time.process_time() - cpu < 0.1  # the harness is idle
        assert "observations" in service.handle(_grep("identity verification"))  # a new worker serves the next request
        assert (service.uses, service.blocks) == (3, 0)


PARKING_CLIENT = """
import socket, sys, threading, time
path = sys.argv[1]
payload = b'{"op": "run_public", "calls": [' + b"{}, " * ((16 << 20) // 4 - 16) + b'{}]}\\n'  # one line, just under 16 MiB
def send(data):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    try:
        s.sendall(data)
    except OSError:
        pass
    time.sleep(600)
threading.Thread(target=send, args=(b'{"op": "run_public", "calls": []}\\n',), daemon=True).start()
time.sleep(1)
for _ in range(6):
    threading.Thread(target=send, args=(payload,), daemon=True).start()
time.sleep(600)
"""


def test_six_parked_16_mib_requests_do_not_grow_the_harness(tmp_path):
    """One slow request holds the service, 6 more connections send 16 MiB each: the harness's RSS rose by 2.7 GB (each
    connection's request read and parsed in a thread of its own before it waited for its turn)."""
    log = str(tmp_path / "log")
    with PublicService(partial(Logged, log, "sleep"), budget=50, request_timeout_s=60) as service:
        assert service.handle({"op": "reset"})["state_hash"] == "initial"  # the worker up
        before = _rss_mb()
        client = subprocess.Popen([sys.executable, "-c", PARKING_CLIENT, str(service.socket_path)])
        try:
            _wait_for(lambda: lines(log) == ["reset", "run"], "the slow request running")
            peak = before
            for _ in range(40):  # 4 s: the parked clients push what they can
                peak = max(peak, _rss_mb())
                time.sleep(0.1)
            started = time.monotonic()
            service.stop()
            assert time.monotonic() - started < 1.0
        finally:
            client.kill()
            client.wait()
    assert peak - before < 100, f"harness RSS rose {peak - before:.0f} MB"
    assert lines(log) == ["reset", "run"]


def test_connections_past_the_cap_are_refused(tmp_path):
    log = str(tmp_path / "log")
    with PublicService(partial(Logged, log, "sleep"), budget=50, request_timeout_s=60) as service:
        held = [socket.socket(socket.AF_UNIX) for _ in range(MAX_CONNECTIONS)]
        try:
            for client in held:
                client.connect(str(service.socket_path))
                client.sendall(b'{"op": "run_public", "calls": []}\n')
            _wait_for(lambda: lines(log) == ["reset", "run"], "the first request running")
            # The accept loop has taken them all (each holds one of the service's connection slots): a readiness
            # check, not a sleep, as the machine may be loaded.
            _wait_for(lambda: service._connections._value == 0, "every held connection accepted")
            assert _ask(service, {"op": "reset"}, timeout=5) == {"error": TOO_MANY_CONNECTIONS}
        finally:
            for client in held:
                client.close()


@pytest.mark.usefixtures("bwrap_available")
def test_a_hostile_replay_in_generation_neither_lags_the_event_loop_nor_stalls_sample_cleanup(tmp_path):
    """The agent's command sends the catastrophic grep through the sandbox's socket: the event loop lagged 3.3 s and
    sample_cleanup blocked it for 25.7 s (remove() waited on the replay)."""
    from verifierbench.executor.isolation import resolve_isolation
    from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment

    service = PublicService(_banking(), budget=5, request_timeout_s=60).start()
    assert "error" not in service.handle(_grep("identity verification"))
    box = VgbSandboxEnvironment(resolve_isolation("auto"), task_type="state", public=service)
    agent = ("import vgb_env; vgb_env.run_public(calls=[{'name': 'grep', 'arguments': {'pattern': %r}}])" % CATASTROPHIC)

    async def scenario() -> tuple[float, float]:
        lag, running = 0.0, True

        async def watch() -> None:
            nonlocal lag
            while running:
                started = time.monotonic()
                await asyncio.sleep(0.02)
                lag = max(lag, time.monotonic() - started - 0.02)

        watcher = asyncio.create_task(watch())
        command = asyncio.create_task(box.exec(["python3", "-c", agent], timeout=120))
        while not _spinning_workers():
            await asyncio.sleep(0.05)
        await asyncio.sleep(2)  # the replay runs while the agent (and every other sample) waits
        started = time.monotonic()
        await VgbSandboxEnvironment.sample_cleanup("t", None, {"default": box}, False)
        cleanup = time.monotonic() - started
        result = await asyncio.wait_for(command, 30)
        assert not result.success  # the run ended under it
        running = False
        await watcher
        return lag, cleanup

    lag, cleanup = asyncio.run(scenario())
    assert cleanup < 1.0 and lag < 0.2, (cleanup, lag)
    _wait_for(lambda: not _spinning_workers(), "the replay's worker killed", timeout=2)


def test_a_replay_past_its_workers_memory_cgroup_ends_that_worker_not_the_harness(tmp_path, monkeypatch):
    """A worker's memory cgroup (executor.memcg) caps what RLIMIT_AS does not see, kernel memory included; here a
    replay filling 1 GiB, under the worker's 4 GiB RLIMIT_AS, meets a 256 MiB cgroup: the kernel kills that worker,
    the request gets one line, and the next request is served by a fresh worker."""
    from verifierbench.executor import memcg
    from verifierbench.public_env import pool

    if memcg.hierarchy() is None or not memcg.enabled():
        skip_unless_required("memcg", "no memory cgroups here (not root, or no writable memory controller)")
    monkeypatch.setattr(pool, "CGROUP_BYTES", 256 << 20)
    with pool._idle_lock:  # workers made under the real cap stay out of this test
        idle, pool._idle[:] = list(pool._idle), []
    try:
        log = str(tmp_path / "log")
        with PublicService(partial(Logged, log, "allocate"), budget=50, request_timeout_s=60) as service:
            assert service.handle({"op": "reset"})["state_hash"] == "initial"
            answer = _ask(service, {"op": "run_public", "calls": []}, timeout=60)
            assert answer["error"].startswith("run_public: the environment's worker ended"), answer
            assert service.handle({"op": "reset"})["state_hash"] == "initial"  # a fresh worker serves on
    finally:
        with pool._idle_lock:
            pool._idle.extend(idle)


def test_a_request_line_that_never_ends_holds_the_service_no_longer_than_its_limit(tmp_path):
    """A client that sends part of a line and then nothing, to a worker that has its environment: the request's time
    runs from the hand-over (the worker sends no "ready" when it builds nothing), so the client hears the limit and
    the next request is served."""
    log = str(tmp_path / "log")
    with PublicService(partial(Logged, log), budget=50, request_timeout_s=3) as service:
        assert service.handle({"op": "reset"})["state_hash"] == "initial"  # the worker up, its environment built
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(20)
            client.connect(str(service.socket_path))
            client.sendall(b'{"op": "run_public", "calls": [')
            started = time.monotonic()
            reply = json.loads(client.makefile("rb").readline())
            waited = time.monotonic() - started
        assert reply == {"error": "run_public: request exceeded 3 s"} and waited < 6, (reply, waited)
        assert service.handle({"op": "run_public", "calls": []}) == {"ok": True, "calls": 0}
