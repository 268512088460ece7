"""A worker node killed mid-run: its chunks run on the other node, every case is decided exactly once with the local
executor's decisions, and a resumed run finds nothing left to do."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.cluster.test_local_cluster_script import own_ray_processes
from tests.cluster.test_ray_parity import judge
from tests.conftest import BIN, write_verifier
from verifierbench.suite.store import load_suite

pytestmark = [pytest.mark.sandbox, pytest.mark.usefixtures("bwrap_available")]

# Deterministic per candidate. The run is still going when the node dies because the node's sandboxed processes
# are stopped (SIGSTOP) before the kill: their cases cannot finish anywhere but on another node.
HASH = """
import hashlib, json, os
candidate = open(os.environ["VGB_CANDIDATE"], "rb").read()
decision = "PASS" if hashlib.sha256(candidate).digest()[0] % 2 else "FAIL"
json.dump({"decision": decision}, open(os.environ["VGB_RESULT"], "w"))
"""


@pytest.mark.timeout(600)
def test_a_node_killed_mid_run_loses_and_repeats_nothing(fresh_ray_cluster, bfcl_suite, tmp_path):
    cluster, env = fresh_ray_cluster
    tasks = sorted(load_suite(bfcl_suite).tasks)[:5]
    verifier = write_verifier(tmp_path / "hash", HASH)
    verifiers = tmp_path / "verifiers"
    for task in tasks:
        (verifiers / task).mkdir(parents=True)
        (verifiers / task / "verify.py").write_text(verifier.read_text())
    out = tmp_path / "ray.jsonl"
    args = [str(BIN / "verifierbench"), "judge", "--suite", str(bfcl_suite), "--verifiers", str(verifiers), "--out", str(out),
            "--quiet", *[a for t in tasks for a in ("--task", t)], "--backend", "ray", "--ray-address", cluster.address]
    victim = next(node for node in cluster.worker_nodes)
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **env})
    stopped: list[int] = []
    try:
        deadline = time.monotonic() + 300
        while not stopped:  # until the victim is running a case, which then cannot finish there
            assert run.poll() is None and time.monotonic() < deadline, "the run ended (or stalled) before the kill"
            stopped = _stop_the_sandboxes_on(victim)  # they die with the node (bwrap --die-with-parent)
        cluster.remove_node(victim, allow_graceful=False)  # kills its raylet and workers: the actor dies mid-chunk
        _, stderr = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, stderr[-3000:]
    assert "lost" in stderr  # the node's loss was noticed and its chunks resubmitted
    # Stopped or not, none outlives the node: bwrap was armed to die with its parent before it started
    # (isolation.started_as), not only once its namespaces were made (a stopped probe's bwrap was left to init).
    assert _survivors(stopped, within_s=30) == []
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    decided = {(l["case_id"], l["verifier_hash"]): l["decision"] for l in lines}
    assert len(decided) == len(lines) == sum(len(load_suite(bfcl_suite).cases_by_task[t]) for t in tasks)
    assert decided == judge(bfcl_suite, verifiers, tmp_path / "local.jsonl", tasks)
    before = out.read_text()
    again = judge(bfcl_suite, verifiers, out, tasks, "--resume", "--backend", "ray", "--ray-address", cluster.address, env=env)
    assert again == decided and out.read_text() == before  # nothing left to run: the file is the source of truth


def _survivors(pids: list[int], within_s: float) -> list[int]:
    """The processes of `pids` still alive after up to `within_s` seconds. Their death is asynchronous: the node's
    removal kills its raylet and workers, each death sends the next generation its parent-death signal, and under load
    the last sandbox can still be exiting when the run has already ended (a flake at load 10-12). A leaked process
    stays alive (stopped) for good, so a deadline misses none."""
    deadline = time.monotonic() + within_s
    while (alive := [pid for pid in pids if _alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.2)
    return alive


def _alive(pid: int) -> bool:
    """Running or stopped; not gone, not a zombie waiting for init."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _stop_the_sandboxes_on(node) -> list[int]:
    """Stops (SIGSTOP) every sandboxed process running on `node` now -- the descendants of its raylet that run as a
    slot's uid, not as root: verifiers, cold or a warm server and its cases -- and returns their pids (none: none
    running now). A case of a stopped sandbox cannot finish on this node."""
    raylet = node.all_processes["raylet"][0].process.pid
    stopped = []
    for pid in own_ray_processes(raylet):
        try:
            status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
            if status["Uid"].split()[0] == "0" or status["State"].split()[0] == "Z":
                continue
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)
        except (FileNotFoundError, ProcessLookupError):
            continue
    return stopped
