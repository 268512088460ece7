"""Canonical JSON, content hashes and the content-derived ids of tasks and cases."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    """One fixed text for a JSON value: sorted keys, no spaces, unicode kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def content_hash(value: Any) -> str:
    """`sha256:<hex>` of the canonical JSON of a value."""
    return "sha256:" + hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def _short(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()[:16]


def task_id_for(source: str, source_id: str) -> str:
    """Task ids depend on where the task comes from only, so they stay stable across rebuilds."""
    return f"vgb-t-{_short(['task', source, source_id])}"


def case_id_for(task_id: str, category: str, candidate: Any) -> str:
    """Case ids depend on the task, the category and the candidate itself."""
    return f"vgb-c-{_short(['case', task_id, category, candidate])}"
