"""Seeded selection with screening: walk a shuffled pool per category until each quota is met."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from verifierbench.construction.replay import Replayed


@dataclass
class Selection:
    retained: list[Replayed] = field(default_factory=list)
    excluded: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    record: dict[str, Any] = field(default_factory=dict)  # for the manifest: seed, quotas, forced ids, order walked


def select(
    pools: dict[str, list[str]],
    quotas: dict[str, int],
    forced: Iterable[str],
    seed: int,
    source: str,
    construct: Callable[[str, str], Replayed],
) -> Selection:
    """The tasks of one source (or one part of it), screened in seeded order.

    Forced ids are screened first (and recorded if excluded), then each category's pool is walked in seeded
    order until its quota is met.

    Args:
        pools: upstream ids by category.
        quotas: tasks to retain per category; the categories walked, in this order.
        forced: ids screened first wherever their category's pool holds them (retained beyond the quota).
        seed: the build's seed.
        source: names the walk in the seeded order, so two selections of one build shuffle differently.
        construct: `construct(category, upstream id)` builds and replays one task.

    Returns:
        The retained tasks, the exclusions, the dropped drafts, and the record for the manifest.
    """
    result = Selection(record={"seed": seed, "quotas": dict(quotas), "forced": list(forced)})
    forced = list(forced)
    taken = {cat: 0 for cat in quotas}
    walked: dict[str, list[str]] = {}
    for cat in quotas:
        order = sorted(pools[cat])
        random.Random(f"{seed}:{source}:{cat}").shuffle(order)
        ordered = [i for i in forced if i in pools[cat]] + [i for i in order if i not in forced]
        walked[cat] = []
        for upstream_id in ordered:
            if taken[cat] >= quotas[cat] and upstream_id not in forced:
                break
            walked[cat].append(upstream_id)
            replayed = construct(cat, upstream_id)
            result.dropped += replayed.dropped
            if replayed.exclusion:
                result.excluded.append(replayed.exclusion)
            else:
                result.retained.append(replayed)
                taken[cat] += 1
    result.record["walked"] = walked
    result.record["selected"] = {cat: [r.task.source_id for r in result.retained if r.task.source_id in walked[cat]] for cat in quotas}
    return result
