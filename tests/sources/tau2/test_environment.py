"""The tau2 public environment: deterministic replays, the state hash, the tool surface, the read-only discoverable
tools whose log rows the state leaves out, copy-on-write safety, and no temp files (trap 5)."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import tempfile

import pytest

from verifierbench.core.hashing import canonical_json, content_hash
from verifierbench.sources.tau2 import data, environment
from verifierbench.sources.tau2.environment import (
    READ_ONLY_AGENT_DISCOVERABLE,
    READ_ONLY_USER_DISCOVERABLE,
    Tau2Environment,
    environment_for,
    normalise_arguments,
)
from verifierbench.sources.tau2.reference import gold_calls

TASKS = [("retail", "34"), ("retail", "49"), ("banking_knowledge", "task_037"), ("banking_knowledge", "task_051")]


@pytest.mark.parametrize("domain,task_id", TASKS)
def test_same_calls_same_state_hash_over_20_repeats(domain, task_id):
    calls = gold_calls(domain, task_id)
    replays = [Tau2Environment(domain, task_id).replay(calls) for _ in range(20)]
    assert len({r.state_hash for r in replays}) == 1
    assert len({canonical_json(r.observations) for r in replays}) == 1
    assert replays[0].state_hash == content_hash(replays[0].state)  # the precomputed hash is the state's content hash
    assert environment_for({"domain": domain, "task_id": task_id}).run(calls)[1] == replays[0].state_hash


@pytest.mark.parametrize("domain,task_id", TASKS[::2])
def test_the_served_reply_text_is_run_request_reply(domain, task_id):
    """A worker writes run_request_text as is (issue 51's speed): the state's canonical text spliced in must decode to
    the reply run_request gives, error observations included."""
    env = Tau2Environment(domain, task_id)
    for calls in (gold_calls(domain, task_id), [{"name": "no_such_tool", "arguments": {"x": "é"}}], []):
        request = {"op": "run_public", "calls": calls}
        assert json.loads(env.run_request_text(request)) == env.run_request(request)
    with pytest.raises(ValueError):
        env.run_request_text({"op": "run_public", "calls": [{"arguments": {}}]})


def test_state_hash_is_the_same_in_another_process():
    code = ("import json; from verifierbench.sources.tau2.environment import Tau2Environment; "
            "from verifierbench.sources.tau2.reference import gold_calls; "
            f"print(json.dumps([Tau2Environment(d, t).replay(gold_calls(d, t)).state_hash for d, t in {TASKS!r}]))")
    other = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert other == [Tau2Environment(d, t).replay(gold_calls(d, t)).state_hash for d, t in TASKS]


def test_retail_pristine_db_never_changes_and_the_state_is_the_db():
    from verifierbench.sources.tau2.environment import _runtime

    for task_id in data.task_ids("retail"):
        Tau2Environment("retail", task_id).replay(gold_calls("retail", task_id))
    runtime = _runtime("retail")
    assert canonical_json(runtime.db.model_dump(mode="json")) == runtime.state_json(runtime.fresh()[1])
    replay = Tau2Environment("retail", "34").replay(gold_calls("retail", "34"))
    assert not [o for o in replay.observations if "error" in o], replay.observations  # every gold call ran
    tools, tables = runtime.fresh()
    pristine = content_hash(tools.db.model_dump(mode="json"))
    for call in gold_calls("retail", "34"):  # any error fails the test: the replay above had none
        runtime.call(tools, call.get("role") or "assistant", call["name"], normalise_arguments(call["name"], call["arguments"]))
    assert content_hash(tools.db.model_dump(mode="json")) == replay.state_hash != pristine  # the gold calls changed the db


def test_no_temp_files_left_behind(tmp_path, monkeypatch):
    """Trap 5: the package's retail loader leaves a 2.8 MB temp file per environment; ours reads the gzip in memory."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    saved = environment._runtimes.pop("retail", None)
    try:
        Tau2Environment("retail", "34").replay(gold_calls("retail", "34"))
    finally:
        if saved is not None:
            environment._runtimes["retail"] = saved
    assert os.listdir(tmp_path) == []


def test_tool_surface_matches_the_packages_tools():
    from inspect_evals.tau2.banking.BankingAgentTools import BankingAgentTools
    from inspect_evals.tau2.banking.BankingUserTools import BankingUserTools
    from inspect_evals.tau2.retail.RetailAgentTools import RetailAgentTools

    for domain, cls, tools in (("retail", RetailAgentTools, data.agent_tools("retail")),
                               ("banking_knowledge", BankingAgentTools, data.agent_tools("banking_knowledge")),
                               ("banking_knowledge", BankingUserTools, data.user_tools("banking_knowledge"))):
        for tool in tools:
            if tool["name"] in ("calculate", "transfer_to_human_agents") and domain == "retail" or tool["name"] == "grep":
                continue
            method = getattr(cls, tool["name"])
            params = [p for p in inspect.signature(method).parameters if p != "self"]
            assert params == list(tool["parameters"]["properties"]), tool["name"]
    assert len(data.agent_tools("retail")) == 15 and len(data.agent_tools("banking_knowledge")) == 15


def test_calls_that_cannot_run_are_error_observations():
    env = Tau2Environment("banking_knowledge", "task_001")  # the customer may only apply for a credit card here
    observations = env.replay([
        {"name": "no_such_tool", "arguments": {}},
        {"name": "get_user_information_by_id", "arguments": {}},
        {"name": "get_user_information_by_id", "arguments": {"user_id": "x", "extra": 1}},
        {"role": "user", "name": "submit_referral", "arguments": {"user_id": "x", "account_type": "checking"}},
        {"role": "user", "name": "get_user_information_by_id", "arguments": {"user_id": "x"}},
        {"name": "get_current_time", "arguments": {}},
        {"name": "grep", "arguments": {"pattern": "get_user_dispute_history_7291"}},
    ]).observations
    assert ["error" in o for o in observations] == [True] * 5 + [False, False]
    retail = Tau2Environment("retail", "34").replay([{"name": "get_order_details", "arguments": {"order_id": "#W0"}},
                                                      {"role": "user", "name": "get_order_details", "arguments": {"order_id": "#W0"}},
                                                      {"name": "calculate", "arguments": {"expression": "1093.34 - 0.34"}}]).observations
    assert retail[0]["error"] == "Order not found" and "error" in retail[1] and retail[2]["result"] == "1093.0"


def test_integral_floats_normalised_everywhere():
    assert normalise_arguments("apply_for_credit_card", {"annual_income": 100000.0, "x": [2.0, 2.5]}) == {"annual_income": 100000, "x": [2, 2.5]}
    inner = normalise_arguments("call_discoverable_agent_tool", {"agent_tool_name": "t", "arguments": '{"amount": 125.0, "ok": true}'})
    assert json.loads(inner["arguments"]) == {"amount": 125, "ok": True} and isinstance(json.loads(inner["arguments"])["amount"], int)


def test_read_only_discoverable_tools_change_nothing_but_their_log():
    """Each tool in READ_ONLY_*, replayed wherever a gold trajectory calls it, leaves the full DB (log tables aside)
    as it was; every `get_*` agent discoverable tool is in the set."""
    from inspect_evals.tau2.banking.BankingAgentTools import AGENT_DISCOVERABLE_TOOLS

    from verifierbench.sources.tau2.environment import LOG_TABLES, _runtime

    assert READ_ONLY_AGENT_DISCOVERABLE == {t for t in AGENT_DISCOVERABLE_TOOLS if t.startswith("get_")}
    runtime, seen = _runtime("banking_knowledge"), set()
    for task_id in data.task_ids("banking_knowledge"):
        env = Tau2Environment("banking_knowledge", task_id)
        calls = gold_calls("banking_knowledge", task_id)
        for i, call in enumerate(calls):
            tool = call["arguments"].get("agent_tool_name") or call["arguments"].get("discoverable_tool_name")
            if not call["name"].startswith("call_discoverable") or tool not in READ_ONLY_AGENT_DISCOVERABLE | READ_ONLY_USER_DISCOVERABLE:
                continue
            agent, user, db = runtime.fresh(env.task)
            for earlier in calls[:i]:
                runtime.call(agent, user, env.user_tool_names, earlier["role"], earlier["name"], earlier["arguments"])
            before = {k: v for k, v in db.model_dump(mode="json").items() if k not in LOG_TABLES}
            runtime.call(agent, user, env.user_tool_names, call["role"], call["name"], call["arguments"])
            assert {k: v for k, v in db.model_dump(mode="json").items() if k not in LOG_TABLES} == before, (task_id, tool)
            seen.add(tool)
    assert len(seen) >= 9  # every read-only tool a gold trajectory uses (get_atm_deposit_images_8473 appears in none)
