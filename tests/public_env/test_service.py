"""The run_public service: budget and counters host-side, reachable from sandboxed verifiers and from
the generation sandbox over its socket, sharing one budget with the tools."""

from __future__ import annotations

import asyncio
import json
import time
from functools import partial
from pathlib import Path

import pytest

from tests.conftest import write_verifier
from verifierbench.executor import Job
from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment
from verifierbench.public_env.service import BUDGET_EXCEEDED, PublicService
from verifierbench.scorers.hidden_cases import shared_executor  # generated verifiers' executor: vgb_env mounted
from verifierbench.sources.agentdojo import cases, data
from verifierbench.sources.agentdojo.environment import AgentDojoEnvironment
from tests.public_env.environments import Logged, SlowToBuild, Unencodable, lines

REF = data.TaskRef("banking", "user_task_0")


@pytest.fixture()
def service():
    with PublicService(partial(AgentDojoEnvironment, REF), budget=2) as running:
        yield running


def gold_record():
    return cases.Builder(REF).record(cases.gold_calls(REF), "Paid.")


def test_budget_counts_every_request_and_reset_is_free(service):
    first = service.handle({"op": "run_public", "record": gold_record()})
    assert "state_hash" in first, first  # an error answer otherwise
    assert first["state_hash"] and len(first["observations"]) == 2
    assert service.handle({"op": "reset"})["state_hash"] != first["state_hash"]  # the initial state, not counted
    assert "error" not in service.handle({"op": "run_public", "calls": []})
    assert service.handle({"op": "run_public", "calls": []}) == {"error": BUDGET_EXCEEDED}
    assert (service.uses, service.blocks) == (3, 1)
    with PublicService(partial(AgentDojoEnvironment, REF), 5) as other:
        assert "bad request" in other.handle({"op": "run_public", "record": {"x": 1}})["error"]


VERIFIER = """
import vgb_env
candidate = vgb_env.read_candidate()
first = vgb_env.run_public(candidate)
same = vgb_env.run_public(candidate)
try:
    vgb_env.run_public(candidate)
    vgb_env.write_decision("FAIL", reason="budget not enforced")
except vgb_env.BudgetExceeded as e:
    ok = first["state_hash"] == same["state_hash"] and str(e) == "BudgetExceeded: run_public"
    vgb_env.write_decision("PASS" if ok else "FAIL", reason=first["state_hash"])
"""


def test_sandboxed_verifier_reaches_the_service_and_meets_the_budget(service, bwrap_available, tmp_path):
    path = write_verifier(tmp_path / "v", VERIFIER)
    outcome = shared_executor().run(Job(path, gold_record(), key="c", public_socket_dir=str(service.directory)))
    assert outcome.decision.value == "P", (outcome.reason, outcome.problem, outcome.stderr_tail)
    assert outcome.reason == AgentDojoEnvironment(REF).replay(cases.gold_calls(REF)).state_hash
    assert (service.uses, service.blocks) == (3, 1)


def test_without_a_service_run_public_is_unavailable(bwrap_available, tmp_path):
    path = write_verifier(tmp_path / "v", """
import vgb_env
try:
    vgb_env.run_public({"messages": [], "final_response": ""})
except vgb_env.RunPublicUnavailable:
    vgb_env.write_decision("PASS")
""")
    assert shared_executor().run(Job(path, {}, key="c")).decision.value == "P"


def test_generation_sandbox_code_and_tools_share_one_budget(bwrap_available):
    service = PublicService(partial(AgentDojoEnvironment, REF), budget=2).start()
    box = VgbSandboxEnvironment(_level(), task_type="state", public=service)
    try:
        code = "import vgb_env, json; print(vgb_env.run_public(calls=[])['state_hash'])"
        result = asyncio.run(box.exec(["python3", "-c", code]))
        assert result.success, result.stderr
        assert result.stdout.strip() == service.handle({"op": "reset"})["state_hash"]
        assert service.handle({"op": "run_public", "calls": []}).get("error") is None  # the tool path: 2 of 2
        blocked = asyncio.run(box.exec(["python3", "-c", code]))
        assert not blocked.success and "BudgetExceeded: run_public" in blocked.stderr
        assert (service.uses, service.blocks) == (3, 1)
    finally:
        box.remove()
    assert not service.directory.exists()  # the sandbox's cleanup stops its service


def _level():
    from verifierbench.executor.isolation import resolve_isolation

    return resolve_isolation("auto")


def test_request_over_the_socket_is_one_json_line(service):
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(str(service.socket_path))
        client.sendall(b"not json\n")
        assert json.loads(client.makefile().readline()) == {"error": "request is not one line of JSON"}


def _ask_raw(service, payload: bytes) -> bytes:
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(str(service.socket_path))
        client.sendall(payload)
        client.shutdown(socket.SHUT_WR)
        return client.makefile("rb").read()


@pytest.mark.parametrize("payload,error", [
    (b'{"op": "run_public", "calls": "\xff"}\n', "not one line of JSON"),  # not UTF-8
    (b"[" * 200_000 + b"\n", "nested too deeply"),
    (b'{"op": "run_public", "n": ' + b"9" * 5000 + b"}\n", "not one line of JSON"),  # int too long to convert
    (b'{"op": "reset", "pad": "' + b"x" * 300_000 + b'"}\n', "larger than"),
])
def test_malformed_requests_get_an_error_reply_and_no_traceback(service, capfd, monkeypatch, payload, error):
    import verifierbench.public_env.service as module

    monkeypatch.setattr(module, "MAX_REQUEST_BYTES", 250_000)  # oversized without sending 16 MiB
    reply = json.loads(_ask_raw(service, payload))
    assert error in reply["error"]
    assert "Traceback" not in capfd.readouterr().err
    assert json.loads(_ask_raw(service, b'{"op": "reset"}\n'))["state_hash"]  # still serving


def _wait_for(condition, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.01)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


def _worker_pids() -> set[int]:
    import os

    me = str(os.getpid())
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().split(") ")[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == me and "verifierbench.public_env.worker" in (stat.parent / "cmdline").read_bytes().decode(errors="replace"):
            found.add(int(stat.parent.name))
    return found


def test_no_replay_runs_after_the_service_stops_and_stop_waits_on_none(tmp_path):
    """A verifier fires 6 requests at once and its run ends while the first replays forever (a hostile replay): stop()
    returns at once (it used to wait up to 120 s for the replay), the replay's worker is killed, none of the queued
    requests runs."""
    import threading

    log = str(tmp_path / "log")
    service = PublicService(partial(Logged, log, "spin"), budget=20).start()
    replies: list[bytes] = []

    def ask() -> None:
        try:
            replies.append(_ask_raw(service, b'{"op": "run_public", "calls": []}\n'))
        except ConnectionResetError:  # a queued connection the service closed before reading its request
            replies.append(b"reset")

    clients = [threading.Thread(target=ask, daemon=True) for _ in range(6)]
    for client in clients:
        client.start()
    _wait_for(lambda: lines(log) == ["reset", "run"], "the first replay running", timeout=120)
    _wait_for(_spinning_workers, "its worker burning CPU")
    spinning = _spinning_workers()
    started = time.monotonic()
    service.stop()
    assert time.monotonic() - started < 1.0
    _wait_for(lambda: not any(_alive(pid) for pid in spinning), "the spinning worker killed", timeout=2)
    for client in clients:
        client.join(10)
    time.sleep(0.5)  # a queued request that were to start would have logged by now
    # every client's connection ended (a reply, an empty read or a reset: which one depends on how far the service
    # had read the queued request when it stopped), and no queued request ran
    assert lines(log) == ["reset", "run"] and len(replies) == 6 and service.uses == 1
    assert all(reply in (b"", b"reset") or "error" in json.loads(reply) for reply in replies), replies


def _spinning_workers() -> set[int]:
    """This process's run_public workers burning CPU right now (state R)."""
    found = set()
    for pid in _worker_pids():
        try:
            if Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] == "R":
                found.add(pid)
        except (OSError, IndexError):
            pass
    return found


def test_resets_are_budgeted_and_counted(tmp_path):
    """Issue 35, defect 5: 306 resets cost the harness 3 s of CPU, uncounted. Now the initial state is computed once,
    resets past the allowance are refused, and every one is counted (the log's run_public counters)."""
    from verifierbench.public_env.service import RESET_ALLOWANCE, RESETS_EXCEEDED

    log = str(tmp_path / "log")
    with PublicService(partial(Logged, log), 5) as service:
        assert service.handle({"op": "reset"})["state_hash"] == "initial"  # the worker started, the environment built
        started = time.process_time()
        replies = [service.handle({"op": "reset"}) for _ in range(305)]
        spent = time.process_time() - started
    assert lines(log) == ["reset"] and spent < 0.5
    allowed = 5 + RESET_ALLOWANCE
    assert [r.get("state_hash") for r in replies[:allowed - 1]] == ["initial"] * (allowed - 1)
    assert all(r == {"error": RESETS_EXCEEDED} for r in replies[allowed - 1:])
    assert (service.resets, service.reset_blocks, service.uses) == (306, 306 - allowed, 0)


def test_a_worker_that_must_build_again_gets_the_build_time_not_the_requests(tmp_path, monkeypatch):
    """A pooled worker keeps its environments per recipe and per the harness's VERIFIERBENCH_* settings, at most 8. The
    pool used to believe a worker that had once built a recipe still had it, so when the settings had changed (another
    test's stores) or the environment had been evicted, the worker's new build ran within the request's limit: on a busy
    machine the request was answered "request exceeded 30 s". And the build ran under the CPU limit left from the
    worker's last request (as little as its 1 s here): SIGXCPU, the same answer, every time this test ran after one with
    a short limit (the CI failure of 2026-12-07). The worker now says when it builds, and builds under the build's
    limits."""
    from verifierbench.public_env import pool

    with pool._idle_lock:  # one worker of this test's own serves every service below, one after the other
        idle, pool._idle[:] = list(pool._idle), []
    try:
        log = str(tmp_path / "log")
        slow = partial(SlowToBuild, log, 2.0)
        with PublicService(slow, budget=5, request_timeout_s=1) as service:
            assert service.handle({"op": "reset"})["state_hash"] == "initial"
        monkeypatch.setenv("VERIFIERBENCH_TEST_SETTING", "changed")  # the same recipe under other settings
        with PublicService(slow, budget=5, request_timeout_s=1) as service:
            assert service.handle({"op": "run_public", "calls": []}) == {"ok": True, "calls": 0}
        for n in range(8):  # eight other environments built in that worker since: the slow one is evicted
            with PublicService(partial(Logged, str(tmp_path / f"other-{n}")), budget=5) as other:
                assert other.handle({"op": "reset"})["state_hash"] == "initial"
        with PublicService(slow, budget=5, request_timeout_s=1) as service:
            assert service.handle({"op": "run_public", "calls": []}) == {"ok": True, "calls": 0}
            assert service.handle({"op": "run_public", "calls": []}) == {"ok": True, "calls": 0}  # kept: no build
        assert lines(log) == ["reset", "reset", "run", "reset", "run", "run"]  # built three times
        assert len(pool._idle) == 1
    finally:
        with pool._idle_lock:
            mine, pool._idle[:] = list(pool._idle), idle
        for worker in mine:
            worker.close()


def test_a_reply_json_cannot_hold_is_an_error_reply():
    with PublicService(Unencodable, 5) as service:
        assert service.handle({"op": "run_public", "calls": []}) == {"error": "replay failed: its reply cannot be encoded (TypeError)"}
        assert service.handle({"op": "reset"})["state_hash"] == "initial"  # the worker goes on


# A harness process that starts a run_public worker whose request runs a sandbox (a code task's tests), then exits.
STARTS_A_WORKER = """
import json, os, sys
from functools import partial
from verifierbench.public_env.service import PublicService
from tests.public_env.environments import Sandboxed
with PublicService(partial(Sandboxed, sys.argv[1]), 5) as service:
    print(json.dumps({"pid": os.getpid(), **service.handle({"op": "run_public", "calls": []})}))
"""


def test_a_process_that_started_a_worker_leaves_no_memory_cgroup(bwrap_available, tmp_path):
    """Issue 51: the worker, in a memory cgroup of the harness's, made its sandbox's cgroups below its own and was
    killed with them in place, so each `named-public-worker-N` stayed (busy: a cgroup below it), with a "not removed"
    line per cgroup at every harness's exit. Now the harness removes the whole tree."""
    import os
    import subprocess
    import sys

    from tests.conftest import REPO_ROOT, skip_unless_required
    from verifierbench.executor import memcg

    found = memcg.hierarchy()
    if found is None or not memcg.enabled():
        skip_unless_required("memcg", "no memory cgroups here (not root, or no writable memory controller)")
    result = subprocess.run([sys.executable, "-c", STARTS_A_WORKER, str(tmp_path)], cwd=REPO_ROOT, capture_output=True,
                            text=True, timeout=300, env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
    try:
        assert result.returncode == 0, result.stderr[-3000:]
        reply = json.loads(result.stdout.splitlines()[-1])
        harness = found.own / f"{memcg.PREFIX}{reply['pid']}"
        assert reply["decision"] == "P"
        assert reply["cgroup"] == str(harness / "named-public-worker-1")  # where the worker's sandbox cgroups were made
        assert not harness.exists(), sorted(str(d) for d in harness.rglob("*") if d.is_dir())
        assert "not removed" not in result.stderr, result.stderr[-3000:]
    finally:
        memcg.sweep(found.own)  # the dead harness's cgroups, when the test fails
