"""A newcomer's install, through the command line: the wheel installed in a fresh venv outside the repository
runs the build and `inspect eval` from any directory, and a fresh clone with nothing beside it (no `../shared`)
builds the whole tool-call suite from the data shipped in the package.

The wheel's dependencies are installed by pip when $CI is set (or VERIFIERBENCH_WHEEL_DEPS=install); otherwise
the fresh venv borrows them from this environment (minutes saved, the wheel itself is still what is imported)."""

from __future__ import annotations

import json
import os
import re
import site
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, cached, skip_unless_required

pytestmark = [pytest.mark.slow, pytest.mark.sandbox, pytest.mark.usefixtures("bwrap_available"), pytest.mark.timeout(1800)]

BIN = Path(sys.executable).parent


def run(*args: str | Path, cwd: Path, env: dict | None = None, timeout: int = 900,
        check: bool = True) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VERIFIERBENCH_", "PYTHON"))}
    result = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                            env={**clean, "INSPECT_DISPLAY": "none", **(env or {})})
    assert result.returncode == 0 or not check, f"{args}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def by_source(python: Path, suite: Path, cwd: Path) -> dict[str, int]:
    stats = run(python, "-m", "verifierbench", "suite", "stats", suite, "--json", cwd=cwd)
    return json.loads(stats.stdout)["tasks"]["by_source"]


@pytest.fixture(scope="module")
def installed(traversable_tmp) -> Path:
    """A fresh venv, outside the repository, with the wheel built from this checkout; returns its python."""
    dist = traversable_tmp / "dist"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, REPO_ROOT, cwd=traversable_tmp)
    (wheel,) = dist.glob("verifierbench-*.whl")
    venv = traversable_tmp / "fresh-venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=traversable_tmp)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", python, "install", "-q", "-c", REPO_ROOT / "constraints.txt"]
    bfcl = re.search(r"bfcl-eval==[0-9.]+", (REPO_ROOT / "pyproject.toml").read_text()).group(0)
    if os.environ.get("VERIFIERBENCH_WHEEL_DEPS", "install" if os.environ.get("CI") else "reuse") == "install":
        deps = [_installed_dependencies(wheel, bfcl, traversable_tmp)]
    else:
        deps = site.getsitepackages()  # this environment's (every extra)
    run(*pip, "--no-deps", wheel, cwd=traversable_tmp)
    # After the venv's own site-packages: the wheel's copy wins, the dependencies come from `deps`.
    (purelib,) = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                          cwd=traversable_tmp).stdout.strip()),
    (purelib / "_borrowed_deps.pth").write_text("".join(p + "\n" for p in deps))
    return python


def _installed_dependencies(wheel: Path, bfcl: str, scratch: Path) -> str:
    """The site-packages of a venv where pip installed the wheel with its dependencies at constraints.txt's releases
    and BFCL's documented --no-deps install, then removed the wheel itself: what a user's `pip install` resolves.
    Made once per pyproject.toml, constraints.txt and Python (tests.conftest.cached), minutes on a cold machine."""
    key = "\n".join([sys.version, (REPO_ROOT / "pyproject.toml").read_text(), (REPO_ROOT / "constraints.txt").read_text()])

    def make(directory: Path) -> None:
        run(sys.executable, "-m", "venv", "--without-pip", directory / "venv", cwd=scratch)
        pip = [sys.executable, "-m", "pip", "--python", directory / "venv" / "bin" / "python", "install", "-q", "-c",
               REPO_ROOT / "constraints.txt"]
        run(*pip, wheel, cwd=scratch, timeout=1500)
        run(*pip, "--no-deps", bfcl, cwd=scratch)  # the documented install of the bfcl extra
        run(sys.executable, "-m", "pip", "--python", directory / "venv" / "bin" / "python", "uninstall", "-q", "-y",
            "verifierbench", cwd=scratch)

    venv = cached("wheel-dependencies", key, make) / "venv"
    return run(venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
               cwd=scratch).stdout.strip()


def test_the_wheel_finds_every_file_it_reads_through_the_installed_package(installed, traversable_tmp):
    probe = """
import json, verifierbench
from verifierbench.sandboxes import VGB_ENV
from verifierbench.sandboxes.spec import sandbox_spec
from verifierbench.sources.acebench.data import resolve_dir, source_commit
from verifierbench.sources.swebench import venv_store, docker_compose
print(json.dumps({"package": verifierbench.__file__, "docker": sandbox_spec("docker")[1], "k8s": sandbox_spec("k8s")[1],
                  "harness": sandbox_spec("docker", cli_image=True)[1], "in_sandbox_lib": str(VGB_ENV),
                  "template": str(docker_compose.TEMPLATE), "specs": str(venv_store.SPECS), "vgb_env": str(docker_compose.VGB_ENV), "acebench": str(resolve_dir()),
                  "commit": source_commit(resolve_dir())}))
"""
    found = json.loads(run(installed, "-c", probe, cwd=traversable_tmp).stdout)
    venv = installed.parent.parent
    assert Path(found.pop("package")).is_relative_to(venv)
    assert found.pop("commit").startswith("e6db74b")
    for name, path in found.items():
        assert Path(path).is_relative_to(venv) and Path(path).exists(), (name, path)


def test_the_wheel_builds_a_source_and_runs_inspect_eval_from_any_directory(installed, traversable_tmp):
    elsewhere = traversable_tmp / "elsewhere"
    elsewhere.mkdir()
    verifierbench = installed.parent / "verifierbench"
    built = run(verifierbench, "build", "--out", "suite", "--source", "acebench", cwd=elsewhere)
    assert "unavailable" not in built.stdout, built.stdout
    assert by_source(installed, elsewhere / "suite", elsewhere) == {"acebench": 50}
    # The documented command, the plain `inspect` CLI of the fresh venv (or this one's script run by its python).
    inspect_cli = [installed.parent / "inspect"] if (installed.parent / "inspect").exists() else [installed, BIN / "inspect"]
    run(*inspect_cli, "eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "--limit", "3",
        "-T", "suite=suite", "--log-dir", "logs", cwd=elsewhere)
    from inspect_ai.log import list_eval_logs, read_eval_log

    (log,) = list_eval_logs(str(elsewhere / "logs"))
    log = read_eval_log(log)
    assert log.status == "success" and len(log.samples) == 3
    assert log.eval.metadata["suite_dir"] == str(elsewhere / "suite")  # absolute, though given as `suite`
    # The CLI finds the suite through the logs, from another directory (one resolver for the task and the CLI).
    other = traversable_tmp / "other"
    other.mkdir()
    audited = run(verifierbench, "audit", elsewhere / "logs", "--rounds", "0", "--pool", other / "pool", "--json", cwd=other)
    assert json.loads(audited.stdout)["suite"] == log.eval.metadata["suite_version"]


def test_the_wheel_alone_builds_bfcl_and_names_the_extra_each_other_source_needs(installed, traversable_tmp):
    """The wheel with no extra, plus BFCL's documented --no-deps install: the offline tool-call sources build, and
    each source whose package is missing is named in one line with the extra that installs it (issue 39)."""
    if os.environ.get("VERIFIERBENCH_WHEEL_DEPS", "install" if os.environ.get("CI") else "reuse") != "install":
        skip_unless_required("wheel-deps", "the fresh venv borrows this environment's packages (every extra): VERIFIERBENCH_WHEEL_DEPS=install")
    where = traversable_tmp / "no-extras"
    where.mkdir()
    verifierbench = installed.parent / "verifierbench"
    built = run(verifierbench, "build", "--out", "suite", cwd=where)
    assert by_source(installed, where / "suite", where) == {"bfcl": 45, "acebench": 50}
    said = built.stdout.splitlines()
    for source in ("tau2", "agentdojo"):
        assert any(line.startswith(f"build: {source} unavailable, skipped: ") and
                   line.endswith(f"pip install 'verifierbench[{source}]'") for line in said), built.stdout
    instances, repos = traversable_tmp / "none.jsonl", traversable_tmp / "none-repos"
    instances.write_text("")
    repos.mkdir()
    code = run(verifierbench, "build", "--out", "code", "--source", "swebench", "--swebench-instances", instances,
               "--swebench-repos", repos, cwd=where, check=False)
    assert "Traceback" not in code.stderr, code.stderr
    assert "pip install 'verifierbench[swebench]'" in code.stdout, code.stdout


def test_a_wheel_built_in_the_clone_adds_no_copy_of_the_task(installed):
    """setup.cfg puts setuptools' build tree under build/_setuptools, which Inspect's task search skips."""
    listed = run(BIN / "inspect", "list", "tasks", cwd=REPO_ROOT).stdout.split()
    assert sorted(t for t in listed if t.endswith("@verifierbench")) == ["tasks/verifierbench.py@verifierbench",
                                                                         "verifierbench/task.py@verifierbench"]
    assert not (REPO_ROOT / "verifierbench.egg-info").exists()  # setup.cfg puts it under build/ too


def test_a_fresh_clone_without_shared_builds_all_95_tool_call_tasks(traversable_tmp):
    """Only committed work is cloned; nothing is beside the clone."""
    clone = traversable_tmp / "newcomer" / "verifierbench"
    run("git", "clone", "-q", REPO_ROOT, clone, cwd=traversable_tmp)
    assert not (clone.parent.parent / "shared").exists() and not (clone.parent / "shared").exists()
    env = {"PYTHONPATH": str(clone)}  # the clone's code, not this checkout's
    where = run(sys.executable, "-c", "import verifierbench; print(verifierbench.__file__)", cwd=clone, env=env)
    assert Path(where.stdout.strip()).is_relative_to(clone)
    built = run(sys.executable, "-m", "verifierbench", "build", "--out", "tasks/suite", "--source", "bfcl", "--source",
                "acebench", cwd=clone, env=env)
    assert "unavailable" not in built.stdout, built.stdout
    stats = run(sys.executable, "-m", "verifierbench", "suite", "stats", "tasks/suite", "--json", cwd=clone, env=env)
    assert json.loads(stats.stdout)["tasks"]["by_source"] == {"bfcl": 45, "acebench": 50}


def test_the_install_is_seen_from_the_project_root():
    """Started in the project root, Python must see the installed distribution (with its direct_url.json), not an
    egg-info that setuptools left in the root: Inspect then takes verifierbench for not installed and registers its
    objects without their "verifierbench/" prefix (`--scorer verifierbench/testjack_audit` couldn't be loaded).
    setup.cfg sends the egg-info to build/."""
    if not (Path(sys.prefix) / "pyvenv.cfg").is_file() or Path(sys.prefix).parent != REPO_ROOT:
        skip_unless_required("project-venv", "runs in the project's own .venv (scripts/bootstrap.sh)")
    assert not list(REPO_ROOT.glob("*.egg-info")), "an egg-info in the project root shadows the install"
    probe = ("import importlib.metadata as m, json; "
             "print(json.loads(m.distribution('verifierbench').read_text('direct_url.json') or '{}').get('dir_info'))")
    seen = subprocess.run([sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    assert "'editable': True" in seen.stdout, seen
