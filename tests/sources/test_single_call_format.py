"""docs/adding-a-format.md, proved: a candidate format defined in a test folder alone (tests/sources/single_call/),
with a source of that format beside it, named in $VERIFIERBENCH_SOURCES, is built, screened, judged, evaluated and
audited by the `verifierbench` and `inspect` commands with no edit to the package."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.test_cli import cli
from tests.conftest import REPO_ROOT
from tests.harness.inspect_cli import inspect

pytestmark = pytest.mark.sandbox
POLICIES = ("verifierbench/always_accept", "verifierbench/always_reject")


@pytest.fixture
def env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "VERIFIERBENCH_SOURCES": "tests.sources.single_call.source", "PYTHONPATH": path}


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_format_from_a_test_folder_is_built_screened_judged_and_audited(env, bwrap_available, tmp_path):
    suite = tmp_path / "suite"
    built = cli("build", "--out", str(suite), "--source", "single_call_demo", env=env, timeout=300)
    assert built.returncode == 0, built.stderr
    tasks, cases = lines(suite / "tasks.jsonl"), lines(suite / "cases.jsonl")
    assert {(t["source_id"], t["candidate_format"], t["type"]) for t in tasks} == {
        ("alarm_7", "single_call", "tool-call"), ("alarm_22", "single_call", "tool-call")}  # the type from the format
    assert len(cases) == 10  # five per task, none dropped by C1 (the hack fools a naive check: not inert)

    screened = cli("screen", "--suite", str(suite), "--out", str(tmp_path / "screening"), "--json", env=env, timeout=300)
    assert screened.returncode == 0, screened.stderr
    records = json.loads(screened.stdout)["tasks"]
    assert len(records) == 2 and all(r["retained"] and all(r["checks"].values()) for r in records), records
    for record in lines(tmp_path / "screening" / "records.jsonl"):  # what the format declares, screening applies
        evidence = record["evidence"]
        assert evidence["C2"]["runs"] == 2 and evidence["C6"]["operators"] == ["name_only", "values_as_text"]
        assert evidence["C7"]["by_kind"]["number_as_text"]["fools"] == {"name_only": 1, "values_as_text": 1}

    exported = cli("export-verifiers", "exact-match", "--suite", str(suite), "--out", str(tmp_path / "exact"), env=env)
    assert exported.returncode == 0, exported.stderr
    judged = cli("judge", "--suite", str(suite), "--verifiers", str(tmp_path / "exact"), "--source", "single_call_demo",
                 "--json", env=env, timeout=600)
    assert judged.returncode == 0, judged.stderr
    decisions = {(line["category"], line["decision"]) for line in map(json.loads, judged.stdout.splitlines())}
    # exact match of the whole candidate: the gold passes, 7.0 for 7 (a valid variant) is missed, the negatives fail
    assert decisions == {("gold", "P"), ("cosmetic", "F"), ("near_miss", "F"), ("base", "F"), ("hack", "F")}

    logs = tmp_path / "logs"
    evaluated = inspect("eval", "verifierbench/verifierbench", "--model", ",".join(POLICIES), "-T", f"suite={suite}",
                        "--log-dir", str(logs), env=env)
    assert evaluated.returncode == 0, evaluated.stderr[-3000:]
    audited = cli("audit", str(logs), "--suite", str(suite), "--pool", str(tmp_path / "pool"), "--out",
                  str(tmp_path / "audit"), "--rounds", "2", "--json", env=env, timeout=600)
    assert audited.returncode == 0, audited.stderr
    summary = json.loads(audited.stdout)
    # The format's auditor proposes two valid variants (7.0 for 7 in every number; the default minute omitted, in no
    # hidden case) and two wrong calls (another hour, no arguments); the reference certifies them (the format's
    # well_formed first). A round audits one constant verifier: the valid ones refute always_reject, the wrong ones
    # always_accept, on both tasks.
    assert {r["configuration"]: (r["refuted"], r["tasks"]) for r in summary["configurations"]} == {p: (2, 2) for p in POLICIES}
    assert summary["witnesses"] == 8, summary
