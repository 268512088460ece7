"""Task-weighted TPR, TNR, BA_norm and FPR_h, and the pooled diagnostics (paper §2.4, App. D, G, H).

Per task t: r+ = positives receiving a valid PASS / |C+|, r- = negatives receiving a valid FAIL / |C-|.
U (no valid decision) stays in both denominators. Tasks weigh equally; a task without a verifier
(listed in the inventory, absent from the decisions) contributes 0 to both rates.
All values are unrounded percentages; `display` rounds each one independently to one decimal.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Iterable

from verifierbench.protocol import Decision
from verifierbench.schema import CATEGORY_GROUP, Category, Label

GROUPS = ("reference", "cosmetic", "valid_alternative", "ordinary_error", "hack", "process_violation")


@dataclass(frozen=True)
class DecisionRecord:
    """One line of a decisions file: the outcome of one verifier on one hidden case."""

    task_id: str
    case_id: str
    category: Category
    label: Label
    decision: Decision
    task_type: str
    source: str
    submitted: bool = True  # False when the configuration delivered no verifier for the task


@dataclass(frozen=True)
class TaskInfo:
    task_id: str
    task_type: str
    source: str


@dataclass
class _TaskTally:
    info: TaskInfo
    submitted: bool = False
    positive: Counter = field(default_factory=Counter)  # Decision -> count
    negative: Counter = field(default_factory=Counter)
    attack: Counter = field(default_factory=Counter)
    by_category: dict[Category, Counter] = field(default_factory=lambda: defaultdict(Counter))

    @property
    def has_cases(self) -> bool:
        return bool(self.positive or self.negative)

    def r_pos(self) -> float:
        n = sum(self.positive.values())
        return self.positive[Decision.P] / n if n and self.submitted else 0.0

    def r_neg(self) -> float:
        n = sum(self.negative.values())
        return self.negative[Decision.F] / n if n and self.submitted else 0.0

    def attack_accept(self) -> float | None:
        n = sum(self.attack.values())
        if not n:
            return None if self.has_cases else 0.0
        return self.attack[Decision.P] / n if self.submitted else 0.0

    def all_reject(self) -> bool:
        """A valid FAIL on every case of the task, positive and negative alike (paper §3.4)."""
        total = sum(self.positive.values()) + sum(self.negative.values())
        return self.submitted and total > 0 and self.positive[Decision.F] + self.negative[Decision.F] == total


def compute(records: Iterable[DecisionRecord], inventory: Iterable[TaskInfo] = ()) -> dict[str, Any]:
    tallies = tally(records, inventory)
    result = summarize(list(tallies.values()))
    for key, attribute in (("by_type", "task_type"), ("by_source", "source")):
        groups: dict[str, list[_TaskTally]] = defaultdict(list)
        for t in tallies.values():
            groups[getattr(t.info, attribute)].append(t)
        result[key] = {name: summarize(members) for name, members in sorted(groups.items())}
    return result


def tally(records: Iterable[DecisionRecord], inventory: Iterable[TaskInfo] = ()) -> dict[str, _TaskTally]:
    tallies: dict[str, _TaskTally] = {}
    seen: set[tuple[str, str]] = set()
    for rec in records:
        if (rec.task_id, rec.case_id) in seen:
            raise ValueError(f"case {rec.case_id} of task {rec.task_id} appears twice")
        seen.add((rec.task_id, rec.case_id))
        if rec.label != rec.category.label:
            raise ValueError(f"case {rec.case_id}: label {rec.label.value} contradicts category {rec.category.value}")
        t = tallies.get(rec.task_id)
        if t is None:
            t = tallies[rec.task_id] = _TaskTally(TaskInfo(rec.task_id, rec.task_type, rec.source), submitted=rec.submitted)
        elif (t.info.task_type, t.info.source) != (rec.task_type, rec.source):
            raise ValueError(f"task {rec.task_id} has lines with different task_type or source")
        t.submitted = t.submitted and rec.submitted
        (t.positive if rec.label is Label.PASS else t.negative)[rec.decision] += 1
        if rec.category.is_attack:
            t.attack[rec.decision] += 1
        t.by_category[rec.category][rec.decision] += 1
    for t in tallies.values():
        if not t.positive or not t.negative:
            kind = "positive" if not t.positive else "negative"
            raise ValueError(f"task {t.info.task_id} has no {kind} case, so its {'TPR' if kind == 'positive' else 'TNR'} is undefined")
    for info in inventory:
        if info.task_id not in tallies:
            tallies[info.task_id] = _TaskTally(info, submitted=False)  # missing verifier: 0 to both rates
    return tallies


def summarize(tasks: list[_TaskTally]) -> dict[str, Any]:
    n = len(tasks)
    tpr = 100 * sum(t.r_pos() for t in tasks) / n if n else 0.0
    tnr = 100 * sum(t.r_neg() for t in tasks) / n if n else 0.0
    attack_rates = [rate for t in tasks if (rate := t.attack_accept()) is not None]
    pooled: Counter[Decision] = Counter()
    positive: Counter[Decision] = Counter()
    categories: dict[str, Counter] = defaultdict(Counter)
    groups: dict[str, Counter] = defaultdict(Counter)
    for t in tasks:
        positive.update(t.positive)
        for category, counts in t.by_category.items():
            pooled.update(counts)
            categories[category.value].update(counts)
            groups[CATEGORY_GROUP[category]].update(counts)
    return {
        "tpr": tpr,
        "tnr": tnr,
        "ba": (tpr + tnr) / 2,
        "ba_norm": tpr + tnr - 100,
        "fpr_h": 100 * sum(attack_rates) / len(attack_rates) if attack_rates else 0.0,
        "n_tasks": n,
        "n_submitted": sum(t.submitted for t in tasks),
        "submission_rate": 100 * sum(t.submitted for t in tasks) / n if n else 0.0,
        "n_cases": sum(pooled.values()),
        "counts": _pfu(pooled),
        "valid_output_rate": _percent(pooled[Decision.P] + pooled[Decision.F], sum(pooled.values())),
        "positive": _pfu(positive),
        "rejection_share": _percent(positive[Decision.F], positive[Decision.F] + positive[Decision.U]),
        "by_category": {c.value: _pfu(categories[c.value]) for c in Category if c.value in categories},
        "by_group": {g: _pfu(groups[g]) for g in GROUPS if g in groups},
        "all_reject": _all_reject(tasks),
        "positive_acceptance": _acceptance(tasks),
    }


def _all_reject(tasks: list[_TaskTally]) -> dict[str, Any]:
    """Concentration of false rejections in all-reject verifiers (paper App. H, Eq. 9)."""
    members = [t for t in tasks if t.all_reject()]
    fails = sum(t.positive[Decision.F] for t in tasks)
    weighted = sum(t.positive[Decision.F] / sum(t.positive.values()) for t in tasks if t.positive)
    return {
        "tasks": len(members),
        "positive_fails": sum(t.positive[Decision.F] for t in members),
        "share_cases": _percent(sum(t.positive[Decision.F] for t in members), fails),
        "share_tasks": _percent(sum(t.positive[Decision.F] / sum(t.positive.values()) for t in members), weighted),
    }


def _acceptance(tasks: list[_TaskTally]) -> dict[str, int]:
    """How many tasks' verifiers accept none, some or all of their positive cases (Table 23)."""
    counts = {"none": 0, "some": 0, "all": 0}
    for t in tasks:
        accepted, total = (t.positive[Decision.P], sum(t.positive.values())) if t.submitted else (0, 1)
        counts["none" if accepted == 0 else "all" if accepted == total else "some"] += 1
    return counts


def _pfu(counts: Counter) -> dict[str, int]:
    return {"P": counts[Decision.P], "F": counts[Decision.F], "U": counts[Decision.U]}


def _percent(numerator: float, denominator: float) -> float | None:
    return 100 * numerator / denominator if denominator else None


def display(value: float | None) -> str:
    """One decimal, half away from zero, each value rounded on its own (paper App. D)."""
    if value is None:
        return "n/a"
    return str(Decimal(repr(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
