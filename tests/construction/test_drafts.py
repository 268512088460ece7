"""The construction kernel's drafts: the gold-plus-generators loop and the one dedupe every source uses."""

from __future__ import annotations

import random

from verifierbench.construction.drafts import Draft, collect_drafts, dedupe, same_json


def test_the_gold_comes_first_then_each_generator_in_order_with_the_same_arguments():
    calls: list[str] = []

    def first(rng: random.Random, note: str) -> list[Draft]:
        calls.append(f"first {note}")
        return [Draft("base", {"n": rng.randrange(100)}, "first")]

    def second(rng: random.Random, note: str) -> list[Draft]:
        calls.append(f"second {note}")
        return [Draft("hack", {"n": rng.randrange(100)}, "second")]

    drafts = collect_drafts(Draft("gold", {"n": -1}, "gold"), (first, second), random.Random(3), "x")
    rng = random.Random(3)
    assert [d.candidate["n"] for d in drafts] == [-1, rng.randrange(100), rng.randrange(100)]  # one RNG, in order
    assert calls == ["first x", "second x"] and [d.operator for d in drafts] == ["gold", "first", "second"]


def test_dedupe_keeps_the_first_draft_of_each_candidate_in_order():
    drafts = [Draft("gold", {"a": 1, "b": [1, 2]}, "gold"), Draft("cosmetic", {"b": [1, 2], "a": 1}, "reordered"),
              Draft("base", {"a": 2}, "other"), Draft("near_miss", {"a": 2}, "again")]
    assert [d.operator for d in dedupe(drafts)] == ["gold", "other"]  # JSON equality: key order ignored
    assert same_json(drafts[0]) == same_json(drafts[1])


def test_a_key_function_decides_what_is_the_same_candidate():
    drafts = [Draft("gold", {"a": 1, "b": 2}, "gold"), Draft("cosmetic", {"b": 2, "a": 1}, "reordered")]
    assert [d.operator for d in dedupe(drafts, key=lambda d: repr(list(d.candidate.items())))] == ["gold", "reordered"]
