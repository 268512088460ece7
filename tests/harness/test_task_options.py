"""Task options and suite resolution of `verifierbench/verifierbench`, without running an eval."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import get_args

import pytest

from verifierbench.core.errors import UserError
from verifierbench.suite import resolver as suite_source
from verifierbench.sandboxes.docker_provider import SANDBOX_TYPE as DOCKER_SANDBOX
from verifierbench.sandboxes import CONTAINER_CONFIGS
from verifierbench.sandboxes.spec import sandbox_spec
from verifierbench.task import verifierbench


def test_container_sandboxes_use_the_shipped_configs():
    assert sandbox_spec("vgb") == "vgb"
    for name in ("docker", "k8s"):
        kind, config = sandbox_spec(name)
        assert kind == {"docker": DOCKER_SANDBOX}.get(name, name) and Path(config).is_file() and Path(config).parent.parent == CONTAINER_CONFIGS
    with pytest.raises(UserError, match="unknown sandbox"):
        sandbox_spec("podman")


def test_cli_harnesses_refuse_the_no_docker_sandbox_with_the_reason(bfcl_suite):
    task = verifierbench(suite=str(bfcl_suite), harness="codex_cli", sandbox="docker", task_ids="bfcl/parallel_114")
    assert task.sandbox.type == DOCKER_SANDBOX and len(task.dataset) == 1
    with pytest.raises(UserError, match="unknown harness"):
        verifierbench(suite=str(bfcl_suite), harness="aider")


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
    """The first-use path (the cache's checks, its lock, the build, the load) on BFCL alone: the default sources are
    the ones scripts/quickstart.sh builds, which tests/test_quickstart.py builds in full (the same build_suite)."""
    import re

    from tests.conftest import REPO_ROOT
    from verifierbench.sources import registry

    quickstart = (REPO_ROOT / "scripts" / "quickstart.sh").read_text()
    built = re.search(r"^\$vb build --out tasks/suite((?: --source \w+)+)$", quickstart, re.MULTILINE)
    assert built and built.group(1).split()[1::2] == registry.built_by_default(), built
    monkeypatch.setattr(registry, "built_by_default", lambda: ["bfcl"])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("VERIFIERBENCH_SUITE", raising=False)
    directory, suite = suite_source.open_suite()
    assert directory == suite_source.cache_dir() and (directory / "manifest.json").exists()
    assert {t.source.value for t in suite.tasks.values()} == {"bfcl"}


def test_message_limit_defaults_to_the_default_harness_only(bfcl_suite):
    from verifierbench.task import MESSAGE_LIMIT

    one = "bfcl/parallel_114"
    assert verifierbench(suite=str(bfcl_suite), task_ids=one).message_limit == MESSAGE_LIMIT
    assert verifierbench(suite=str(bfcl_suite), task_ids=one, message_limit=12).message_limit == 12
    assert verifierbench(suite=str(bfcl_suite), task_ids=one, message_limit=0).message_limit is None
    assert verifierbench(suite=str(bfcl_suite), task_ids=one, harness="single_reply").message_limit is None
    with pytest.raises(UserError, match="message_limit must be 0"):
        verifierbench(suite=str(bfcl_suite), task_ids=one, message_limit=-1)


@pytest.mark.parametrize("reply,code,why", [
    ("```python\nprint(1)\n```", "print(1)\n", ""),
    ("```\na = 1\n```\ntext\n```py\nb = 2\n```", "b = 2\n", ""),
    ("   \n", None, "empty reply"),
    ("I would check the arguments.", None, "no code block in the reply"),
    ("Here:\n```python\nimport sys\n", None, "unclosed code fence (```python opened, never closed)"),
    ("```bash\necho hi\n```\n```json\n{}\n```", None, "no python code block (closed blocks in: bash, json)"),
])
def test_single_reply_says_why_a_reply_has_no_verifier(reply, code, why):
    from verifierbench.harness.agents import read_reply

    assert read_reply(reply) == (code, why)


def test_a_closing_fence_may_end_the_last_code_line():
    from verifierbench.harness.agents import read_reply

    assert read_reply("```python\nx = 1```") == ("x = 1", "")


def _table_script():
    from tests.conftest import REPO_ROOT, load_script

    return load_script("task_options_table"), REPO_ROOT


def test_the_documented_option_tables_are_the_ones_generated_from_the_task():
    script, root = _table_script()
    for relative in script.DOCUMENTS:
        text = (root / relative).read_text(encoding="utf-8")
        assert script.rewritten(text, relative) == text, f"{relative}: run python scripts/task_options_table.py"
        edited = text.replace("| `rounds` | `3` |", "| `rounds` | `5` |")
        assert edited != text and script.rewritten(edited, relative) == text  # a hand edit is what --check catches
    names = [option.strip("`") for option, _, _ in script.rows()]
    assert names == list(inspect.signature(verifierbench).parameters)  # every parameter, each documented


def test_option_choices_are_literals_matching_the_schema_and_are_checked(bfcl_suite):
    from verifierbench.harness.registry import NAMES as HARNESSES
    from verifierbench.task import HarnessName, SandboxName, SourceName, TaskTypeName  # SandboxName: sandboxes/spec.py
    from verifierbench.core.schema import TaskType
    from verifierbench.sources import registry

    assert set(get_args(SourceName)) == set(registry.NAMES)
    assert set(get_args(TaskTypeName)) == {t.value for t in TaskType}
    assert get_args(HarnessName) == HARNESSES == ("default", "single_reply", "claude_code", "codex_cli", "gemini_cli",
                                                  "mini_swe_agent", "pi", "openclaw")
    for name in get_args(SandboxName):
        sandbox_spec(name)
    with pytest.raises(UserError, match=r"unknown source 'bfcl-v3' \(choose from bfcl, "):
        verifierbench(suite=str(bfcl_suite), source="bfcl-v3")
    with pytest.raises(UserError, match="unknown type 'tool_call'"):
        verifierbench(suite=str(bfcl_suite), type="tool_call")
