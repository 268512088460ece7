"""Inspect's real `openai-api` provider, through `inspect eval`, against a scripted loopback server
(docs/local-model.md): every sample ends cleanly and every U is explained in the score metadata."""

from __future__ import annotations

import pytest

import csv
import json
import subprocess
import time
from pathlib import Path

from inspect_ai.log import list_eval_logs, read_eval_log

from tests.cli.test_cli import cli
from tests.conftest import logs_of
from tests.harness.inspect_cli import eval_log, inspect
from tests.harness.loopback_model import Reply, Script, serve
from verifierbench.harness.prompt import VERIFIER_PATH
from verifierbench.suite.store import load_suite

pytestmark = pytest.mark.usefixtures("bwrap_available")

# What llama-cpp-python's server answers when the prompt does not fit its context (n_ctx).
OVERFLOW = Reply(status=400, error={"message": "Requested tokens (9000) exceed context window of 2048",
                                    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"})
# A 400 the provider cannot map to a length stop (llama.cpp's own server words it like this).
REFUSED = Reply(status=400, error={"code": 400, "message": "the request exceeds the available context size, try increasing it",
                                   "type": "exceed_context_size_error"})
BROKEN_VERIFIER = "import sys\ndef main():\nreturn 1\n"  # IndentationError on every case
SILENT_VERIFIER = "import sys\nsys.exit(0)\n"  # exits 0 without writing a result


def markers(suite_dir, count: int) -> dict[str, str]:
    """`count` tool-call tasks whose instructions tell them apart in a prompt: source/source_id -> instruction."""
    chosen: dict[str, str] = {}
    for task in sorted(load_suite(suite_dir).tasks.values(), key=lambda t: t.source_id):
        text = task.instruction.strip()
        if all(text not in other and other not in text for other in chosen.values()):
            chosen[f"{task.source.value}/{task.source_id}"] = text
        if len(chosen) == count:
            return chosen
    raise AssertionError("the suite has too few distinct tasks")


def run_local(tmp_path, suite, scenarios: dict[str, list[Reply]], chosen: dict[str, str], *args: str):
    script = Script({chosen[name]: replies for name, replies in scenarios.items()})
    server = serve(script)
    try:
        result = inspect("eval", "verifierbench/verifierbench", "--model", "openai-api/local/loopback",
                         "--model-base-url", f"http://127.0.0.1:{server.server_port}/v1", "-T", f"suite={suite}",
                         "-T", "task_ids=" + ",".join(scenarios), "--log-dir", str(tmp_path / "logs"), "--max-retries", "1",
                         "--timeout", "60", *args, env={"LOCAL_API_KEY": "unused"})
    finally:
        server.shutdown()
    assert result.returncode == 0, result.stderr[-3000:]
    log = eval_log(tmp_path / "logs")
    assert log.status == "success", log.error
    names = {v: k for k, v in chosen.items()}
    by_task = {}
    for sample in log.samples:
        assert sample.error is None, sample.error
        by_task[names[next(t for t in chosen.values() if t in sample.input)]] = sample
    assert set(by_task) == set(scenarios)
    return log, by_task, script


def test_default_harness_with_a_local_model(tmp_path, bfcl_suite):
    chosen = markers(bfcl_suite, 4)
    submits, chatty, overflow, refused = chosen
    scenarios = {
        submits: [Reply(tool_calls=[("write_file", {"path": VERIFIER_PATH, "content": BROKEN_VERIFIER})]),
                  Reply(tool_calls=[("submit", {"answer": "done"})])],
        chatty: [Reply(text="Let me think about the verifier."), Reply(text="")],  # never calls a tool
        overflow: [OVERFLOW],
        refused: [REFUSED],
    }
    log, samples, script = run_local(tmp_path, bfcl_suite, scenarios, chosen, "-T", "message_limit=8")
    assert all(not request.get("stream") for request in script.requests)

    delivered = samples[submits].scores["hidden_cases"]
    assert delivered.value["submitted"] == 1.0 and delivered.value["P@0"] == delivered.value["F@0"] == 0.0
    (failure,) = delivered.metadata["failures"]  # one distinct failure, on every case
    assert failure["problem"] == "verifier exited with status 1 (no result file written)"
    assert "IndentationError" in failure["stderr_tail"] and len(failure["stderr_tail"].encode()) <= 2048
    assert failure["cases"] == len(delivered.metadata["cases"])
    assert "first U: verifier exited with status 1" in delivered.explanation

    def undelivered(name: str) -> str:
        score = samples[name].scores["hidden_cases"]
        assert score.value["submitted"] == 0.0 and score.answer == "no verifier"
        assert "failures" not in score.metadata and score.metadata["undelivered"] in score.explanation
        return score.metadata["undelivered"]

    # The plain-text replier is urged on until the message limit ends the sample, cleanly.
    assert undelivered(chatty) == "message limit hit (8 messages)"
    assert samples[chatty].limit is not None and samples[chatty].limit.type == "message"
    assert undelivered(overflow) == ("the model stopped at its length or context limit (model_length): "
                                     "Requested tokens (9000) exceed context window of 2048")
    assert undelivered(refused).startswith("model error: HTTP 400: ")
    assert "the request exceeds the available context size" in undelivered(refused)

    # The leaderboard's per-task view shows the same reasons and the failure's stderr.
    result = cli("leaderboard", str(tmp_path / "logs"), "--out", str(tmp_path / "board"), "--figures", str(tmp_path / "figures"))
    assert result.returncode == 0, result.stderr
    with open(tmp_path / "board" / "tasks.csv") as handle:
        view = {row["Task"]: row for row in csv.DictReader(handle)}
    assert view[samples[chatty].id]["Why U"] == "message limit hit (8 messages)"
    assert view[samples[chatty].id]["Delivered"] == "no"
    shown = view[samples[submits].id]
    assert shown["Delivered"] == "yes" and shown["P/F/U (round 1)"] == f"0/0/{failure['cases']}"
    assert shown["Why U"].startswith(f"{failure['cases']} x verifier exited with status 1") and "IndentationError" in shown["Why U"]
    assert "IndentationError" in shown["Stderr tail (first failure)"]
    assert "IndentationError" in (tmp_path / "board" / "index.html").read_text()


def test_single_reply_harness_with_a_local_model(tmp_path, bfcl_suite):
    chosen = markers(bfcl_suite, 6)
    plain, empty, unclosed, bash_block, silent, overflow = chosen
    scenarios = {
        plain: [Reply(text="The verifier should check the function name and arguments.")],
        empty: [Reply(text="")],
        unclosed: [Reply(text="Here it is:\n```python\nimport sys\nprint('cut off')\n")],
        bash_block: [Reply(text="```bash\necho PASS > \"$2\"\n```\n")],
        silent: [Reply(text=f"```python\n{SILENT_VERIFIER}```\n")],
        overflow: [OVERFLOW],
    }
    log, samples, script = run_local(tmp_path, bfcl_suite, scenarios, chosen, "-T", "harness=single_reply")
    assert all("tools" not in request for request in script.requests)

    reasons = {name: samples[name].scores["hidden_cases"].metadata.get("undelivered") for name in scenarios}
    assert reasons[plain] == "no code block in the reply"
    assert reasons[empty] == "empty reply"
    assert reasons[unclosed] == "unclosed code fence (```python opened, never closed)"
    assert reasons[bash_block] == "no python code block (closed blocks in: bash)"
    assert reasons[overflow] == ("the model stopped at its length or context limit (model_length): "
                                 "Requested tokens (9000) exceed context window of 2048")
    assert reasons[silent] is None
    delivered = samples[silent].scores["hidden_cases"]
    assert delivered.value["submitted"] == 1.0
    assert [f["problem"] for f in delivered.metadata["failures"]] == ["verifier exited 0 without writing a result file"]


def test_a_model_call_still_running_at_the_time_limit_ends_the_sample(tmp_path, bfcl_suite):
    # The server answers only after 300 s; the sample's 6 s time limit cancels the call and the eval goes on. The limit
    # starts after the sandbox is made (Inspect's), so 6 s is time enough to reach the model call; the wait holds a worker.
    chosen = markers(bfcl_suite, 1)
    (slow,) = chosen
    started = time.monotonic()
    log, samples, script = run_local(tmp_path, bfcl_suite, {slow: [Reply(text="late", delay_s=300)]}, chosen,
                                     "-T", "time_limit=6", "-T", "max_tokens=512")
    assert time.monotonic() - started < 150
    score = samples[slow].scores["hidden_cases"]
    assert score.metadata["undelivered"] == "time limit hit (6 s)" and samples[slow].limit.type == "time"
    assert [request["max_tokens"] for request in script.requests] == [512]  # what bounds the server's generation


# Model failures that end a run with Inspect's traceback and no score (issue 54, item 9): what the server does, the
# options of its model (a --model-spec each), how many requests it sees, and the reason the leaderboard gives.
MODEL_FAILURES = {
    # HTTP 500 on every call: Inspect's two attempts (max_retries: 1), each with the OpenAI client's own retries.
    "http_500": (Reply(status=500, error={"message": "upstream overloaded", "type": "server_error"}), {}, lambda n: n >= 2,
                 "InternalServerError: Error code: 500 - upstream overloaded (the model call failed after Inspect's retries)"),
    # A 200 whose body is not JSON (a proxy's error page): neither Inspect nor the client retries it.
    "not_json": (Reply(raw_body=b"<html><body>502 Bad Gateway</body></html>"), {}, lambda n: n == 1,
                 "JSONDecodeError: Expecting value: line 1 column 1 (char 0) (the model server's reply was not JSON; not retried)"),
    # A reply slower than the attempt timeout: each attempt is abandoned, then the retries run out.
    "attempt_timeout": (Reply(text="late", delay_s=8), {"attempt_timeout": 2}, lambda n: n == 2,
                        "AttemptTimeoutError: attempt_timeout '2' exceeded. (the model call failed after Inspect's retries)"),
}


@pytest.fixture(scope="module")
def failed_runs(bfcl_suite, bfcl_policy_logs, tmp_path_factory) -> tuple[dict[str, tuple[Path, Script]], subprocess.CompletedProcess]:
    """(failure -> (its log, its server's script), `leaderboard --no-write --json` on the three logs beside a good
    run's): one `inspect eval` over the three failing servers, a model each (`--model-spec` with its own base URL and
    options; a log each), so their waits overlap and Inspect starts once; one leaderboard over all of them."""
    chosen = markers(bfcl_suite, 1)
    (failing,) = chosen
    scripts = {name: Script({chosen[failing]: [reply]}) for name, (reply, *_) in MODEL_FAILURES.items()}
    servers = {name: serve(script) for name, script in scripts.items()}
    logs = tmp_path_factory.mktemp("failing-models")
    specs = []
    for name, (_, options, *_) in MODEL_FAILURES.items():
        spec = {"model": f"openai-api/local/{name}", "base_url": f"http://127.0.0.1:{servers[name].server_port}/v1",
                "max_retries": 1, "timeout": 30, **options}
        specs += ["--model-spec", json.dumps(spec)]
    try:
        result = inspect("eval", "verifierbench/verifierbench", *specs, "-T", f"suite={bfcl_suite}", "-T", f"task_ids={failing}",
                         "--log-dir", str(logs), env={"LOCAL_API_KEY": "unused"})
    finally:
        for server in servers.values():
            server.shutdown()
    assert result.returncode == 0, result.stderr[-3000:]  # Inspect's status for runs that errored
    (logs / "EXPECTED_ERROR").touch()  # these logs' errors are the point: scripts/check_eval_logs.py skips them
    by_model = {read_eval_log(info, header_only=True).eval.model: Path(info.name.removeprefix("file://"))
                for info in list_eval_logs(str(logs))}
    assert sorted(by_model) == sorted(f"openai-api/local/{name}" for name in MODEL_FAILURES), sorted(by_model)
    logs_of(bfcl_policy_logs, ["verifierbench/heuristic"], logs)
    board = cli("leaderboard", str(logs), "--no-write", "--json")
    assert board.returncode == 0, board.stderr
    return {name: (by_model[f"openai-api/local/{name}"], scripts[name]) for name in MODEL_FAILURES}, board


@pytest.mark.parametrize("failure", MODEL_FAILURES)
def test_a_model_that_keeps_failing_errors_the_run_and_the_leaderboard_says_why(failed_runs, failure):
    """Inspect prints its traceback and ends the run in an error (exit status 0, its own); the log keeps the cause,
    and the leaderboard shows the run as errored with it, beside a good run (docs/local-model.md)."""
    _, _, expected_requests, reason = MODEL_FAILURES[failure]
    runs, board = failed_runs
    path, script = runs[failure]
    model = f"openai-api/local/{failure}"
    assert expected_requests(len(script.requests)), len(script.requests)
    log = read_eval_log(str(path))
    assert log.status == "error" and reason.rsplit(" (", 1)[0] in log.error.traceback  # the cause, kept
    # One warning per errored log (each of the three), this one naming its log, its model and the cause.
    warnings = [line for line in board.stderr.splitlines() if line.startswith("warning:")]
    (warning,) = [line for line in warnings if path.name in line]
    assert len(warnings) == len(MODEL_FAILURES) and warning.endswith(f"error, 0/1 samples scored ({model}): {reason}")
    shown = json.loads(board.stdout)
    errored = shown[model]
    assert errored["ranked"] is False and errored["status"] == "error"
    assert [record["reason"] for record in errored["log_records"]] == [reason]
    assert shown["verifierbench/heuristic"]["ranked"] is True
