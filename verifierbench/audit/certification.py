"""Certifying auditor proposals: a proposal becomes a witness candidate when it is well-formed, new (not in the hidden
suite, the pool or an earlier round) and the reference verifier confirms its intended label. Used by the audit
rounds (audit/engine.py) and the task analysis pass (audit/analysis.py)."""

from __future__ import annotations

from typing import Any

from verifierbench.audit.witness import PENDING, Review, Witness
from verifierbench.core.proposals import Proposal
from verifierbench.sources.formats.registry import format_of
from verifierbench.core.schema import Label, Task
from verifierbench.screening import reference


def certify(task: Task, proposals: list[Proposal], known: set[str]) -> list[Witness]:
    """Proposals whose intended label the reference verifier confirms, new to `known` (hidden suite, pool, earlier rounds)."""
    return screen(task, proposals, known)[0]


def screen(task: Task, proposals: list[Proposal], known: set[str]) -> tuple[list[Witness], list[tuple[Proposal, str]]]:
    """`certify`, also returning each proposal it drops with the reason (the task analysis reports them).

    Args:
        task: the task whose reference verifier certifies the labels.
        proposals: candidates with their intended labels, in proposal order.
        known: keys of candidates already judged (hidden suite, pool, earlier rounds); new certified keys are added.
    """
    fresh, dropped = [], []
    for proposal in proposals:
        if not well_formed(task, proposal.candidate):
            dropped.append((proposal, f"not in the {task.candidate_format.value} candidate format"))
            continue
        if proposal.key in known:
            dropped.append((proposal, "already in the hidden suite or the witness pool"))
            continue
        known.add(proposal.key)
        fresh.append(proposal)
    out = []
    for proposal, (accepted, error) in zip(fresh, _reference_decisions(task, fresh)):
        if accepted is None:  # no valid reference decision: the proposal cannot be certified
            dropped.append((proposal, f"the reference verifier gave no valid decision: {error}"))
        elif accepted != (proposal.label is Label.PASS):
            dropped.append((proposal, f"the reference verifier decides {'PASS' if accepted else 'FAIL'}, not {proposal.label.value}"))
        else:
            out.append(Witness(task.id, task.content_hash, proposal.candidate, proposal.label, "P" if accepted else "F",
                               proposal.requirement, proposal.auditor, proposal.operator, Review(PENDING, ""),
                               category=proposal.category.value if proposal.category else None))
    return out, dropped


def _reference_decisions(task: Task, proposals: list[Proposal]) -> list[tuple[bool | None, str]]:
    def one(proposal: Proposal) -> tuple[bool | None, str]:
        try:
            return reference.decide(task, proposal.candidate), ""
        except Exception as exc:  # noqa: BLE001
            return None, f"{type(exc).__name__}: {str(exc)[:200]}"

    return format_of(task).run_each(one, proposals)


def well_formed(task: Task, candidate: Any) -> bool:
    """The candidate has the shape the task's format promises (an auditor may write anything)."""
    return format_of(task).well_formed(candidate)
