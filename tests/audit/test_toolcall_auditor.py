"""The deterministic tool-call auditor's operators on a hand-made answer key: each makes the candidate its
label promises, and proposals are reproducible per (task, round, seed) and differ across rounds."""

from __future__ import annotations

import random

from verifierbench.sources.toolcall import audit as toolcall
from verifierbench.core.schema import Category, Label
from verifierbench.sources.toolcall.candidate import parse_raw, read_candidate, same_calls
from verifierbench.sources.toolcall.spec import ArgSpec, CallSpec, ToolCallSpec

FUNCTIONS = [
    {"name": "book", "parameters": {"type": "dict", "required": ["city", "nights"], "properties": {
        "city": {"type": "string"}, "nights": {"type": "integer"},
        "currency": {"type": "string", "description": "Currency code. Default is 'USD'."}}}},
    {"name": "cancel", "parameters": {"type": "dict", "required": ["booking_id"], "properties": {"booking_id": {"type": "integer"}}}},
]
SPEC = ToolCallSpec(FUNCTIONS, (CallSpec("book", (
    ArgSpec("city", ("Paris", "paris, france", "Paris, FR"), False, True, {"type": "string"}),
    ArgSpec("nights", (3,), False, True, {"type": "integer"}),
    ArgSpec("currency", ("EUR", "USD"), True, False, {"type": "string"}, "USD"),
)),))
GOLD = SPEC.gold_calls()
RNG = random.Random(0)


def made(operator):
    return list(operator(SPEC, GOLD, RNG))


def test_valid_rewrites_keep_the_calls():
    (bare,) = made(toolcall.raw_without_list_brackets)
    assert not bare.candidate["raw"].startswith("[") and same_calls(parse_raw(bare.candidate["raw"]), GOLD)
    (single,) = made(toolcall.raw_single_json_object)
    assert single.candidate["raw"].startswith("{") and read_candidate(single.candidate) == GOLD
    values = made(toolcall.each_acceptable_value)
    assert [d.candidate["parsed"][0]["arguments"]["city"] for d in values] == ["Paris, FR"]  # the suite uses index 1 only
    (explicit,) = made(toolcall.default_passed_explicitly)
    assert explicit.candidate["parsed"][0]["arguments"]["currency"] == "USD" and Category(explicit.category).label is Label.PASS


def test_errors_break_exactly_one_requirement():
    (off,) = made(toolcall.value_off_by_one)
    assert off.candidate["parsed"][0]["arguments"]["nights"] == 4 and Category(off.category) is Category.near_miss
    (unknown,) = made(toolcall.unknown_argument_added)
    added = set(unknown.candidate["parsed"][0]["arguments"]) - set(GOLD[0]["arguments"])
    assert len(added) == 1 and not added & set(FUNCTIONS[0]["parameters"]["properties"])
    (other,) = made(toolcall.other_tool_called)
    assert other.candidate["parsed"][-1] == {"name": "cancel", "arguments": {"booking_id": 1}}
    assert Category(other.category) is Category.regression and other.candidate["parsed"][:-1] == GOLD


def test_proposals_are_reproducible_and_rounds_differ(bfcl_suite):
    from verifierbench.suite.store import load_suite

    suite = load_suite(bfcl_suite)
    task = suite.tasks[sorted(suite.tasks)[0]]
    keys = lambda r, seed=0: [p.key for p in toolcall.propose(task, r, seed)]
    assert keys(0) == keys(0)
    assert keys(0) != keys(1) and keys(0) != keys(0, seed=1)
    assert all(p.label is (p.category.label) and p.requirement for p in toolcall.propose(task, 0, 0))
