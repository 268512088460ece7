"""The TestJack audit scorer (testjack paper §3, adapted to verifiers): refutes a frozen verifier with
witnesses, i.e. new candidates whose label the reference verifier certifies and on which the verifier
decides otherwise. Usable in an eval beside `hidden_cases`, or later on a log:

    inspect score --scorer verifierbench/testjack_audit LOG [-S rounds=3] [-S pool=DIR] [-S task_analysis=MODEL]
        [--model-role auditor=MODEL] [--model-role reviewer=MODEL] [--model-role task_analyst=MODEL]

The verifier is read from the log (sample store or the hidden_cases score), never regenerated. Witnesses
go to a per-task pool on disk, replayed first by every later audit of the task (lightweight mode).
"""

from __future__ import annotations

import asyncio
from inspect_ai.model import Model, get_model, model_roles
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from verifierbench.audit import engine
from verifierbench.audit.pool import WitnessPool
from verifierbench.audit.witness import Witness
from verifierbench.core.protocol import Decision
from verifierbench.core.schema import Category, Label, Task, TestCase
from verifierbench.core import verifier_files
from verifierbench.scorers.diagnostics import Judged
from verifierbench.cluster.backend import Backend, resolve_backend
from verifierbench.scorers.hidden_cases import delivered_files, judging_backend, round_values, sample_suite, sample_task
from verifierbench.scorers.metrics import verifierbench_metrics

HIDDEN_SCORER = "hidden_cases"


@metric
def audit_summary() -> Metric:
    """Share of audited verifiers refuted, and what the audits spent."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        values = [s.score.value for s in scores if isinstance(s.score.value, dict)]
        audited = [v for v in values if v.get("audited")]
        return {
            "refuted_rate": 100 * sum(v["refuted"] for v in audited) / len(audited) if audited else 0.0,
            "witnesses": float(sum(v["witnesses"] for v in values)),
            "audit_rounds": float(sum(v["audit_rounds"] for v in values)),
            "executions": float(sum(v["executions"] for v in values)),
        }

    return compute


@scorer(metrics=[verifierbench_metrics(), audit_summary()])
def testjack_audit(suite: str | None = None, rounds: int = engine.DEFAULT_ROUNDS, pool: str | None = None,
                   seed: int = 0, deterministic: bool = True, auditor: str | Model | None = None,
                   reviewer: str | Model | None = None, task_analysis: str | Model | None = None,
                   backend: str | None = None, ray_address: str | None = None) -> Scorer:
    """`auditor`/`reviewer` name models; without them the model roles `auditor`/`reviewer` are used when bound,
    and with neither the audit is model-free (deterministic auditor, rule review). `task_analysis` (else the role
    `task_analyst`) names the model of the task analysis pass, run once per task and cached beside the pool.
    `backend`/`ray_address`: where candidates run, as for the hidden_cases scorer (docs/cluster.md)."""
    if rounds < 0:
        raise ValueError("rounds must be at least 0")
    resolve_backend(backend, ray_address)  # a wrong option fails at task creation, not at the first sample

    async def score(state: TaskState, target: Target) -> Score:
        loaded, task = sample_task(state, suite)
        hidden = loaded.cases_by_task[task.id]
        files = await _verifier(state)
        if not verifier_files.has_entrypoint(files):
            return _score(task, hidden, {}, None, engine.AuditResult(), audited=False, note="no verifier delivered")
        executor = judging_backend(backend, ray_address, str(sample_suite(state, suite)[0]))
        trial = await asyncio.to_thread(engine.freeze, executor, files)
        hidden_decisions, runs = await _hidden_decisions(state, trial, hidden, task, executor)
        if not engine.supports(task):
            result = engine.AuditResult(executions=runs)
            return _score(task, hidden, hidden_decisions, trial.verifier_hash, result, audited=False,
                          note=f"no auditor for {task.source.value} tasks yet")
        auditors = engine.Auditors(deterministic, _model(auditor, "auditor"), _model(reviewer, "reviewer"), seed,
                                   task_analyst=_model(task_analysis, "task_analyst"))
        witness_pool = WitnessPool(pool, loaded.manifest.version)
        result = await engine.audit(task, hidden, trial, executor, witness_pool, auditors, rounds, files)
        result.executions += runs
        return _score(task, hidden, hidden_decisions, trial.verifier_hash, result, audited=True)

    return score


async def _verifier(state: TaskState) -> dict[str, dict[str, str]]:
    hidden = (state.scores or {}).get(HIDDEN_SCORER)
    meta = hidden.metadata if hidden is not None else None
    if meta and meta.get("verifier_files"):
        return meta["verifier_files"]
    files, _ = await delivered_files()
    return files


async def _hidden_decisions(state: TaskState, trial: engine.Trial, hidden: list[TestCase], task: Task,
                            executor: Backend) -> tuple[dict[str, Decision], int]:
    """The hidden-case decisions of this verifier: from the hidden_cases score when it judged the same frozen
    verifier (its first round), else judged now."""
    earlier = (state.scores or {}).get(HIDDEN_SCORER)
    meta = earlier.metadata or {} if earlier is not None else {}
    if meta.get("verifier_hash") == trial.verifier_hash:
        recorded = {c["case_id"]: Decision(c["decisions"][0]) for c in meta.get("cases", []) if c.get("decisions")}
        if all(c.id in recorded for c in hidden):
            return {c.id: recorded[c.id] for c in hidden}, 0
    return await asyncio.to_thread(engine.decide_all, executor, trial, {c.id: c.candidate for c in hidden}, task)


def _model(given: str | Model | None, role: str) -> Model | None:
    if given is not None:
        return get_model(given)
    return get_model(role=role) if role in model_roles() else None


def _as_case(task: Task, witness: Witness) -> TestCase:
    category = witness.category or (Category.overstrict_trap if witness.label is Label.PASS else Category.near_miss).value
    return TestCase.create(task_id=task.id, category=category, candidate=witness.candidate, provenance={"witness": witness.key})


def _score(task: Task, hidden: list[TestCase], hidden_decisions: dict[str, Decision], verifier_hash: str | None,
           result: engine.AuditResult, audited: bool, note: str = "") -> Score:
    cases = list(hidden)
    decisions: dict[str, list[Judged]] = {c.id: [Judged(hidden_decisions.get(c.id, Decision.U))] for c in hidden}
    seen = set()
    for witness, generated in result.replayed + result.witnesses:  # every pooled witness replayed, and the new ones
        if witness.key in seen:
            continue
        seen.add(witness.key)
        case = _as_case(task, witness)
        cases.append(case)
        decisions[case.id] = [Judged(Decision(generated))]
    value: dict[str, float] = round_values(cases, decisions, verifier_hash is not None, 1, 1)
    value.update({
        "audited": float(audited), "refuted": float(result.refuted), "witnesses": float(len(result.witnesses)),
        "unconfirmed": float(len(result.unconfirmed)), "pool_replayed": float(result.pool_replayed),
        "audit_rounds": float(result.rounds), "executions": float(result.executions),
        "proposed": float(result.proposed), "certified": float(result.certified),
    })
    if not audited:
        explanation = f"not audited: {note}"
    elif result.refuted:
        first = result.witnesses[0][0]
        explanation = (f"refuted by {len(result.witnesses)} witness(es) after {result.rounds} round(s); e.g. {first.operator}: "
                       f"reference {first.reference_decision}, verifier {result.witnesses[0][1]} ({first.requirement})")
    else:
        explanation = f"not refuted: {result.certified} certified candidates over {result.rounds} round(s), {result.executions} executions"
    return Score(
        value=value,
        answer="refuted" if result.refuted else ("not refuted" if audited else "not audited"),
        explanation=explanation,
        metadata={
            "task_id": task.id, "source": task.source.value, "task_type": task.type.value, "task_hash": task.content_hash,
            "verifier_hash": verifier_hash,
            "witnesses": [w.replay_record(g) for w, g in result.witnesses],
            "unconfirmed": [w.replay_record(g) for w, g in result.unconfirmed],
            "auditor_analyses": result.analyses,
            "task_analysis": result.task_analysis,
        },
    )
