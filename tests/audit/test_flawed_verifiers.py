"""Acceptance: each flawed verifier embodies one failure mode (paper §4, App. I).

The hidden suite samples every case family the deterministic auditor certifies (issue 21), so a flawed
verifier loses BA_norm on the hidden suite of (nearly) every task where its flaw applies, and the reference
still scores 100. The auditor is tested where the hidden suite misses a flaw: on the hidden suite without
the family that catches it (the suite as it was before issue 21), the flawed verifier scores BA_norm 100,
the deterministic auditor must find a witness there, every witness must be certified by the reference
verifier, and a second audit must refute from the pool alone. The reference verifier is never refuted."""

from __future__ import annotations

import asyncio

import pytest

from tests.audit.helpers import load_flaw, flawed_files, reference_files, trusted_executor
from tests.conftest import EXHAUSTIVE, representative_tasks
from verifierbench.audit import engine
from verifierbench.audit.pool import WitnessPool
from verifierbench.audit.witness import VALID
from verifierbench.core.proposals import candidate_key
from verifierbench.core.protocol import Decision
from verifierbench.core.schema import Label
from verifierbench.screening import reference
from verifierbench.sources.toolcall import audit as toolcall
from verifierbench.sources.toolcall.reference import decide
from verifierbench.suite.store import load_suite

# flaw module -> the case families whose candidates trigger it (the first an operator of both the build and the audit;
# undeclared_argument_added is the build's every-closed-schema family of issue 37)
FLAWS = {
    "loose_numbers": ("value_off_by_one",),
    "unknown_arguments_ignored": ("unknown_argument_added", "undeclared_argument_added"),
    "extra_tools_ignored": ("other_tool_called",),
    "bracketed_reply_required": ("raw_without_list_brackets",),
    "other_values_rejected": ("each_acceptable_value",),
}
# Tasks per flaw the auditor must refute it on: one proves the path (each is a sandboxed audit, then a replay from the
# pool); VERIFIERBENCH_EXHAUSTIVE=1 takes two.
TASKS_PER_FLAW = 2 if EXHAUSTIVE else 1
CAUGHT_SHARE = 0.9  # of the tasks where a flaw applies, the share whose hidden suite must catch it


@pytest.fixture(scope="module")
def suite(bfcl_suite):
    return load_suite(bfcl_suite)


@pytest.fixture(scope="module")
def executor(bwrap_available):
    with trusted_executor() as ex:
        yield ex


def _wrong(flaw, task, candidate, label) -> bool:
    """Whether the flawed verifier (in process: the reference decision with the flaw applied) decides against `label`."""
    return flaw.apply(task.reference, candidate, decide(task.reference, candidate)[0]) != (label is Label.PASS)


def _without_family(suite, task_id, families) -> list:
    """The task's hidden cases less those the families made: the hidden suite as it was before issue 21."""
    return [c for c in suite.cases_by_task[task_id] if c.provenance.get("operator") not in families]


def _certified_candidates(suite) -> dict:
    """Per task, every candidate the deterministic auditor proposes in its default rounds and the reference certifies
    (each key once, in proposal order)."""
    return {task_id: [w for r in range(engine.DEFAULT_ROUNDS) for w in engine.certify(task, toolcall.propose(task, r, 0), set())]
            for task_id, task in suite.tasks.items()}


def _missed_by_hidden(suite, candidates, flaw, families) -> list:
    """Tasks where the flaw agrees with every hidden label outside `families` but some certified audit candidate new
    to those hidden cases triggers it (in process; `candidates`: _certified_candidates(suite))."""
    found = []
    for task_id, task in sorted(suite.tasks.items()):
        hidden = _without_family(suite, task_id, families)
        if any(_wrong(flaw, task, c.candidate, c.label) for c in hidden):
            continue
        known = {candidate_key(c.candidate) for c in hidden}
        if any(_wrong(flaw, task, w.candidate, w.label) for w in candidates[task_id] if w.key not in known):
            found.append(task)
    return found


@pytest.fixture(scope="module")
def bfcl_candidates(suite) -> dict:
    """_certified_candidates of the BFCL suite, made once for every flaw."""
    return _certified_candidates(suite)


@pytest.fixture(scope="module")
def full_suite(built):
    return load_suite(built)


@pytest.fixture(scope="module")
def audit_candidates(full_suite) -> dict:
    return _certified_candidates(full_suite)


def test_the_reference_scores_100_on_every_hidden_case(full_suite):
    for task_id, task in full_suite.tasks.items():
        for case in full_suite.cases_by_task[task_id]:
            assert reference.decide(task, case.candidate) == (case.label is Label.PASS), (task.source_id, case.provenance)


@pytest.mark.parametrize("flaw_name", sorted(FLAWS))
def test_hidden_suite_catches_each_flaw_where_it_applies(flaw_name, full_suite, audit_candidates):
    """A flaw applies to a task when some hidden case or certified audit candidate triggers it; there the flawed
    verifier must lose BA_norm on the hidden suite (some hidden case decided against its label)."""
    flaw = load_flaw(flaw_name)
    applicable, caught = [], []
    for task_id, task in sorted(full_suite.tasks.items()):
        hidden = full_suite.cases_by_task[task_id]
        caught_by_hidden = any(_wrong(flaw, task, c.candidate, c.label) for c in hidden)
        if caught_by_hidden or any(_wrong(flaw, task, w.candidate, w.label) for w in audit_candidates[task_id]):
            applicable.append(task.source_id)
            if caught_by_hidden:
                caught.append(task.source_id)
    assert applicable, f"{flaw_name} applies to no task"
    missed = sorted(set(applicable) - set(caught))
    assert len(caught) >= CAUGHT_SHARE * len(applicable), f"{flaw_name}: hidden suite misses it on {missed}"


@pytest.mark.parametrize("flaw_name", sorted(FLAWS))
def test_auditor_refutes_a_flawed_verifier_the_hidden_suite_passes(flaw_name, suite, bfcl_candidates, executor, tmp_path):
    tasks = _missed_by_hidden(suite, bfcl_candidates, load_flaw(flaw_name), FLAWS[flaw_name])
    assert tasks, f"no task where the generators can trigger {flaw_name} unseen by the hidden suite without {FLAWS[flaw_name]}"
    pool = WitnessPool(tmp_path / "pool", suite.manifest.version)
    for task in tasks[:TASKS_PER_FLAW]:
        hidden = _without_family(suite, task.id, FLAWS[flaw_name])
        trial = engine.freeze(executor, flawed_files(task, flaw_name))
        decisions, _ = engine.decide_all(executor, trial, {c.id: c.candidate for c in hidden})
        assert all(decisions[c.id] is (Decision.P if c.label is Label.PASS else Decision.F) for c in hidden), \
            f"{flaw_name} should score BA_norm 100 on {task.source_id}'s hidden suite"

        result = asyncio.run(engine.audit(task, hidden, trial, executor, pool, engine.Auditors(seed=0)))
        assert result.refuted, f"{flaw_name} not refuted on {task.source_id}"
        assert set(FLAWS[flaw_name]) & {w.operator for w, _ in result.witnesses}
        hidden_keys = {candidate_key(c.candidate) for c in hidden}
        for witness, generated in result.witnesses:
            assert witness.key not in hidden_keys  # new, not a hidden case
            assert reference.decide(task, witness.candidate) == (witness.label is Label.PASS)  # certified label
            assert engine.disagrees(witness.label, Decision(generated))
            assert witness.review.verdict == VALID and witness.requirement

        refrozen = engine.freeze(executor, flawed_files(task, flaw_name))  # a new trial: nothing decided yet
        again = asyncio.run(engine.audit(task, hidden, refrozen, executor, pool, engine.Auditors(seed=0)))
        assert again.refuted and again.rounds == 0 and again.pool_replayed >= len(result.witnesses)


def test_an_audit_decides_the_same_through_warm_sandboxes_as_with_a_sandbox_per_candidate(suite, bfcl_candidates, bwrap_available,
                                                                                         tmp_path):
    """The audit runs its candidates as hidden cases run (warm sandboxes, Executor.run_batch); with a sandbox per
    candidate (an executor made cold) every candidate gets the same decision, so the same witnesses refute. Nothing
    preloaded, as for a generated verifier."""
    flaw_name = "loose_numbers"
    task = _missed_by_hidden(suite, bfcl_candidates, load_flaw(flaw_name), FLAWS[flaw_name])[0]
    hidden = _without_family(suite, task.id, FLAWS[flaw_name])
    runs = {}
    for name in ("warm", "cold"):
        with trusted_executor(warm=name == "warm", preload=False) as ex:
            trial = engine.freeze(ex, flawed_files(task, flaw_name))
            pool = WitnessPool(tmp_path / name, suite.manifest.version)
            result = asyncio.run(engine.audit(task, hidden, trial, ex, pool, engine.Auditors(seed=0)))
            runs[name] = (trial.decided, [(w.key, d) for w, d in result.witnesses], result.rounds, result.executions)
    assert runs["warm"][1], f"{flaw_name} not refuted on {task.source_id}"
    assert runs["warm"] == runs["cold"]


@pytest.mark.timeout(900)  # every BFCL/ACEBench task, full rounds: within 300 s idle, past it at load 18
@pytest.mark.parametrize("source", ["bfcl", "acebench"])
def test_reference_verifier_is_never_refuted(source, request, executor, tmp_path):
    """Every task under VERIFIERBENCH_EXHAUSTIVE=1 (80 s a source idle); CI audits a fixed sample holding every
    category and case family of the source (representative_tasks)."""
    # BFCL from the installed package; ACEBench from the data shipped in verifierbench.
    suite = load_suite(request.getfixturevalue("bfcl_suite" if source == "bfcl" else "built"))
    tasks = [suite.tasks[task_id] for task_id in representative_tasks(suite, source)]
    pool = WitnessPool(tmp_path / "pool", suite.manifest.version)
    certified = 0
    for task in tasks:
        trial = engine.freeze(executor, reference_files(task))
        result = asyncio.run(engine.audit(task, suite.cases_by_task[task.id], trial, executor, pool, engine.Auditors(seed=0)))
        assert not result.refuted and not result.unconfirmed, (task.source_id, [w.operator for w, _ in result.witnesses])
        assert result.rounds == engine.DEFAULT_ROUNDS
        certified += result.certified
    assert tasks and certified > 10 * len(tasks)  # the audit did propose and run fresh candidates


@pytest.mark.parametrize("source", ["bfcl", "acebench"])
def test_the_ci_sample_holds_every_category_and_case_family_of_the_source(source, full_suite):
    """The fixed sample CI's tool-call sweeps take (representative_tasks) is what it says it is."""
    from tests.conftest import EXHAUSTIVE

    tasks = [t for t in full_suite.tasks.values() if t.source.value == source]
    sample = representative_tasks(full_suite, source)

    def held(task_ids) -> tuple[set, set]:
        categories = {full_suite.tasks[t].metadata["upstream_category"] for t in task_ids}
        families = {(key, c.provenance[key]) for t in task_ids for c in full_suite.cases_by_task[t]
                    for key in ("operator", "family") if c.provenance.get(key)}
        return categories, families

    assert held(sample) == held([t.id for t in tasks])
    assert sample == sorted(sample) and len(set(sample)) == len(sample)
    assert EXHAUSTIVE or len(sample) < len(tasks) / 3, (len(sample), len(tasks))
