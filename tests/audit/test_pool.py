"""The witness pool: deduplicated per task, robust to torn lines and stale task versions, safe to share
between processes."""

from __future__ import annotations

import json
import multiprocessing

from verifierbench.audit.pool import WitnessPool
from verifierbench.audit.witness import VALID, Review, Witness
from verifierbench.core.schema import Label


def witness(i: int, task_hash: str = "sha256:t1") -> Witness:
    return Witness("task-a", task_hash, {"raw": f"f(a={i})", "parsed": [{"name": "f", "arguments": {"a": i}}]}, Label.FAIL, "F",
                   "a must be 0", "deterministic", "value_off_by_one", Review(VALID, "rule:operator-label"))


def test_add_dedupes_and_load_round_trips(tmp_path):
    pool = WitnessPool(tmp_path, "v1")
    assert pool.add([witness(1), witness(2), witness(1)]) == 2
    assert pool.add([witness(2), witness(3)]) == 1
    loaded = pool.load("task-a", "sha256:t1")
    assert [w.candidate["parsed"][0]["arguments"]["a"] for w in loaded] == [1, 2, 3]
    assert loaded[0].to_json() == witness(1).to_json() and loaded[0].refutes


def test_torn_line_and_other_task_version_are_skipped(tmp_path):
    pool = WitnessPool(tmp_path, "v1")
    pool.add([witness(1)])
    with pool.path("task-a").open("a") as f:
        f.write(json.dumps(witness(2, task_hash="sha256:old").to_json()) + "\n")
        f.write(json.dumps(witness(3).to_json())[:40])  # a crash mid-write
    assert [w.key for w in pool.load("task-a", "sha256:t1")] == [witness(1).key]
    assert pool.load("task-b", "sha256:t1") == []
    assert WitnessPool(tmp_path, "v2").load("task-a", "sha256:t1") == []  # pools are per suite version


def _append(args):
    root, start = args
    WitnessPool(root, "v1").add([witness(i) for i in range(start, start + 40)])


def test_concurrent_processes_share_one_pool(tmp_path):
    with multiprocessing.get_context("spawn").Pool(4) as workers:
        workers.map(_append, [(str(tmp_path), s) for s in (0, 20, 40, 60)])  # overlapping ranges
    lines = WitnessPool(tmp_path, "v1").path("task-a").read_text().splitlines()
    keys = [json.loads(line)["key"] for line in lines]
    assert len(keys) == len(set(keys)) == 100


def test_corrupt_lines_are_skipped_not_raised(tmp_path):
    pool = WitnessPool(tmp_path, "v1")
    pool.add([witness(1)])
    with pool.path("task-a").open("ab") as f:
        f.write(b"\xff\xfe not utf-8\n" + b"[" * 100_000 + b"\n" + b'{"key": ' + b"9" * 5000 + b"}\n" + b"[1, 2]\n")
    assert [w.key for w in pool.load("task-a", "sha256:t1")] == [witness(1).key]
