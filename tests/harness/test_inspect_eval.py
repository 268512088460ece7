"""`inspect eval verifierbench/verifierbench` end to end, offline, with the model-free policies."""

from __future__ import annotations

import pytest

from tests.conftest import AUDIT_TASKS, logs_of, representative_tasks
from tests.harness.inspect_cli import eval_log, inspect, metrics
from verifierbench.suite.store import load_suite
from verifierbench.task import TASK_VERSION

pytestmark = pytest.mark.usefixtures("bwrap_available")


def run(tmp_path, suite, model, *args):
    result = inspect("eval", "verifierbench/verifierbench", "--model", model, "-T", f"suite={suite}",
                     "--log-dir", str(tmp_path), *args)
    assert result.returncode == 0, result.stderr[-3000:]
    log = eval_log(tmp_path)
    assert log.status == "success", log.error
    return log


def policy_log(bfcl_policy_logs, model: str, directory):
    log = eval_log(logs_of(bfcl_policy_logs, [model], directory))
    assert log.status == "success", log.error
    return log


def test_always_reject_scores_tnr_100_and_ba_norm_0(tmp_path, bfcl_policy_logs):
    log = policy_log(bfcl_policy_logs, "verifierbench/always_reject", tmp_path)
    got = metrics(log)
    assert (got["BA_norm"], got["TPR"], got["TNR"]) == (0.0, 0.0, 100.0)
    assert got["submission_rate"] == 100.0 and got["valid_output_rate"] == 100.0
    assert len(log.samples) == 6


def test_always_accept_scores_tpr_100_and_accepts_every_attack(tmp_path, bfcl_policy_logs):
    got = metrics(policy_log(bfcl_policy_logs, "verifierbench/always_accept", tmp_path))
    assert (got["BA_norm"], got["TPR"], got["TNR"], got["FPR_h"]) == (0.0, 100.0, 0.0, 100.0)


def test_heuristic_policy_is_strictly_between_constant_and_perfect(tmp_path, built):
    # Every tool-call task under VERIFIERBENCH_EXHAUSTIVE=1; CI a fixed sample holding every category and case family
    # of each source (representative_tasks).
    suite = load_suite(built)
    tasks = [f"{suite.tasks[t].source.value}/{suite.tasks[t].source_id}" for source in ("bfcl", "acebench")
             for t in representative_tasks(suite, source)]
    log = run(tmp_path, built, "verifierbench/heuristic", "-T", f"task_ids={','.join(tasks)}")
    got = metrics(log)
    assert 0.0 < got["BA_norm"] < 100.0
    assert len(log.samples) == len(tasks)
    for source in ("bfcl", "acebench"):
        assert 0.0 < got[f"BA_norm_{source}"] < 100.0, source
    assert got["BA_norm_tool-call"] == pytest.approx(got["BA_norm"])


def test_score_metadata_holds_the_frozen_verifier_and_every_case(tmp_path, bfcl_suite):
    log = run(tmp_path, bfcl_suite, "verifierbench/random", "-M", "seed=3", "-T", "task_ids=bfcl/parallel_114")
    suite = load_suite(bfcl_suite)
    (sample,) = log.samples
    task = suite.tasks[sample.id]
    assert task.source_id == "parallel_114"
    score = sample.scores["hidden_cases"]
    meta = score.metadata
    assert meta["verifier_hash"].startswith("sha256:") and score.answer == meta["verifier_hash"]
    assert "b\"3:\"" in meta["verifier_files"]["verify.py"]["text"]  # the seed reached the verifier
    cases = {c.id: c for c in suite.cases_by_task[task.id]}
    assert {c["case_id"] for c in meta["cases"]} == set(cases)
    for record in meta["cases"]:
        assert record["case_hash"] == cases[record["case_id"]].content_hash
        assert record["verifier_hash"] == meta["verifier_hash"]
        assert record["decisions"][0] in ("P", "F")
    assert meta["run_public"] == {"cap_run_public": 0, "cap_budget_blocks": 0, "cap_resets": 0}
    # The agent loop ran for real: the policy's tool calls and their results are in the transcript.
    calls = [e.function for e in sample.events if e.event == "tool"]
    assert calls == ["bash", "write_file", "bash", "submit"]
    assert all(e.error is None for e in sample.events if e.event == "tool")
    # The log names the harness, its version (the task's, for the project's own) and how its model was reached.
    assert {key: log.eval.metadata[key] for key in ("harness", "harness_version", "harness_transport")} == {
        "harness": "default", "harness_version": f"verifierbench task {TASK_VERSION}", "harness_transport": "inspect-model"}


def test_single_reply_harness_writes_the_reply_as_the_verifier(tmp_path, single_reply_logs):
    log = policy_log(single_reply_logs, "verifierbench/heuristic", tmp_path)  # also a configuration of test_artifacts
    assert log.eval.task_args["harness"] == "single_reply" and len(log.samples) == 6
    got = metrics(log)
    assert got["submission_rate"] == 100.0
    for sample in log.samples:
        assert not any(m.role == "tool" for m in sample.messages)
        assert "TOOLS = json.loads" in sample.scores["hidden_cases"].metadata["verifier_files"]["verify.py"]["text"]


def test_task_file_path_and_bad_options(tmp_path, bfcl_suite, audit_logs):
    by_file = tmp_path / "file"
    result = inspect("eval", "tasks/verifierbench.py", "--model", "verifierbench/always_reject", "-T", f"suite={bfcl_suite}",
                     "-T", "task_ids=bfcl/parallel_114", "--log-dir", str(by_file))
    assert result.returncode == 0, result.stderr[-3000:]
    from_file = eval_log(by_file)
    assert metrics(from_file)["TNR"] == 100.0
    # The same policy through the registry (audit_logs: always_reject on AUDIT_TASKS, parallel_114 among them, default
    # options) records the same task_args, every default included (one leaderboard row); only the selection differs.
    from_registry = policy_log(audit_logs, "verifierbench/always_reject", tmp_path / "registry")
    audited = AUDIT_TASKS.split(",")  # Inspect records a comma-separated -T value as a list
    assert (from_file.eval.task_args["task_ids"], from_registry.eval.task_args["task_ids"]) == ("bfcl/parallel_114", audited)
    assert {**from_file.eval.task_args, "task_ids": audited} == from_registry.eval.task_args
    assert from_file.eval.task_args["rounds"] == from_registry.eval.task_args["rounds"] is not None
    # A task id not in the suite through `inspect eval`: one line and status 1 (tests/harness/test_inspect_errors.py).
