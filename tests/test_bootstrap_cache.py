"""scripts/bootstrap.sh keeps the dependencies in a venv of the user's cache (issue 50): a fresh clone's .venv is a
hard-linked copy of it with the project installed alone, and a cache others can write to is never used."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO_ROOT, skip_unless_required


def _env(**extra: str) -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith("VERIFIERBENCH_") and k != "PYTHONPATH"}
    return {**kept, **extra}


def _cache() -> Path:
    key = (REPO_ROOT / ".venv" / ".bootstrap-stamp").read_text().strip()
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "verifierbench" / "venvs"
    return root / f"{key}-py{sys.version_info[0]}.{sys.version_info[1]}"


def test_a_fresh_clone_gets_its_venv_from_the_cache_in_seconds(tmp_path):
    cache = _cache()
    if not (cache / "bin" / "inspect").exists() or os.environ.get("VERIFIERBENCH_VENV_CACHE"):
        skip_unless_required("venv-cache", f"no dependency cache at {cache} (scripts/bootstrap.sh makes it)")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO_ROOT), str(clone)], check=True)
    started = time.monotonic()
    result = subprocess.run(["bash", "scripts/bootstrap.sh"], cwd=clone, capture_output=True, text=True, env=_env(), timeout=300)
    took = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert "from the cached dependencies" in result.stderr and took < 60, (result.stderr, took)
    found = subprocess.run([str(clone / ".venv/bin/python"), "-c", "import verifierbench, inspect_ai; print(verifierbench.__file__)"],
                           capture_output=True, text=True, check=True, env=_env(), cwd=tmp_path).stdout.strip()
    assert found == str(clone / "verifierbench" / "__init__.py")
    assert subprocess.run([str(clone / ".venv/bin/inspect"), "--version"], capture_output=True, text=True).returncode == 0
    # The scripts were rewritten as new files; the cache's still name the cache, and the packages are shared.
    assert str(clone / ".venv") in (clone / ".venv/bin/inspect").read_text()
    assert str(clone) not in (cache / "bin/inspect").read_text()
    package = "lib/python{}.{}/site-packages/inspect_ai/__init__.py".format(*sys.version_info[:2])
    assert (clone / ".venv" / package).stat().st_ino == (cache / package).stat().st_ino


def test_a_cache_others_can_write_to_is_not_used(tmp_path):
    """Another local user who made the cache directory first (or any group- or world-writable one) could plant
    packages in it: bootstrap then installs in place. A stand-in interpreter stops it right after the choice."""
    shared = tmp_path / "cache"
    shared.mkdir()
    shared.chmod(0o777)
    fake = tmp_path / "python3"
    fake.write_text('#!/bin/sh\ncase "$*" in *version_info*) echo py3.11 ;; "-m venv"*) exit 3 ;; esac\n')
    fake.chmod(0o755)
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    for name in ("pyproject.toml", "constraints.txt", "scripts/bootstrap.sh"):
        (repo / name).write_bytes((REPO_ROOT / name).read_bytes())
    result = subprocess.run(["bash", "scripts/bootstrap.sh"], cwd=repo, capture_output=True, text=True, timeout=120,
                            env=_env(VERIFIERBENCH_VENV_CACHE=str(shared / "venvs"), VERIFIERBENCH_PYTHON=str(fake)))
    assert "creating .venv with" in result.stderr and "cached" not in result.stderr, result.stderr
    assert list(shared.iterdir()) == []
