"""One audit of one frozen verifier on one task (testjack §3.2, adapted): replay the pooled witnesses,
then spend up to `rounds` audit rounds. Each round the auditors propose candidates; the reference
verifier certifies their labels (audit/certification.py); certified candidates new to the hidden suite
and the pool run on the frozen verifier; disagreements become witnesses, which the reviewer re-judges
and the pool keeps."""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TYPE_CHECKING

from verifierbench.audit import analysis, deterministic, llm, reviewer
from verifierbench.audit.certification import certify
from verifierbench.audit.pool import WitnessPool
from verifierbench.audit.witness import Witness
from verifierbench.cluster.backend import Backend, CaseRun, CaseRunner
from verifierbench.core.proposals import Proposal, candidate_key
from verifierbench.executor.staging import FrozenVerifier
from verifierbench.sources.formats.registry import format_of
from verifierbench.core.protocol import Decision
from verifierbench.public_env.jobs import case_job
from verifierbench.core.schema import Label, Task, TestCase
from verifierbench.core import verifier_files

if TYPE_CHECKING:  # only annotations: judging and auditing import nothing of Inspect
    from inspect_ai.model import Model

DEFAULT_ROUNDS = 3


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


def freeze(executor: Backend, files: dict[str, dict[str, str]]) -> Trial:
    with tempfile.TemporaryDirectory(prefix="verifierbench-audit-") as tmp:
        return Trial(executor.freeze_copy(verifier_files.materialize(files, Path(tmp) / "verifier")))


def decide_all(executor: Backend, trial: Trial, candidates: dict[str, Any], task: Task | None = None) -> tuple[dict[str, Decision], int]:
    """The trial's decision on each candidate (by key); runs only the ones not decided before. Returns (decisions, runs).
    With the task, runs get what its hidden cases get (a code task's /repo, a run_public service). On a cluster
    (`--backend ray`) the candidates run on its nodes, as hidden cases do; locally on this process's executor."""
    (decisions,), runs = decide_each(executor, [(trial, candidates)], task)
    return decisions, runs


def decide_each(executor: Backend, asks: list[tuple[Trial, dict[str, Any]]], task: Task | None = None) -> tuple[list[dict[str, Decision]], int]:
    """`decide_all` for several trials in one batch, as hidden cases run (warm sandboxes, each started once for many
    candidates of many verifiers); per trial its decisions, and the runs made in all."""
    runs: dict[str, tuple[Trial, str, Any]] = {}  # outcome key -> (trial, candidate key, candidate)
    for index, (trial, candidates) in enumerate(asks):
        runs.update((f"{index}:{k}", (trial, k, c)) for k, c in candidates.items() if k not in trial.decided)
    if isinstance(executor, CaseRunner):
        if task is None:
            raise ValueError("a cluster backend judges candidates of a task of the suite")
        outcomes = executor.run_cases(CaseRun(task, trial.frozen, c, key) for key, (trial, _, c) in runs.items())
    else:  # cold instead when the executor is made so (Executor.run_batch)
        outcomes = executor.run_batch(case_job(task, trial.frozen, c, key) for key, (trial, _, c) in runs.items())
    for outcome in outcomes:
        trial, key, _ = runs[outcome.key]
        trial.decided[key] = outcome.decision
    return [{k: trial.decided[k] for k in candidates} for trial, candidates in asks], len(runs)


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


def supports(task: Task) -> bool:
    return deterministic.supports(task)


async def audit(task: Task, hidden: list[TestCase], trial: Trial, executor: Backend, pool: WitnessPool | None,
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
        size = format_of(task).audit_batch_size(len(certified), executor.slots)
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

