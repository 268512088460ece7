"""The node side of the Ray backend: one long-lived actor per node owning a local executor.

The actor body is trusted harness code: it only loads the suite, stages verifiers and hands jobs to its executor,
which runs every verifier inside bubblewrap under the node's own uid range. Verifiers arrive by content hash (their
files fetched once per node and checked against the hash); outcomes leave as JSON text, so nothing a sandbox wrote
is ever unpickled by the caller.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from verifierbench.core import verifier_files
from verifierbench.cluster.backend import ExecutorConfig
from verifierbench.core.errors import UserError
from verifierbench.executor.staging import FrozenVerifier, MissingVerifier
from verifierbench.core.protocol import Decision
from verifierbench.public_env.jobs import case_job
from verifierbench.suite.store import Suite, load_suite


class NodeJudge:
    """Wrapped with `ray.remote` by the caller (cluster/ray_judge.py); plain Python, so it is testable alone."""

    def __init__(self, config: dict) -> None:
        self.executor = ExecutorConfig.from_json(config).make()
        self._suites: dict[str, Suite] = {}
        self._verifiers: dict[str, FrozenVerifier] = {}
        self._lock = threading.Lock()

    def info(self) -> str:
        return json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "slots": self.executor.slots})

    def run_chunk(self, suite_dir: str, suite_version: str, verifier_hash: str, files_box: list, items_json: str) -> str:
        """Runs a chunk of cases of one verifier; returns a JSON list of outcomes (one per item, any order). A case
        this node cannot run (another suite at that path, a verifier whose files do not match its hash, a code
        task whose checkout or environment it cannot make) is U with the reason and `"refused": true`.

        Args:
            suite_dir: the suite's directory on this node.
            suite_version: the caller's suite version: a node with another suite there refuses the chunk.
            verifier_hash: the verifier's content hash.
            files_box: a one-element list holding the object ref of the verifier's files (fetched only when the
                hash is new on this node; a list, so Ray does not fetch it on every call).
            items_json: JSON list of {"task_id", "key", "candidate"}.
        """
        items = json.loads(items_json)
        suite = self._suite(suite_dir)
        if suite.manifest.version != suite_version:
            return _all_undecided(items, f"node {socket.gethostname()} has suite {suite.manifest.version} at {suite_dir}, "
                                         f"not {suite_version}")
        try:
            frozen = self._verifier(verifier_hash, files_box)
        except MissingVerifier as exc:
            return _all_undecided(items, str(exc))
        jobs, refused = [], []
        for item in items:
            try:  # a code task's job needs its checkout and test environment here (made on first use)
                jobs.append(case_job(suite.tasks[item["task_id"]], frozen, item["candidate"], item["key"]))
            except (UserError, OSError, subprocess.SubprocessError) as exc:
                refused.append({"key": item["key"], "decision": Decision.U.value, "refused": True,
                                "problem": f"node {socket.gethostname()} cannot run the case: {exc}"})
        return json.dumps(refused + [outcome.to_json() for outcome in self.executor.run_batch(jobs)])

    def close(self) -> None:
        self.executor.close()

    def _suite(self, suite_dir: str) -> Suite:
        with self._lock:
            if suite_dir not in self._suites:
                self._suites[suite_dir] = load_suite(Path(suite_dir))
            return self._suites[suite_dir]

    def _verifier(self, verifier_hash: str, files_box: list) -> FrozenVerifier:
        with self._lock:
            known = self._verifiers.get(verifier_hash)
        if known is not None:
            return known
        import ray

        files: dict[str, dict[str, str]] = ray.get(files_box[0])
        with tempfile.TemporaryDirectory(prefix="verifierbench-node-") as tmp:
            frozen = self.executor.freeze_copy(verifier_files.materialize(files, Path(tmp) / "verifier"))
        if frozen.sha256 != verifier_hash:
            raise MissingVerifier(f"verifier files on node hash to {frozen.sha256}, not {verifier_hash}")
        with self._lock:
            return self._verifiers.setdefault(verifier_hash, frozen)


def _all_undecided(items: list[dict[str, Any]], problem: str) -> str:
    """This node refuses the whole chunk: U with the reason, marked so the caller tries another node first."""
    return json.dumps([{"key": item["key"], "decision": Decision.U.value, "refused": True, "problem": problem}
                       for item in items])
