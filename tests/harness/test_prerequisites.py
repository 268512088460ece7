"""Prerequisites of the chosen options (harness/prerequisites.py) through the real `inspect eval`: each missing one is
one line naming what to do, exit status 1, before any sample starts (no log is written), and a line of `doctor`."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT, skip_unless_required
from tests.harness.inspect_cli import inspect
from tests.harness.test_inspect_errors import ENV, lines_of
from verifierbench.harness.pi_vgb import FETCH_COMMAND

# Hides inspect-swe as an uninstalled package is hidden: its module and its distribution (so its Inspect entry point).
NO_INSPECT_SWE = '''
import sys
from importlib.machinery import PathFinder


class NoInspectSwe(PathFinder):
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        return None if name.split(".")[0] == "inspect_swe" else super().find_spec(name, path, target)

    @classmethod
    def find_distributions(cls, *args, **kwargs):
        return (d for d in super().find_distributions(*args, **kwargs)
                if d.metadata["Name"].lower().replace("_", "-") != "inspect-swe")


sys.meta_path[:] = [NoInspectSwe if finder is PathFinder else finder for finder in sys.meta_path]
'''


def without_inspect_swe(tmp_path: Path) -> dict[str, str]:
    site = tmp_path / "no-inspect-swe"
    site.mkdir()
    (site / "sitecustomize.py").write_text(NO_INSPECT_SWE)
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH", "")]))}


def without_docker() -> dict[str, str]:
    return {"PATH": os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep) if not (Path(d) / "docker").exists())}


def refused(tmp_path: Path, suite: Path, *args: str, env: dict[str, str]) -> str:
    """The one line `inspect eval` prints (on a console wide enough for this test's long temporary paths) for these options, after checking its exit status and that no sample ran."""
    logs = tmp_path / "logs"
    result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T", f"suite={suite}",
                     *args, "--limit", "1", "--log-dir", str(logs), env={**ENV, "COLUMNS": "1000", **env}, timeout=300)
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr[-2000:]
    lines = lines_of(result)
    assert len(lines) == 1, lines[:5]
    assert not logs.exists() or not any(logs.iterdir()), list(logs.iterdir())  # refused before the eval started
    return lines[0]


def test_pi_in_vgb_without_its_toolchain_is_one_line_naming_the_fetch_command(tmp_path, bfcl_suite):
    empty = tmp_path / "empty-cache"
    empty.mkdir()
    line = refused(tmp_path, bfcl_suite, "-T", "harness=pi", env={"VERIFIERBENCH_HARNESS_CACHE": str(empty)})
    assert line.startswith(f"verifierbench: harness pi in the vgb sandbox: no node in {empty}") and FETCH_COMMAND in line, line


def test_a_cli_harness_without_the_harnesses_extra_is_one_line_naming_the_install(tmp_path, bfcl_suite):
    line = refused(tmp_path, bfcl_suite, "-T", "harness=claude_code", "-T", "sandbox=docker", env=without_inspect_swe(tmp_path))
    assert "harness claude_code needs inspect-swe, which is not installed: pip install 'verifierbench[harnesses]'" in line, line


def test_the_docker_sandbox_without_docker_is_one_line(tmp_path, bfcl_suite):
    line = refused(tmp_path, bfcl_suite, "-T", "sandbox=docker", env=without_docker())
    assert line.startswith("verifierbench: -T sandbox=docker: no `docker` executable on PATH"), line


def test_code_tasks_without_their_checkout_are_one_line(tmp_path, code_suite):
    suite = tmp_path / "suite"
    shutil.copytree(code_suite, suite)
    shutil.rmtree(suite / "checkouts")
    store = tmp_path / "checkouts"
    store.mkdir(mode=0o700)
    line = refused(tmp_path, suite, env={"VERIFIERBENCH_CHECKOUTS": str(store)})
    assert line.startswith("verifierbench: code task vgb-t-") and " not found (looked in " in line, line


def test_doctor_names_each_prerequisite_in_one_line(tmp_path):
    empty = tmp_path / "empty-cache"
    empty.mkdir()
    env = {**os.environ, **without_inspect_swe(tmp_path), **without_docker(), "VERIFIERBENCH_HARNESS_CACHE": str(empty)}
    done = subprocess.run([sys.executable, "-m", "verifierbench", "doctor"], capture_output=True,
                          text=True, timeout=300, cwd=REPO_ROOT, env=env)
    lines = done.stdout.splitlines()
    assert f"pi toolchain (-T harness=pi, vgb sandbox): harness pi in the vgb sandbox: no node in {empty}; " \
           f"fetch node 22.23.5 and pi 0.84.2 with `{FETCH_COMMAND}`" in lines, done.stdout + done.stderr
    assert "CLI harnesses' extra (inspect-swe): missing: pip install 'verifierbench[harnesses]'" in lines, done.stdout
    assert "docker (-T sandbox=docker): no docker executable on PATH" in lines, done.stdout
    # One line per harness: where this machine can run it, or why nowhere.
    harnesses = [line for line in lines if line.startswith("harness ")]
    assert [line.split()[1] for line in harnesses] == ["default", "single_reply", "claude_code", "codex_cli", "gemini_cli",
                                                      "mini_swe_agent", "pi", "openclaw"], done.stdout
    assert "harness default (Inspect ReAct agent): runs here in vgb; not in docker: no docker executable on PATH" in lines
    assert harnesses[2] == ("harness claude_code (Claude Code 2.1.263): cannot run here (vgb: harness claude_code in the vgb "
                            f"sandbox: no Claude Code in {empty}; fetch Claude Code 2.1.263 with "
                            "`python -m verifierbench.harness.claude_vgb fetch`; docker: no docker executable on PATH)"), harnesses[2]
    assert harnesses[6].startswith(f"harness pi (Pi 0.84.2): cannot run here (vgb: harness pi in the vgb sandbox: no node in {empty}"), harnesses[6]


def test_doctor_names_what_is_there():
    # The positive control needs both: a skip names its kind (CI requires `packages`; `docker` where the engine runs).
    if importlib.util.find_spec("inspect_swe") is None:
        skip_unless_required("packages", "inspect-swe is not installed: pip install 'verifierbench[harnesses]'")
    if shutil.which("docker") is None:
        skip_unless_required("docker", "no docker executable on PATH for the doctor's positive control")
    done = subprocess.run([sys.executable, "-m", "verifierbench", "doctor"], capture_output=True,
                          text=True, timeout=300, cwd=REPO_ROOT)
    lines = done.stdout.splitlines()
    assert f"docker (-T sandbox=docker): {shutil.which('docker')}" in lines, done.stdout + done.stderr
    assert "CLI harnesses' extra (inspect-swe): installed" in lines, done.stdout
    assert "harness claude_code (Claude Code 2.1.263): runs here in vgb, docker" in lines, done.stdout


def test_each_vgb_cli_is_refused_on_its_own_toolchain_check(tmp_path, monkeypatch):
    """Every CLI in vgb shares `toolchain_problem`; each record asks its own CLI's check (an empty cache: each
    names itself and the cache), and a check that passes is no problem."""
    from verifierbench.harness import claude_vgb, codex_vgb, gemini_vgb, mini_vgb, openclaw_vgb, pi_vgb
    from verifierbench.harness import registry as harnesses
    from verifierbench.harness.prerequisites import toolchain_problem

    monkeypatch.setenv("VERIFIERBENCH_HARNESS_CACHE", str(tmp_path))
    for name, module in (("pi", pi_vgb), ("claude_code", claude_vgb), ("codex_cli", codex_vgb), ("gemini_cli", gemini_vgb),
                         ("openclaw", openclaw_vgb), ("mini_swe_agent", mini_vgb)):
        module.toolchain.cache_clear()
        try:
            problem = harnesses.get(name).problem("vgb")
        finally:
            module.toolchain.cache_clear()
        assert problem and problem.startswith(f"harness {name} in the vgb sandbox: no ") and str(tmp_path) in problem, problem
    assert toolchain_problem(lambda: "checked") is None
