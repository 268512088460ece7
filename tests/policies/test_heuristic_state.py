"""The heuristic policy on tau2 tasks where the customer has tools (`user_tools`): it reads them from task.json the
way the policy does in the sandbox, and checks each call against the tools of the role that made it."""

from __future__ import annotations

import copy
import subprocess
import sys

import pytest
from inspect_ai.model import ChatMessageTool

from tests.conftest import require_module
from verifierbench.executor import Executor, Limits
from verifierbench.harness.prompt import task_files
from verifierbench.policies.provider import _task_from
from verifierbench.policies.verifiers import READ_TASK, verifier_source
from verifierbench.public_env.jobs import case_job
from verifierbench.sandboxes import VGB_ENV

pytestmark = pytest.mark.usefixtures("bwrap_available")
VGB_ENV_LIBRARY = ((str(VGB_ENV), "vgb_env"),)
TASK = "banking_knowledge/task_061"  # every positive case has a customer tool call


def _customer_calls(candidate: dict) -> bool:
    return any(m.get("role") == "user" and m.get("tool_calls") for m in candidate["messages"])


def _policy_verifier(source_id: str, directory):
    """The task and its hidden cases as the suite build makes them, and the verifier the heuristic policy writes from
    what it reads: READ_TASK's output in the sandbox, parsed by the provider from the tool message."""
    require_module("inspect_evals.tau2", "inspect-evals")
    from verifierbench.sources.tau2.build import construct

    built = construct(*source_id.split("/"), seed=0)
    (path, text), = [(p, t) for p, t in task_files(built.task).items() if p.endswith("task.json")]
    (directory / "task.json").write_text(text)
    results, offset = [], 0
    while offset is not None:  # one chunk per call, as the policy reads it
        command = READ_TASK.format(path=directory / "task.json", offset=offset).replace("python3", sys.executable, 1)
        read = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=True)
        results.append(ChatMessageTool(content=read.stdout, function="bash"))
        _, _, total_text, chunk = read.stdout.split()
        total = int(total_text)
        offset = offset + len(chunk) if offset + len(chunk) < total else None
    seen = _task_from(results)
    assert seen["tools"] == built.task.environment["tools"]
    (directory / "verify.py").write_text(verifier_source("heuristic", seen))
    return built.task, built.cases, directory / "verify.py", seen


@pytest.fixture(scope="module")
def banking(tmp_path_factory):
    return _policy_verifier(TASK, tmp_path_factory.mktemp("banking"))


def test_the_policy_reads_the_customer_tool_names(banking):
    task, _, _, seen = banking
    assert seen.get("user_tools") == [t["name"] for t in task.environment["user_tools"]] and seen["user_tools"]


def _decide(task, verifier, candidates: dict[str, dict]):
    with Executor(Limits(timeout_s=120), isolation="bwrap", slots=2, libraries=VGB_ENV_LIBRARY) as executor:  # as the hidden_cases scorer runs it
        frozen = executor.freeze(verifier)
        return {o.key: o for o in executor.run_many(case_job(task, frozen, c, key) for key, c in candidates.items())}


def test_valid_records_with_customer_tool_calls_are_not_rejected_as_unknown_tools(banking):
    task, cases, verifier, _ = banking
    positives = {c.id: c.candidate for c in cases if c.label.value == "PASS" and _customer_calls(c.candidate)}
    assert positives
    outcomes = _decide(task, verifier, positives)
    assert not [o.reason for o in outcomes.values() if "unknown" in (o.reason or "")]
    assert any(o.decision.value == "P" for o in outcomes.values()), [(o.decision.value, o.reason, o.problem) for o in outcomes.values()]


def test_a_call_made_by_the_wrong_role_is_an_unknown_tool(banking):
    task, cases, verifier, _ = banking
    record = next(c.candidate for c in cases if c.label.value == "PASS" and _customer_calls(c.candidate))
    agent_tools = [t["name"] for t in task.environment["tools"]]
    customer_tool = next(t["name"] for t in task.environment["user_tools"] if t["name"] not in agent_tools)
    agent_tool = next(name for name in agent_tools if name not in {t["name"] for t in task.environment["user_tools"]})
    as_agent, as_customer = copy.deepcopy(record), copy.deepcopy(record)
    message = next(m for m in as_agent["messages"] if m["role"] == "user" and m.get("tool_calls"))
    message["role"] = "assistant"  # the customer's tool called by the assistant
    message["tool_calls"][0]["name"] = customer_tool
    message = next(m for m in as_customer["messages"] if m["role"] == "user" and m.get("tool_calls"))
    message["tool_calls"][0]["name"] = agent_tool  # an assistant tool called by the customer
    outcomes = _decide(task, verifier, {"as_agent": as_agent, "as_customer": as_customer})
    assert outcomes["as_agent"].decision.value == "F" and outcomes["as_agent"].reason == f"unknown tool {customer_tool}"
    assert outcomes["as_customer"].decision.value == "F" and outcomes["as_customer"].reason == f"unknown customer tool {agent_tool}"


def test_a_failed_lookup_shown_as_an_error_matches_the_replay(tmp_path):
    """retail/38: the gold looks the customer up by an e-mail that is not on file first ("Error: User not found"), then
    finds them another way. The record shows the error as the candidate format says; the replay's observation holds it
    under "error"."""
    task, cases, verifier, _ = _policy_verifier("retail/38", tmp_path)
    gold = next(c.candidate for c in cases if c.category.value == "gold")
    assert [r for m in gold["messages"] for r in (c["result"] for c in m.get("tool_calls") or []) if r.startswith("Error: ")]
    outcome = _decide(task, verifier, {"gold": gold})["gold"]
    assert (outcome.decision.value, outcome.reason) == ("P", "the record replays and answers")
    ends_failing = copy.deepcopy(gold)
    calls = [c for m in ends_failing["messages"] for c in m.get("tool_calls") or []]
    last = next(m for m in reversed(ends_failing["messages"]) if m.get("tool_calls"))
    failed = next(c for c in calls if c["result"].startswith("Error: "))
    last["tool_calls"].append(copy.deepcopy(failed))  # the failed lookup again, as the last call
    outcome = _decide(task, verifier, {"ends_failing": ends_failing})["ends_failing"]
    assert (outcome.decision.value, outcome.reason) == ("F", "the last tool call failed")
