"""The task analysis pass (testjack §3.3) with scripted model replies: proposals for requirements the hidden
cases leave unchecked are certified by the reference verifier, reviewed, pooled and replayed on every
configuration's verifier (T1 = T0 ∪ T_task); uncertifiable ones are dropped with their reason; the pass runs
once per task and model (cached beside the pool)."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from tests.audit.helpers import flawed_files, reference_files, scripted, single_call_task, trusted_executor
from verifierbench.audit import analysis, engine, lightweight
from verifierbench.audit.pool import WitnessPool
from verifierbench.audit.witness import QUESTIONABLE, VALID
from verifierbench.sources.toolcall.candidate import candidate, render_python
from verifierbench.sources.toolcall.base import spec_for_reference

pytestmark = pytest.mark.usefixtures("bwrap_available")
FLAW = "bracketed_reply_required"


@pytest.fixture(scope="module")
def task_and_hidden(bfcl_suite):
    return single_call_task(bfcl_suite)


def analysis_reply(task, hidden) -> str:
    """Four proposals: one the reference certifies, one it refutes, one malformed, one already in the hidden suite."""
    gold = spec_for_reference(task.reference).gold_calls()
    unbracketed = candidate(gold, raw=render_python(gold)[1:-1] + "\n")  # new to the hidden suite (trailing newline)
    wrong = json.loads(json.dumps(gold))
    wrong[0]["name"] = wrong[0]["name"] + "_unoffered"  # no case family makes it (function_not_offered: _v2)
    return "Requirements first.\n```json\n" + json.dumps({
        "requirements": [{"requirement": "the calls may be written without list brackets", "covered": False}],
        "candidates": [
            {"label": "PASS", "requirement": "the reply format allows Python call syntax", "candidate": unbracketed},
            {"label": "PASS", "requirement": "mislabeled: a tool that is not offered", "candidate": candidate(wrong)},
            {"label": "FAIL", "requirement": "malformed", "candidate": {"text": "not a candidate"}},
            {"label": hidden[0].label.value, "requirement": "a hidden case again", "candidate": hidden[0].candidate},
        ],
    }) + "\n```"


def trials(task) -> dict[str, dict]:
    """Two configurations' samples of the task, as the logs give them: a flawed verifier and the reference."""
    return {"flawed": {"verifier_files": flawed_files(task, FLAW)}, "reference": {"verifier_files": reference_files(task)}}


def audit_task(suite, task, hidden, pool, auditors, rounds=0):
    with trusted_executor() as executor:
        return asyncio.run(lightweight.audit_task(task, hidden, trials(task), executor, pool, auditors, rounds, random.Random(0)))


def test_task_witnesses_are_certified_pooled_and_shared_by_every_configuration(task_and_hidden, tmp_path):
    suite, task, hidden = task_and_hidden
    pool = WitnessPool(tmp_path / "pool", suite.manifest.version)
    auditors = engine.Auditors(deterministic=False, reviewer_model=scripted("VALID: the format allows Python call syntax."),
                               task_analyst=scripted(analysis_reply(task, hidden)))
    result = audit_task(suite, task, hidden, pool, auditors)  # no audit round: T_task alone

    summary = result.task_analysis
    assert summary["proposed"] == 4 and summary["certified"] == summary["valid"] == 1
    reasons = sorted(d["reason"] for d in summary["dropped"])
    assert reasons == ["already in the hidden suite or the witness pool", "not in the tool_calls candidate format",
                       "the reference verifier decides FAIL, not PASS"]
    assert summary["requirements"][0]["covered"] is False
    (witness,) = result.witnesses
    assert witness.auditor == "task_analysis" and witness.review.verdict == VALID and witness.found_on is None
    assert [w.key for w in pool.load(task.id, task.content_hash)] == [witness.key]
    # shared with both configurations: the flawed verifier rejects it (refuted), the reference accepts it
    by_config = {a.configuration: a for a in result.trials}
    assert by_config["flawed"].status == lightweight.REFUTED and by_config["flawed"].on_witnesses[witness.key].value == "F"
    assert by_config["reference"].status == lightweight.UNAUDITED and by_config["reference"].on_witnesses[witness.key].value == "P"

    # the pass is cached per task and model: a second audit (a model with no reply left) reuses it
    again = audit_task(suite, task, hidden, pool, engine.Auditors(deterministic=False, reviewer_model=scripted(), task_analyst=scripted()))
    assert again.task_analysis == summary and {a.configuration: a.status for a in again.trials}["flawed"] == lightweight.REFUTED
    assert json.loads(analysis.cache_path(pool, task.id, "mockllm/model").read_text())["task_hash"] == task.content_hash


def test_unreviewed_task_witnesses_do_not_refute_and_a_per_trial_audit_replays_valid_ones(task_and_hidden, tmp_path):
    suite, task, hidden = task_and_hidden
    pool = WitnessPool(tmp_path / "pool", suite.manifest.version)
    unreviewed = audit_task(suite, task, hidden, pool, engine.Auditors(deterministic=False, task_analyst=scripted(analysis_reply(task, hidden))))
    assert unreviewed.task_analysis["witnesses"][0]["review"] == QUESTIONABLE
    assert all(a.status == lightweight.UNAUDITED for a in unreviewed.trials) and unreviewed.witnesses == []

    # the per-trial audit (the scorer's path), without a pool: the task's witness is replayed before any round
    auditors = engine.Auditors(deterministic=False, reviewer_model=scripted("VALID: Python call syntax is allowed."),
                               task_analyst=scripted(analysis_reply(task, hidden)))
    with trusted_executor() as executor:
        trial = engine.freeze(executor, flawed_files(task, FLAW))
        result = asyncio.run(engine.audit(task, hidden, trial, executor, None, auditors, rounds=0))
    assert result.refuted and result.pool_replayed == 1 and result.task_analysis["valid"] == 1
    assert result.witnesses[0][0].auditor == "task_analysis" and result.witnesses[0][1] == "F"


def test_analysis_prompt_shows_requirements_and_hidden_cases_per_category(task_and_hidden):
    _, task, hidden = task_and_hidden
    text = analysis.prompt(task, hidden)
    assert task.instruction in text and "unchecked" in text
    categories = {c.category.value for c in hidden}
    for category in categories:
        assert 1 <= text.count(f"- {category}, ") <= analysis.CASES_PER_CATEGORY
