"""Hostile result files (issue 18, item 5): whatever a verifier writes as its result, the run is U
(or its decision with the bad field dropped), never an exception in the executor, `run-verifier` or `judge`."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli import cli
from tests.conftest import write_verifier
from tests.executor.test_hostile_verifiers import DEEP, HUGE_INT, NOT_UTF8, run
from verifierbench.core.protocol import Decision

pytestmark = pytest.mark.sandbox



def test_bad_confidence_and_reason_keep_the_decision(sandbox, tmp_path):
    # A 400-digit integer overflows float(); a lone surrogate cannot be written as UTF-8 later.
    outcome = run(sandbox, tmp_path, """
        import sys
        open(sys.argv[2], "w").write('{"decision": "FAIL", "confidence": ' + "9" * 400 + ', "reason": "\\\\ud800 x"}')
    """)
    assert outcome.decision is Decision.F and outcome.confidence is None
    assert outcome.reason.encode("utf-8") and outcome.reason.endswith(" x")


@pytest.mark.parametrize("body", [DEEP, HUGE_INT, NOT_UTF8])
def test_run_verifier_reports_U_for_an_unparseable_result(tmp_path, bwrap_available, body):
    verifier = write_verifier(tmp_path / "v", "import sys\n" + body + "\n")
    candidate = tmp_path / "candidate.json"
    candidate.write_text("{}")
    result = cli("run-verifier", str(verifier), str(candidate), "--json")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert json.loads(result.stdout)["decision"] == "U"


def test_run_verifier_prints_a_reason_with_a_lone_surrogate(tmp_path, bwrap_available):
    verifier = write_verifier(tmp_path / "v", 'import sys\nopen(sys.argv[2], "w").write(\'{"decision": "PASS", "reason": "\\\\udc80"}\')\n')
    candidate = tmp_path / "candidate.json"
    candidate.write_text("{}")
    result = cli("run-verifier", str(verifier), str(candidate))
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "decision: P" in result.stdout


def test_judge_writes_U_for_unparseable_results(tmp_path, bwrap_available):
    from tests.cli.test_judge import two_task_suite
    from verifierbench.suite.store import save_suite

    suite = two_task_suite()
    save_suite(suite, tmp_path / "suite")
    verifier = write_verifier(tmp_path / "v", "import sys\n" + DEEP + "\n")
    out = tmp_path / "d.jsonl"
    result = cli("judge", "--suite", str(tmp_path / "suite"), "--verifier", str(verifier), "--all", "--out", str(out), "--quiet")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    decisions = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(decisions) == len(suite.cases) and {d["decision"] for d in decisions} == {"U"}
