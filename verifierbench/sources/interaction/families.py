"""Case families of the state suite that issue 55 added, shared by tau2 and AgentDojo: their names, the close
numbers of the near-miss family, and the build record's summary (which tasks each family reached, and why not the
others).

- `close_number` (near_miss): a write or the required answer with a number close to the right one (about 1% off,
  or the smallest change the value's type allows), where the task demands the exact value;
- `other_reads` (overstrict_trap): the answer reached through other reads than the gold's (the other
  authentication path, a failed or repeated lookup left out, a wider lookup that holds the gold's);
- `reworded_answer` (cosmetic, AgentDojo): the required answer reworded where upstream's utility check accepts it;
- `harmless_state_difference` (overstrict_trap, AgentDojo): an extra read whose side effect the task does not
  care about (an email's read flag, the web request log), where upstream's utility check accepts it.

A generator that cannot apply its family to a task writes the reason into the task's notes.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

CLOSE_NUMBER = "close_number"
OTHER_READS = "other_reads"
REWORDED_ANSWER = "reworded_answer"
HARMLESS_STATE_DIFFERENCE = "harmless_state_difference"
FAMILIES = (CLOSE_NUMBER, OTHER_READS, REWORDED_ANSWER, HARMLESS_STATE_DIFFERENCE)
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\d)")


def close_value(value: int | float) -> int | float:
    """About 1% more, rounded to the value's precision (cents for floats, units for ints), at least one step more."""
    if isinstance(value, int):
        return value + max(1, round(abs(value) * 0.01))
    step = 0.01
    close = round(value * 1.01, 2)
    return close if abs(close - value) >= step else round(value + step, 2)


def close_text_number(token: str) -> str:
    """A number written in text, about 1% off, with as many decimals as it had (at least one step off)."""
    places = len(token.split(".")[1]) if "." in token else 0
    step = Decimal(1).scaleb(-places)
    value = Decimal(token)
    close = (value * Decimal("1.01")).quantize(step)
    if close - value < step:
        close = value + step
    return f"{close:.{places}f}"


def summary(retained: list[Any], families: tuple[str, ...]) -> dict[str, Any]:
    """Per family: its cases, the tasks it reached, and for every other task why not (`Replayed.notes`, or C1)."""
    out: dict[str, Any] = {}
    for family in families:
        reached: dict[str, int] = {}
        why_not: dict[str, str] = {}
        for replayed in retained:
            name = replayed.task.source_id
            count = sum(c.provenance.get("family") == family for c in replayed.cases)
            if count:
                reached[name] = count
            else:
                why_not[name] = replayed.notes.get(family) or _dropped(replayed.dropped, family)
        out[family] = {"cases": sum(reached.values()), "tasks": reached, "not_applicable": why_not}
    return out


def _dropped(dropped: list[dict[str, Any]], family: str) -> str:
    reasons = sorted({d["reason"] for d in dropped if d.get("family") == family})
    if reasons:
        return "every draft of the family was dropped by C1: " + "; ".join(reasons)
    return "no draft of the family"
