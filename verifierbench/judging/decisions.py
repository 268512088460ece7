"""Decisions files (JSONL, one line per verifier run on a hidden case) and task inventories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from verifierbench.core.errors import UserError
from verifierbench.core.jsonl import read_jsonl
from verifierbench.core.metrics import DecisionRecord, TaskInfo
from verifierbench.core.protocol import Decision
from verifierbench.core.schema import Category, Label, TaskType
from verifierbench.sources import registry

DECISION_FIELDS = ("task_id", "case_id", "category", "label", "decision", "task_type", "source")
TASK_TYPES = tuple(t.value for t in TaskType)


def read_decisions(path: str | Path) -> list[DecisionRecord]:
    records = []
    for where, data in read_jsonl(path):
        missing = [name for name in DECISION_FIELDS if name not in data]
        if missing:
            raise UserError(f"{where}: field '{missing[0]}' is missing")
        try:
            category = Category(data["category"])
        except ValueError:
            raise UserError(f"{where}: field 'category': unknown category {data['category']!r} (expected one of {', '.join(c.value for c in Category)})") from None
        try:
            label = Label(data["label"])
        except ValueError:
            raise UserError(f"{where}: field 'label': must be PASS or FAIL, got {data['label']!r}") from None
        try:
            decision = Decision(data["decision"])
        except ValueError:
            raise UserError(f"{where}: field 'decision': must be P, F or U, got {data['decision']!r}") from None
        if label != category.label:
            raise UserError(f"{where}: field 'label': {label.value} contradicts category {category.value}")
        submitted = data.get("submitted", True)
        if not isinstance(submitted, bool):
            raise UserError(f"{where}: field 'submitted': must be true or false")
        records.append(DecisionRecord(
            task_id=_text(data, "task_id", where), case_id=_text(data, "case_id", where), category=category, label=label,
            decision=decision, task_type=_member(data, "task_type", where, TASK_TYPES), source=_member(data, "source", where, registry.NAMES),
            submitted=submitted,
        ))
    return records


def read_inventory(path: str | Path) -> list[TaskInfo]:
    tasks = []
    for where, data in read_jsonl(path):
        tasks.append(TaskInfo(_text(data, "task_id", where), _member(data, "task_type", where, TASK_TYPES), _member(data, "source", where, registry.NAMES)))
    return tasks


def _member(data: dict[str, Any], name: str, where: str, choices: tuple[str, ...]) -> str:
    """A task type or source: an unknown one would open a slice of its own in the report, like a typo'd category."""
    value = _text(data, name, where)
    if value not in choices:
        raise UserError(f"{where}: field '{name}': unknown {name.replace('_', ' ')} {value!r} (expected one of {', '.join(choices)})")
    return value


def _text(data: dict[str, Any], name: str, where: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not value:
        raise UserError(f"{where}: field '{name}' must be a non-empty string")
    return value
