"""docs/adding-a-harness.md, followed literally: its toy CLI harness module, written to a folder of its own and named in
$VERIFIERBENCH_HARNESSES, is a `-T harness` choice, has its configuration, is listed by `doctor` and runs under
`inspect eval` in the vgb sandbox, with no other file edited."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.harness.inspect_cli import eval_log, inspect
from verifierbench.configurations import OVERRIDE_ENV

GUIDE = REPO_ROOT / "docs" / "adding-a-harness.md"
MARKER = "<!-- toy harness: tests/harness/test_adding_a_harness.py runs this module as written -->\n```python\n"


def toy_module(directory: Path) -> dict[str, str]:
    """Writes the guide's module as toy_harness.py; the environment that names it."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(MARKER) + len(MARKER)
    (directory / "toy_harness.py").write_text(text[start:text.index("```\n", start)], encoding="utf-8")
    path = os.pathsep.join(filter(None, [str(directory), str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]))
    return {"PYTHONPATH": path, "VERIFIERBENCH_HARNESSES": "toy_harness"}


def python(code: str, env: dict[str, str]) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
                            env={**os.environ, **env})
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.fixture(scope="module")
def toy_env(tmp_path_factory) -> dict[str, str]:
    return toy_module(tmp_path_factory.mktemp("toy-harness"))


def test_the_toy_is_a_harness_choice_and_a_configuration(toy_env, bfcl_suite):
    found = json.loads(python(
        "import json, typing; from verifierbench.task import HarnessName, verifierbench;"
        "from verifierbench.configurations import BY_NAME, configuration_task;"
        f"task = configuration_task('gpt_5_1_toy_cli', suite={str(bfcl_suite)!r}, task_ids='bfcl/parallel_114', sandbox='vgb');"
        "print(json.dumps({'choices': typing.get_args(HarnessName), 'configuration': BY_NAME['gpt_5_1_toy_cli'].harness,"
        " 'metadata': task.metadata, 'sandbox': task.sandbox.type}))", {**toy_env, OVERRIDE_ENV: "verifierbench/always_reject"}))
    assert found["choices"][-1] == "toy_cli" and found["choices"][:2] == ["default", "single_reply"]
    assert found["configuration"] == "toy_cli"
    assert {k: found["metadata"][k] for k in ("harness", "harness_version", "harness_transport")} == {
        "harness": "toy_cli", "harness_version": "0.1.0", "harness_transport": "inspect-model"}
    assert found["sandbox"] == "vgb"  # as asked (unasked, a CLI harness's configuration is given docker)


def test_doctor_lists_the_toy(toy_env):
    result = subprocess.run([sys.executable, "-m", "verifierbench", "doctor"], capture_output=True, text=True, timeout=300,
                            cwd=REPO_ROOT, env={**os.environ, **toy_env})
    lines = [line for line in result.stdout.splitlines() if line.startswith("harness toy_cli ")]
    assert len(lines) == 1 and lines[0].startswith("harness toy_cli (Toy CLI 0.1.0): runs here in vgb"), result.stdout


def test_a_module_that_registers_nothing_is_one_line(tmp_path):
    (tmp_path / "empty_harness.py").write_text("X = 1\n")
    result = subprocess.run([sys.executable, "-c", "import verifierbench.task"], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO_ROOT)]),
                                 "VERIFIERBENCH_HARNESSES": "empty_harness"})
    assert result.returncode == 1
    assert result.stderr.strip() == ("verifierbench: error: $VERIFIERBENCH_HARNESSES: harness module 'empty_harness' registers "
                                     "no harness (@harness or register_harness)")


@pytest.mark.usefixtures("bwrap_available")
def test_the_toy_runs_in_the_vgb_sandbox_and_its_log_names_it(toy_env, tmp_path, bfcl_suite):
    result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T", f"suite={bfcl_suite}",
                     "-T", "harness=toy_cli", "-T", "task_ids=bfcl/parallel_114", "--log-dir", str(tmp_path), env=toy_env)
    assert result.returncode == 0, result.stderr[-3000:]
    log = eval_log(tmp_path)
    assert log.status == "success", log.error
    metadata = log.eval.metadata or {}
    assert (metadata["harness"], metadata["harness_version"], metadata["harness_transport"]) == ("toy_cli", "0.1.0", "inspect-model")
    (sample,) = log.samples or []
    (score,) = sample.scores.values() if sample.scores else []
    assert score.metadata and score.metadata.get("verifier_files"), "the toy's CLI wrote no verifier"
