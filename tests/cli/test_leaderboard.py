"""`verifierbench leaderboard` over Inspect logs (re-scoring a log with `inspect score`: tests/harness/test_decoupled.py)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys

import pytest
from inspect_ai.log import read_eval_log

from tests.audit.scripted_model import ENV as SCRIPTED_REPLIES
from tests.audit.scripted_model import REGISTER
from tests.cli.test_cli import cli
from tests.conftest import AUDIT_TASKS, logs_of
from tests.harness.inspect_cli import inspect

pytestmark = pytest.mark.usefixtures("bwrap_available")
TASKS = tuple(AUDIT_TASKS.split(","))  # the heuristic's log on them is audit_logs'


@pytest.fixture(scope="module")
def logs(tmp_path_factory, bfcl_suite, audit_logs):
    """always_reject run task by task (two logs: the first task, then the other two) and the heuristic's log on the
    same tasks (one log)."""
    root = logs_of(audit_logs, ["verifierbench/heuristic"], tmp_path_factory.mktemp("logs") / "all")
    for ids in (TASKS[:1], TASKS[1:]):
        result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/always_reject", "-T",
                         f"suite={bfcl_suite}", "-T", f"task_ids={','.join(ids)}", "--log-dir", str(root))
        assert result.returncode == 0, result.stderr[-3000:]
    return root


@pytest.fixture(scope="module")
def ranked(logs) -> dict:
    """`leaderboard --json` on the logs, once for the tests that read its rows."""
    result = cli("leaderboard", str(logs), "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_configuration_run_task_by_task_merges_into_one_row(logs, ranked):
    rows = ranked
    assert list(rows) == ["verifierbench/heuristic", "verifierbench/always_reject"]  # ranked by BA_norm
    reject = rows["verifierbench/always_reject"]
    assert reject["n_tasks"] == reject["n_submitted"] == len(TASKS) and len(reject["logs"]) == 2
    assert (reject["BA_norm"], reject["TNR"], reject["TPR"]) == (0.0, 100.0, 0.0)
    heuristic = rows["verifierbench/heuristic"]
    assert heuristic["BA_norm"] == pytest.approx(heuristic["TPR"] + heuristic["TNR"] - 100)
    table = cli("leaderboard", str(logs))
    assert "verifierbench/heuristic" in table.stdout and "BA_norm" in table.stdout


def test_the_leaderboard_matches_the_logs_own_metrics(logs, ranked):
    rows = ranked
    heuristic_log = next(l for l in (read_eval_log(str(p)) for p in logs.glob("*.eval")) if "heuristic" in l.eval.model)
    (score,) = heuristic_log.results.scores
    assert rows["verifierbench/heuristic"]["BA_norm"] == pytest.approx(score.metrics["BA_norm"].value)


# `inspect score` re-judging the frozen verifier from a log, with the scorer and its options given, case by case as the
# eval judged it: tests/harness/test_decoupled.py (the heuristic's --no-score log against the coupled run's cases).


def test_no_logs_is_a_clear_error(tmp_path):
    result = cli("leaderboard", str(tmp_path))
    assert result.returncode == 2 and "no Inspect logs" in result.stderr


@pytest.mark.parametrize("edit", [
    lambda meta: meta["cases"][0].update(category="goldish"),
    lambda meta: meta["verifier_files"].update({"../../escape.py": {"text": "x"}}),  # audit would write it to disk
])
def test_a_log_with_malformed_scorer_metadata_is_named(logs, tmp_path, bfcl_suite, edit):
    from inspect_ai.log import write_eval_log

    source = next(logs.glob("*.eval"))
    log = read_eval_log(str(source))
    sample = log.samples[0]
    edit(sample.scores["hidden_cases"].metadata)
    (tmp_path / "edited").mkdir()
    write_eval_log(log, str(tmp_path / "edited" / source.name))
    for result in (cli("leaderboard", str(tmp_path / "edited"), "--no-write"),
                   cli("audit", str(tmp_path / "edited"), "--suite", str(bfcl_suite), "--out", str(tmp_path / "audit"),
                       "--pool", str(tmp_path / "pool"))):
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert f"{source.name} sample {sample.id}: malformed hidden_cases score metadata" in result.stderr
    assert not list(tmp_path.rglob("escape.py"))


# A good run, a partial one (--limit) and one that errored before any score, over the same four tasks: every log is
# accounted for, and the ranking is on the tasks both ranked configurations scored.
MIXED_TASKS = (*TASKS[:2], "bfcl/multiple_73", "bfcl/parallel_117")


def _scripted_eval(*args: str, cwd, replies) -> subprocess.CompletedProcess:
    """`inspect eval` with the scripted model provider registered (tests/audit/scripted_model.py)."""
    program = REGISTER + "from inspect_ai._cli.main import main; main()"
    return subprocess.run([sys.executable, "-c", program, "eval", *args], capture_output=True, text=True, timeout=900, cwd=cwd,
                          env={**os.environ, "INSPECT_DISPLAY": "none", SCRIPTED_REPLIES: str(replies)})


@pytest.fixture(scope="module")
def mixed(tmp_path_factory, bfcl_suite):
    root = tmp_path_factory.mktemp("mixed")
    logs = root / "logs"
    common = ["verifierbench/verifierbench", "-T", f"suite={bfcl_suite}", "-T", f"task_ids={','.join(MIXED_TASKS)}",
              "--log-dir", str(logs)]
    result = inspect("eval", *common, "--model", "verifierbench/always_reject", "--limit", "2")
    assert result.returncode == 0, result.stderr[-3000:]
    (root / "replies.json").write_text("[]")  # no reply for any prompt: every sample errors, and so does the run
    logs.mkdir(exist_ok=True)
    (logs / "EXPECTED_ERROR").touch()  # the errored run is the point: scripts/check_eval_logs.py skips this directory
    # The good run and the errored one in one `inspect eval` (a log each): the broken model's error ends its own run only.
    _scripted_eval(*common, "--model", "verifierbench/heuristic,scripted/broken", cwd=root, replies=root / "replies.json")
    by_model = {read_eval_log(str(p), header_only=True).eval.model: p for p in logs.glob("*.eval")}
    assert read_eval_log(str(by_model["scripted/broken"]), header_only=True).status == "error"
    assert read_eval_log(str(by_model["verifierbench/heuristic"]), header_only=True).status == "success"
    return logs, by_model


def _first_round_ba_norm(log_path, task_ids) -> float:
    """BA_norm over these tasks from the log's own per-case decisions (tool-call tasks: one round)."""
    per_task = []
    for sample in read_eval_log(str(log_path)).samples:
        if str(sample.id) not in task_ids:
            continue
        cases = sample.scores["hidden_cases"].metadata["cases"]
        positive = [c["decisions"][0] for c in cases if c["label"] == "PASS"]
        negative = [c["decisions"][0] for c in cases if c["label"] == "FAIL"]
        per_task.append(100 * (positive.count("P") / len(positive) + negative.count("F") / len(negative)) - 100)
    assert len(per_task) == len(task_ids)
    return sum(per_task) / len(per_task)


def test_every_log_is_listed_with_its_status_and_ranked_on_the_common_tasks(mixed, tmp_path):
    logs, by_model = mixed
    result = cli("leaderboard", str(logs), "--out", str(tmp_path / "board"), "--figures", str(tmp_path / "figures"))
    assert result.returncode == 0, result.stderr
    rows = {line.split("│")[1].strip(): [cell.strip() for cell in line.split("│")[2:-1]]
            for line in result.stdout.splitlines() if line.startswith("│") and "/" in line.split("│")[1]}
    # Runs table: status, logs, samples scored/selected, tasks covered (of the 4 some configuration scored), ranked on
    assert rows["verifierbench/heuristic"][:5] == ["complete", "1", "4/4", "4/4", "2 tasks, 2 of its own excluded"]
    assert rows["verifierbench/always_reject"][:5] == ["partial", "1", "2/4", "2/4", "2 tasks"]
    assert rows["scripted/broken"][:5] == ["error", "1", "0/4", "0/4", "not ranked: no scored sample"]
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2, result.stderr  # once per abnormal log, not per configuration or table
    (partial,) = [w for w in warnings if by_model["verifierbench/always_reject"].name in w]
    assert "partial (status success), 2/4 samples scored" in partial and "--limit 2" in partial
    (errored,) = [w for w in warnings if by_model["scripted/broken"].name in w]
    assert "error, 0/4 samples scored (scripted/broken): ValueError" in errored
    ranked = json.loads(cli("leaderboard", str(logs), "--no-write", "--json").stdout)
    limited = {str(s.id) for s in read_eval_log(str(by_model["verifierbench/always_reject"])).samples}
    heuristic, reject = ranked["verifierbench/heuristic"], ranked["verifierbench/always_reject"]
    assert heuristic["n_tasks"] == reject["n_tasks"] == 2 and len(heuristic["excluded_tasks"]) == 2
    assert heuristic["BA_norm"] == pytest.approx(_first_round_ba_norm(by_model["verifierbench/heuristic"], limited))
    assert ranked["scripted/broken"]["ranked"] is False and ranked["scripted/broken"]["status"] == "error"
    excluded = ", ".join(heuristic["excluded_tasks"])
    assert f"ranked on the 2 tasks (bfcl 2) every ranked configuration scored; 2 excluded, not scored by every configuration: {excluded}" \
        in result.stderr
    with open(tmp_path / "board" / "runs.csv") as handle:
        runs = {r["Configuration"]: r for r in csv.DictReader(handle)}
    assert runs["scripted/broken"]["Status"] == "error" and runs["verifierbench/always_reject"]["Samples scored/selected"] == "2/4"
    with open(tmp_path / "board" / "tasks.csv") as handle:
        tasks = [r for r in csv.DictReader(handle) if r["Configuration"] == "verifierbench/heuristic"]
    assert sorted(r["In ranking"] for r in tasks) == ["no: not scored by every configuration"] * 2 + ["yes"] * 2


def test_padding_missing_tasks_as_failures_is_an_option_that_says_so(mixed):
    logs, _ = mixed
    result = cli("leaderboard", str(logs), "--no-write", "--json", "--pad-missing")
    assert result.returncode == 0, result.stderr
    ranked = json.loads(result.stdout)
    reject = ranked["verifierbench/always_reject"]
    assert reject["n_tasks"] == 4 and reject["n_submitted"] == 2 and len(reject["padded_tasks"]) == 2
    assert (reject["TNR"], reject["BA_norm"]) == (50.0, -50.0)  # the two padded tasks count 0 to both rates
    assert "a task a configuration did not score counted as a failure (--pad-missing): verifierbench/always_reject 2 (" \
        in result.stderr
    assert len([line for line in result.stderr.splitlines() if line.startswith("warning:")]) == 2


def test_paper_takes_the_log_directory_as_leaderboard_does_and_states_n_and_harness_versions(mixed, bfcl_suite, tmp_path):
    logs, _ = mixed
    result = cli("paper", str(logs), "--suite", str(bfcl_suite), "--screening", str(tmp_path / "none"),
                 "--out", str(tmp_path / "paper"), "--figures", str(tmp_path / "figures"))
    assert result.returncode == 0, result.stderr
    assert len([line for line in result.stderr.splitlines() if line.startswith("warning:")]) == 2
    with open(tmp_path / "paper" / "comparison_table_02.csv") as handle:
        compared = list(csv.DictReader(handle))
    ours = {r["Model"]: r for r in compared if r["BA_norm (ours)"] != "-"}
    assert set(ours) == {"verifierbench/heuristic", "verifierbench/always_reject"}
    assert {r["N (ours)"] for r in ours.values()} == {"2"} and compared[0]["N (paper)"] == "222"
    assert ours["verifierbench/heuristic"]["Harness version (ours)"].startswith("verifierbench task ")
    assert "Paper Table 2 against ours: paper on 222 tasks, ours on 2 tasks" in result.stdout
    both = cli("paper", str(logs), "--logs", str(tmp_path), "--suite", str(bfcl_suite))
    assert both.returncode == 2 and both.stderr.count("\n") == 1 and "two log directories given" in both.stderr


def test_judge_logs_names_the_logs_it_cannot_judge(mixed, tmp_path):
    logs, by_model = mixed
    errored = tmp_path / "errored"
    errored.mkdir()
    shutil.copy(by_model["scripted/broken"], errored)
    (errored / "EXPECTED_ERROR").touch()
    result = cli("judge", "--logs", str(errored))
    assert result.returncode == 0, result.stderr
    (warning,) = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert by_model["scripted/broken"].name in warning and "status error, not judged" in warning
    assert "judge: 0 log(s) judged" in result.stderr


# `inspect score LOG` with no options on a --no-score log (the scorer found by the name the log records) gives the
# coupled run's scores: tests/harness/test_decoupled.py (the random policy's log).


def test_an_errored_run_that_a_retry_finished_is_named_but_leaves_the_configuration_complete(mixed, tmp_path):
    from inspect_ai.log import EvalError, write_eval_log

    _, by_model = mixed
    directory = tmp_path / "retried"
    directory.mkdir()
    (directory / "EXPECTED_ERROR").touch()
    good = by_model["verifierbench/heuristic"]
    shutil.copy(good, directory / good.name)
    log = read_eval_log(str(good))  # the same run as it stood when it errored: one sample scored, the run's error
    log.status, log.samples = "error", log.samples[:1]
    log.error = EvalError(message="RuntimeError: connection reset", traceback="", traceback_ansi="")
    log.eval.created = "2020-01-01T00:00:00+00:00"
    errored = directory / ("2020-01-01T00-00-00+00-00_verifierbench_" + good.name.rsplit("_", 1)[1])
    write_eval_log(log, str(errored))
    result = cli("leaderboard", str(directory), "--no-write", "--json")
    assert result.returncode == 0, result.stderr
    (warning,) = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert errored.name in warning and "error, 1/4 samples scored" in warning and "RuntimeError: connection reset" in warning
    assert "every task it selected is scored in another log of this configuration" in warning
    heuristic = json.loads(result.stdout)["verifierbench/heuristic"]
    assert heuristic["status"] == "complete" and heuristic["n_tasks"] == 4 and len(heuristic["log_records"]) == 2
