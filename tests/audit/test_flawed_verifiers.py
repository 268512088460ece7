"""Acceptance: each flawed verifier embodies one failure mode (paper §4, App. I) and scores BA_norm 100 on
tasks whose hidden suite misses its flaw; there the deterministic auditor must find a witness, every
witness must be certified by the reference verifier, and a second audit must refute from the pool alone.
The reference verifier itself is never refuted."""

from __future__ import annotations

import asyncio
import importlib
import sys

import pytest

from tests.audit.helpers import FLAWED_DIR, flawed_files, reference_files, trusted_executor
from verifierbench.audit import engine, toolcall
from verifierbench.audit.pool import WitnessPool
from verifierbench.audit.witness import VALID, candidate_key
from verifierbench.protocol import Decision
from verifierbench.schema import Label
from verifierbench.screening import reference
from verifierbench.sources.toolcall.reference import decide
from verifierbench.suite import load_suite

# flaw module -> the audit operator whose candidates trigger it
FLAWS = {
    "loose_numbers": "value_off_by_one",
    "unknown_arguments_ignored": "unknown_argument_added",
    "extra_tools_ignored": "other_tool_called",
    "bracketed_reply_required": "raw_without_list_brackets",
    "other_values_rejected": "each_acceptable_value",
}
TASKS_PER_FLAW = 2


@pytest.fixture(scope="module")
def suite(bfcl_suite):
    return load_suite(bfcl_suite)


@pytest.fixture(scope="module")
def executor(bwrap_available):
    with trusted_executor() as ex:
        yield ex


def _flaw(name: str):
    if str(FLAWED_DIR) not in sys.path:
        sys.path.insert(0, str(FLAWED_DIR))
    return importlib.import_module(name)


def _missed_by_hidden(suite, flaw) -> list:
    """Tasks where the flaw agrees with every hidden label but some certified audit candidate triggers it (in process)."""
    found = []
    for task_id, task in sorted(suite.tasks.items()):
        decide_flawed = lambda c, task=task: flaw.apply(task.reference, c, decide(task.reference, c)[0])
        hidden = suite.cases_by_task[task_id]
        if any(decide_flawed(c.candidate) != (c.label is Label.PASS) for c in hidden):
            continue
        known = {candidate_key(c.candidate) for c in hidden}
        certified = [w for r in range(engine.DEFAULT_ROUNDS) for w in engine.certify(task, toolcall.propose(task, r, 0), known)]
        if any(decide_flawed(w.candidate) != (w.label is Label.PASS) for w in certified):
            found.append(task)
    return found


@pytest.mark.parametrize("flaw_name", sorted(FLAWS))
def test_auditor_refutes_a_flawed_verifier_the_hidden_suite_passes(flaw_name, suite, executor, tmp_path):
    tasks = _missed_by_hidden(suite, _flaw(flaw_name))
    assert tasks, f"no task where the generators can trigger {flaw_name} unseen by the hidden suite"
    pool = WitnessPool(tmp_path / "pool", suite.manifest.version)
    for task in tasks[:TASKS_PER_FLAW]:
        hidden = suite.cases_by_task[task.id]
        trial = engine.freeze(executor, flawed_files(task, flaw_name))
        decisions, _ = engine.decide_all(executor, trial, {c.id: c.candidate for c in hidden})
        assert all(decisions[c.id] is (Decision.P if c.label is Label.PASS else Decision.F) for c in hidden), \
            f"{flaw_name} should score BA_norm 100 on {task.source_id}'s hidden suite"

        result = asyncio.run(engine.audit(task, hidden, trial, executor, pool, engine.Auditors(seed=0)))
        assert result.refuted, f"{flaw_name} not refuted on {task.source_id}"
        assert FLAWS[flaw_name] in {w.operator for w, _ in result.witnesses}
        hidden_keys = {candidate_key(c.candidate) for c in hidden}
        for witness, generated in result.witnesses:
            assert witness.key not in hidden_keys  # new, not a hidden case
            assert reference.decide(task, witness.candidate) == (witness.label is Label.PASS)  # certified label
            assert engine.disagrees(witness.label, Decision(generated))
            assert witness.review.verdict == VALID and witness.requirement

        refrozen = engine.freeze(executor, flawed_files(task, flaw_name))  # a new trial: nothing decided yet
        again = asyncio.run(engine.audit(task, hidden, refrozen, executor, pool, engine.Auditors(seed=0)))
        assert again.refuted and again.rounds == 0 and again.pool_replayed >= len(result.witnesses)


@pytest.mark.parametrize("source", ["bfcl", "acebench"])
def test_reference_verifier_is_never_refuted(source, request, executor, tmp_path):
    # BFCL from the installed package; ACEBench from the data shipped in verifierbench.
    suite = load_suite(request.getfixturevalue("bfcl_suite" if source == "bfcl" else "built"))
    tasks = [t for t in suite.tasks.values() if t.source.value == source]
    pool = WitnessPool(tmp_path / "pool", suite.manifest.version)
    certified = 0
    for task in tasks:
        trial = engine.freeze(executor, reference_files(task))
        result = asyncio.run(engine.audit(task, suite.cases_by_task[task.id], trial, executor, pool, engine.Auditors(seed=0)))
        assert not result.refuted and not result.unconfirmed, (task.source_id, [w.operator for w, _ in result.witnesses])
        assert result.rounds == engine.DEFAULT_ROUNDS
        certified += result.certified
    assert tasks and certified > 10 * len(tasks)  # the audit did propose and run fresh candidates
