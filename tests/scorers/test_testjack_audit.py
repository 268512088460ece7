"""`testjack_audit` the way users run it: `inspect score --scorer verifierbench/testjack_audit LOG` on an
existing log (appending), and `-T audit=true` inside `inspect eval`. Witnesses in the log replay: the
reference certifies each label and the logged verifier decides otherwise again."""

from __future__ import annotations

import shutil

import pytest
from inspect_ai.log import read_eval_log

from tests.conftest import logs_of
from tests.harness.inspect_cli import eval_log, inspect
from verifierbench.audit import engine
from verifierbench.core.protocol import Decision
from verifierbench.core.schema import Label
from verifierbench.scorers.hidden_cases import shared_executor
from verifierbench.screening import reference
from verifierbench.suite.store import load_suite

pytestmark = pytest.mark.usefixtures("bwrap_available")


@pytest.fixture(scope="module")
def heuristic_log(tmp_path_factory, bfcl_policy_logs):
    return logs_of(bfcl_policy_logs, ["verifierbench/heuristic"], tmp_path_factory.mktemp("heuristic-logs"))


def score(log_path, pool, *args):
    result = inspect("score", "--scorer", "verifierbench/testjack_audit", "--action", "append", "--overwrite",
                     "-S", f"pool={pool}", *args, str(log_path))
    assert result.returncode == 0, result.stderr[-3000:]
    return read_eval_log(str(log_path))


def test_inspect_score_appends_a_replayable_audit(heuristic_log, bfcl_suite, tmp_path):
    logs = tmp_path / "logs"
    shutil.copytree(heuristic_log, logs)
    path = eval_log(logs).location
    log = score(path, tmp_path / "pool")
    assert [s.name for s in log.results.scores] == ["hidden_cases", "testjack_audit"]
    got = {name: m.value for name, m in log.results.scores[1].metrics.items()}
    hidden = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert got["refuted_rate"] > 0 and got["witnesses"] > 0 and got["executions"] > 0
    assert got["BA_norm"] <= hidden["BA_norm"]  # witnesses are cases the verifier gets wrong

    suite = load_suite(bfcl_suite)
    for sample in log.samples:
        audit, hidden_score = sample.scores["testjack_audit"], sample.scores["hidden_cases"]
        assert audit.value["audited"] == 1.0 and audit.value["audit_rounds"] <= engine.DEFAULT_ROUNDS
        assert audit.value["refuted"] == float(bool(audit.metadata["witnesses"]))
        trial = engine.freeze(shared_executor(), hidden_score.metadata["verifier_files"])
        assert trial.verifier_hash == audit.metadata["verifier_hash"] == hidden_score.metadata["verifier_hash"]
        task = suite.tasks[str(sample.id)]
        replay = {w["key"]: w["candidate"] for w in audit.metadata["witnesses"]}
        decisions, _ = engine.decide_all(shared_executor(), trial, replay)
        for w in audit.metadata["witnesses"]:
            assert reference.decide(task, w["candidate"]) == (w["label"] == "PASS") and w["reference_decision"] in "PF"
            assert decisions[w["key"]].value == w["generated_decision"]
            assert engine.disagrees(Label(w["label"]), Decision(w["generated_decision"]))
            assert w["requirement"] and w["review"]["verdict"] == "valid"

    # A second audit replays the pool first: refuted samples are refuted again without new rounds.
    again = score(path, tmp_path / "pool")
    assert [s.name for s in again.results.scores][-1] != "testjack_audit"  # appended beside the first audit
    second = again.results.scores[-1].name
    for sample in again.samples:
        first, repeat = sample.scores["testjack_audit"], sample.scores[second]
        if first.value["refuted"]:
            assert repeat.value["refuted"] and repeat.value["audit_rounds"] == 0 and repeat.value["pool_replayed"] > 0


def test_audit_inside_an_eval_reuses_the_hidden_decisions(tmp_path, bfcl_suite):
    result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/always_accept", "-T", f"suite={bfcl_suite}",
                     "-T", "source=bfcl", "-T", "audit=true", "--limit", "2", "--log-dir", str(tmp_path / "logs"),
                     "--model-role", "auditor=verifierbench/always_reject",
                     env={"VERIFIERBENCH_WITNESS_POOL": str(tmp_path / "pool")})
    assert result.returncode == 0, result.stderr[-3000:]
    log = eval_log(tmp_path / "logs")
    assert [s.name for s in log.results.scores] == ["hidden_cases", "testjack_audit"]
    for sample in log.samples:
        audit = sample.scores["testjack_audit"]
        # always_accept: refuted by the first invalid certified candidate; hidden cases were not run again
        assert audit.value["refuted"] == 1.0 and audit.value["executions"] == audit.value["certified"]
        assert all(w["label"] == "FAIL" and w["generated_decision"] == "P" for w in audit.metadata["witnesses"])
        # the bound auditor role was asked; a reply without the JSON block yields no proposals, and says so
        assert audit.metadata["auditor_analyses"] == [{"round": 1, "error": "no JSON object in the auditor's reply"}]
    assert any((tmp_path / "pool").rglob("*.jsonl"))


def test_inspect_score_runs_the_task_analysis_pass_with_its_model_option(heuristic_log, bfcl_suite, tmp_path):
    import json
    import os
    import subprocess
    import sys

    from tests.audit.scripted_model import ENV as SCRIPTED_REPLIES
    from tests.audit.scripted_model import REGISTER
    from verifierbench.sources.toolcall.candidate import candidate, render_python
    from verifierbench.sources.toolcall.base import spec_for_reference

    logs = tmp_path / "logs"
    shutil.copytree(heuristic_log, logs)
    path = eval_log(logs).location
    suite = load_suite(bfcl_suite)
    replies = [["You review one test candidate", "VALID: the reply format allows Python call syntax."]]
    for sample in read_eval_log(str(path)).samples:
        task = suite.tasks[str(sample.id)]
        gold = spec_for_reference(task.reference).gold_calls()
        proposal = {"requirements": [], "candidates": [
            {"label": "PASS", "requirement": "Python call syntax", "candidate": candidate(gold, raw=render_python(gold)[1:-1] + "\n")},
            {"label": "FAIL", "requirement": "mislabeled: the gold itself", "candidate": candidate(gold, raw=render_python(gold) + "\n")}]}
        replies.append([task.instruction, "```json\n" + json.dumps(proposal) + "\n```"])
    (tmp_path / "replies.json").write_text(json.dumps(replies))
    program = REGISTER + "from inspect_ai._cli.main import main; main()"
    result = subprocess.run([sys.executable, "-c", program, "score", "--scorer", "verifierbench/testjack_audit", "--action", "append",
                             "--overwrite", "-S", f"pool={tmp_path / 'pool'}", "-S", "rounds=0", "-S", "task_analysis=scripted/analyst",
                             "-S", "reviewer=scripted/reviewer", str(path)], capture_output=True, text=True, timeout=900, cwd=tmp_path,
                            env={**os.environ, "INSPECT_DISPLAY": "none", SCRIPTED_REPLIES: str(tmp_path / "replies.json")})
    assert result.returncode == 0, result.stderr[-3000:]
    for sample in read_eval_log(str(path)).samples:
        audit = sample.scores["testjack_audit"]
        analysed = audit.metadata["task_analysis"]
        assert (analysed["model"], analysed["proposed"], analysed["certified"], analysed["valid"]) == ("scripted/analyst", 2, 1, 1)
        assert [d["reason"] for d in analysed["dropped"]] == ["the reference verifier decides PASS, not FAIL"]
        # no audit round: the task's own witness is replayed on the logged verifier, as pooled witnesses are
        assert audit.value["audit_rounds"] == 0 and audit.value["pool_replayed"] == 1.0
