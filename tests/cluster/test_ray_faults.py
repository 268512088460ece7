"""A worker node killed mid-run: its chunks run on the other node, every case is decided exactly once with the local
executor's decisions, and a resumed run finds nothing left to do."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from tests.cluster.test_ray_parity import judge
from tests.conftest import BIN, write_verifier
from verifierbench.suite import load_suite

pytestmark = [pytest.mark.sandbox, pytest.mark.usefixtures("bwrap_available")]

# Slow enough that the run is still going when the node dies; deterministic per candidate.
SLOW_HASH = """
import hashlib, json, os, time
time.sleep(0.25)
candidate = open(os.environ["VGB_CANDIDATE"], "rb").read()
decision = "PASS" if hashlib.sha256(candidate).digest()[0] % 2 else "FAIL"
json.dump({"decision": decision}, open(os.environ["VGB_RESULT"], "w"))
"""


@pytest.mark.timeout(600)
def test_a_node_killed_mid_run_loses_and_repeats_nothing(fresh_ray_cluster, bfcl_suite, tmp_path):
    cluster, env = fresh_ray_cluster
    tasks = sorted(load_suite(bfcl_suite).tasks)[:5]
    verifier = write_verifier(tmp_path / "slow", SLOW_HASH)
    verifiers = tmp_path / "verifiers"
    for task in tasks:
        (verifiers / task).mkdir(parents=True)
        (verifiers / task / "verify.py").write_text(verifier.read_text())
    out = tmp_path / "ray.jsonl"
    args = [str(BIN / "verifierbench"), "judge", "--suite", str(bfcl_suite), "--verifiers", str(verifiers), "--out", str(out),
            "--quiet", *[a for t in tasks for a in ("--task", t)], "--backend", "ray", "--ray-address", cluster.address]
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **env})
    try:
        deadline = time.monotonic() + 300
        while not (out.exists() and len(out.read_text().splitlines()) >= 10):
            assert run.poll() is None and time.monotonic() < deadline, "the run ended (or stalled) before the kill"
            time.sleep(0.2)
        victim = next(node for node in cluster.worker_nodes)
        cluster.remove_node(victim, allow_graceful=False)  # kills its raylet and workers: the actor dies mid-chunk
        _, stderr = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, stderr[-3000:]
    assert "lost" in stderr  # the node's loss was noticed and its chunks resubmitted
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    decided = {(l["case_id"], l["verifier_hash"]): l["decision"] for l in lines}
    assert len(decided) == len(lines) == sum(len(load_suite(bfcl_suite).cases_by_task[t]) for t in tasks)
    assert decided == judge(bfcl_suite, verifiers, tmp_path / "local.jsonl", tasks)
    before = out.read_text()
    again = judge(bfcl_suite, verifiers, out, tasks, "--resume", "--backend", "ray", "--ray-address", cluster.address, env=env)
    assert again == decided and out.read_text() == before  # nothing left to run: the file is the source of truth
