"""README.md's table of the sources is the one scripts/sources_table.py generates from the suites the build writes."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT, load_script

SCRIPT = REPO_ROOT / "scripts" / "sources_table.py"


def test_the_readme_sources_table_is_generated_from_the_build(built, state_suite):
    """The build's own task and case counts, per offline source; a hand edit is what --check catches."""
    check = subprocess.run([sys.executable, str(SCRIPT), "--check", str(built), str(state_suite)], capture_output=True, text=True,
                           timeout=120)
    assert check.returncode == 0, f"run python scripts/sources_table.py SUITE...: {check.stderr}"
    sources_table = load_script("sources_table")
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    edited = text.replace("| BFCL v4 | tool-call | 45 |", "| BFCL v4 | tool-call | 46 |")
    assert edited != text and sources_table.rewritten(edited, [built, state_suite]) == text
