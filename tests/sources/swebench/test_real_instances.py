"""Real SWE-bench Verified instances end to end, offline: one django instance (three with VERIFIERBENCH_EXHAUSTIVE=1)
from the copy beside the project (`../shared/upstream/swebench`), built in their own test environment (made once and
cached under $VERIFIERBENCH_ENVS), judged by the exported reference and by constant verifiers, and run
through `inspect eval` with the heuristic policy. Skipped, with the reason, where the copy is absent."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.cli.test_cli import BIN, cli
from tests.cli.test_judge_toolcall import judged, metrics_of
from tests.conftest import EXHAUSTIVE, SHARED, _build, private_copy, skip_unless_required
from tests.harness.inspect_cli import eval_log, inspect

COPY = SHARED / "upstream" / "swebench"
# One (version, requirements) environment for all three: django 3.1; 11848 is one of the paper's worked examples.
# CI takes 11848 alone; VERIFIERBENCH_EXHAUSTIVE=1 all three (each adds about a minute a test).
ALL_IDS = ("django__django-11848", "django__django-9296", "django__django-11951")
IDS = ALL_IDS if EXHAUSTIVE else ALL_IDS[:1]

pytestmark = [pytest.mark.slow, pytest.mark.sandbox, pytest.mark.usefixtures("bwrap_available"), pytest.mark.timeout(3600)]


@pytest.fixture(scope="module")
def real_suite(traversable_tmp, persistent_envs):
    if not (COPY / "instances.jsonl").is_file() or not (COPY / "repos").is_dir():
        skip_unless_required("swebench-copy", f"the offline SWE-bench Verified copy is not at {COPY}")
    return _build(traversable_tmp / "real-code-suite", "--source", "swebench", "--swebench-ids", ",".join(IDS), timeout=3000)


def test_build_retains_the_instances_with_c1_on_gold_and_empty_diff(real_suite):
    tasks = [json.loads(line) for line in (real_suite / "tasks.jsonl").read_text().splitlines()]
    assert sorted(t["source_id"] for t in tasks) == sorted(IDS)
    cases = [json.loads(line) for line in (real_suite / "cases.jsonl").read_text().splitlines()]
    for task in tasks:
        reference = task["reference"]
        assert reference["runner"] == "django" and reference["environment"]["version"] == "3.1"
        assert all(reference["gold_outcomes"][t] == "passed" for t in reference["FAIL_TO_PASS"])
        mine = {c["category"] for c in cases if c["task_id"] == task["id"]}
        assert {"gold", "cosmetic", "base", "hack"} <= mine, (task["source_id"], mine)
    record = json.loads((real_suite / "manifest.json").read_text())["build"]["sources"]["swebench"]
    assert record["ids"] == list(IDS) and record["retained"] == len(IDS)


def test_exported_reference_scores_100_and_rejects_every_hack(real_suite, tmp_path):
    assert cli("export-verifiers", "reference", "--suite", str(real_suite), "--out", str(tmp_path / "ref")).returncode == 0
    lines = judged(real_suite, "--verifiers", str(tmp_path / "ref"), "--type", "code", "--reference-libs")
    wrong = [(l["task_id"], l["category"], l["decision"], l.get("problem")) for l in lines
             if l["decision"] != ("P" if l["label"] == "PASS" else "F")]
    assert lines and wrong == []
    assert all(l["decision"] == "F" for l in lines if l["category"] == "hack")
    report = metrics_of(lines)
    assert (report["BA_norm"], report["FPR_h"]) == (100, 0)


def test_constant_verifier_scores_zero(real_suite, tmp_path):
    assert cli("export-verifiers", "always-accept", "--suite", str(real_suite), "--out", str(tmp_path / "acc")).returncode == 0
    assert metrics_of(judged(real_suite, "--verifiers", str(tmp_path / "acc"), "--all"))["BA_norm"] == 0


def test_inspect_eval_with_the_heuristic_has_no_infrastructure_u(real_suite, tmp_path):
    result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T", f"suite={real_suite}",
                     "-T", "rounds=1", "--limit", "1", "--log-dir", str(tmp_path), timeout=2400)
    assert result.returncode == 0, result.stderr[-3000:]
    log = eval_log(tmp_path)
    assert log.status == "success", log.error
    (sample,) = log.samples
    score = sample.scores["hidden_cases"]
    problems = [c.get("problem") for c in score.metadata["cases"] if c.get("problem")]
    decisions = [d for case in score.metadata["cases"] for d in case["decisions"]]
    assert decisions and set(decisions) <= {"P", "F"}, problems[:3]
    tool_results = [e for e in sample.events if getattr(e, "event", "") == "tool" and e.function == "run_public"]
    assert tool_results and '"applied": true' in str(tool_results[0].result)


def test_screen_passes_c1_to_c6_with_every_operator_detected(real_suite, tmp_path, traversable_tmp):
    """On a copy: screening writes the suite's screened.json. Each task's PASS_TO_PASS tests are told apart by a regression
    the gold's traced run found (a function only they reach)."""
    cases = [json.loads(line) for line in (real_suite / "cases.jsonl").read_text().splitlines()]
    by_reach = {c["task_id"] for c in cases if c["provenance"].get("operator") == "breaks_function_previously_passing_tests_reach"}
    suite = private_copy(real_suite, traversable_tmp / f"screened-{os.getpid()}")  # screened.json goes into the copy
    done = subprocess.run([str(BIN), "screen", "--suite", str(suite), "--out", str(tmp_path / "screen")], capture_output=True,
                          text=True, timeout=2400)
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in (tmp_path / "screen" / "records.jsonl").read_text().splitlines()]
    assert len(records) == len(IDS)
    for record in records:
        assert record["retained"] and all(record["checks"].values()), (record["source_id"], record.get("reason"))
        assert record["evidence"]["C6"]["undetected"] == [], record["source_id"]
    assert by_reach == {r["task_id"] for r in records}
