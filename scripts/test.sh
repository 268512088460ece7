#!/usr/bin/env bash
# Runs the test suite in the project's environment (bootstrapping it first).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERIFIERBENCH_BROWSER=1 bash "$root/scripts/bootstrap.sh"
cd "$root"
# In CI ($CI set), a test that would skip for lack of bubblewrap isolation or of shipped data fails instead, so a
# green CI means they ran (tests/conftest.py, skip_unless_required). Override with VERIFIERBENCH_REQUIRE=...
if [ -n "${CI:-}" ]; then export VERIFIERBENCH_REQUIRE="${VERIFIERBENCH_REQUIRE-sandbox,data}"; fi
# -rs prints every skip with its reason.
exec .venv/bin/python -m pytest -q -rs "$@"
