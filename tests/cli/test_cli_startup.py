"""The command line starts without Inspect: only the commands that read Inspect logs (leaderboard, paper, judge
--logs) import it, so that `judge`, `run` and `screen` do not pay its second of imports per process (issue 38's
local-path target counts a `judge` end to end)."""

from __future__ import annotations

import subprocess
import sys


def test_the_cli_module_does_not_import_inspect_or_numpy():
    probe = "import sys, verifierbench.cli.main; print(sorted(m for m in ('inspect_ai', 'numpy') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]", result.stdout
