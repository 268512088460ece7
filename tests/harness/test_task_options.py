"""Task options and suite resolution of `verifierbench/verifierbench`, without running an eval."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifierbench.harness import suite_source
from verifierbench.harness.task import SANDBOXES_DIR, sandbox_spec, verifierbench


def test_container_sandboxes_use_the_shipped_configs():
    assert sandbox_spec("vgb") == "vgb"
    for name in ("docker", "k8s"):
        kind, config = sandbox_spec(name)
        assert kind == name and Path(config).is_file() and Path(config).parent.parent == SANDBOXES_DIR
    with pytest.raises(ValueError, match="unknown sandbox"):
        sandbox_spec("podman")


def test_cli_harnesses_refuse_the_no_docker_sandbox_with_the_reason(bfcl_suite):
    with pytest.raises(ValueError, match="use -T sandbox=docker"):
        verifierbench(suite=str(bfcl_suite), harness="claude_code")
    task = verifierbench(suite=str(bfcl_suite), harness="codex_cli", sandbox="docker", task_ids="bfcl/parallel_114")
    assert task.sandbox.type == "docker" and len(task.dataset) == 1
    with pytest.raises(ValueError, match="unknown harness"):
        verifierbench(suite=str(bfcl_suite), harness="pi")


def test_task_selection_and_prompt_options(bfcl_suite):
    task = verifierbench(suite=str(bfcl_suite), task_ids="bfcl/parallel_114, bfcl/simple_python_10", time_limit=60, max_tokens=1000)
    assert [s.metadata["source_id"] for s in task.dataset] == ["parallel_114", "simple_python_10"]
    assert task.time_limit == 60 and task.config.max_tokens == 1000
    sample = task.dataset[0]
    assert "/workspace/verifier/verify.py" in sample.input and '"decision": "PASS" or "FAIL"' in sample.input
    assert set(sample.files) == {"/workspace/task/task.json", "/workspace/task/example_candidate.json"}
    single = verifierbench(suite=str(bfcl_suite), harness="single_reply", task_ids="bfcl/parallel_114")
    assert "```python code block" in single.dataset[0].input


def test_suite_resolution_order(monkeypatch, tmp_path, bfcl_suite):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("VERIFIERBENCH_SUITE", raising=False)
    assert suite_source.resolve_suite_dir(str(bfcl_suite)) == bfcl_suite
    assert suite_source.resolve_suite_dir() == suite_source.cache_dir()  # nothing else: the embedded default
    monkeypatch.setenv("VERIFIERBENCH_SUITE", str(bfcl_suite))
    assert suite_source.resolve_suite_dir() == bfcl_suite


def test_the_embedded_default_suite_is_built_on_first_use(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("VERIFIERBENCH_SUITE", raising=False)
    directory, suite = suite_source.open_suite()
    assert directory == suite_source.cache_dir() and (directory / "manifest.json").exists()
    assert {t.source.value for t in suite.tasks.values()} >= {"bfcl"}
