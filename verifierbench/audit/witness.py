"""Witnesses: certified proposals (core/proposals.py) the audited verifier decides otherwise."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from verifierbench.core.proposals import candidate_key
from verifierbench.core.schema import Label

# Reviewer verdicts (testjack App. D): only VALID witnesses refute.
VALID, QUESTIONABLE, INVALID = "valid", "questionable", "invalid"
PENDING = "pending"  # certified, not yet reviewed


@dataclass
class Review:
    verdict: str  # VALID / QUESTIONABLE / INVALID
    by: str  # "rule:<why>" or the reviewer model's name
    reason: str = ""


@dataclass
class Witness:
    """A certified proposal: the reference verifier's valid decision equals `label`. Replayable on any trial."""

    task_id: str
    task_hash: str
    candidate: dict
    label: Label
    reference_decision: str  # "P" or "F"
    requirement: str
    auditor: str
    operator: str
    review: Review
    found_on: str | None = None  # verifier hash of the trial it was found on
    category: str | None = None
    key: str = field(default="")

    def __post_init__(self) -> None:
        self.key = self.key or candidate_key(self.candidate)

    @property
    def refutes(self) -> bool:
        return self.review.verdict == VALID

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["label"] = self.label.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Witness":
        return cls(**{**data, "label": Label(data["label"]), "review": Review(**data["review"])})

    def replay_record(self, generated: str) -> dict[str, Any]:
        """What a score reports per witness: enough to replay it and see the disagreement."""
        return {"key": self.key, "candidate": self.candidate, "label": self.label.value, "reference_decision": self.reference_decision,
                "generated_decision": generated, "requirement": self.requirement, "auditor": self.auditor,
                "operator": self.operator, "review": asdict(self.review)}
