"""Lint and type check of the code base, with the pinned ruff and mypy of the `test` extra (rules in pyproject.toml)."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import BIN, REPO_ROOT, cached, skip_unless_required


def _tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        skip_unless_required("packages", f"{name} is not installed in this environment (pip install -e '.[test]')")
    return str(path)


def test_ruff_finds_nothing():
    result = subprocess.run([_tool("ruff"), "check", "--no-cache", "--output-format", "concise", "."],
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]


@pytest.mark.slow
@pytest.mark.timeout(900)  # a first run (no .mypy_cache) reads inspect_ai's and pydantic's stubs: minutes on 2 busy cores
def test_mypy_finds_nothing():
    # The files and settings are [tool.mypy]'s: verifierbench and tasks (tasks/verifierbench.py as tasks.verifierbench).
    # Its cache is kept between runs (a fresh clone has none): mypy checks each cached module against its source.
    mypy = _tool("mypy")
    cache = cached("mypy-cache", subprocess.run([mypy, "--version"], capture_output=True, text=True).stdout, lambda d: None)
    result = subprocess.run([mypy, "--cache-dir", str(cache)], cwd=REPO_ROOT, capture_output=True, text=True, timeout=880)
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
