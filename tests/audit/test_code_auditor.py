"""The deterministic auditor on the offline code task: its proposals are certified by the reference (which
runs the hidden tests), the reference verifier itself is never refuted, and a verifier with a flaw the
hidden suite misses (new files rejected) is refuted by a legal change the hidden suite lacks."""

from __future__ import annotations

import asyncio
import importlib
import sys

import pytest

from tests.audit.helpers import FLAWED_DIR, flawed_files, reference_files
from verifierbench.audit import engine
from verifierbench.sources.swebench import audit as code
from verifierbench.audit.pool import WitnessPool
from verifierbench.core.proposals import candidate_key
from verifierbench.executor import Executor, Limits
from verifierbench.suite.export import reference_libraries, reference_site_packages
from verifierbench.sandboxes import VGB_ENV
from verifierbench.core.protocol import Decision
from verifierbench.sources.references import decide
from verifierbench.core.schema import Label
from verifierbench.suite.store import load_suite

pytestmark = pytest.mark.usefixtures("bwrap_available")


@pytest.fixture(scope="module")
def task_and_hidden(code_suite):
    suite = load_suite(code_suite)
    (task,) = suite.tasks.values()
    return task, suite.cases_by_task[task.id]


@pytest.fixture(scope="module")
def executor(bwrap_available):
    libraries = reference_libraries() + ((str(VGB_ENV), "vgb_env"),)
    with Executor(Limits(timeout_s=120), isolation="bwrap", libraries=libraries, site_packages=reference_site_packages()) as ex:
        yield ex


def test_proposals_are_new_and_certified_with_their_labels(task_and_hidden):
    task, hidden = task_and_hidden
    known = {candidate_key(c.candidate) for c in hidden}
    proposals = code.propose(task, 0, 0)
    operators = {p.operator for p in proposals}
    assert {"new_module_added", "other_package_init_edited", "docs_edited", "context_10_lines"} <= operators
    seen = set(known)
    witnesses = engine.certify(task, proposals, seen)
    assert witnesses and all(w.key not in known for w in witnesses)
    for witness in witnesses[:6]:
        assert decide(task.reference, witness.candidate)[0] is (witness.label is Label.PASS)
    # the fixture is small enough that round 0 already holds every mutant: later rounds add nothing twice
    assert engine.certify(task, code.propose(task, 1, 0), seen) == []


def _flaw(name: str):
    if str(FLAWED_DIR) not in sys.path:
        sys.path.insert(0, str(FLAWED_DIR))
    return importlib.import_module(name)


def test_reference_is_never_refuted(task_and_hidden, executor, tmp_path):
    task, hidden = task_and_hidden
    trial = engine.freeze(executor, reference_files(task))
    pool = WitnessPool(tmp_path / "pool", "test")
    result = asyncio.run(engine.audit(task, hidden, trial, executor, pool, engine.Auditors(seed=0), rounds=2))
    assert not result.refuted and result.certified > 0 and not result.unconfirmed


def test_auditor_refutes_a_verifier_that_rejects_new_files(task_and_hidden, executor, tmp_path):
    task, hidden = task_and_hidden
    flaw = _flaw("new_files_rejected")
    assert all(flaw.apply(task.reference, c.candidate, c.label is Label.PASS) is (c.label is Label.PASS) for c in hidden)
    trial = engine.freeze(executor, flawed_files(task, "new_files_rejected"))
    decisions, _ = engine.decide_all(executor, trial, {c.id: c.candidate for c in hidden}, task)
    assert all(decisions[c.id] is (Decision.P if c.label is Label.PASS else Decision.F) for c in hidden), \
        "the flawed verifier should score BA_norm 100 on the hidden suite"
    pool = WitnessPool(tmp_path / "pool", "test")
    result = asyncio.run(engine.audit(task, hidden, trial, executor, pool, engine.Auditors(seed=0)))
    assert result.refuted
    witness, decision = result.witnesses[0]
    assert witness.operator == "new_module_added" and witness.label is Label.PASS and decision == "F"
    # a newly frozen copy is refuted from the pool, with no audit round spent
    again = asyncio.run(engine.audit(task, hidden, engine.freeze(executor, flawed_files(task, "new_files_rejected")), executor, pool,
                                     engine.Auditors(seed=0)))
    assert again.refuted and again.rounds == 0
