"""`verifierbench judge`: frozen verifiers on hidden cases, decisions written as they finish, resumable."""

from __future__ import annotations

import json
import os

import pytest

from tests.cli.test_cli import cli
from tests.test_suite import make_suite
from verifierbench.core.errors import UserError
from verifierbench.core.schema import Task, TestCase
from verifierbench.suite.store import Suite, save_suite

pytestmark = pytest.mark.sandbox

CHECKS_PEOPLE = """
import json, sys
cand = json.load(open(sys.argv[1]))
calls = cand.get("parsed", [])
ok = len(calls) == 1 and calls[0]["name"] == "book" and calls[0]["arguments"].get("people") == 2
json.dump({"decision": "PASS" if ok else "FAIL"}, open(sys.argv[2], "w"))
"""


def two_task_suite() -> Suite:
    base = make_suite()
    other = Task.create(source="bfcl", source_id="simple_python_0", type="tool-call", instruction="Area of a circle r=3.",
                        environment={"tools": []}, candidate_format="tool_calls")
    cases = [
        TestCase.create(task_id=other.id, category="gold", candidate={"raw": "[area(r=3)]", "parsed": [{"name": "area", "arguments": {"r": 3}}]}),
        TestCase.create(task_id=other.id, category="base", candidate={"raw": "", "parsed": []}),
    ]
    return Suite.from_records("test-2", [*base.tasks.values(), other], [*base.cases.values(), *cases])


@pytest.fixture()
def setup(tmp_path, bwrap_available):
    suite = two_task_suite()
    save_suite(suite, tmp_path / "suite")
    booking = next(t for t in suite.tasks.values() if t.source.value == "acebench")
    (tmp_path / "verifiers" / booking.id).mkdir(parents=True)
    (tmp_path / "verifiers" / booking.id / "verify.py").write_text(CHECKS_PEOPLE)
    return suite, booking, tmp_path


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_judge_writes_decisions_and_reports(setup):
    suite, booking, tmp = setup
    out = tmp / "decisions.jsonl"
    result = cli("judge", "--suite", str(tmp / "suite"), "--verifiers", str(tmp / "verifiers"), "--all", "--out", str(out))
    assert result.returncode == 0, result.stderr
    decided = {d["case_id"]: d for d in lines(out)}
    assert set(decided) == set(suite.cases)
    for case in suite.cases.values():
        d = decided[case.id]
        assert d["case_hash"] == case.content_hash
        if case.task_id == booking.id:
            assert d["decision"] == ("P" if case.category.value == "gold" else "F") and d["isolation"] == "bwrap"
            assert d["verifier_hash"].startswith("sha256:") and d["submitted"]
        else:
            assert d["decision"] == "U" and d["submitted"] is False and d["problem"] == "missing verifier"
    metrics = json.loads(cli("metrics", str(out), "--json").stdout)
    assert (metrics["BA_norm"], metrics["submission_rate"]) == (0.0, 50.0)  # one perfect task, one missing
    assert "BA_norm" in result.stdout

    again = cli("judge", "--suite", str(tmp / "suite"), "--verifiers", str(tmp / "verifiers"), "--all", "--out", str(out))
    assert again.returncode == 2 and "--resume" in again.stderr


def test_resume_keeps_finished_lines_and_redoes_torn_ones(setup):
    suite, booking, tmp = setup
    out = tmp / "decisions.jsonl"
    cli("judge", "--suite", str(tmp / "suite"), "--verifiers", str(tmp / "verifiers"), "--all", "--out", str(out), "--quiet")
    full = out.read_text().splitlines()
    out.write_text(full[0] + "\n" + full[1][: len(full[1]) // 2])  # a crash mid-write
    result = cli("judge", "--suite", str(tmp / "suite"), "--verifiers", str(tmp / "verifiers"), "--all", "--out", str(out), "--resume", "--quiet")
    assert result.returncode == 0, result.stderr
    resumed = out.read_text().splitlines()
    assert resumed[0] == full[0]
    assert sorted(json.loads(l)["case_id"] for l in resumed) == sorted(suite.cases)


def test_resume_redoes_cases_of_a_changed_verifier(setup):
    suite, booking, tmp = setup
    out = tmp / "decisions.jsonl"
    cli("judge", "--suite", str(tmp / "suite"), "--verifiers", str(tmp / "verifiers"), "--all", "--out", str(out), "--quiet")
    (tmp / "verifiers" / booking.id / "verify.py").write_text(
        'import json, sys\njson.dump({"decision": "PASS"}, open(sys.argv[2], "w"))\n')
    cli("judge", "--suite", str(tmp / "suite"), "--verifiers", str(tmp / "verifiers"), "--all", "--out", str(out), "--resume", "--quiet")
    booking_lines = [d for d in lines(out) if d["task_id"] == booking.id]
    assert len(booking_lines) == len(suite.cases_by_task[booking.id])
    assert {d["decision"] for d in booking_lines} == {"P"}


def test_judge_one_task_by_source_id_and_unknown_task(setup):
    suite, booking, tmp = setup
    out = tmp / "one.jsonl"
    result = cli("judge", "--suite", str(tmp / "suite"), "--verifiers", str(tmp / "verifiers"), "--out", str(out),
                 "--task", f"acebench/{booking.source_id}", "--quiet")
    assert result.returncode == 0, result.stderr
    assert {d["task_id"] for d in lines(out)} == {booking.id}
    bad = cli("judge", "--suite", str(tmp / "suite"), "--verifiers", str(tmp / "verifiers"), "--out", str(tmp / "x.jsonl"), "--task", "nope/1")
    assert bad.returncode == 2 and "'nope/1' is not in suite" in bad.stderr


def test_judging_is_warm_by_default_and_cold_on_request_with_the_same_decisions(setup):
    suite, booking, tmp = setup
    runs = {}
    for name, flags, env in (("default", [], {}), ("--cold", ["--cold"], {}), ("env", [], {"VERIFIERBENCH_COLD": "1"})):
        out = tmp / f"{name}.jsonl"
        result = cli("judge", "--suite", str(tmp / "suite"), "--verifiers", str(tmp / "verifiers"), "--task", booking.id,
                     "--out", str(out), "--quiet", *flags, env={**os.environ, **env})
        assert result.returncode == 0, result.stderr
        runs[name] = {d["case_id"]: (d["decision"], d["path"]) for d in lines(out)}
    assert {path for _, path in runs["default"].values()} == {"warm"}
    assert {path for _, path in runs["--cold"].values()} == {path for _, path in runs["env"].values()} == {"cold"}
    decisions = [{case: decision for case, (decision, _) in run.items()} for run in runs.values()]
    assert decisions[0] == decisions[1] == decisions[2] and len(decisions[0]) == len(suite.cases_by_task[booking.id])


EXPLAINS = """
import json, sys
cand = json.load(open(sys.argv[1]))
calls = cand.get("parsed", [])
print("looked at", len(calls), "calls", file=sys.stderr)
ok = len(calls) == 1 and calls[0]["arguments"].get("people") == 2
json.dump({"decision": "PASS" if ok else "FAIL", "reason": f"people is {calls[0]['arguments'].get('people') if calls else None}"},
          open(sys.argv[2], "w"))
"""


def test_judge_out_keeps_each_decisions_reason_and_stderr_tail(setup):
    suite, booking, tmp = setup
    (tmp / "verifiers" / booking.id / "verify.py").write_text(EXPLAINS)
    out = tmp / "decisions.jsonl"
    result = cli("judge", "--suite", str(tmp / "suite"), "--verifiers", str(tmp / "verifiers"), "--task", booking.id, "--out", str(out))
    assert result.returncode == 0, result.stderr
    decided = [d for d in lines(out)]
    assert decided and all(d["task_id"] == booking.id for d in decided)
    for d in decided:
        calls = suite.cases[d["case_id"]].candidate.get("parsed", [])
        people = calls[0]["arguments"].get("people") if calls else None
        assert d["reason"] == f"people is {people}"  # the verifier's own words, per decision
        assert d["stderr_tail"].strip() == f"looked at {len(calls)} calls"


@pytest.mark.parametrize("backend", ["local", "ray"])
def test_every_backend_judges_on_the_suite_the_one_resolver_finds(tmp_path, monkeypatch, backend):
    """Without --suite, `judge` uses ./tasks/suite (suite/resolver.py) for the ray backend as for the local one: the backend
    is handed the directory the resolver found, not the unset option."""
    from verifierbench.cli import main, options

    save_suite(two_task_suite(), tmp_path / "tasks" / "suite")
    (tmp_path / "verify.py").write_text(CHECKS_PEOPLE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("VERIFIERBENCH_SUITE", raising=False)
    handed: list = []

    def make_backend(config, name=None, address=None, suite_dir=None):
        handed.append((name, suite_dir))
        raise UserError("stopped before judging")  # what is handed over is the point, not the judging

    monkeypatch.setattr(options, "make_backend", make_backend)
    assert main.main(["judge", "--verifier", "verify.py", "--all", "--backend", backend, "--ray-address", "127.0.0.1:1"]) == 2
    assert handed == [(backend, str((tmp_path / "tasks" / "suite").absolute()))]
