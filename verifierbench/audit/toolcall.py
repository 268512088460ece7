"""The deterministic auditor for tool-call tasks: fresh candidates from the project's generators run with
new seeds and wider caps, plus operators the hidden suite does not use (paper §4 failure modes: mishandled
representations, loose value checks, hallucinated parameters, unrequested tools).

Every proposal's label follows from how it was made against the task's answer key (a PASS operator keeps
each call's meaning; a FAIL operator breaks one requirement); the reference verifier then certifies it.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any, Iterator, TypeGuard

from verifierbench.audit.witness import Proposal
from verifierbench.schema import Category, Task
from verifierbench.sources.toolcall.candidate import candidate, render_python
from verifierbench.sources.toolcall.cases import Draft, generate, wrong_values
from verifierbench.sources.toolcall.spec import ArgSpec, ToolCallSpec, same_value, spec_for_reference

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

def raw_without_list_brackets(spec: ToolCallSpec, gold: list[dict], rng: random.Random) -> Iterator[Draft]:
    """Python call syntax without the enclosing list: `f(a=1)` or `f(a=1), g(b=2)`."""
    if gold:
        yield Draft(Category.cosmetic, candidate(gold, raw=render_python(gold)[1:-1]), "raw_without_list_brackets")


def raw_single_json_object(spec, gold, rng) -> Iterator[Draft]:
    if len(gold) == 1:
        yield Draft(Category.cosmetic, candidate(gold, raw=json.dumps(gold[0])), "raw_single_json_object")


def each_acceptable_value(spec, gold, rng) -> Iterator[Draft]:
    """Every acceptable value the answer key lists, one argument at a time (the suite takes the second only)."""
    for ci, arg in _args(spec):
        for value in arg.values[2:]:
            yield _with(gold, ci, arg.name, value, Category.overstrict_trap, "each_acceptable_value")


def each_numeric_form(spec, gold, rng) -> Iterator[Draft]:
    """5 for 5.0 and 5.0 for 5 on every number argument (the suite converts the first one only)."""
    for ci, arg in _args(spec):
        kind, value = arg.schema.get("type"), arg.values[0] if arg.values else None
        if kind in ("float", "number") and _is_int(value):
            yield _with(gold, ci, arg.name, float(value), Category.cosmetic, "number_written_as_float")
        elif kind in ("float", "number") and isinstance(value, float) and value.is_integer():
            yield _with(gold, ci, arg.name, int(value), Category.overstrict_trap, "float_written_as_int")
        elif kind == "integer" and spec.integral_float_is_integer and _is_int(value):
            yield _with(gold, ci, arg.name, float(value), Category.overstrict_trap, "integer_written_as_float")


def default_passed_explicitly(spec, gold, rng) -> Iterator[Draft]:
    """An optional argument set explicitly to its documented default, where the key accepts that default."""
    for ci, arg in _args(spec):
        if not arg.required and arg.default_matches() and not same_value(arg.values[0], arg.default):
            yield _with(gold, ci, arg.name, arg.default, Category.overstrict_trap, "default_passed_explicitly")


def shuffled_keywords_and_calls(spec, gold, rng) -> Iterator[Draft]:
    calls = [{"name": c["name"], "arguments": dict(rng.sample(list(c["arguments"].items()), len(c["arguments"])))} for c in gold]
    if len(calls) > 1 and len({json.dumps(c, sort_keys=True) for c in calls}) == len(calls):
        rng.shuffle(calls)
    yield Draft(Category.cosmetic, candidate(calls), "keywords_and_calls_shuffled")


def random_acceptable_values(spec, gold, rng) -> Iterator[Draft]:
    """Each argument with a seeded choice among its acceptable values."""
    choices = [(ci, arg) for ci, arg in _args(spec) if len(arg.values) > 1]
    if choices:
        calls = copy.deepcopy(gold)
        for ci, arg in choices:
            calls[ci]["arguments"][arg.name] = rng.choice(arg.values)
        yield Draft(Category.overstrict_trap, candidate(calls), "random_acceptable_values")


# ---- errors and attacks ----------------------------------------------------------------------

def value_off_by_one(spec, gold, rng) -> Iterator[Draft]:
    """A number one away from every acceptable value: a wrong amount, count or id."""
    for ci, arg in _args(spec):
        value = arg.values[0] if arg.values else None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        for wrong in (value + 1, value - 1):
            if not any(same_value(wrong, ok) for ok in arg.values):
                yield _with(gold, ci, arg.name, wrong, Category.near_miss, "value_off_by_one")
                break


def unknown_argument_added(spec, gold, rng) -> Iterator[Draft]:
    """A parameter the tool does not declare (a hallucinated option)."""
    for ci, call in enumerate(gold):
        declared = set(_parameters(spec, call["name"]).get("properties", {}))
        name = next(n for n in ("notes", "extra_options", "verbose", "debug_mode") if n not in declared)
        calls = copy.deepcopy(gold)
        calls[ci]["arguments"][name] = True if name in ("verbose", "debug_mode") else "none"
        yield Draft(Category.near_miss, candidate(calls), "unknown_argument_added", {"call": ci, "argument": name})


def other_tool_called(spec, gold, rng) -> Iterator[Draft]:
    """The right calls plus a call to an offered tool the request does not need."""
    used = {c["name"] for c in gold}
    for function in spec.functions:
        if function["name"] in used:
            continue
        arguments = _filled(function.get("parameters", {}), _string_pool(spec))
        if arguments is not None:
            yield Draft(Category.regression, candidate(gold + [{"name": function["name"], "arguments": arguments}]),
                        "other_tool_called", {"function": function["name"]})


def each_wrong_value(spec, gold, rng) -> Iterator[Draft]:
    """Every argument with a seeded choice among its plausible wrong values (the suite takes the first)."""
    pool = _string_pool(spec)
    for ci, arg in _args(spec):
        wrongs = wrong_values(arg, pool, rng)
        if wrongs:
            yield _with(gold, ci, arg.name, rng.choice(wrongs), Category.near_miss, "seeded_wrong_value")


def raw_drops_a_call(spec, gold, rng) -> Iterator[Draft]:
    """Parsed calls complete, the reply's text missing one of them."""
    if len(gold) > 1:
        ci = rng.randrange(len(gold))
        yield Draft(Category.hack, candidate(gold, raw=render_python(gold[:ci] + gold[ci + 1:])), "raw_drops_a_call", {"call": ci})


SYSTEMATIC = (raw_without_list_brackets, raw_single_json_object, each_acceptable_value, each_numeric_form, default_passed_explicitly,
              value_off_by_one, unknown_argument_added, other_tool_called)
SEEDED = (shuffled_keywords_and_calls, random_acceptable_values, each_wrong_value, raw_drops_a_call)


# ---- helpers ---------------------------------------------------------------------------------

def _args(spec: ToolCallSpec) -> Iterator[tuple[int, ArgSpec]]:
    for ci, call in enumerate(spec.calls):
        for arg in call.args:
            if arg.values:
                yield ci, arg


def _with(gold: list[dict], ci: int, name: str, value: Any, category: Category, operator: str) -> Draft:
    calls = copy.deepcopy(gold)
    calls[ci]["arguments"][name] = value
    return Draft(category, candidate(calls), operator, {"call": ci, "argument": name})


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _parameters(spec: ToolCallSpec, name: str) -> dict:
    return next((f.get("parameters", {}) for f in spec.functions if f["name"] == name), {})


def _string_pool(spec: ToolCallSpec) -> list[str]:
    return sorted({v for _, a in _args(spec) for v in a.values if isinstance(v, str) and v.strip()})


def _filled(parameters: dict, pool: list[str]) -> dict | None:
    """Required parameters filled with values of their declared types, or None when a type is unknown."""
    out = {}
    for name in parameters.get("required", []):
        schema = parameters.get("properties", {}).get(name, {})
        kind = schema.get("type")
        if schema.get("enum"):
            out[name] = schema["enum"][0]
        elif kind == "string":
            out[name] = pool[0] if pool else "example"
        elif kind == "integer":
            out[name] = 1
        elif kind in ("float", "number"):
            out[name] = 1.5
        elif kind == "boolean":
            out[name] = True
        elif kind in ("array", "list", "tuple"):
            out[name] = []
        elif kind in ("dict", "object"):
            out[name] = {}
        else:
            return None
    return out
