#!/usr/bin/env bash
# The main job on the embedded default: no API key, no network.
# Builds the tool-call suite from the installed sources, runs `inspect eval-set` of the
# VerifierBench task with the four model-free policies (each drives the real agent loop in the
# no-Docker sandbox and delivers a verifier; the scorer runs it on every hidden case), and prints
# the leaderboard from the Inspect logs. Logs go to results/quickstart/logs; an interrupted run
# resumes there without redoing finished samples.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/bootstrap.sh"
cd "$root"
vb=.venv/bin/verifierbench
$vb doctor
$vb build --out tasks/suite
$vb suite stats tasks/suite
logs=results/quickstart/logs
policies=verifierbench/always_accept,verifierbench/always_reject,verifierbench/random,verifierbench/heuristic
echo "quickstart: inspect eval-set with $policies (logs in $logs)" >&2
INSPECT_DISPLAY="${INSPECT_DISPLAY:-plain}" .venv/bin/inspect eval-set verifierbench/verifierbench --model "$policies" \
  -T suite=tasks/suite --log-dir "$logs" --log-level warning
$vb leaderboard "$logs"
