"""Case drafts: what a source's generators make before C1 replay decides which become test cases.

A draft is a category, a candidate and how it was made. Its label comes from the category (the task's
requirements); generators never consult the reference. Every source makes its drafts the same way
(`collect_drafts`: the gold first, then each generator in a fixed order) and drops repeated candidates the same
way (`dedupe`: the first draft of a candidate is kept).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ParamSpec

P = ParamSpec("P")


@dataclass
class Draft:
    category: str
    candidate: dict[str, Any]
    operator: str
    detail: dict[str, Any] = field(default_factory=dict)
    default_rule: bool = False  # built from a documented default: a disagreement here means key vs default conflict

    def provenance(self) -> dict[str, Any]:
        return {"operator": self.operator, **self.detail, **({"default_rule": True} if self.default_rule else {})}


# What makes two drafts the same candidate (for `dedupe`).
DraftKey = Callable[[Draft], str]


def same_json(draft: Draft) -> str:
    """The candidate as JSON with sorted keys: two drafts are one when their candidates are equal JSON values."""
    return json.dumps(draft.candidate, sort_keys=True)


def collect_drafts(gold: Draft, generators: Sequence[Callable[P, Iterable[Draft]]], *args: P.args, **kwargs: P.kwargs) -> list[Draft]:
    """The gold draft, then every generator's drafts.

    Args:
        gold: the draft of the task's gold answer; it comes first, so `dedupe` keeps it over any equal candidate.
        generators: called in this order, each once, with `args` and `kwargs`; a seeded RNG among the arguments
            is drawn from in this order, so the order is part of what a seed builds.
        *args: the generators' arguments (the task's data, its RNG, its caps).
        **kwargs: the generators' keyword arguments.

    Returns:
        Every draft, in generation order (repeated candidates included: see `dedupe`).
    """
    drafts = [gold]
    for generate in generators:
        drafts += generate(*args, **kwargs)
    return drafts


def dedupe(drafts: Iterable[Draft], key: DraftKey = same_json) -> list[Draft]:
    """The drafts with repeated candidates dropped: the first draft of each candidate is kept, in order.

    Args:
        drafts: in generation order.
        key: what makes two drafts one candidate; `same_json` unless a source's candidates differ in what JSON
            equality ignores (tool-call arguments' key order).

    Returns:
        The kept drafts, in their order.
    """
    seen: set[str] = set()
    kept: list[Draft] = []
    for draft in drafts:
        identity = key(draft)
        if identity not in seen:
            seen.add(identity)
            kept.append(draft)
    return kept
