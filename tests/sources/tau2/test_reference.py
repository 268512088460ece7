"""The tau2 reference verifier: gold passes and an empty record fails on every selected task, parity with the package's
own evaluator, fabricated results, malformed records, and one regression test per documented trap (source-notes, tau2)."""

from __future__ import annotations

import copy
import json

import pytest

from verifierbench.sources.tau2 import data
from verifierbench.sources.tau2.build import empty_record
from verifierbench.sources.tau2.environment import Tau2Environment, environment_for, recorded_result
from verifierbench.sources.tau2.reference import decide, expected_state_hash, gold_calls


def ref(source_id: str) -> dict:
    domain, task_id = data.split_source_id(source_id)
    return {"checker": "tau2", "domain": domain, "task_id": task_id}


def record_of(domain: str, task_id: str, calls: list[dict], final: str = "Done.") -> dict:
    """A record whose results are the replayed observations, one message per call."""
    observations = Tau2Environment(domain, task_id).replay(calls).observations
    return {"messages": [{"role": "user", "content": "Hi"}]
            + [{"role": c["role"], "content": "", "tool_calls": [{"name": c["name"], "arguments": c["arguments"], "result": recorded_result(o)}]}
               for c, o in zip(calls, observations)],
            "final_response": final}


def test_gold_passes_and_empty_fails_on_every_selected_task(selection, gold_cases):
    assert len(gold_cases) >= 28
    for source_id, gold in gold_cases.items():
        assert decide(ref(source_id), gold)[0], source_id
        assert not decide(ref(source_id), empty_record())[0], source_id


def test_decisions_agree_with_the_packages_evaluator_on_gold_and_empty(gold_cases, package_reward):
    for source_id, gold in gold_cases.items():
        domain, task_id = data.split_source_id(source_id)
        for candidate in (gold, empty_record()):
            assert decide(ref(source_id), candidate)[0] == package_reward(domain, task_id, candidate), source_id


def test_every_upstream_gold_passes_and_only_the_refusal_tasks_pass_empty():
    empty_passes = []
    for domain in data.DOMAINS:
        for task_id in data.task_ids(domain):
            calls = gold_calls(domain, task_id)
            info = " ".join(data.task(domain, task_id)["evaluation_criteria"].get("communicate_info") or [])
            assert decide({"domain": domain, "task_id": task_id}, record_of(domain, task_id, calls, "Done. " + info))[0], (domain, task_id)
            if decide({"domain": domain, "task_id": task_id}, empty_record())[0]:
                empty_passes.append(f"{domain}/{task_id}")
    assert empty_passes == [f"retail/{i}" for i in (10, 12, 25, 50, 57, 65, 105)]


def test_fabricated_results_are_rejected(selection):
    source_id = "retail/34"
    gold = next(c.candidate for r in selection.retained if r.task.source_id == source_id for c in r.cases if c.category.value == "gold")
    for message in gold["messages"]:
        for call in message.get("tool_calls", []):
            fake = copy.deepcopy(gold)
            for m in fake["messages"]:
                for c in m.get("tool_calls", []):
                    if c == call:
                        c["result"] = call["result"].replace("pending", "delivered") if "pending" in call["result"] else call["result"] + " "
            accepted, reason = decide(ref(source_id), fake)
            assert not accepted and "recorded result" in reason, call["name"]
    hacks = [c for r in selection.retained for c in r.cases if c.provenance.get("operator") == "fabricated_tool_result"]
    assert len(hacks) >= 28 and all(not decide(ref(_source(selection, c.task_id)), c.candidate)[0] for c in hacks)


def _source(selection, task_id: str) -> str:
    return next(r.task.source_id for r in selection.retained if r.task.id == task_id)


@pytest.mark.parametrize("candidate", [None, [], {"messages": []}, {"messages": [{"role": "system", "content": ""}], "final_response": ""},
                                       {"messages": [{"role": "assistant", "content": "", "tool_calls": [{"name": "get_user_details"}]}], "final_response": ""},
                                       {"messages": [{"role": "assistant", "content": "", "tool_calls": [{"name": "get_user_details", "arguments": {"user_id": "x"}}]}],
                                        "final_response": ""},
                                       {"messages": [{"role": "assistant", "content": "", "tool_calls": [{"name": "get_user_details", "arguments": {"user_id": float("nan")},
                                                                                                            "result": "x"}]}], "final_response": ""}])
def test_malformed_records_fail(candidate):
    accepted, reason = decide(ref("retail/34"), candidate)
    assert not accepted and reason.startswith("malformed record")


# ---- traps (source-notes, tau2): each test fails without the handling it names ------------------------------

def test_trap1_integral_floats_are_the_same_value_as_ints():
    """task_001's gold applies with `annual_income: 100000`; Inspect's casting makes it 100000.0, which changed the
    application id derived from it. Without normalisation the float form would fail the DB check."""
    calls = gold_calls("banking_knowledge", "task_001")
    assert calls[-1]["arguments"]["annual_income"] == 100000
    cast = copy.deepcopy(calls)
    cast[-1]["arguments"]["annual_income"] = 100000.0
    env = Tau2Environment("banking_knowledge", "task_001")
    assert env.replay(cast).state_hash == env.replay(calls).state_hash == expected_state_hash("banking_knowledge", "task_001")
    assert decide(ref("banking_knowledge/task_001"), record_of("banking_knowledge", "task_001", cast))[0]
    # the package's tool itself, called as Inspect would after casting, does see a different value
    from inspect_evals.tau2.banking.utils import generate_application_id

    assert generate_application_id("Gold Rewards Card", "Sarah Bosch", 100000.0, True) != generate_application_id("Gold Rewards Card", "Sarah Bosch", 100000, True)


def test_trap2_initial_state_is_copied_per_replay():
    """task_051 writes into records its initial state adds; sharing them by reference made the gold score 0 and let
    wrong trajectories pass. Every replay must start from the same state, however many ran before."""
    env = environment_for(ref("banking_knowledge/task_051"))
    pristine = json.dumps(env.task["initial_state"], sort_keys=True)
    calls = gold_calls("banking_knowledge", "task_051")
    first = env.replay(calls).state_hash
    wrong = env.replay(calls[:3]).state_hash
    assert wrong != first
    assert [env.replay(calls).state_hash for _ in range(3)] == [first] * 3
    assert env.replay([]).state_hash == Tau2Environment("banking_knowledge", "task_051").replay([]).state_hash
    assert json.dumps(env.task["initial_state"], sort_keys=True) == pristine
    assert decide(ref("banking_knowledge/task_051"), record_of("banking_knowledge", "task_051", calls))[0]
    assert not decide(ref("banking_knowledge/task_051"), record_of("banking_knowledge", "task_051", calls[:3]))[0]


def test_trap3_read_only_discoverable_calls_leave_the_compared_state_alone():
    """task_044's gold reads get_user_dispute_history_7291 (read-only) and the package logs every discoverable call in
    the DB. An extra permitted read, or leaving that read out, must not change the verdict."""
    source_id, domain, task_id = "banking_knowledge/task_044", "banking_knowledge", "task_044"
    calls = gold_calls(domain, task_id)
    extra_read = [{"role": "assistant", "name": "unlock_discoverable_agent_tool", "arguments": {"agent_tool_name": "get_all_user_accounts_by_user_id_3847"}},
                  {"role": "assistant", "name": "call_discoverable_agent_tool",
                   "arguments": {"agent_tool_name": "get_all_user_accounts_by_user_id_3847", "arguments": json.dumps({"user_id": "584f9c5d00"})}}]
    with_extra = calls[:1] + extra_read + calls[1:]
    without_read = [c for c in calls if "get_user_dispute_history_7291" not in json.dumps(c)]
    assert len(without_read) == len(calls) - 2
    for variant in (with_extra, without_read):
        assert decide(ref(source_id), record_of(domain, task_id, variant))[0]
    # the rows are there in the full DB: the package's hash tells these trajectories apart
    from verifierbench.sources.tau2.environment import _runtime

    runtime, env = _runtime(domain), Tau2Environment(domain, task_id)
    full = []
    for variant in (calls, with_extra, without_read):
        agent, user, db = runtime.fresh(env.task)
        for call in variant:
            runtime.call(agent, user, env.user_tool_names, call["role"], call["name"], call["arguments"])
        full.append(db.get_hash())
    assert len(set(full)) == 3


def test_trap4_transfer_reason_is_compared():
    """task_004 requires transfer_to_human_agents with reason account_ownership_dispute; the package accepts any reason."""
    from types import SimpleNamespace

    from inspect_ai.model import ChatMessageAssistant
    from inspect_ai.tool import ToolCall
    from inspect_evals.tau2.common.scorer import find_unused_actions

    for task_id in ("task_004", "task_008", "task_012", "task_014"):
        calls = gold_calls("banking_knowledge", task_id)
        wrong = copy.deepcopy(calls)
        wrong[0]["arguments"]["reason"] = "other"
        message = ChatMessageAssistant(content="", tool_calls=[ToolCall(id="1", function=wrong[0]["name"], arguments=wrong[0]["arguments"])])
        assert find_unused_actions(SimpleNamespace(messages=[message]), SimpleNamespace(messages=[]), data.task_model("banking_knowledge", task_id)) == []
        assert decide(ref(f"banking_knowledge/{task_id}"), record_of("banking_knowledge", task_id, calls))[0]
        accepted, reason = decide(ref(f"banking_knowledge/{task_id}"), record_of("banking_knowledge", task_id, wrong))
        assert not accepted and "required actions" in reason
