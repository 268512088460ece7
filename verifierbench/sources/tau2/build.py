"""Builds tau2 state tasks and their cases: seeded selection, case generation, C1 replay.

Selection (seed-walked like `bfcl/build.py`): 16 retail and 16 banking_knowledge tasks. Screened first, so the
record shows their fate: the tasks the paper's analysis names (retail 33, 34, 49; banking task_037, 040, 041,
044, 045) and the seven retail tasks an empty trajectory already passes.

Exclusion code **J** (empty trajectory passes): retail 10, 12, 25, 50, 57 and 65 ask for a transfer, for
information only, or for something the policy refuses; 105 and 12 have a gold write that fails. Their gold DB
is the initial DB and they communicate nothing, so upstream tau2 tells a right answer from doing nothing only
through its LLM judge (or not at all). An LLM-free reference cannot label them: "do nothing" would be a positive
and no ordinary error could be a negative. We detect them (the reference passes a record with no tool calls and a
polite final response) and exclude them with the reference's reason as evidence, rather than invent labels.
Other codes come from the shared C1 replay: G (the reference rejects the gold record), E (after C1 the task
lacks a positive, a negative or an attack).
"""

from __future__ import annotations

import random
from typing import Any, Callable

from verifierbench.construction.replay import Replayed, replay
from verifierbench.construction.selection import Selection, select
from verifierbench.core.schema import Task
from verifierbench.sources.formats.interaction_record import INTERACTION_RECORD
from verifierbench.sources.base import SourcePaths
from verifierbench.sources.interaction import families
from verifierbench.sources.interaction.naive_checks import state_checks_fooled
from verifierbench.sources.tau2 import data
from verifierbench.sources.tau2.cases import POLITE_NOTHING, STYLES, generate
from verifierbench.sources.tau2.reference import decide

QUOTAS = {"retail": 16, "banking_knowledge": 16}
NAMED = ["retail/33", "retail/34", "retail/49", "banking_knowledge/task_037", "banking_knowledge/task_040",
         "banking_knowledge/task_041", "banking_knowledge/task_044", "banking_knowledge/task_045"]
REFUSALS = ["retail/10", "retail/12", "retail/25", "retail/50", "retail/57", "retail/65", "retail/105"]
FORCED = NAMED + REFUSALS
EMPTY_PASSES = "J"

CANDIDATE_FORMAT = {
    "messages": ("the conversation in order, each {\"role\": \"user\" | \"assistant\", \"content\": str, \"tool_calls\"?: "
                 "[{\"name\": str, \"arguments\": object, \"result\": str}]}; a tool call sits on the message that made it "
                 "(the customer's own tool calls, where the domain gives the customer tools, sit on user messages)"),
    "messages[].tool_calls[].result": ("what the caller saw: the tool's output string, or \"Error: <message>\" when the call "
                                       "failed (unknown tool, bad arguments, a tool error)"),
    "final_response": "the assistant's last message to the customer",
}


def public_environment(domain: str) -> str:
    text = ("run_public replays a list of calls [{\"name\", \"arguments\", \"role\": \"assistant\" (default) | \"user\"}] in order "
            "on a fresh copy of this task's initial environment and returns each observation ({\"name\", \"arguments\", "
            "\"result\"} or {..., \"error\"}) and the resulting state: the domain database as JSON, with its hash. Integral "
            "floats in arguments are read as integers.")
    if domain == "banking_knowledge":
        text += (" The state leaves out the rows that only log access to read-only discoverable tools (their calls, and "
                 "read-only tools given to the customer).")
    return text


def make_task(domain: str, task_id: str) -> Task:
    raw = data.task(domain, task_id)
    tools, user_tools = data.agent_tools(domain), data.user_tools(domain, task_id)
    environment = {"domain": domain, "policy": data.policy(domain), "tools": tools, "candidate_format": CANDIDATE_FORMAT,
                   "public_environment": public_environment(domain)}
    if domain == "banking_knowledge":
        environment.update({
            "user_tools": user_tools,
            "discoverable_agent_tools": data.discoverable_tools("agent"),
            "discoverable_user_tools": data.discoverable_tools("user"),
            "knowledge_base": ("the bank's knowledge base (policies, procedures, discoverable tools) is searched with the "
                               "agent's read-only `grep` tool, also through run_public"),
        })
    return Task.create(
        source="tau2",
        source_id=data.source_id(domain, task_id),
        instruction=instruction(domain, raw, tools, user_tools),
        environment=environment,
        format=INTERACTION_RECORD,
        reference={"checker": "tau2", "domain": domain, "task_id": task_id,
                   "evaluation_criteria": raw["evaluation_criteria"], "initial_state": raw.get("initial_state"),
                   "user_tools": raw.get("user_tools"), "inspect_evals": data.installed_version()},
        metadata={"domain": domain, "upstream_id": task_id, "upstream_commit": "377cecf" if domain == "retail" else "fcc9ed6"},
    )


def instruction(domain: str, raw: dict[str, Any], tools: list[dict[str, Any]], user_tools: list[dict[str, Any]]) -> str:
    from inspect_evals.tau2.data_model.tasks import UserScenario

    scenario = str(UserScenario.model_validate(raw["user_scenario"]))
    who = "a bank" if domain == "banking_knowledge" else "an online retail store"
    parts = [
        f"A customer-service assistant for {who} served the customer below, following the domain policy and using the tools "
        "listed. The record of that interaction (messages, tool calls with their results, final response) is the candidate.",
        "Write a verifier that returns PASS when the interaction correctly carries out what the customer needs under the "
        "policy (the resulting environment state and the information the customer had to be told) and FAIL otherwise.",
        "", "The customer's scenario (as given to the simulated customer):", scenario,
        "", "Domain policy given to the assistant:", data.policy(domain),
        "", "Assistant tools: see `tools` in the environment (" + ", ".join(t["name"] for t in tools) + ").",
    ]
    if user_tools:
        parts.append("Customer tools in this task: see `user_tools` (" + ", ".join(t["name"] for t in user_tools) + ").")
    if domain == "banking_knowledge":
        parts.append("Discoverable tools (documented in the knowledge base, reached through the unlock/call/give wrappers): "
                     "see `discoverable_agent_tools` and `discoverable_user_tools`.")
    parts += ["", "The environment can be replayed: " + public_environment(domain),
              "", "Each candidate your verifier receives is a JSON object:",
              *(f"- `{k}`: {v}" for k, v in CANDIDATE_FORMAT.items())]
    return "\n".join(parts)


def empty_record() -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": STYLES[0]["open"]}], "final_response": POLITE_NOTHING}


def construct(domain: str, task_id: str, seed: int) -> Replayed:
    task = make_task(domain, task_id)
    accepted, reason = decide(task.reference, empty_record())
    if accepted:
        return Replayed(task, exclusion={
            "task": f"tau2/{task.source_id}", "task_id": task.id, "code": EMPTY_PASSES,
            "evidence": {"reason": "a record with no tool calls and a polite final response passes the reference: the gold "
                                   "leaves the database unchanged and requires no information, so no label separates doing "
                                   "nothing from the right answer without upstream's LLM judge",
                         "reference": reason}})
    notes: dict[str, str] = {}
    drafts = generate(task.reference, random.Random(f"{seed}:tau2:{task.source_id}"), notes=notes)
    replayed = replay(task, drafts, decide=decide, fooled=state_checks_fooled)
    replayed.notes = notes
    return replayed


def build(seed: int, quotas: dict[str, int] | None = None, forced: list[str] | None = None) -> Selection:
    """UserError (one line) when inspect-evals is not installed."""
    data.package_dir()
    quotas = quotas or QUOTAS
    pools = {domain: [data.source_id(domain, i) for i in data.task_ids(domain)] for domain in quotas}
    result = select(pools, quotas, FORCED if forced is None else forced, seed, "tau2",
                    lambda domain, source_id: construct(*data.split_source_id(source_id), seed))
    result.record["inspect_evals"] = data.installed_version()
    result.record["families"] = families.summary(result.retained, (families.CLOSE_NUMBER, families.OTHER_READS))
    return result


def select_tasks(seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
    """The source hook (`Source.select`): the data comes from the installed package, so `paths` is unused."""
    return build(seed)
