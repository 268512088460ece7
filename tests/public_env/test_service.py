"""The run_public service: budget and counters host-side, reachable from sandboxed verifiers and from
the generation sandbox over its socket, sharing one budget with the tools."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.conftest import write_verifier
from verifierbench.executor import Job
from verifierbench.harness.sandbox import VgbSandboxEnvironment
from verifierbench.public_env.service import BUDGET_EXCEEDED, PublicService
from verifierbench.scorers.hidden_cases import shared_executor  # generated verifiers' executor: vgb_env mounted
from verifierbench.sources.agentdojo import cases, data
from verifierbench.sources.agentdojo.environment import AgentDojoEnvironment

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
