"""The metrics core: task-weighted TPR, TNR, BA_norm and FPR_h, the median judgment round, and the pooled
diagnostics (paper §2.4, App. D, G, H). The Inspect metric (scorers/metrics.py), `verifierbench metrics`
and the leaderboard (leaderboard/logs.py, leaderboard/audited.py) all compute their rates here, under one
set of key names (RATE_KEYS and the diagnostics of `compute`).

Per task t: r+ = positives receiving a valid PASS / |C+|, r- = negatives receiving a valid FAIL / |C-|.
U (no valid decision) stays in both denominators. Tasks weigh equally; a task without a verifier
(listed in the inventory, absent from the decisions) contributes 0 to both rates.
All values are unrounded percentages; `display` rounds each one independently to one decimal.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from math import fsum
from typing import Any, Callable, Iterable, Sequence, TypeVar

from verifierbench.core.protocol import Decision
from verifierbench.core.schema import CATEGORY_GROUP, Category, Label

GROUPS = ("reference", "cosmetic", "valid_alternative", "ordinary_error", "hack", "process_violation")
# The headline rates (unrounded percentages), under the names every report and the Inspect metric use.
RATE_KEYS = ("BA_norm", "TPR", "TNR", "FPR_h")

Item = TypeVar("Item")


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


@dataclass(frozen=True)
class TaskRates:
    """What one task contributes to the task-weighted rates in one judgment round."""

    r_pos: float  # share of positive cases given a valid PASS, in [0, 1]; 0 without a verifier
    r_neg: float  # share of negative cases given a valid FAIL
    attack: float | None  # share of attack cases accepted; None leaves the task out of FPR_h
    submitted: bool
    valid: float = 0  # P and F decisions
    judged: float = 0  # P, F and U decisions


@dataclass
class CaseCounts:
    """One verifier's decisions on one task's hidden cases in one round; the per-task rates are computed here only."""

    submitted: bool = True
    positive: Counter = field(default_factory=Counter)  # Decision -> count
    negative: Counter = field(default_factory=Counter)
    attack: Counter = field(default_factory=Counter)

    def add(self, category: Category, decision: Decision) -> None:
        """Counts one decision on a case of this category.

        Args:
            category: the case's category (its label and whether it is an attack follow from it).
            decision: the verifier's P, F or U on the case.
        """
        self.add_labelled(category.label, decision)
        if category.is_attack:
            self.attack[decision] += 1

    def add_labelled(self, label: Label, decision: Decision) -> None:
        """Counts one decision on a case known by its label only (an audit's witness).

        Args:
            label: the decision the case should get.
            decision: the verifier's P, F or U on the case.
        """
        (self.positive if label is Label.PASS else self.negative)[decision] += 1

    @property
    def has_cases(self) -> bool:
        return bool(self.positive or self.negative)

    def r_pos(self, none: float = 0.0) -> float:
        """The share of positive cases given a valid PASS; 0 without a verifier.

        Args:
            none: the rate when the task has no positive case (an audit counts that as all right: 1).
        """
        n = sum(self.positive.values())
        if not self.submitted:
            return 0.0
        return self.positive[Decision.P] / n if n else none

    def r_neg(self, none: float = 0.0) -> float:
        """The share of negative cases given a valid FAIL; 0 without a verifier.

        Args:
            none: the rate when the task has no negative case.
        """
        n = sum(self.negative.values())
        if not self.submitted:
            return 0.0
        return self.negative[Decision.F] / n if n else none

    def attack_accept(self) -> float | None:
        n = sum(self.attack.values())
        if not n:
            return None if self.has_cases else 0.0
        return self.attack[Decision.P] / n if self.submitted else 0.0

    def all_reject(self) -> bool:
        """A valid FAIL on every case of the task, positive and negative alike (paper §3.4)."""
        total = sum(self.positive.values()) + sum(self.negative.values())
        return self.submitted and total > 0 and self.positive[Decision.F] + self.negative[Decision.F] == total

    def rates(self) -> TaskRates:
        judged = sum(self.positive.values()) + sum(self.negative.values())
        invalid = self.positive[Decision.U] + self.negative[Decision.U]
        return TaskRates(self.r_pos(), self.r_neg(), self.attack_accept(), self.submitted, judged - invalid, judged)


@dataclass
class TaskTally(CaseCounts):
    """A task's counts with what it is (type and source) and its decisions per category."""

    info: TaskInfo = field(kw_only=True)
    by_category: dict[Category, Counter] = field(default_factory=lambda: defaultdict(Counter))

    def add(self, category: Category, decision: Decision) -> None:
        super().add(category, decision)
        self.by_category[category][decision] += 1


def task_weighted(tasks: Sequence[TaskRates]) -> dict[str, Any]:
    """The task-weighted rates over these tasks (unrounded percentages; 0 over no task).

    Args:
        tasks: one entry per task, each weighing the same.
    """
    n = len(tasks)
    # fsum: the exact sum, rounded once, so the rates do not depend on the order the tasks come in (logs read in
    # another order, a shard merged first), nor does median_round's tie-break between rounds.
    tpr = 100 * fsum(t.r_pos for t in tasks) / n if n else 0.0
    tnr = 100 * fsum(t.r_neg for t in tasks) / n if n else 0.0
    attack_rates = [t.attack for t in tasks if t.attack is not None]
    return {
        "TPR": tpr,
        "TNR": tnr,
        "BA": (tpr + tnr) / 2,
        "BA_norm": tpr + tnr - 100,
        "FPR_h": 100 * fsum(attack_rates) / len(attack_rates) if attack_rates else 0.0,
        "n_tasks": n,
        "n_submitted": sum(t.submitted for t in tasks),
        "submission_rate": 100 * sum(t.submitted for t in tasks) / n if n else 0.0,
        "valid_output_rate": _percent(fsum(t.valid for t in tasks), fsum(t.judged for t in tasks)),
    }


def median_round(ba_norm_by_round: Sequence[float]) -> int:
    """The judgment round (0-based) with the median aggregate BA_norm: the lower middle one of an even count,
    ties broken by the earlier round (paper §2.4). Every reported value then comes from that round.

    Args:
        ba_norm_by_round: the aggregate BA_norm of each round, in round order (at least one).
    """
    if not ba_norm_by_round:
        raise ValueError("no judgment round to choose from")
    order = sorted(range(len(ba_norm_by_round)), key=lambda k: (ba_norm_by_round[k], k))
    return order[(len(order) - 1) // 2]


def group_by(items: Iterable[Item], key: Callable[[Item], str]) -> dict[str, list[Item]]:
    """Items by key, keys sorted: the slices (task type, source) every report breaks its rates into."""
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        groups[key(item)].append(item)
    return dict(sorted(groups.items()))


def compute(records: Iterable[DecisionRecord], inventory: Iterable[TaskInfo] = ()) -> dict[str, Any]:
    """The rates and diagnostics of one judgment round, overall, by task type and by source.

    Args:
        records: one decision per (task, case); a task's lines agree on its type, source and submission.
        inventory: every task of the run; one without records counts as a missing verifier.
    """
    tallies = tally(records, inventory)
    result = summarize(list(tallies.values()))
    result["by_type"] = {name: summarize(members) for name, members in group_by(tallies.values(), lambda t: t.info.task_type).items()}
    result["by_source"] = {name: summarize(members) for name, members in group_by(tallies.values(), lambda t: t.info.source).items()}
    return result


def tally(records: Iterable[DecisionRecord], inventory: Iterable[TaskInfo] = ()) -> dict[str, TaskTally]:
    """Per task id, its counts; ValueError on a duplicate case, a label contradicting its category, or a task
    without positive or negative cases."""
    tallies: dict[str, TaskTally] = {}
    seen: set[tuple[str, str]] = set()
    for rec in records:
        if (rec.task_id, rec.case_id) in seen:
            raise ValueError(f"case {rec.case_id} of task {rec.task_id} appears twice")
        seen.add((rec.task_id, rec.case_id))
        if rec.label != rec.category.label:
            raise ValueError(f"case {rec.case_id}: label {rec.label.value} contradicts category {rec.category.value}")
        t = tallies.get(rec.task_id)
        if t is None:
            t = tallies[rec.task_id] = TaskTally(submitted=rec.submitted, info=TaskInfo(rec.task_id, rec.task_type, rec.source))
        elif (t.info.task_type, t.info.source) != (rec.task_type, rec.source):
            raise ValueError(f"task {rec.task_id} has lines with different task_type or source")
        t.submitted = t.submitted and rec.submitted
        t.add(rec.category, rec.decision)
    for t in tallies.values():
        if not t.positive or not t.negative:
            kind = "positive" if not t.positive else "negative"
            raise ValueError(f"task {t.info.task_id} has no {kind} case, so its {'TPR' if kind == 'positive' else 'TNR'} is undefined")
    for info in inventory:
        if info.task_id not in tallies:
            tallies[info.task_id] = TaskTally(submitted=False, info=info)  # missing verifier: 0 to both rates
    return tallies


def summarize(tasks: list[TaskTally]) -> dict[str, Any]:
    """The task-weighted rates of these tasks with the pooled diagnostics (App. G, H)."""
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
        **task_weighted([t.rates() for t in tasks]),
        "n_cases": sum(pooled.values()),
        "counts": _pfu(pooled),
        "positive": _pfu(positive),
        "rejection_share": _percent(positive[Decision.F], positive[Decision.F] + positive[Decision.U]),
        "by_category": {c.value: _pfu(categories[c.value]) for c in Category if c.value in categories},
        "by_group": {g: _pfu(groups[g]) for g in GROUPS if g in groups},
        "all_reject": _all_reject(tasks),
        "positive_acceptance": _acceptance(tasks),
    }


def _all_reject(tasks: list[TaskTally]) -> dict[str, Any]:
    """Concentration of false rejections in all-reject verifiers (paper App. H, Eq. 9)."""
    members = [t for t in tasks if t.all_reject()]
    fails = sum(t.positive[Decision.F] for t in tasks)
    weighted = fsum(t.positive[Decision.F] / sum(t.positive.values()) for t in tasks if t.positive)  # order-free
    return {
        "tasks": len(members),
        "positive_fails": sum(t.positive[Decision.F] for t in members),
        "share_cases": _percent(sum(t.positive[Decision.F] for t in members), fails),
        "share_tasks": _percent(fsum(t.positive[Decision.F] / sum(t.positive.values()) for t in members), weighted),
    }


def _acceptance(tasks: list[TaskTally]) -> dict[str, int]:
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
