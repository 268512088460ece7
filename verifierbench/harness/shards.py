"""`-T shard=i/N`: one host's share of the selected tasks, so that an eval-set splits over N hosts (docs/cluster.md).

The N shards of one selection cover it exactly once. Their logs merge into one configuration in `verifierbench
leaderboard` and `paper` (shard is a selection option, like source and task_ids: leaderboard/logs.py).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from verifierbench.core.errors import UserError

if TYPE_CHECKING:
    from verifierbench.core.schema import Task

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


def parse_shard(text: str) -> tuple[int, int]:
    """`"i/N"` as (i, N), 1 <= i <= N.

    Args:
        text: the option's value, e.g. "2/4".

    Returns:
        The shard's number and the number of shards.

    Raises:
        UserError: the text is not i/N with 1 <= i <= N.
    """
    match = _SHARD.fullmatch(str(text))
    if match is None or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise UserError(f"-T shard={text!r}: expected i/N with 1 <= i <= N, e.g. shard=1/4")
    return int(match.group(1)), int(match.group(2))


def shard_of(tasks: list[Task], shard: str) -> list[Task]:
    """Shard i of N: the i-th, (i+N)-th, ... of the selected tasks in task-id order (ids are hashes, so each shard
    mixes sources and types about evenly), kept in the selection's own order.

    Args:
        tasks: the selected tasks.
        shard: "i/N".

    Returns:
        The tasks of this shard.

    Raises:
        UserError: a malformed shard, or one that selects no task (more shards than tasks).
    """
    number, count = parse_shard(shard)
    mine = set(sorted(task.id for task in tasks)[number - 1::count])
    chosen = [task for task in tasks if task.id in mine]
    if not chosen:
        raise UserError(f"-T shard={shard}: no task in this shard (the selection has {len(tasks)} tasks)")
    return chosen
