"""The deterministic auditor for tool-call tasks: fresh candidates from the project's generators run with
new seeds and wider caps, every case of the families the build only samples (paper §4 failure modes:
mishandled representations, loose value checks, hallucinated parameters, unrequested tools), and seeded
operators the hidden suite does not use.

Every proposal's label follows from how it was made against the task's answer key (a PASS operator keeps
each call's meaning; a FAIL operator breaks one requirement); the reference verifier then certifies it.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any, Iterator

from verifierbench.core.proposals import Proposal
from verifierbench.construction.drafts import Draft
from verifierbench.core.schema import Category, Task
from verifierbench.sources.toolcall.candidate import candidate, render_python
from verifierbench.sources.toolcall.cases import (FAMILIES, default_passed_explicitly, each_acceptable_value,  # noqa: F401
                                                  each_numeric_form, generate, other_tool_called, raw_single_json_object,
                                                  raw_without_list_brackets, unknown_argument_added, value_off_by_one,
                                                  wrong_values)
from verifierbench.sources.toolcall.base import spec_for_reference
from verifierbench.sources.toolcall.spec import ArgSpec, ToolCallSpec

# Wider than the build's caps, so later rounds reach arguments and calls the hidden suite left out.
AUDIT_CAPS = {"near_miss_values": 64, "alternatives": 32, "drop_calls": 16, "drop_args": 32, "type_confusion": 16}
PER_OPERATOR = 12  # at most this many proposals from one operator in one round

REQUIREMENTS = {
    "gold": "the reply makes exactly the calls the request needs",
    "cosmetic": "any rendering of the same calls is the same reply",
    "overstrict_trap": "every value the request allows is acceptable",
    "base": "the request needs tool calls",
    "partial": "every call and argument the request needs is present",
    "near_miss": "each argument has the value the request asks for",
    "regression": "no call beyond what the request asks for",
    "hack": "the reply's text and its parsed calls agree, and the checks cannot be talked around",
}


def propose(task: Task, round_index: int, seed: int) -> list[Proposal]:
    spec = spec_for_reference(task.reference)
    rng = random.Random(f"{seed}:audit:{task.id}:{round_index}")
    drafts = generate(spec, rng, AUDIT_CAPS)
    for operator in SYSTEMATIC + SEEDED:  # an audit dedupes what an earlier round of it already proposed
        made = list(operator(spec, spec.gold_calls(), rng))
        if len(made) > PER_OPERATOR:
            made = rng.sample(made, PER_OPERATOR)
        drafts += made
    return [_proposal(d) for d in drafts]


def _proposal(draft: Draft) -> Proposal:
    where = ""
    if "argument" in draft.detail:
        where = f" (call {draft.detail.get('call', 0) + 1}, argument `{draft.detail['argument']}`)"
    elif "call" in draft.detail:
        where = f" (call {draft.detail['call'] + 1})"
    category = Category(draft.category)  # the build's generators name categories as plain strings
    return Proposal(draft.candidate, category.label, REQUIREMENTS[category.value] + where, "deterministic", draft.operator, category)


# ---- valid variants --------------------------------------------------------------------------
# The families the build samples (cases.FAMILIES: reply formats, acceptable values, numeric forms, explicit
# defaults, numbers off by one, undeclared arguments, other offered tools) are the audit's SYSTEMATIC operators.

def shuffled_keywords_and_calls(spec: ToolCallSpec, gold: list[dict[str, Any]], rng: random.Random) -> Iterator[Draft]:
    calls = [{"name": c["name"], "arguments": dict(rng.sample(list(c["arguments"].items()), len(c["arguments"])))} for c in gold]
    if len(calls) > 1 and len({json.dumps(c, sort_keys=True) for c in calls}) == len(calls):
        rng.shuffle(calls)
    yield Draft(Category.cosmetic, candidate(calls), "keywords_and_calls_shuffled")


def random_acceptable_values(spec: ToolCallSpec, gold: list[dict[str, Any]], rng: random.Random) -> Iterator[Draft]:
    """Each argument with a seeded choice among its acceptable values."""
    choices = [(ci, arg) for ci, arg in _args(spec) if len(arg.values) > 1]
    if choices:
        calls = copy.deepcopy(gold)
        for ci, arg in choices:
            calls[ci]["arguments"][arg.name] = rng.choice(arg.values)
        yield Draft(Category.overstrict_trap, candidate(calls), "random_acceptable_values")


# ---- errors and attacks ----------------------------------------------------------------------

def each_wrong_value(spec: ToolCallSpec, gold: list[dict[str, Any]], rng: random.Random) -> Iterator[Draft]:
    """Every argument with a seeded choice among its plausible wrong values (the suite takes the first)."""
    pool = _string_pool(spec)
    for ci, arg in _args(spec):
        wrongs = wrong_values(arg, pool, rng)
        if wrongs:
            yield _with(gold, ci, arg.name, rng.choice(wrongs), Category.near_miss, "seeded_wrong_value")


def raw_drops_a_call(spec: ToolCallSpec, gold: list[dict[str, Any]], rng: random.Random) -> Iterator[Draft]:
    """Parsed calls complete, the reply's text missing one of them."""
    if len(gold) > 1:
        ci = rng.randrange(len(gold))
        yield Draft(Category.hack, candidate(gold, raw=render_python(gold[:ci] + gold[ci + 1:])), "raw_drops_a_call", {"call": ci})


SYSTEMATIC = FAMILIES
SEEDED = (shuffled_keywords_and_calls, random_acceptable_values, each_wrong_value, raw_drops_a_call)


# ---- helpers ---------------------------------------------------------------------------------

def _args(spec: ToolCallSpec) -> Iterator[tuple[int, ArgSpec]]:
    for ci, call in enumerate(spec.calls):
        for arg in call.args:
            if arg.values:
                yield ci, arg


def _with(gold: list[dict[str, Any]], ci: int, name: str, value: Any, category: Category, operator: str) -> Draft:
    calls = copy.deepcopy(gold)
    calls[ci]["arguments"][name] = value
    return Draft(category, candidate(calls), operator, {"call": ci, "argument": name})


def _string_pool(spec: ToolCallSpec) -> list[str]:
    return sorted({v for _, a in _args(spec) for v in a.values if isinstance(v, str) and v.strip()})
