#!/usr/bin/env bash
# Runs the test suite in the project's environment (bootstrapping it first).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERIFIERBENCH_BROWSER=1 bash "$root/scripts/bootstrap.sh"
cd "$root"
exec .venv/bin/python -m pytest -q "$@"
