"""An eval-set killed with SIGTERM mid-run resumes without redoing finished samples."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from tests.conftest import EXHAUSTIVE, REPO_ROOT
from tests.harness.inspect_cli import INSPECT
from verifierbench.suite.store import load_suite

pytestmark = pytest.mark.usefixtures("bwrap_available")
PARALLEL = 2
LIMIT = None if EXHAUSTIVE else 16  # the suite's first 16 samples in CI: 8 finish before the signal, 8 after the retry


def traced(path):
    """Steps per sample id from the policy's trace (the step of the submit call is 3)."""
    if not path.exists():
        return Counter()
    return Counter(json.loads(line)["sample_id"] for line in path.read_text().splitlines() if line.strip())


def finished(path):
    return {json.loads(l)["sample_id"] for l in path.read_text().splitlines() if l.strip() and json.loads(l)["step"] >= 3} if path.exists() else set()


def eval_set(log_dir, suite, trace):
    return subprocess.Popen(
        [*INSPECT, "eval-set", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T", f"suite={suite}",
         "--log-dir", str(log_dir), "--max-samples", str(PARALLEL), *(["--limit", str(LIMIT)] if LIMIT else [])],
        cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "INSPECT_DISPLAY": "none", "VERIFIERBENCH_POLICY_TRACE": str(trace)},
    )


def test_sigterm_then_retry_skips_finished_samples(tmp_path, bfcl_suite):
    every = sorted(load_suite(bfcl_suite).tasks)
    total = min(len(every), LIMIT or len(every))
    log_dir, first, second = tmp_path / "logs", tmp_path / "first.jsonl", tmp_path / "second.jsonl"

    run = eval_set(log_dir, bfcl_suite, first)
    deadline = time.monotonic() + 300
    while len(finished(first)) < 8 and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.2)
    run.send_signal(signal.SIGTERM)
    run.wait(timeout=120)
    done_before = finished(first)
    assert 8 <= len(done_before) < total, "the run should be interrupted part way"

    retry = eval_set(log_dir, bfcl_suite, second)
    _, stderr = retry.communicate(timeout=900)
    assert retry.returncode == 0, stderr[-3000:]
    redone = set(traced(second))
    # At most the samples still being scored when the signal came are redone.
    assert len(redone & done_before) <= PARALLEL
    assert len(redone) <= total - len(done_before) + PARALLEL
    logs = [read_eval_log(info) for info in list_eval_logs(str(log_dir))]
    complete = [log for log in logs if log.status == "success"]
    assert len(complete) == 1 and len(complete[0].samples) == total
    assert {s.id for s in complete[0].samples} <= set(every)
