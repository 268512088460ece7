#!/usr/bin/env bash
# The main job on the embedded default: no API key, no network.
# Today it checks the sandbox and runs a trivial verifier through it; the suite build, the
# model-free policies and the leaderboard join this script as their issues land (3, 5, 7).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/bootstrap.sh"
cd "$root"
.venv/bin/verifierbench doctor
if [ -f tasks/suite/manifest.json ]; then
  .venv/bin/verifierbench suite check tasks/suite
else
  echo "quickstart: no suite built yet (tasks/suite/); suite construction is issue 3, the leaderboard issues 5 and 7."
fi
