"""The run_public service: budget and counters host-side, reachable from sandboxed verifiers and from
the generation sandbox over its socket, sharing one budget with the tools."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from tests.conftest import write_verifier
from verifierbench.executor import Job
from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment
from verifierbench.public_env.service import BUDGET_EXCEEDED, PublicService
from verifierbench.scorers.hidden_cases import shared_executor  # generated verifiers' executor: vgb_env mounted
from verifierbench.sources.agentdojo import cases, data
from verifierbench.sources.agentdojo.environment import AgentDojoEnvironment
from verifierbench.sources.interaction.environment import ServedEnvironment

REF = data.TaskRef("banking", "user_task_0")


@pytest.fixture()
def service():
    with PublicService(AgentDojoEnvironment(REF), budget=2) as running:
        yield running


def gold_record():
    return cases.Builder(REF).record(cases.gold_calls(REF), "Paid.")


def test_budget_counts_every_request_and_reset_is_free(service):
    first = service.handle({"op": "run_public", "record": gold_record()})
    assert first["state_hash"] and len(first["observations"]) == 2
    assert service.handle({"op": "reset"})["state_hash"] != first["state_hash"]  # the initial state, not counted
    assert "error" not in service.handle({"op": "run_public", "calls": []})
    assert service.handle({"op": "run_public", "calls": []}) == {"error": BUDGET_EXCEEDED}
    assert (service.uses, service.blocks) == (3, 1)
    assert "bad request" in PublicService(AgentDojoEnvironment(REF), 5).handle({"op": "run_public", "record": {"x": 1}})["error"]


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
    service = PublicService(AgentDojoEnvironment(REF), budget=2).start()
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


class _HeldEnvironment:
    """Each replay is logged and the first is held until the test releases it, like a long AgentDojo or test-run
    replay."""

    def __init__(self) -> None:
        import threading

        self.started: list[float] = []
        self.first = threading.Event()
        self.release = threading.Event()

    def run_request(self, request):
        import time

        self.started.append(time.monotonic())
        self.first.set()
        assert self.release.wait(60)
        return {"ok": True}

    def reset_reply(self):
        return {}


def _wait_for(condition, what: str, timeout: float = 60) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.01)


def test_no_replay_runs_after_the_service_stops():
    import threading

    environment = _HeldEnvironment()
    service = PublicService(environment, budget=20).start()
    handled = []  # requests that reached handle(): the first replays, the rest wait for its lock
    original = service.handle
    service.handle = lambda request: (handled.append(request), original(request))[1]  # type: ignore[method-assign]
    # A verifier fires many requests and exits: they queue behind the first replay.
    replies: list[bytes] = []
    clients = [threading.Thread(target=lambda: replies.append(_ask_raw(service, b'{"op": "run_public", "calls": []}\n')), daemon=True)
               for _ in range(6)]
    for client in clients:
        client.start()
    assert environment.first.wait(60)
    _wait_for(lambda: len(handled) == 6, "every request waiting behind the first replay")  # readiness, not a sleep
    stopper = threading.Thread(target=service.stop)
    stopper.start()
    _wait_for(service._ended.is_set, "stop() marking the run over")
    environment.release.set()  # the first replay ends after the run did: the queued ones must not start
    stopper.join(60)
    for client in clients:
        client.join(60)
    assert len(environment.started) == 1 and len(replies) == 6


class _CostlyReset(ServedEnvironment):
    """A reset that costs the harness 10 ms of CPU, like a replay of the initial state."""

    def __init__(self) -> None:
        self.computed = 0

    def run_request(self, request):
        return {"state_hash": "x"}

    def reset_reply(self):
        self.computed += 1
        end = time.process_time() + 0.01
        while time.process_time() < end:
            pass
        return {"state": {}, "state_hash": "initial"}


def test_resets_are_budgeted_and_counted(tmp_path):
    """Issue 35, defect 5: 306 resets cost the harness 3 s of CPU, uncounted. Now the initial state is computed once,
    resets past the allowance are refused, and every one is counted (the log's run_public counters)."""
    from verifierbench.public_env.service import RESET_ALLOWANCE, RESETS_EXCEEDED

    environment = _CostlyReset()
    service = PublicService(environment, 5)
    started = time.process_time()
    replies = [service.handle({"op": "reset"}) for _ in range(306)]
    spent = time.process_time() - started
    assert environment.computed == 1 and spent < 0.5
    allowed = 5 + RESET_ALLOWANCE
    assert [r.get("state_hash") for r in replies[:allowed]] == ["initial"] * allowed
    assert all(r == {"error": RESETS_EXCEEDED} for r in replies[allowed:])
    assert (service.resets, service.reset_blocks, service.uses) == (306, 306 - allowed, 0)
