"""The reference verifier of tau2 tasks: `decide(reference, candidate) -> (PASS?, reason)`, no LLM.

1. The candidate must be a well-formed interaction record (plain JSON, no NaN) (`sources/interaction/record.py`) whose every tool
   call carries its recorded result.
2. Its calls, assistant and customer alike, are replayed in order on a fresh environment (`environment.py`);
   a recorded result that differs from the replayed observation (a fabricated result) fails.
3. tau2's own evaluation, as the package runs it (`inspect_evals.tau2`):
   - retail (`retail_scorer`): DB and COMMUNICATE, always;
   - banking_knowledge (`banking_scorer`): ACTION and/or DB, as the task's `reward_basis` says.
   DB: the replayed state's hash equals the state after the gold actions, replayed the way the package's scorers
   build the expected DB (retail `get_expected_db`: skip calculate and transfers, failed gold calls change
   nothing; banking `_build_expected_db`: skip transfers, each action on its requestor's side). COMMUNICATE: the
   package's `get_messages_from_agent` over the assistant's messages and final response (lower-cased, commas
   dropped) must contain every `communicate_info` string. ACTION: the package's `find_unused_actions`.

Re-derived, and why (source-notes, tau2 traps):
- the DB comparison uses our environment, not the package's scorer objects: it applies the task's initial state
  to a copy (trap 2), replays without Inspect's argument casting (trap 1), leaves out the log rows of read-only
  discoverable tools (trap 3) and writes no temp files (trap 5);
- transfers with `compare_args` (banking task_004/008/012/014 compare `reason`): the package accepts any
  `transfer_to_human_agents` call whatever its arguments (trap 4); we also require the compared arguments to
  match, as upstream tau2 does.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, TYPE_CHECKING

from verifierbench.sources.interaction import record
from verifierbench.sources.tau2 import data
from verifierbench.sources.tau2.environment import environment_for, recorded_result

if TYPE_CHECKING:
    from inspect_ai.solver import TaskState

TRANSFER = "transfer_to_human_agents"
# Gold actions the package's expected-DB builders skip.
SKIPPED_FOR_DB = {"retail": {"calculate", TRANSFER}, "banking_knowledge": {TRANSFER, data.PACKAGE_PREFIX + TRANSFER}}


def decide(reference: dict[str, Any], candidate: dict[str, Any]) -> tuple[bool, str]:
    try:
        json.dumps(candidate, allow_nan=False)
        calls = record.calls(candidate)
    except (TypeError, ValueError) as e:
        return False, f"malformed record: {e}"
    for i, call in enumerate(calls):
        if call["result"] is None:
            return False, f"malformed record: call {i} ({call['name']}) has no recorded result"
    domain, task_id = reference["domain"], reference["task_id"]
    env = environment_for(reference)
    try:
        observations, state_hash = env.run(calls)
    except ValueError as e:  # a state that is not JSON (a non-finite number a tool computed from odd input)
        return False, f"the replayed environment has no JSON state: {e}"
    for i, (call, observation) in enumerate(zip(calls, observations)):
        if call["result"] != recorded_result(observation):
            return False, f"call {i} ({call['name']}): the recorded result is not what replaying the call returns"
    basis = reward_basis(domain, task_id)
    if "ACTION" in basis:
        missing = missing_actions(domain, task_id, calls)
        if missing:
            return False, f"required actions not taken: {', '.join(missing)}"
    if "DB" in basis and state_hash != expected_state_hash(domain, task_id):
        return False, "the resulting database differs from the one the gold actions produce"
    if "COMMUNICATE" in basis:
        missing = missing_info(domain, task_id, candidate)
        if missing:
            return False, f"required information not communicated: {', '.join(missing)}"
    return True, f"tau2 evaluation passed ({'+'.join(basis)})"


def warm_up(reference: dict[str, Any]) -> None:
    """Loads what `decide` reads for this task into the caches: the domain's DB and tools, the task, its expected state."""
    domain, task_id = reference["domain"], reference["task_id"]
    environment_for(reference).run([])
    reward_basis(domain, task_id)
    expected_state_hash(domain, task_id)


def reward_basis(domain: str, task_id: str) -> tuple[str, ...]:
    if domain == "retail":
        return ("DB", "COMMUNICATE")  # retail_scorer: db_match and score_communicated_info, whatever the basis says
    basis = [b.value for b in data.task_model(domain, task_id).evaluation_criteria.reward_basis]
    return tuple(b for b in ("ACTION", "DB") if b in basis)  # banking_scorer checks these two only


def gold_calls(domain: str, task_id: str) -> list[dict[str, Any]]:
    """The gold actions as calls: {"role", "name", "arguments"}."""
    actions = data.task(domain, task_id)["evaluation_criteria"].get("actions") or []
    return [{"role": a.get("requestor") or "assistant", "name": a["name"].removeprefix(data.PACKAGE_PREFIX),
             "arguments": a["arguments"]} for a in actions]


@lru_cache(maxsize=None)
def expected_state_hash(domain: str, task_id: str) -> str:
    calls = [c for c in gold_calls(domain, task_id) if c["name"] not in SKIPPED_FOR_DB[domain]]
    return environment_for({"domain": domain, "task_id": task_id}).run(calls)[1]


def _user_side(task_id: str, messages: list[Any]) -> TaskState:
    """The user simulator's state holding `messages`, as the package's scorer reads it (nothing else is read)."""
    from inspect_ai.model import ModelName
    from inspect_ai.solver import TaskState

    return TaskState(model=ModelName("none/none"), sample_id=task_id, epoch=1, input="", messages=messages)


def missing_info(domain: str, task_id: str, candidate: dict[str, Any]) -> list[str]:
    from inspect_ai.model import ChatMessageUser
    from inspect_evals.tau2.common.scorer import get_messages_from_agent

    info = data.task_model(domain, task_id).evaluation_criteria.communicate_info or []
    texts = [m.get("content") or "" for m in candidate["messages"] if m["role"] == "assistant"] + [candidate["final_response"]]
    # The package's scorer reads the agent's messages from the user simulator's side, where they are user messages.
    said = get_messages_from_agent(_user_side(task_id, [ChatMessageUser(content=t) for t in texts if t]))
    return [i for i in info if i.lower() not in said]


def missing_actions(domain: str, task_id: str, calls: list[dict[str, Any]]) -> list[str]:
    from inspect_ai.model import ChatMessageAssistant
    from inspect_ai.tool import ToolCall
    from inspect_ai.util import Store
    from inspect_evals.tau2.common.agents import StoredAgentState
    from inspect_evals.tau2.common.scorer import find_unused_actions
    from inspect_evals.tau2.utils import deep_equal_unordered

    task = data.task_model(domain, task_id)

    def messages(role: str) -> list[Any]:
        return [ChatMessageAssistant(content="", tool_calls=[ToolCall(id=f"{role}-{i}", function=c["name"], arguments=c["arguments"])])
                for i, c in enumerate(calls) if c["role"] == role]

    # A store of its own: outside a sample every StoreModel shares one store, and a second one keeps the first's messages.
    agent = StoredAgentState(store=Store(), messages=messages("assistant"))
    user = _user_side(task_id, messages("user"))
    unused = [a.action_id for a in find_unused_actions(agent, user, task)]
    # Trap 4: the package takes any transfer call as the transfer action; upstream compares `compare_args`.
    for action in task.evaluation_criteria.actions or []:
        if action.name.removeprefix(data.PACKAGE_PREFIX) == TRANSFER and action.compare_args and action.action_id not in unused:
            side = [c for c in calls if c["role"] == action.requestor and c["name"].removeprefix(data.PACKAGE_PREFIX) == TRANSFER]
            expected = {k: action.arguments.get(k) for k in action.compare_args}
            if not any(deep_equal_unordered({k: c["arguments"].get(k) for k in action.compare_args}, expected) for c in side):
                unused.append(action.action_id)
    return unused
