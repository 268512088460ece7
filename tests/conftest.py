"""Shared fixtures: a sandboxed executor and a helper that writes verifier files."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from verifierbench.executor import Executor, Limits, probe_bwrap

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"


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
