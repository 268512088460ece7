"""C1 replay of a task under construction: the source's reference decides every draft.

A draft whose reference decision differs from its construction label is dropped with the reason.
Two disagreements condemn the task instead (paper §2.3, App. B.1):
- on a draft built from a documented default (omitting an argument whose default is, or is not,
  what the request asks for): the answer key conflicts with default-argument rules, code D;
- on the gold answer: the answer key rejects its own gold, code G.
An answer key that accepts an explicit value the tool's schema or description rules out (sources/toolcall/keycheck.py) is
excluded before replay, code K.
A hack draft no naive verifier accepts (C7; the source passes its naive checks, `fooled`) is dropped too.
A task is also excluded (code E) when what survives lacks a positive, a negative or an attack.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from verifierbench.construction.drafts import Draft
from verifierbench.core.schema import Category, Label, Task, TestCase

INERT_HACK = "inert hack: fools no naive verifier (C7)"  # a dropped hack's reason; every other drop is C1's


# (reference record, candidate) -> (PASS?, reason)
Decide = Callable[[dict[str, Any], dict[str, Any]], tuple[bool, str]]
# (reference record, hack candidate) -> the naive checks it fools (screening/potency.py, C7)
Fooled = Callable[[dict[str, Any], dict[str, Any]], list[str]]


@dataclass
class Replayed:
    task: Task
    cases: list[TestCase] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    exclusion: dict[str, Any] | None = None
    notes: dict[str, str] = field(default_factory=dict)  # case families that cannot apply to the task, and why (build record)


def replay(task: Task, drafts: list[Draft], decide: Decide, key_defects: Sequence[dict[str, Any]] = (),
           fooled: Fooled | None = None) -> Replayed:
    """The task's cases: every draft its reference agrees with, or the task's exclusion.

    Args:
        task: the task under construction.
        drafts: its drafts, in generation order.
        decide: the source's reference decision.
        key_defects: the answer key's defects (tool-call tasks: `keycheck.defects`); any excludes the task with
            code K before replay.
        fooled: the source's naive checks of its tasks' hacks (sources/toolcall/naive_checks.py,
            sources/interaction/naive_checks.py); None: the task has none, no hack is dropped as inert.

    Returns:
        The cases kept, the drafts dropped (with their reasons) and the exclusion, if the task is excluded.
    """
    out = Replayed(task)
    name = f"{task.source.value}/{task.source_id}"
    if key_defects:
        out.exclusion = {"task": name, "task_id": task.id, "code": "K", "evidence": {"defects": list(key_defects)}}
        return out
    for draft in drafts:
        category = Category(draft.category)
        accepted, reason = decide(task.reference, draft.candidate)
        decided = Label.PASS if accepted else Label.FAIL
        if decided == category.label and category is Category.hack and fooled is not None and fooled(task.reference, draft.candidate) == []:
            # C7 at build time (issue 37): a hack no naive verifier accepts tests nothing; dropped with the reason
            out.dropped.append({"task": name, "task_id": task.id, "category": category.value, "label": category.label.value,
                                "reference": decided.value, "reason": INERT_HACK, **draft.provenance()})
            continue
        if decided == category.label:
            out.cases.append(TestCase.create(task_id=task.id, category=category, candidate=draft.candidate, provenance=draft.provenance()))
            continue
        evidence = {"category": category.value, "label": category.label.value, "reference": decided.value,
                    "reason": reason, **draft.provenance()}
        if draft.default_rule or category is Category.gold:
            code = "D" if draft.default_rule else "G"
            out.exclusion = {"task": name, "task_id": task.id, "code": code, "evidence": evidence}
            out.cases = []
            return out
        out.dropped.append({"task": name, "task_id": task.id, **evidence})
    labels = {c.label for c in out.cases}
    if Label.PASS not in labels or Label.FAIL not in labels or not any(c.category.is_attack for c in out.cases):
        out.exclusion = {"task": name, "task_id": task.id, "code": "E",
                         "evidence": {"reason": "after C1 the task lacks a positive, a negative or an attack case"}}
        out.cases = []
    return out
