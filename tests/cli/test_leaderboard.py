"""`verifierbench leaderboard` over Inspect logs, and re-scoring a log with `inspect score`."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from inspect_ai.log import read_eval_log

from tests.cli.test_cli import cli
from tests.harness.inspect_cli import INSPECT, inspect

pytestmark = pytest.mark.usefixtures("bwrap_available")
TASKS = ("bfcl/parallel_114", "bfcl/simple_python_10")


@pytest.fixture(scope="module")
def logs(tmp_path_factory, bfcl_suite):
    root = tmp_path_factory.mktemp("logs")
    runs = [("verifierbench/always_reject", TASKS[0]), ("verifierbench/always_reject", TASKS[1]),
            ("verifierbench/heuristic", ",".join(TASKS))]
    for model, ids in runs:
        result = inspect("eval", "verifierbench/verifierbench", "--model", model, "-T", f"suite={bfcl_suite}",
                         "-T", f"task_ids={ids}", "--log-dir", str(root / "all"))
        assert result.returncode == 0, result.stderr[-3000:]
    return root / "all"


def test_a_configuration_run_task_by_task_merges_into_one_row(logs):
    result = cli("leaderboard", str(logs), "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert list(rows) == ["verifierbench/heuristic", "verifierbench/always_reject"]  # ranked by BA_norm
    reject = rows["verifierbench/always_reject"]
    assert reject["n_tasks"] == reject["n_submitted"] == 2 and len(reject["logs"]) == 2
    assert (reject["BA_norm"], reject["TNR"], reject["TPR"]) == (0.0, 100.0, 0.0)
    heuristic = rows["verifierbench/heuristic"]
    assert heuristic["BA_norm"] == pytest.approx(heuristic["TPR"] + heuristic["TNR"] - 100)
    table = cli("leaderboard", str(logs))
    assert "verifierbench/heuristic" in table.stdout and "BA_norm" in table.stdout


def test_the_leaderboard_matches_the_logs_own_metrics(logs):
    rows = json.loads(cli("leaderboard", str(logs), "--json").stdout)
    heuristic_log = next(l for l in (read_eval_log(str(p)) for p in logs.glob("*.eval")) if "heuristic" in l.eval.model)
    (score,) = heuristic_log.results.scores
    assert rows["verifierbench/heuristic"]["BA_norm"] == pytest.approx(score.metrics["BA_norm"].value)


def test_inspect_score_rejudges_the_frozen_verifier_from_the_log(logs, tmp_path, bfcl_suite):
    source = next(p for p in logs.glob("*.eval") if "heuristic" in read_eval_log(str(p), header_only=True).eval.model)
    out = tmp_path / "rescored.eval"
    result = inspect("score", str(source), "--scorer", "verifierbench/hidden_cases", "-S", f"suite={bfcl_suite}",
                     "--action", "overwrite", "--output-file", str(out))
    assert result.returncode == 0, result.stderr[-3000:]
    before, after = read_eval_log(str(source)), read_eval_log(str(out))
    for a, b in zip(before.samples, after.samples):
        assert a.scores["hidden_cases"].metadata["cases"] == b.scores["hidden_cases"].metadata["cases"]
        assert a.scores["hidden_cases"].answer == b.scores["hidden_cases"].answer


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


def test_inspect_score_with_no_options_rescores_a_no_score_log_as_the_coupled_run(logs, tmp_path, bfcl_suite):
    """The log records the scorer as `hidden_cases`; Inspect finds it under that name (verifierbench/_registry.py)."""
    result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T", f"suite={bfcl_suite}",
                     "-T", f"task_ids={','.join(TASKS)}", "--no-score", "--log-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    (path,) = tmp_path.glob("*.eval")
    assert not read_eval_log(str(path), header_only=True).results.scores  # generated, not scored
    # No options: Inspect asks whether to overwrite the log or write a new one; the answer is the only input.
    scored = subprocess.run([*INSPECT, "score", str(path)], input="overwrite\n", capture_output=True, text=True, timeout=900,
                            cwd=tmp_path, env={**os.environ, "INSPECT_DISPLAY": "none"})
    assert scored.returncode == 0, scored.stdout[-2000:] + scored.stderr[-3000:]
    coupled = next(read_eval_log(str(p)) for p in logs.glob("*.eval")
                   if read_eval_log(str(p), header_only=True).eval.model == "verifierbench/heuristic")
    rescored = read_eval_log(str(path))
    assert {str(s.id): s.scores["hidden_cases"].metadata["cases"] for s in rescored.samples} == \
           {str(s.id): s.scores["hidden_cases"].metadata["cases"] for s in coupled.samples}
    metrics = {m.name: m.value for m in rescored.results.scores[0].metrics.values()}
    assert metrics == {m.name: m.value for m in coupled.results.scores[0].metrics.values()} and "BA_norm" in metrics
