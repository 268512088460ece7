"""The deterministic auditor on state tasks (tau2 and AgentDojo interaction records), issue 21 item 2.

In process, over every state task of the suite: each proposal the reference certifies keeps its label, the
audit's own operators give candidates the hidden suite lacks, and each flawed state verifier in
`flawed_verifiers/` is refuted by a certified candidate new to the hidden suite wherever it scores BA_norm 100
on the hidden suite (or, where the hidden suite catches it, on the hidden suite less the cases that do).
Sandboxed, as the audit runs them: the flawed verifiers are refuted by those witnesses through the engine (from
the pool, then again with no round spent), a full audit round refutes one, and the exported reference verifier
is never refuted.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.audit.helpers import load_flaw, flawed_files, reference_files
from verifierbench.audit import engine, reviewer
from verifierbench.audit.pool import WitnessPool
from verifierbench.audit.witness import VALID
from verifierbench.core.proposals import candidate_key
from verifierbench.executor import Executor, Limits
from verifierbench.suite.export import reference_libraries, reference_site_packages
from verifierbench.core.protocol import Decision
from verifierbench.core.schema import Label
from verifierbench.screening import reference
from verifierbench.sources.interaction import audit as state
from verifierbench.suite.store import load_suite

FLAWS = ("recorded_results_trusted", "final_text_only", "unexpected_writes_ignored", "exact_gold_sequence_required")
AUDIT_ONLY = {"each_result_fabricated", "each_call_repeated"}
# The state suite's build and a round's proposals on a few tasks take minutes on a shared machine.
pytestmark = pytest.mark.timeout(1200)
WITNESSES_PER_FLAW = 2  # sandboxed replays per flaw (a state-task run takes seconds)
TASKS_PER_SOURCE = 2
# Flaws the hidden suite catches on every task; the audit's own operators must refute them with candidates new to it.
CAUGHT_BY_HIDDEN = ("recorded_results_trusted", "final_text_only", "exact_gold_sequence_required")
# ... on at least this share of the sampled tasks (measured over all 52 state tasks: 52, 52 and 49 of them).
NEW_SHARE = 0.75


@pytest.fixture(scope="module")
def suite(state_suite):
    return load_suite(state_suite)


@pytest.fixture(scope="module")
def state_tasks(suite):
    """The first TASKS_PER_SOURCE tau2 and AgentDojo tasks by id (a round's proposals take seconds per task)."""
    tasks = [t for t in sorted(suite.tasks.values(), key=lambda t: t.id) if state.supports(t)]
    return [t for source in ("tau2", "agentdojo") for t in [t for t in tasks if t.source.value == source][:TASKS_PER_SOURCE]]


@pytest.fixture(scope="module")
def certified(suite, state_tasks) -> dict:
    """Per task, the round-0 proposals the reference certifies (no dedup: the hidden keys are checked per test)."""
    return {t.id: engine.certify(t, state.propose(t, 0, 0), set()) for t in state_tasks}


@pytest.fixture(scope="module")
def executor(bwrap_available):
    # trusted_preload: these verifiers are ours (tests/audit/helpers.py), each warm sandbox imports tau2's or AgentDojo's
    # modules once instead of once per run
    with Executor(Limits(timeout_s=120), isolation="bwrap", libraries=reference_libraries(),
                  site_packages=reference_site_packages(), trusted_preload=True) as ex:
        yield ex


def _wrong(flaw, task, candidate, label) -> bool:
    """Whether the flawed verifier (in process: the reference decision, which agrees with `label`, with the flaw
    applied) decides against `label`."""
    return flaw.apply(task.reference, candidate, label is Label.PASS) != (label is Label.PASS)


def test_proposals_are_certified_with_their_labels_and_reach_past_the_hidden_suite(suite, state_tasks, certified):
    later_round = {p.operator for p in state.propose(state_tasks[0], 1, 0)}  # a new seed, the same operators
    assert AUDIT_ONLY | {"gold"} <= later_round
    for task in state_tasks:
        assert AUDIT_ONLY & {w.operator for w in certified[task.id]}, task.source_id
        hidden_keys = {candidate_key(c.candidate) for c in suite.cases_by_task[task.id]}
        fresh = [w for w in certified[task.id] if w.key not in hidden_keys]
        assert any(w.operator in AUDIT_ONLY for w in fresh), f"{task.source_id}: the audit adds nothing new"
        for witness in fresh[:3]:
            assert reference.decide(task, witness.candidate) is (witness.label is Label.PASS)


def test_results_missing_from_a_record_are_replayed_and_stated_ones_kept(state_tasks):
    task = next(t for t in state_tasks if t.source.value == "tau2")
    gold = state.gold_record(task.reference)
    stripped = json.loads(json.dumps(gold))
    calls = [c for m in stripped["messages"] for c in m.get("tool_calls") or []]
    for call in calls:
        del call["result"]
    calls[0]["result"] = "made up"
    filled = state.with_replayed_results(task.reference, stripped)
    shown = [c["result"] for m in filled["messages"] for c in m.get("tool_calls") or []]
    assert shown[0] == "made up" and shown[1:] == [c["result"] for m in gold["messages"] for c in m.get("tool_calls") or []][1:]


def _refuting(suite, task, flaw, certified) -> tuple[list, list]:
    """(the hidden cases the flawed verifier gets right, certified candidates new to the whole hidden suite that
    it gets wrong)."""
    hidden = suite.cases_by_task[task.id]
    kept = [c for c in hidden if not _wrong(flaw, task, c.candidate, c.label)]
    hidden_keys = {candidate_key(c.candidate) for c in hidden}
    found = [w for w in certified[task.id] if w.key not in hidden_keys and _wrong(flaw, task, w.candidate, w.label)]
    return kept, found


@pytest.mark.parametrize("flaw_name", FLAWS)
def test_each_flawed_state_verifier_is_refuted_where_the_hidden_suite_passes_it(flaw_name, suite, state_tasks, certified):
    """On every task where the flaw applies (some hidden case or certified candidate triggers it), the flawed verifier
    scores BA_norm 100 on the hidden suite less the cases that catch it, and a certified candidate new to that
    suite refutes it. For the flaws the hidden suite always catches, the audit's own candidates, new to the whole
    hidden suite, refute them on nearly every task (NEW_SHARE)."""
    flaw = load_flaw(flaw_name)
    applicable, unrefuted, not_new = [], [], []
    for task in state_tasks:
        hidden = suite.cases_by_task[task.id]
        kept, found = _refuting(suite, task, flaw, certified)
        kept_keys = {candidate_key(c.candidate) for c in kept}
        beyond_kept = [w for w in certified[task.id] if w.key not in kept_keys and _wrong(flaw, task, w.candidate, w.label)]
        if len(kept) < len(hidden) or beyond_kept:
            applicable.append(task.source_id)
            if not beyond_kept:
                unrefuted.append(task.source_id)
        if flaw_name in CAUGHT_BY_HIDDEN and not found:
            not_new.append(task.source_id)
    assert applicable, f"{flaw_name} applies to no sampled task"
    assert not unrefuted, f"{flaw_name}: no witness on {unrefuted}"
    assert len(not_new) <= (1 - NEW_SHARE) * len(state_tasks), \
        f"{flaw_name}: the audit adds no refuting candidate beyond the hidden suite on {not_new}"


@pytest.mark.parametrize("flaw_name", FLAWS)
def test_engine_refutes_the_sandboxed_flawed_verifier(flaw_name, suite, state_tasks, certified, executor, tmp_path):
    """The flawed verifier, frozen and sandboxed like a generated one, decides every hidden case it is meant to
    get right as the label says, and the witnesses found in process refute it through the engine: pooled, then
    replayed on a newly frozen copy with no audit round spent."""
    flaw = load_flaw(flaw_name)
    task, kept, found = next((t, *_refuting(suite, t, flaw, certified)) for t in state_tasks
                             if t.source.value == "tau2" and _refuting(suite, t, flaw, certified)[1])
    trial = engine.freeze(executor, flawed_files(task, flaw_name))
    sample = kept[:4]
    decisions, _ = engine.decide_all(executor, trial, {c.id: c.candidate for c in sample}, task)
    assert all(decisions[c.id] is (Decision.P if c.label is Label.PASS else Decision.F) for c in sample)
    pool = WitnessPool(tmp_path / "pool", suite.manifest.version)
    for witness in found[:WITNESSES_PER_FLAW]:
        witness.review = asyncio.run(reviewer.review(None, task, witness))
    pool.add(found[:WITNESSES_PER_FLAW])
    result = asyncio.run(engine.audit(task, kept, trial, executor, pool, engine.Auditors(seed=0)))
    assert result.refuted and result.rounds == 0, f"{flaw_name}: pooled witnesses did not refute on {task.source_id}"
    for witness, generated in result.witnesses:
        assert witness.review.verdict == VALID and engine.disagrees(witness.label, Decision(generated))


def test_an_audit_round_refutes_a_verifier_that_trusts_recorded_results(suite, state_tasks, executor, tmp_path):
    """A full round through the engine on an AgentDojo task: proposals, certification, batched sandboxed runs;
    the round stops at the first batch that refutes."""
    task = next(t for t in state_tasks if t.source.value == "agentdojo")
    flaw = load_flaw("recorded_results_trusted")
    hidden = [c for c in suite.cases_by_task[task.id] if not _wrong(flaw, task, c.candidate, c.label)]
    trial = engine.freeze(executor, flawed_files(task, "recorded_results_trusted"))
    pool = WitnessPool(tmp_path / "pool", suite.manifest.version)
    result = asyncio.run(engine.audit(task, hidden, trial, executor, pool, engine.Auditors(seed=0), rounds=1))
    assert result.refuted and result.executions < result.certified
    assert {w.operator for w, _ in result.witnesses} & ({"each_result_fabricated"} | {"recorded_result_fabricated"})
    for witness, _ in result.witnesses:
        assert reference.decide(task, witness.candidate) is (witness.label is Label.PASS)


def test_reference_verifier_is_never_refuted_on_state_witnesses(suite, state_tasks, certified, executor):
    """The exported reference verifier, sandboxed, decides the audit's new candidates as their certified labels say
    (a few of each operator on one tau2 and one AgentDojo task)."""
    for source in ("tau2", "agentdojo"):
        task = next(t for t in state_tasks if t.source.value == source)
        hidden_keys = {candidate_key(c.candidate) for c in suite.cases_by_task[task.id]}
        chosen: dict[str, list] = {}
        for witness in certified[task.id]:
            if witness.key not in hidden_keys and len(chosen.setdefault(witness.operator, [])) < 1:
                chosen[witness.operator].append(witness)
        sample = [w for ws in chosen.values() for w in ws][:8]
        trial = engine.freeze(executor, reference_files(task))
        decisions, _ = engine.decide_all(executor, trial, {w.key: w.candidate for w in sample}, task)
        wrong = [w.operator for w in sample if engine.disagrees(w.label, decisions[w.key])]
        assert not wrong, f"the reference disagrees with certified witnesses on {task.source_id}: {wrong}"


def test_llm_auditor_and_reviewer_work_on_state_tasks(suite, state_tasks, executor, tmp_path):
    """The LLM auditor's prompt names the state failure modes; a record it writes without results gets the replayed
    ones (so a valid record can be certified); a fabricated result it writes is kept, certified as FAIL, and
    refutes a verifier that trusts recorded results once the reviewer calls it valid."""
    from tests.audit.test_llm_auditor import scripted
    from verifierbench.audit import llm

    task = next(t for t in state_tasks if t.source.value == "tau2")
    assert "fabricated results" in llm.prompt(task, {}) and "leave out a tool call's `result`" in llm.prompt(task, {})
    gold = state.gold_record(task.reference)
    unrecorded = json.loads(json.dumps(gold))
    for message in unrecorded["messages"]:
        for call in message.get("tool_calls") or []:
            del call["result"]
    unrecorded["final_response"] = "All done. " + gold["final_response"]
    fabricated = json.loads(json.dumps(gold))
    first = next(c for m in fabricated["messages"] for c in m.get("tool_calls") or [])
    first["result"] = first["result"] + " (verified)"
    reply = "```json\n" + json.dumps({"conditions": [], "candidates": [
        {"label": "PASS", "requirement": "other wording of the final response", "candidate": unrecorded},
        {"label": "FAIL", "requirement": "recorded results must be the environment's", "candidate": fabricated}]}) + "\n```"
    files = flawed_files(task, "recorded_results_trusted")
    trial = engine.freeze(executor, files)
    auditors = engine.Auditors(deterministic=False, llm_auditor=scripted(reply), reviewer_model=scripted("VALID: results must be real."))
    pool = WitnessPool(tmp_path / "pool", suite.manifest.version)
    result = asyncio.run(engine.audit(task, [], trial, executor, pool, auditors, rounds=1, files=files))
    assert result.proposed == 2 and result.certified == 2
    (witness, generated), = result.witnesses
    assert witness.auditor == "llm" and witness.label is Label.FAIL and generated == "P" and witness.review.verdict == VALID
