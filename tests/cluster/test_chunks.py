"""How the Ray backend cuts a judge run into chunks: one per code case, and a (verifier, task) group's cases in
pieces of at most CHUNK_CASES, so that a run of a few large tasks still spreads over every node."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from verifierbench.cluster import ray_judge
from verifierbench.cluster.ray_judge import CHUNK_CASES, RayJudge
from verifierbench.core.schema import CandidateFormat, TaskType


def case_runs(task_id: str, task_type: TaskType, verifier: SimpleNamespace, count: int) -> list[SimpleNamespace]:
    code = task_type is TaskType.code
    task = SimpleNamespace(id=task_id, type=task_type, source=SimpleNamespace(value="swebench" if code else "bfcl"),
                           candidate_format=CandidateFormat("diff" if code else "tool_calls"))
    return [SimpleNamespace(task=task, key=f"{task_id}-{i}", candidate={}, verifier=verifier) for i in range(count)]


def test_large_groups_are_cut_and_code_cases_go_first_one_each(ray_env, monkeypatch, tmp_path: Path):
    import ray  # only after ray_env: Ray reads its authentication settings once, when first imported

    monkeypatch.setattr(ray, "put", lambda value: ("ref", len(value)))
    judge = object.__new__(RayJudge)  # _chunks needs only the verifier files' cache
    judge._files = {}
    verifier = SimpleNamespace(sha256="sha256:v", directory=tmp_path)
    (tmp_path / "verify.py").write_text("pass\n")
    runs = (case_runs("big", TaskType.tool_call, verifier, 2 * CHUNK_CASES + 3)
            + case_runs("small", TaskType.state, verifier, 3) + case_runs("code", TaskType.code, verifier, 2))
    chunks = judge._chunks(runs)
    sizes = [(items[0]["task_id"], len(items)) for _, items in chunks]
    assert sizes == [("code", 1), ("code", 1), ("big", CHUNK_CASES), ("big", CHUNK_CASES), ("big", 3), ("small", 3)]
    assert sorted(item["key"] for _, items in chunks for item in items) == sorted(run.key for run in runs)
    assert ray_judge.CHUNK_CASES >= 8  # a Ray call per few cases would cost more than the cases
