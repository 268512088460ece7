"""Generation and judging decoupled: `inspect eval --no-score` keeps the frozen verifier in each sample's store, and
`inspect score LOG` or `verifierbench judge --logs LOGDIR` judge it later with exactly the coupled run's scores."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from tests.conftest import BIN, logs_of
from tests.harness.inspect_cli import INSPECT, eval_log, inspect
from verifierbench.core import verifier_files

pytestmark = pytest.mark.usefixtures("bwrap_available")


def scores_of(log) -> tuple[dict, list]:
    (score,) = log.results.scores
    per_sample = sorted((s.id, s.scores["hidden_cases"].value, s.scores["hidden_cases"].answer) for s in log.samples)
    return {name: m.value for name, m in score.metrics.items()}, per_sample


MODELS = ("verifierbench/heuristic", "verifierbench/random")


def logs_by_model(log_dir) -> dict:
    """model -> the one log of that model in `log_dir`."""
    found = {}
    for info in list_eval_logs(str(log_dir)):
        model = read_eval_log(info, header_only=True).eval.model
        assert model not in found, f"two logs of {model}"
        found[model] = Path(info.name.removeprefix("file://"))
    assert sorted(found) == sorted(MODELS), sorted(found)
    return found


def rescored_copy(model: str, path: Path, unscored, directory: Path):
    """`inspect score` on a copy of the log, overwriting it: the heuristic's with the scorer and its options given as
    the log records them; the random policy's with no options at all (the log records the scorer as `hidden_cases`,
    which Inspect finds under that name, verifierbench/_registry.py; it asks whether to overwrite the log or write a
    new one, and the answer is the only input)."""
    copy = directory / model.replace("/", "_") / path.name
    copy.parent.mkdir(parents=True)
    copy.write_bytes(path.read_bytes())
    if model == "verifierbench/heuristic":
        options = {o.name: o.options for o in unscored.eval.scorers}["hidden_cases"]
        scored = inspect("score", str(copy), "--scorer", "verifierbench/hidden_cases", "-S", f"suite={options['suite']}",
                         "-S", f"rounds={options['rounds']}", "--action", "overwrite", "--overwrite")
    else:
        scored = subprocess.run([*INSPECT, "score", str(copy)], input="overwrite\n", capture_output=True, text=True,
                                timeout=900, cwd=copy.parent, env={**os.environ, "INSPECT_DISPLAY": "none"})
    assert scored.returncode == 0, scored.stdout[-2000:] + scored.stderr[-3000:]
    assert list(copy.parent.glob("*.eval")) == [copy], "a new log instead of the overwrite"
    return read_eval_log(str(copy))


@pytest.mark.timeout(600)  # two policies' evals, scores and judging: the body of two tests before (a hang guard)
def test_no_score_then_score_equals_the_coupled_run(tmp_path, bfcl_suite, bfcl_policy_logs):
    """Both policies (a deterministic and a seeded random one) in one `inspect eval --no-score`, a log each."""
    common = ["--model", ",".join(MODELS), "-T", f"suite={bfcl_suite}", "-T", "source=bfcl", "--limit", "6"]
    deferred = inspect("eval", "verifierbench/verifierbench", *common, "--no-score", "--log-dir", str(tmp_path / "deferred"))
    assert deferred.returncode == 0, deferred.stderr[-3000:]
    expected = {}
    for model, path in logs_by_model(tmp_path / "deferred").items():
        unscored = read_eval_log(str(path))
        assert not unscored.results or not unscored.results.scores
        for sample in unscored.samples:  # what judging needs, frozen when generation ended: files and their hash
            frozen = sample.store[verifier_files.STORE_KEY]
            assert frozen["sha256"] == verifier_files.content_hash(frozen["files"]) and "verify.py" in frozen["files"]
        # the coupled run, with these options
        expected[model] = scores_of(eval_log(logs_of(bfcl_policy_logs, [model], tmp_path / "coupled" / model.replace("/", "_"))))

        rescored = rescored_copy(model, path, unscored, tmp_path / "copy")
        assert scores_of(rescored) == expected[model], model
        coupled = eval_log(tmp_path / "coupled" / model.replace("/", "_"))
        assert {str(s.id): s.scores["hidden_cases"].metadata["cases"] for s in rescored.samples} == \
               {str(s.id): s.scores["hidden_cases"].metadata["cases"] for s in coupled.samples}, model

    # verifierbench judge --logs, in place: both logs
    judged = subprocess.run([str(BIN / "verifierbench"), "judge", "--logs", str(tmp_path / "deferred")],
                            capture_output=True, text=True, timeout=600)
    assert judged.returncode == 0, judged.stderr[-3000:]
    assert "2 log(s) judged" in judged.stderr
    for model, path in logs_by_model(tmp_path / "deferred").items():
        assert scores_of(read_eval_log(str(path))) == expected[model], model
    again = subprocess.run([str(BIN / "verifierbench"), "judge", "--logs", str(tmp_path / "deferred")],
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "0 log(s) judged" in again.stderr  # a judged log is left alone
