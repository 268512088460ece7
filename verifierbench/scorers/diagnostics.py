"""What the score metadata says about a U: why no verifier was delivered, or how a delivered one failed.

A sample without a verifier gets one line: the harness's own record (no code block, unclosed fence,
wrong language, no submit, the model's length stop, a rejected request), else the sample limit that
ended generation, else what the store knows. A delivered verifier's U cases are grouped by distinct
failure (the problem and the last stderr line); the first case of each keeps a bounded stderr tail.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from inspect_ai.util import sample_limits, store

from verifierbench.harness.agents import GENERATION_END
from verifierbench.harness.prompt import VERIFIER_PATH
from verifierbench.harness.tools import SUBMITTED
from verifierbench.core.protocol import Decision

MAX_FAILURES = 5  # distinct failures kept per sample
MAX_STDERR_BYTES = 2048  # of each one's stderr tail
LIMIT_UNITS = {"message": "messages", "turn": "turns", "token": "tokens", "time": "s", "working": "s", "cost": "USD"}


class Judged(NamedTuple):
    """One judgment of one case: the decision, why it is U, and the verifier's stderr tail."""

    decision: Decision
    problem: str | None = None
    stderr_tail: str = ""


def undelivered_reason(skipped: list[str]) -> str:
    """One line: why the sample has no verifier to judge.

    Args:
        skipped: delivered files left out (too large, unreadable), from harness/freeze.py collect.
    """
    recorded = store().get(GENERATION_END)
    if recorded:
        return str(recorded)
    limit = limit_hit()
    if limit:
        return limit
    if skipped:
        return f"no {VERIFIER_PATH} kept: " + "; ".join(skipped[:3])
    if store().get(SUBMITTED, False):
        return f"submit was called, but {VERIFIER_PATH} was never written"
    return f"no {VERIFIER_PATH} written"


def limit_hit() -> str:
    """The sample limit generation reached ('message limit hit (40 messages)'), or '' (none, or no sample)."""
    try:
        limits = sample_limits()
    except (RuntimeError, LookupError):  # re-scoring outside a running sample
        return ""
    for name in LIMIT_UNITS:
        limit = getattr(limits, name, None)
        if limit is not None and limit.limit is not None and limit.usage >= limit.limit:
            return f"{name} limit hit ({limit.limit:g} {LIMIT_UNITS[name]})"
    return ""


def failures(case_ids: list[str], first_round: dict[str, Judged]) -> list[dict[str, Any]]:
    """The distinct failures among the U cases of the first round, at most MAX_FAILURES, in case order.

    Args:
        case_ids: the task's hidden cases, in suite order.
        first_round: each case's first judgment.
    """
    grouped: dict[tuple[str, str], dict[str, Any]] = {}
    for case_id in case_ids:
        judged = first_round[case_id]
        if judged.decision is not Decision.U:
            continue
        key = (judged.problem or "", last_line(judged.stderr_tail))
        if key in grouped:
            grouped[key]["cases"] += 1
        elif len(grouped) < MAX_FAILURES:
            grouped[key] = {"problem": judged.problem or "", "first_case": case_id, "cases": 1,
                            "stderr_tail": bounded_tail(judged.stderr_tail)}
    return list(grouped.values())


def last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1].strip() if lines else ""


def bounded_tail(text: str) -> str:
    """The last MAX_STDERR_BYTES bytes of `text` (UTF-8), starting on a whole character."""
    data = text.encode("utf-8", errors="replace")
    return data[-MAX_STDERR_BYTES:].decode("utf-8", errors="ignore") if len(data) > MAX_STDERR_BYTES else text
