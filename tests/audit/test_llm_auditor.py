"""The LLM auditor and the reviewer, with scripted model outputs (mockllm): proposals are kept only when the
reference certifies their label; only witnesses the reviewer calls valid refute; the analysis is kept."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.audit.helpers import flawed_files, scripted, single_call_task, trusted_executor
from verifierbench.audit import engine, llm, reviewer
from verifierbench.audit.pool import WitnessPool
from verifierbench.audit.witness import INVALID, QUESTIONABLE, VALID
from verifierbench.sources.toolcall.candidate import candidate, render_python
from verifierbench.sources.toolcall.base import spec_for_reference


@pytest.fixture(scope="module")
def task_and_hidden(bfcl_suite):
    return single_call_task(bfcl_suite)


def auditor_reply(task) -> str:
    gold = spec_for_reference(task.reference).gold_calls()
    # valid, and the flawed verifier rejects it; the trailing newline makes it new (the hidden suite holds the
    # plain bracket-less reply since issue 21, and a known candidate is not a witness)
    unbracketed = candidate(gold, raw=render_python(gold)[1:-1] + "\n")
    wrong = json.loads(json.dumps(gold))
    wrong[0]["name"] = wrong[0]["name"] + "_unoffered"  # no case family makes it (function_not_offered: _v2)
    return "Analysis first.\n```json\n" + json.dumps({
        "conditions": [{"condition": "raw must start with [", "requirement": "none", "justified": False}],
        "candidates": [
            {"label": "PASS", "requirement": "calls may be written in Python call syntax", "candidate": unbracketed},
            {"label": "PASS", "requirement": "mislabeled: a tool that does not exist", "candidate": candidate(wrong)},
            {"label": "FAIL", "requirement": "malformed", "candidate": {"text": "not a candidate"}},
        ],
    }) + "\n```"


def run_audit(suite, task, hidden, auditor, review_model, tmp_path):
    with trusted_executor() as executor:
        trial = engine.freeze(executor, flawed_files(task, "bracketed_reply_required"))
        auditors = engine.Auditors(deterministic=False, llm_auditor=auditor, reviewer_model=review_model)
        pool = WitnessPool(tmp_path / "pool", suite.manifest.version)
        return asyncio.run(engine.audit(task, hidden, trial, executor, pool, auditors, rounds=1, files=flawed_files(task, "bracketed_reply_required")))


def test_certified_llm_witness_refutes_when_the_reviewer_finds_it_valid(task_and_hidden, bwrap_available, tmp_path):
    suite, task, hidden = task_and_hidden
    result = run_audit(suite, task, hidden, scripted(auditor_reply(task)), scripted("VALID: the format allows Python call syntax."), tmp_path)
    assert result.proposed == 3 and result.certified == 1  # the mislabeled and the malformed proposals are dropped
    assert result.refuted
    (witness, generated), = result.witnesses
    assert witness.auditor == "llm" and witness.label.value == "PASS" and generated == "F"
    assert witness.review.verdict == VALID and "mockllm" in witness.review.by
    assert result.analyses[0]["conditions"][0]["justified"] is False


@pytest.mark.parametrize("verdict_reply, verdict", [("INVALID - the instruction never says so.", INVALID), ("Hmm, QUESTIONABLE.", QUESTIONABLE)])
def test_reviewer_rejection_keeps_the_verifier_unrefuted(task_and_hidden, bwrap_available, tmp_path, verdict_reply, verdict):
    suite, task, hidden = task_and_hidden
    result = run_audit(suite, task, hidden, scripted(auditor_reply(task)), scripted(verdict_reply), tmp_path)
    assert not result.refuted
    (witness, _), = result.unconfirmed
    assert witness.review.verdict == verdict
    # pooled with its verdict, but never replayed as a refutation
    pooled = WitnessPool(tmp_path / "pool", suite.manifest.version).load(task.id, task.content_hash)
    assert [w.review.verdict for w in pooled] == [verdict] and not any(w.refutes for w in pooled)


def test_llm_witness_without_a_reviewer_is_questionable(task_and_hidden, bwrap_available, tmp_path):
    suite, task, hidden = task_and_hidden
    result = run_audit(suite, task, hidden, scripted(auditor_reply(task)), None, tmp_path)
    assert not result.refuted and result.unconfirmed[0][0].review.verdict == QUESTIONABLE


def test_auditor_prompt_holds_requirements_and_code_and_parse_tolerates_noise(task_and_hidden):
    _, task, _ = task_and_hidden
    files = flawed_files(task, "bracketed_reply_required")
    text = llm.prompt(task, files)
    assert task.instruction in text and "flaw.apply" in text and "mishandling default" in text
    assert llm.parse("no json here") == ([], {"error": "no JSON object in the auditor's reply"})
    proposals, _ = llm.parse('```json\n{"candidates": [{"label": "MAYBE", "candidate": {}}, {"label": "FAIL", "candidate": {"raw": "", "parsed": []}}]}\n```')
    assert [p.label.value for p in proposals] == ["FAIL"]


def test_reviewer_verdict_parsing():
    assert reviewer.VERDICT.search("INVALID because").group(1) == "INVALID"
    assert reviewer.VERDICT.search("VALID.").group(1) == "VALID"
