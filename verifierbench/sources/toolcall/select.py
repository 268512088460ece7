"""Seeded selection with screening: walk a shuffled pool per category until each quota is met."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Iterable

from verifierbench.sources.toolcall.replay import Replayed


@dataclass
class Selection:
    retained: list[Replayed] = field(default_factory=list)
    excluded: list[dict] = field(default_factory=list)
    dropped: list[dict] = field(default_factory=list)
    record: dict = field(default_factory=dict)  # for the manifest: seed, quotas, forced ids, order walked


def select(
    pools: dict[str, list[str]],
    quotas: dict[str, int],
    forced: Iterable[str],
    seed: int,
    source: str,
    construct: Callable[[str, str], Replayed],
) -> Selection:
    """`construct(category, upstream id)` builds and replays one task. Forced ids are screened first (and
    recorded if excluded), then each category's pool is walked in seeded order until its quota is met."""
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
