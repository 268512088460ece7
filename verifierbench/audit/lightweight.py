"""Lightweight auditing across configurations (testjack §3.3, Algorithm 1): per task, replay the pooled
witnesses on every configuration's verifier; then, while the per-task budget lasts, audit one verifier
chosen at random among those not yet refuted, share any new witnesses with all the others, and mark a
verifier that survives its audit as clean. Finally every verifier is scored on hidden + all witnesses."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from verifierbench.audit import analysis, engine
from verifierbench.audit.pool import WitnessPool
from verifierbench.audit.witness import Witness
from verifierbench.cluster.backend import Backend
from verifierbench.core.metrics import CaseCounts, TaskRates, task_weighted
from verifierbench.core.protocol import Decision
from verifierbench.core.schema import Task, TestCase
from verifierbench.core import verifier_files

REFUTED, CLEAN, UNAUDITED, NOT_AUDITABLE, NO_VERIFIER = "refuted", "audited-clean", "unaudited", "not auditable", "no verifier"


@dataclass
class TrialAudit:
    configuration: str
    task_id: str
    status: str
    hidden: dict[str, Decision] = field(default_factory=dict)  # case id -> decision recorded in the log
    on_witnesses: dict[str, Decision] = field(default_factory=dict)  # witness key -> decision
    trial: engine.Trial | None = None

    def rates(self, hidden_cases: list[TestCase], witnesses: list[Witness]) -> tuple[TaskRates, TaskRates]:
        """Its rates on the hidden cases alone, then on hidden plus witnesses (a crash is a wrong decision; a label
        with no case counts as all right); all 0 without a verifier.

        Args:
            hidden_cases: the task's hidden cases (their decisions are the ones recorded in the log).
            witnesses: the task's confirmed witnesses (their decisions are this audit's replays).
        """
        counts = CaseCounts(submitted=self.trial is not None)
        for case in hidden_cases:
            counts.add_labelled(case.label, self.hidden.get(case.id, Decision.U))
        hidden = TaskRates(counts.r_pos(none=1.0), counts.r_neg(none=1.0), None, counts.submitted)
        for witness in witnesses:
            counts.add_labelled(witness.label, self.on_witnesses.get(witness.key, Decision.U))
        return hidden, TaskRates(counts.r_pos(none=1.0), counts.r_neg(none=1.0), None, counts.submitted)


@dataclass
class TaskAudit:
    task_id: str
    trials: list[TrialAudit]
    witnesses: list[Witness]
    rounds: int = 0
    executions: int = 0
    task_analysis: dict | None = None  # the task analysis pass's summary, when it ran


async def audit_task(task: Task, hidden: list[TestCase], trials: dict[str, dict], executor: Backend, pool: WitnessPool,
                     auditors: engine.Auditors, rounds: int, rng: random.Random) -> TaskAudit:
    """`trials`: configuration -> the hidden_cases score metadata of its sample for this task."""
    audits = [_trial(task, name, meta, executor) for name, meta in sorted(trials.items())]
    runnable = [a for a in audits if a.trial is not None]
    result = TaskAudit(task.id, audits, [])
    if not engine.supports(task):
        for a in runnable:
            a.status = NOT_AUDITABLE
        return result
    if auditors.task_analyst is not None:  # before any trial: its witnesses go to the pool, shared by every verifier
        result.task_analysis = (await analysis.run(task, hidden, auditors.task_analyst, auditors.reviewer_model, pool)).summary()
    witnesses = {w.key: w for w in pool.load(task.id, task.content_hash) if w.refutes}
    active = _unrefuted(task, runnable, list(witnesses.values()), executor, result)
    spent = 0
    while active and spent < rounds:
        chosen = rng.choice(active)
        assert chosen.trial is not None  # active audits are runnable ones, which have a trial
        audit = await engine.audit(task, hidden, chosen.trial, executor, pool, auditors, rounds=1,
                                   files=trials[chosen.configuration].get("verifier_files"), first_round=spent)
        spent += 1
        result.executions += audit.executions
        new = [w for w, _ in audit.witnesses if w.key not in witnesses]
        witnesses.update((w.key, w) for w, _ in audit.witnesses)
        chosen.on_witnesses.update((w.key, Decision(d)) for w, d in audit.witnesses + audit.replayed)
        if audit.refuted:
            chosen.status = REFUTED
            active = _unrefuted(task, [a for a in active if a is not chosen], new, executor, result)
        else:
            chosen.status = CLEAN
            active = [a for a in active if a is not chosen]
    result.rounds = spent
    result.witnesses = list(witnesses.values())
    _unrefuted(task, runnable, result.witnesses, executor, result)  # the final suite: every verifier meets every witness,
    return result  # so configurations compare on one case set


def _trial(task: Task, configuration: str, meta: dict, executor: Backend) -> TrialAudit:
    files = meta.get("verifier_files") or {}
    hidden = {c["case_id"]: Decision(c["decisions"][0]) for c in meta.get("cases", []) if c.get("decisions")}
    if not verifier_files.has_entrypoint(files):
        return TrialAudit(configuration, task.id, NO_VERIFIER, hidden)
    return TrialAudit(configuration, task.id, UNAUDITED, hidden, trial=engine.freeze(executor, files))


def _unrefuted(task: Task, audits: list[TrialAudit], witnesses: list[Witness], executor: Backend, result: TaskAudit) -> list[TrialAudit]:
    """Replays the witnesses on every verifier, all in one batch; those one disagrees with get status refuted.
    Returns the others."""
    runnable = [a for a in audits if a.trial is not None]
    if not witnesses or not runnable:
        return list(audits)
    candidates = {w.key: w.candidate for w in witnesses}
    decided, runs = engine.decide_each(executor, [(a.trial, candidates) for a in runnable if a.trial is not None], task)
    result.executions += runs
    refuted = set()
    for audit, decisions in zip(runnable, decided):
        audit.on_witnesses.update(decisions)
        if any(engine.disagrees(w.label, decisions[w.key]) for w in witnesses):
            audit.status = REFUTED
            refuted.add(id(audit))
    return [a for a in audits if id(a) not in refuted]


def summarize(audits: list[TaskAudit], hidden_by_task: dict[str, list[TestCase]]) -> dict:
    """Per configuration: refuted share and BA_norm before and after the audit (task-weighted, as the paper's,
    through the metrics core).

    Args:
        audits: every task's audit.
        hidden_by_task: task id -> its hidden cases.
    """
    per_config: dict[str, dict] = {}
    rates_by_config: dict[str, list[tuple[TaskRates, TaskRates]]] = {}
    per_task: dict[str, dict[str, dict]] = {}  # task id -> configuration -> its rates (the leaderboard's --audit reads them)
    for task_audit in audits:
        for a in task_audit.trials:
            row = per_config.setdefault(a.configuration, {"configuration": a.configuration, "tasks": 0, "refuted": 0,
                                                          "perfect_on_hidden": 0, "perfect_refuted": 0, "statuses": {}})
            hidden, audited = a.rates(hidden_by_task[task_audit.task_id], task_audit.witnesses)
            perfect = hidden.r_pos == hidden.r_neg == 1.0  # judged correct by the hidden suite: TestJack's "passing trial"
            row["tasks"] += 1
            row["refuted"] += a.status == REFUTED
            row["perfect_on_hidden"] += perfect
            row["perfect_refuted"] += perfect and a.status == REFUTED
            row["statuses"][a.status] = row["statuses"].get(a.status, 0) + 1
            rates_by_config.setdefault(a.configuration, []).append((hidden, audited))
            per_task.setdefault(task_audit.task_id, {})[a.configuration] = {
                "r_pos": hidden.r_pos, "r_neg": hidden.r_neg, "audited_r_pos": audited.r_pos, "audited_r_neg": audited.r_neg,
                "perfect_on_hidden": perfect}
    rows = []
    for configuration, row in per_config.items():
        pairs = rates_by_config[configuration]
        before, after = task_weighted([h for h, _ in pairs]), task_weighted([a for _, a in pairs])
        row.update({"TPR": before["TPR"], "TNR": before["TNR"], "BA_norm": before["BA_norm"],
                    "audited_TPR": after["TPR"], "audited_TNR": after["TNR"], "audited_BA_norm": after["BA_norm"],
                    "refuted_rate": 100 * row["refuted"] / len(pairs)})
        rows.append(row)
    rows.sort(key=lambda r: (-r["audited_BA_norm"], r["configuration"]))
    return {
        "configurations": rows,
        "tasks": [{"task_id": t.task_id, "rounds": t.rounds, "executions": t.executions, "witnesses": len(t.witnesses),
                   "trials": {a.configuration: a.status for a in t.trials}, "rates": per_task.get(t.task_id, {})} for t in audits],
        "witnesses": sum(len(t.witnesses) for t in audits),
        "audit_rounds": sum(t.rounds for t in audits),
        "executions": sum(t.executions for t in audits),
    }
