"""The node side of the Ray backend alone (no cluster): a node that cannot make what a case needs refuses it with the
reason, as a U decision, instead of failing the whole run."""

from __future__ import annotations

import json

import pytest

from tests.conftest import write_verifier
from verifierbench.cluster.backend import ExecutorConfig
from verifierbench.cluster.node import NodeJudge
from verifierbench.core.errors import UserError
from verifierbench.sources.swebench import served_environment
from verifierbench.suite.store import load_suite


@pytest.mark.usefixtures("bwrap_available")
def test_a_node_without_a_code_tasks_environment_decides_its_cases_u_with_the_reason(code_suite, tmp_path, monkeypatch):
    def unavailable(reference):
        raise UserError("repository checkout 0123 not found (looked in /nowhere)")

    monkeypatch.setattr(served_environment, "environment_of", unavailable)  # this node lacks the task's checkout
    suite = load_suite(code_suite)
    (task,) = suite.tasks.values()
    cases = suite.cases_by_task[task.id][:2]
    node = NodeJudge(ExecutorConfig().to_json())
    try:
        frozen = node.executor.freeze_copy(write_verifier(tmp_path / "verifier", "print('PASS')\n").parent)
        node._verifiers[frozen.sha256] = frozen  # as if fetched before
        items = [{"task_id": task.id, "key": case.id, "candidate": case.candidate} for case in cases]
        outcomes = json.loads(node.run_chunk(str(code_suite), suite.manifest.version, frozen.sha256, [], json.dumps(items)))
    finally:
        node.close()
    assert sorted(o["key"] for o in outcomes) == sorted(case.id for case in cases)
    for outcome in outcomes:
        assert outcome["decision"] == "U" and "cannot run the case: repository checkout 0123 not found" in outcome["problem"]
        assert outcome["refused"] is True  # so the caller tries another node first (tests/cluster/test_refusals.py)
