"""Proposals: what a source's deterministic auditor makes of its drafts (`Source.auditor`), a candidate with
the label the auditor intends and the requirement it targets. The audit certifies each through the reference and keeps
a certified one as a witness (audit/witness.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verifierbench.core.hashing import content_hash
from verifierbench.core.schema import Category, Label


def candidate_key(candidate: Any) -> str:
    """Identity of a candidate across the hidden suite, the pool and new proposals."""
    return content_hash(candidate)


@dataclass
class Proposal:
    """A candidate an auditor wrote, with the label it intends and the requirement it targets."""

    candidate: dict[str, Any]
    label: Label
    requirement: str
    auditor: str  # "deterministic" or "llm"
    operator: str
    category: Category | None = None

    @property
    def key(self) -> str:
        return candidate_key(self.candidate)
