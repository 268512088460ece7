"""docs/architecture.md's import table is the code's (scripts/architecture_map.py), and the map names every
top-level package and module of verifierbench."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT


def test_the_import_table_is_current():
    result = subprocess.run([sys.executable, "scripts/architecture_map.py", "--check"], cwd=REPO_ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_map_names_every_package_and_module():
    text = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    tree = text[text.index("```\nverifierbench/"):text.index("```", text.index("```\nverifierbench/") + 3)]
    package = REPO_ROOT / "verifierbench"
    units = {p.stem for p in package.glob("*.py") if p.stem not in ("__init__", "__main__")} | \
            {p.name for p in package.iterdir() if p.is_dir() and p.name != "__pycache__"}
    missing = sorted(u for u in units if f" {u}" not in tree and f"{u}.py" not in tree and f"{u}/" not in tree)
    assert not missing, f"docs/architecture.md does not name: {missing}"
