"""The hidden-case scorer's judging: crashes are U (never unscored), a missing verifier scores 0."""

from __future__ import annotations

import math

import pytest

from verifierbench.core.protocol import Decision
from verifierbench.scorers.diagnostics import Judged
from verifierbench.executor import Executor
from verifierbench.scorers.hidden_cases import build_score, judge_cases, shared_executor
from verifierbench.core.verifier_files import decode, encode
from verifierbench.suite.store import load_suite

pytestmark = pytest.mark.usefixtures("bwrap_available")


@pytest.fixture(scope="module")
def task_and_cases(bfcl_suite):
    suite = load_suite(bfcl_suite)
    task = next(t for t in suite.tasks.values() if t.source_id == "parallel_114")
    return task, suite.cases_by_task[task.id]


def files(source):
    return {"verify.py": encode(source.encode())}


def score_of(task, cases, source, rounds=1):
    verifier_hash, decisions = judge_cases(files(source), cases, rounds)
    return build_score(task, cases, decisions, verifier_hash, files(source), [], rounds, rounds)


def test_a_crashing_verifier_gets_u_on_every_case_and_scores_zero(task_and_cases):
    task, cases = task_and_cases
    score = score_of(task, cases, "raise SystemExit(3)\n")
    assert score.value["U@0"] == len(cases) and score.value["P@0"] == score.value["F@0"] == 0
    assert score.value["r_pos@0"] == 0.0 and score.value["r_neg@0"] == 0.0
    assert not any(math.isnan(v) for v in score.value.values())
    assert all(c["decisions"] == ["U"] and "status 3" in c["problem"] for c in score.metadata["cases"])


def test_helper_module_and_helper_files_are_delivered(task_and_cases):
    task, cases = task_and_cases
    source = "import json, os, vgb_env\nrule = json.load(open(os.path.join(os.path.dirname(__file__), 'rule.json')))\nvgb_env.write_decision(rule['decision'])\n"
    delivered = {"verify.py": encode(source.encode()), "rule.json": encode(b'{"decision": "FAIL"}')}
    verifier_hash, decisions = judge_cases(delivered, cases, 1)
    assert {d[0][0] for d in decisions.values()} == {Decision.F}


def test_rounds_are_judged_separately_and_recorded(task_and_cases):
    task, cases = task_and_cases
    score = score_of(task, cases, "import sys, json\njson.dump({'decision': 'PASS'}, open(sys.argv[2], 'w'))\n", rounds=2)
    assert all(c["decisions"] == ["P", "P"] for c in score.metadata["cases"])
    assert score.value["r_pos@1"] == 1.0 and score.metadata["rounds_judged"] == 2


def test_binary_files_round_trip():
    assert decode(encode(b"\xff\x00abc")) == b"\xff\x00abc"
    assert encode("é".encode()) == {"text": "é"}


def test_a_missing_verifier_is_u_everywhere_and_not_submitted(task_and_cases):
    task, cases = task_and_cases
    decisions = {c.id: [Judged(Decision.U, "missing verifier")] for c in cases}
    score = build_score(task, cases, decisions, None, {}, [], 1, 1)
    assert score.value["submitted"] == 0.0 and score.value["r_pos@0"] == 0.0 and score.value["U@0"] == len(cases)
    assert score.answer == "no verifier"


def test_an_unparseable_result_is_u_not_an_exception(task_and_cases):
    # JSON nested 200,000 deep makes json.loads raise RecursionError; the sample must still be scored.
    task, cases = task_and_cases
    score = score_of(task, cases, 'import sys\nopen(sys.argv[2], "w").write("[" * 200000 + "]" * 200000)\n')
    assert score.value["U@0"] == len(cases)
    assert all("nested too deeply" in c["problem"] for c in score.metadata["cases"])


def test_materialize_never_writes_outside_the_verifier_directory(tmp_path):
    # Files come from the log when re-scoring or auditing; an edited log must not place files on the host.
    from verifierbench.core.verifier_files import materialize

    outside = tmp_path / "outside"
    files = {"verify.py": encode(b"pass\n"), "../escape.py": encode(b"x"), str(outside / "abs.py"): encode(b"x"), "": encode(b"x")}
    directory = materialize(files, tmp_path / "deep" / "verifier")
    assert sorted(p.name for p in (tmp_path / "deep").rglob("*")) == ["verifier", "verify.py"]
    assert not (tmp_path / "deep" / "escape.py").exists() and not outside.exists()
    assert (directory / "verify.py").read_bytes() == b"pass\n"


def test_distinct_failures_keep_a_bounded_stderr_tail_each(task_and_cases):
    # Each case fails with its own last stderr line after 10 KB of noise: at most 5 distinct failures, 2 KB each.
    task, cases = task_and_cases
    source = ("import hashlib, sys\nsys.stderr.write('noise ' * 2000 + '\\n')\n"
              "raise SystemExit('failure ' + hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest()[:8])\n")
    score = score_of(task, cases, source)
    failures = score.metadata["failures"]
    assert len(failures) == min(5, len(cases)) and len(cases) > 5
    assert len({f["stderr_tail"].splitlines()[-1] for f in failures}) == len(failures)
    for failure in failures:
        assert failure["problem"] == "verifier exited with status 1 (no result file written)" and failure["cases"] == 1
        assert 1500 < len(failure["stderr_tail"].encode()) <= 2048 and failure["stderr_tail"].rstrip().split()[-2] == "failure"
    assert [f["first_case"] for f in failures] == [c.id for c in cases][:5]


def test_a_valid_verifier_has_no_failures_and_a_missing_one_says_why(task_and_cases):
    task, cases = task_and_cases
    assert score_of(task, cases, "import vgb_env\nvgb_env.write_decision('FAIL')\n").metadata["failures"] == []
    decisions = {c.id: [Judged(Decision.U, "missing verifier")] for c in cases}
    score = build_score(task, cases, decisions, None, {}, [], 1, 1, "empty reply")
    assert score.metadata["undelivered"] == "empty reply" and score.explanation == "no verifier delivered: empty reply"


def test_the_scorer_judges_on_the_warm_path_unless_made_cold(task_and_cases, monkeypatch):
    task, cases = task_and_cases
    source = "import sys, json\ncand = json.load(open(sys.argv[1]))\njson.dump({'decision': 'PASS' if len(str(cand)) % 2 else 'FAIL'}, open(sys.argv[2], 'w'))\n"
    paths: list[str] = []
    real_run_warm, real_run_many = Executor.run_warm, Executor.run_many

    def spy(real, name):
        def run(self, jobs, on_done=None):
            for outcome in real(self, jobs, on_done):
                paths.append(outcome.path if name == "warm" else "cold")
                yield outcome
        return run

    monkeypatch.setattr(Executor, "run_warm", spy(real_run_warm, "warm"))
    monkeypatch.setattr(Executor, "run_many", spy(real_run_many, "cold"))
    _, warm = judge_cases(files(source), cases, 1)
    assert paths == ["warm"] * len(cases)
    paths.clear()
    monkeypatch.setattr(shared_executor(), "warm", False)  # as VERIFIERBENCH_COLD=1 makes it
    _, cold = judge_cases(files(source), cases, 1)
    assert paths == ["cold"] * len(cases)
    assert warm == cold and {d[0].decision for d in warm.values()} == {Decision.P, Decision.F}
