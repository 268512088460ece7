"""Shared fixtures: a sandboxed executor and a helper that writes verifier files."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from verifierbench.executor import Executor, Limits, probe_bwrap

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"
ACEBENCH = SHARED / "upstream/acebench/data_all/data_en"
BIN = Path(sys.executable).parent


def write_verifier(directory: Path, source: str, name: str = "verify.py") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(textwrap.dedent(source))
    return path


@pytest.fixture(scope="session")
def bwrap_available() -> None:
    works, why = probe_bwrap()
    if not works:
        pytest.skip(f"no bubblewrap isolation on this machine: {why}")


@pytest.fixture()
def sandbox(bwrap_available: None) -> Executor:
    # Short limits keep the hostile tests fast; the defaults are exercised elsewhere.
    with Executor(Limits(timeout_s=3, memory_bytes=1 << 30, max_processes=32), isolation="bwrap", slots=2) as executor:
        yield executor


def _build(out: Path, *args: str, timeout: int = 300) -> Path:
    result = subprocess.run([str(BIN / "verifierbench"), "build", "--out", str(out), *args], capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Path:
    """The full tool-call suite (BFCL and ACEBench), built once per session the way users build it."""
    if not ACEBENCH.is_dir():
        pytest.skip(f"ACEBench data not found at {ACEBENCH}")
    return _build(tmp_path_factory.mktemp("suite") / "suite", "--source", "bfcl", "--source", "acebench", "--acebench-dir", str(ACEBENCH))


@pytest.fixture(scope="session")
def bfcl_suite(tmp_path_factory) -> Path:
    """A BFCL-only suite: needs nothing beyond the installed packages."""
    return _build(tmp_path_factory.mktemp("bfcl-suite") / "suite", "--source", "bfcl")


@pytest.fixture(scope="session")
def state_suite(tmp_path_factory) -> Path:
    """The state tasks from the installed packages: tau2 (retail, banking_knowledge) and AgentDojo."""
    return _build(tmp_path_factory.mktemp("state-suite") / "suite", "--source", "tau2", "--source", "agentdojo")


@pytest.fixture(scope="session")
def traversable_tmp():
    """A temporary directory the sandbox uids can reach (pytest's own are 0700 under /tmp/pytest-of-<user>)."""
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="vgb-tests-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def swebench_fixture(traversable_tmp) -> tuple[Path, Path]:
    """The offline SWE-bench-format instance: (instances.jsonl, directory of local git clones)."""
    from tests.sources.swebench.fixture import make_fixture

    return make_fixture(traversable_tmp / "swebench-data")


@pytest.fixture(scope="session")
def code_suite(swebench_fixture, traversable_tmp) -> Path:
    """The code suite built from the offline fixture, the way users build it (checkouts inside the suite)."""
    instances, repos = swebench_fixture
    return _build(traversable_tmp / "code-suite", "--source", "swebench", "--swebench-instances", str(instances),
                  "--swebench-repos", str(repos))
