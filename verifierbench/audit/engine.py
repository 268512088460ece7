"""One audit of one frozen verifier on one task (testjack §3.2, adapted): replay the pooled witnesses,
then spend up to `rounds` audit rounds. Each round the auditors propose candidates; the reference
verifier certifies their labels; certified candidates new to the hidden suite and the pool run on the
frozen verifier; disagreements become witnesses, which the reviewer re-judges and the pool keeps."""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.model import Model

from verifierbench.audit import analysis, deterministic, llm, reviewer
from verifierbench.audit.pool import WitnessPool
from verifierbench.audit.witness import PENDING, Proposal, Review, Witness, candidate_key
from verifierbench.executor import Executor
from verifierbench.executor.runner import FrozenVerifier
from verifierbench.protocol import Decision
from verifierbench.public_env.jobs import case_job
from verifierbench.references import each
from verifierbench.schema import Label, Task, TaskType, TestCase
from verifierbench import verifier_files
from verifierbench.sources.interaction import record
from verifierbench.screening import reference

DEFAULT_ROUNDS = 3
# A state-task round runs its candidates in batches of max(BATCH_MIN, BATCH_PER_SLOT x executor slots), stopping at the first that refutes.
BATCH_MIN = 8
BATCH_PER_SLOT = 4


@dataclass
class Auditors:
    """Who proposes and who reviews. `llm_auditor`/`reviewer_model` are None when no model is bound;
    `task_analyst`, when set, runs the task analysis pass (audit/analysis.py) before any audit of a task."""

    deterministic: bool = True
    llm_auditor: Model | None = None
    reviewer_model: Model | None = None
    seed: int = 0
    task_analyst: Model | None = None


@dataclass
class Trial:
    """A frozen verifier under audit; `decided` caches its decision per candidate key."""

    frozen: FrozenVerifier
    decided: dict[str, Decision] = field(default_factory=dict)

    @property
    def verifier_hash(self) -> str:
        return self.frozen.sha256


@dataclass
class AuditResult:
    refuted: bool = False
    witnesses: list[tuple[Witness, str]] = field(default_factory=list)  # (witness, generated decision) that refute
    replayed: list[tuple[Witness, str]] = field(default_factory=list)  # pooled witnesses replayed, refuting or not
    unconfirmed: list[tuple[Witness, str]] = field(default_factory=list)  # disagreements the reviewer did not accept
    pool_replayed: int = 0
    rounds: int = 0
    executions: int = 0
    proposed: int = 0
    certified: int = 0
    analyses: list[dict[str, Any]] = field(default_factory=list)
    task_analysis: dict[str, Any] | None = None  # the task analysis pass's summary, when it ran


def freeze(executor: Executor, files: dict[str, dict[str, str]]) -> Trial:
    with tempfile.TemporaryDirectory(prefix="verifierbench-audit-") as tmp:
        return Trial(executor.freeze_copy(verifier_files.materialize(files, Path(tmp) / "verifier")))


def decide_all(executor: Executor, trial: Trial, candidates: dict[str, Any], task: Task | None = None) -> tuple[dict[str, Decision], int]:
    """The trial's decision on each candidate (by key); runs only the ones not decided before. Returns (decisions, runs).
    With the task, runs get what its hidden cases get (a code task's /repo, a run_public service)."""
    todo = {k: c for k, c in candidates.items() if k not in trial.decided}
    for outcome in executor.run_many(case_job(task, trial.frozen, c, k) for k, c in todo.items()):
        trial.decided[outcome.key] = outcome.decision
    return {k: trial.decided[k] for k in candidates}, len(todo)


def batches(certified: list[Witness], size: int) -> list[list[Witness]]:
    """The round's certified candidates in runs of `size`, operators taken in turn, so the first runs already try
    every operator (a round stops after the first run that refutes).

    Args:
        certified: the round's certified proposals, in proposal order.
        size: candidates per run (enough to keep the executor's slots busy).
    """
    by_operator: dict[str, list[Witness]] = {}
    for witness in certified:
        by_operator.setdefault(f"{witness.auditor}:{witness.operator}", []).append(witness)
    queues = list(by_operator.values())
    ordered = [q[i] for i in range(max((len(q) for q in queues), default=0)) for q in queues if i < len(q)]
    return [ordered[i:i + size] for i in range(0, len(ordered), size)]


def disagrees(label: Label, decision: Decision) -> bool:
    """A crash or timeout on a certified candidate is a wrong decision too (the hidden metric counts U as wrong)."""
    return decision.value != ("P" if label is Label.PASS else "F")


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
            dropped.append((proposal, f"not in the {task.type.value} candidate format"))
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

    return each(task.type is TaskType.code, one, proposals)


def well_formed(task: Task, candidate: Any) -> bool:
    """The candidate has the shape the task's format promises (an auditor may write anything)."""
    if task.type is TaskType.tool_call:
        return (isinstance(candidate, dict) and set(candidate) == {"raw", "parsed"} and isinstance(candidate["raw"], str)
                and isinstance(candidate["parsed"], list))
    if task.type is TaskType.code:
        return isinstance(candidate, dict) and set(candidate) == {"diff"} and isinstance(candidate["diff"], str)
    if task.type is TaskType.state:
        try:
            record.calls(candidate)
        except ValueError:
            return False
        return set(candidate) == {"messages", "final_response"}
    return isinstance(candidate, dict)


def supports(task: Task) -> bool:
    return deterministic.supports(task)


async def audit(task: Task, hidden: list[TestCase], trial: Trial, executor: Executor, pool: WitnessPool | None,
                auditors: Auditors, rounds: int = DEFAULT_ROUNDS, files: dict[str, dict[str, str]] | None = None,
                first_round: int = 0) -> AuditResult:
    """`first_round` offsets the round seeds, so repeated one-round audits of a task (lightweight mode) differ."""
    result = AuditResult()
    known = {candidate_key(c.candidate) for c in hidden}
    analysed: list[Witness] = []
    if auditors.task_analyst is not None:  # T1 = T0 ∪ T_task: the task's own witnesses are replayed like pooled ones
        task_analysis = await analysis.run(task, hidden, auditors.task_analyst, auditors.reviewer_model, pool)
        result.task_analysis = task_analysis.summary()
        analysed = task_analysis.witnesses
    pooled = pool.load(task.id, task.content_hash) if pool else []
    pooled += [w for w in analysed if w.key not in {p.key for p in pooled}]  # without a pool, the analysis still counts
    known |= {w.key for w in pooled}
    refuting_pool = [w for w in pooled if w.refutes]
    if refuting_pool:
        decisions, runs = await asyncio.to_thread(decide_all, executor, trial, {w.key: w.candidate for w in refuting_pool}, task)
        result.executions += runs
        result.pool_replayed = len(refuting_pool)
        result.replayed = [(w, decisions[w.key].value) for w in refuting_pool]
        result.witnesses += [(w, d) for w, d in result.replayed if disagrees(w.label, Decision(d))]
    for round_index in range(first_round, first_round + rounds):
        if result.witnesses:
            break  # refuted: the remaining budget is kept for trials not yet refuted
        result.rounds += 1
        proposals: list[Proposal] = []
        if auditors.deterministic and deterministic.supports(task):
            proposals += deterministic.propose(task, round_index, auditors.seed)
        if auditors.llm_auditor is not None:
            suggested, conditions = await llm.propose(auditors.llm_auditor, task, files or {})
            proposals += suggested
            result.analyses.append({"round": round_index + 1, **conditions})
        result.proposed += len(proposals)
        certified = certify(task, proposals, known)
        result.certified += len(certified)
        found, decided = [], {}
        # State-task runs take seconds each: those rounds stop early; others run whole, so every witness is found.
        size = max(BATCH_MIN, BATCH_PER_SLOT * executor.slots) if task.type is TaskType.state else max(1, len(certified))
        for batch in batches(certified, size):
            decisions, runs = await asyncio.to_thread(decide_all, executor, trial, {w.key: w.candidate for w in batch}, task)
            result.executions += runs
            decided.update(decisions)
            for witness in batch:
                if disagrees(witness.label, decisions[witness.key]):
                    witness.found_on = trial.verifier_hash
                    witness.review = await reviewer.review(auditors.reviewer_model, task, witness)
                    found.append(witness)
            if any(w.refutes for w in found):
                break  # refuted: the round's other candidates are left unrun (a state-task run takes seconds)
        if pool and found:
            pool.add(found)
        for witness in found:
            (result.witnesses if witness.refutes else result.unconfirmed).append((witness, decided[witness.key].value))
    result.refuted = bool(result.witnesses)
    return result

