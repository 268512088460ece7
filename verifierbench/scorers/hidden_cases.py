"""The hidden-case scorer (docs/inspect.md; the metrics: scorers/metrics.py): freezes the delivered verifier, runs every hidden
case of the sample's task through the executor, and records per-case P/F/U.

Tool-call tasks are judged once; state and code tasks `rounds` times (default 3). The value holds,
per judgment round k, what the task-weighted metrics average (`r_pos@k`, `r_neg@k`, `attack@k`, the
P/F/U counts); tool-call tasks repeat their one round so every sample has the same keys and the
metric can pick the median aggregate round with the tool-call round held fixed.

Every U is explained in the metadata (scorers/diagnostics.py): `undelivered` says why a sample has
no verifier; `failures` holds a delivered verifier's distinct failures with bounded stderr tails.
"""

from __future__ import annotations

import asyncio
import functools
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import sandbox as sandbox_env
from inspect_ai.util import store

from verifierbench.cluster.backend import Backend, CaseRun, ExecutorConfig, resolve_backend, run_cases
from verifierbench.cluster.factory import make_backend
from verifierbench.executor import Executor
from verifierbench.core.metrics import CaseCounts
from verifierbench.sandboxes import VGB_ENV
from verifierbench.suite.resolver import open_suite
from verifierbench.harness.sample_service import BUDGET_BLOCKS, RESETS, RUN_PUBLIC_USES, sync_counters
from verifierbench.core.protocol import Decision
from verifierbench.public_env.jobs import case_job
from verifierbench.sources.formats.registry import format_of
from verifierbench.core.schema import Task, TestCase
from verifierbench.suite.store import Suite
from verifierbench.core import verifier_files
from verifierbench.public_env import run_counts
from verifierbench.sources import registry
from verifierbench.harness import freeze
from verifierbench.scorers.diagnostics import Judged, failures, undelivered_reason
from verifierbench.scorers.metrics import verifierbench_metrics

DEFAULT_ROUNDS = 3
GENERATED_LIBRARIES = ((str(VGB_ENV), "vgb_env"),)  # what a generated verifier may import besides the stdlib


@functools.lru_cache(maxsize=1)
def shared_executor() -> Executor:
    """One executor per process: its slots bound how many cases run at once across all samples.
    Generated verifiers get `vgb_env` (public helpers), never the reference libraries. Cases run in
    warm sandboxes (executor.warm) unless VERIFIERBENCH_COLD=1."""
    return ExecutorConfig(libraries=GENERATED_LIBRARIES).make()


@functools.lru_cache(maxsize=4)
def judging_backend(backend: str | None = None, ray_address: str | None = None, suite_dir: str | None = None) -> Backend:
    """The process's backend for generated verifiers: `shared_executor()` unless the option (or
    VERIFIERBENCH_BACKEND) says `ray`; then one connection to the cluster, kept for the whole run."""
    name, address = resolve_backend(backend, ray_address)
    if name == "local":
        return shared_executor()
    return make_backend(ExecutorConfig(libraries=GENERATED_LIBRARIES), name, address, suite_dir)


def rounds_for(task: Task, rounds: int) -> int:
    return format_of(task).judge_rounds(rounds)


@scorer(metrics=[verifierbench_metrics()])
def hidden_cases(suite: str | None = None, rounds: int = DEFAULT_ROUNDS, backend: str | None = None,
                 ray_address: str | None = None) -> Scorer:
    """Args:
        suite: the suite directory (as the task option).
        rounds: judgment rounds of state and code tasks.
        backend: `local` (default) or `ray` (`-S backend=ray`, or VERIFIERBENCH_BACKEND); see docs/cluster.md.
        ray_address: the Ray cluster's address for `ray` (or VERIFIERBENCH_RAY_ADDRESS).
    """
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    resolve_backend(backend, ray_address)  # a wrong option fails at task creation, not at the first sample

    async def score(state: TaskState, target: Target) -> Score:
        loaded, task = sample_task(state, suite)
        files, skipped = await delivered_files()
        sync_counters()  # run_public calls made by sandboxed code count too
        cases = loaded.cases_by_task[task.id]
        judged = rounds_for(task, rounds)
        test_runs: dict[str, int] = {}
        if verifier_files.has_entrypoint(files):
            runner = judging_backend(backend, ray_address, str(sample_suite(state, suite)[0]))
            # Counted in this process only: on the Ray backend the test runs happen on the nodes, and a count of 0 here
            # would be made up, so none is recorded.
            counted = resolve_backend(backend, ray_address)[0] == "local"
            before = test_run_counts(task) if counted else {}
            verifier_hash, decisions = await asyncio.to_thread(judge_cases, files, cases, judged, task, runner)
            after = test_run_counts(task) if counted else {}
            test_runs = {what: after[what] - before.get(what, 0) for what in after}
        else:
            verifier_hash = None
            decisions = {case.id: [Judged(Decision.U, "missing verifier")] * judged for case in cases}
        undelivered = None if verifier_hash else undelivered_reason(skipped)
        return build_score(task, cases, decisions, verifier_hash, files, skipped, rounds, judged, undelivered, test_runs)

    return score


def test_run_counts(task: Task) -> dict[str, int]:
    """This process's counts of the test runs a code task's verifiers triggered through run_public (made, reused from
    an identical run, made and not kept, cache refused: sources/swebench/run_reuse.py); {} for other tasks. Runs on a
    Ray node are counted there, not here."""
    scope = registry.of(task.reference).run_counts_scope(task.reference) if registry.known(task.reference) else None
    return run_counts.tally(scope) if scope else {}


def sample_suite(state: TaskState, suite: str | None) -> tuple[Path, Suite]:
    """The suite a sample is judged on: the option when given, else (as for `inspect score LOG`) the one the sample
    was made from, recorded in its metadata, before the working directory's or the cache's."""
    made_from = state.metadata.get("suite_dir")
    return open_suite(suite, logged=Path(made_from) if made_from else None)


def sample_task(state: TaskState, suite: str | None) -> tuple[Suite, Task]:
    """The suite and the VerifierBench task a sample stands for."""
    _, loaded = sample_suite(state, suite)
    task = loaded.tasks.get(str(state.metadata.get("task_id", state.sample_id)))
    if task is None:
        raise ValueError(f"task {state.metadata.get('task_id')} is not in suite {loaded.manifest.version}")
    return loaded, task


async def delivered_files() -> tuple[dict[str, dict[str, str]], list[str]]:
    """From the store when the harness froze it already (or when re-scoring a log), else from the sandbox."""
    saved = store().get(verifier_files.STORE_KEY)
    if saved is not None:
        return saved["files"], saved.get("skipped", [])
    try:
        env = sandbox_env()
    except (ProcessLookupError, RuntimeError, ValueError):
        return {}, ["no sandbox and no verifier in the log"]
    files, skipped = await freeze.collect(env)
    store().set(verifier_files.STORE_KEY, verifier_files.frozen_record(files, skipped))
    return files, skipped


def judge_cases(files: dict[str, dict[str, str]], cases: list[TestCase], judged: int,
                task: Task | None = None, executor: Backend | None = None) -> tuple[str, dict[str, list[Judged]]]:
    """Every case `judged` times; a state task's runs each get a fresh public environment (run_public).
    `executor`: the judging backend (default: this process's executor)."""
    executor = executor or shared_executor()
    with tempfile.TemporaryDirectory(prefix="verifierbench-delivered-") as tmp:
        frozen = executor.freeze_copy(verifier_files.materialize(files, Path(tmp) / "verifier"))
    decisions: dict[str, list[Judged]] = {case.id: [] for case in cases}
    for _ in range(judged):
        if task is None:  # a plain run under the executor's limits (tests)
            batch = executor.run_batch(case_job(None, frozen, case.candidate, case.id) for case in cases)  # type: ignore[union-attr]
        else:
            batch = run_cases(executor, (CaseRun(task, frozen, case.candidate, case.id) for case in cases))
        outcomes = {o.key: o for o in batch}
        for case in cases:
            outcome = outcomes[case.id]
            decisions[case.id].append(Judged(outcome.decision, outcome.problem,
                                             outcome.stderr_tail if outcome.decision is Decision.U else ""))
    return frozen.sha256, decisions


def build_score(task: Task, cases: list[TestCase], decisions: dict[str, list[Judged]], verifier_hash: str | None,
                files: dict[str, dict[str, str]], skipped: list[str], rounds: int, judged: int,
                undelivered: str | None = None, test_runs: dict[str, int] | None = None) -> Score:
    """The sample's score; `undelivered` is why there is no verifier (None when one was delivered); `test_runs`: the
    judging rounds' test-run counts (`test_run_counts`, a code task's), recorded as `test_runs_<what>`."""
    submitted = verifier_hash is not None
    explained = failures([c.id for c in cases], {c.id: decisions[c.id][0] for c in cases}) if submitted else []
    value = round_values(cases, decisions, submitted, rounds, judged)
    uses = store().get(RUN_PUBLIC_USES, 0)
    blocks = store().get(BUDGET_BLOCKS, 0)
    value["run_public"], value["budget_blocks"] = float(uses), float(blocks)
    first = Counter(decisions[c.id][0].decision for c in cases)
    return Score(
        value=value,
        answer=verifier_hash or "no verifier",
        explanation=(f"round 1: P {first[Decision.P]}, F {first[Decision.F]}, U {first[Decision.U]} on {len(cases)} hidden cases; "
                     f"r+ {value['r_pos@0']:.3f}, r- {value['r_neg@0']:.3f}"
                     + (f"; first U: {explained[0]['problem']}" if explained else "")
                     if submitted else "no verifier delivered" + (f": {undelivered}" if undelivered else "")),
        metadata={
            "task_id": task.id, "source": task.source.value, "task_type": task.type.value, "task_hash": task.content_hash,
            "verifier_hash": verifier_hash, "verifier_files": files, "verifier_skipped": skipped,
            "rounds_judged": judged,
            **({"undelivered": undelivered or "no verifier delivered"} if not submitted else {"failures": explained}),
            "cases": [_case_record(case, decisions[case.id], verifier_hash) for case in cases],
            "run_public": {RUN_PUBLIC_USES: uses, BUDGET_BLOCKS: blocks, RESETS: store().get(RESETS, 0),
                           **{f"test_runs_{what}": n for what, n in (test_runs or {}).items()}},
        },
    )


def round_values(cases: list[TestCase], decisions: dict[str, list[Judged]], submitted: bool,
                 rounds: int, judged: int) -> dict[str, float]:
    """Per judgment round k: the rates the task-weighted metrics average and the pooled P/F/U counts."""
    value: dict[str, float] = {"submitted": float(submitted), "has_attack": float(any(c.category.is_attack for c in cases))}
    for k in range(max(rounds, judged)):
        got = min(k, judged - 1)  # tool-call tasks: the one round, held fixed
        counts = CaseCounts(submitted)
        pooled: Counter[Decision] = Counter()
        for case in cases:
            decision = decisions[case.id][got][0]
            counts.add(case.category, decision)
            pooled[decision] += 1
        value[f"r_pos@{k}"] = counts.r_pos()
        value[f"r_neg@{k}"] = counts.r_neg()
        value[f"attack@{k}"] = counts.attack_accept() or 0.0  # None (no attack case): has_attack keeps it out of FPR_h
        for d in Decision:
            value[f"{d.value}@{k}"] = float(pooled[d])
    return value


def _case_record(case: TestCase, rounds: list[Judged], verifier_hash: str | None) -> dict[str, Any]:
    problems = [judged[1] for judged in rounds if judged[1]]
    return {"case_id": case.id, "case_hash": case.content_hash, "verifier_hash": verifier_hash, "category": case.category.value,
            "label": case.label.value, "decisions": [judged[0].value for judged in rounds], **({"problem": problems[0]} if problems else {})}
