#!/usr/bin/env bash
# The main job on the embedded default: no API key, no network.
# Builds the tool-call suite from the installed sources, runs `inspect eval-set` of the
# VerifierBench task with the four model-free policies (each drives the real agent loop in the
# no-Docker sandbox and delivers a verifier; the scorer runs it on every hidden case) and the
# heuristic policy once more with the single-reply harness, then writes the leaderboard's tables
# and figures and prints the ranking from the Inspect logs; last, it audits every delivered verifier
# (TestJack witnesses). Logs go to results/quickstart/logs; an interrupted run resumes there
# without redoing finished samples.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/bootstrap.sh"
cd "$root"
vb=.venv/bin/verifierbench
$vb doctor
$vb build --out tasks/suite
$vb suite stats tasks/suite
$vb screen --suite tasks/suite   # V4V checks C1-C6; writes tasks/suite/screened.json, which the eval honours
logs=results/quickstart/logs
policies=verifierbench/always_accept,verifierbench/always_reject,verifierbench/random,verifierbench/heuristic
export INSPECT_DISPLAY="${INSPECT_DISPLAY:-plain}"
echo "quickstart: inspect eval-set with $policies, default harness (logs in $logs/default)" >&2
.venv/bin/inspect eval-set verifierbench/verifierbench --model "$policies" -T suite=tasks/suite \
  --log-dir "$logs/default" --log-level warning
echo "quickstart: inspect eval-set with the heuristic policy, single_reply harness (logs in $logs/single_reply)" >&2
.venv/bin/inspect eval-set verifierbench/verifierbench --model verifierbench/heuristic -T suite=tasks/suite \
  -T harness=single_reply --log-dir "$logs/single_reply" --log-level warning
# Tables (CSV, Markdown, LaTeX) and index.html in results/leaderboard/, figures in paper_figures/.
$vb leaderboard "$logs"
# TestJack audit of every configuration's verifiers (witnesses pooled in results/quickstart/witnesses).
$vb audit "$logs" --suite tasks/suite --pool results/quickstart/witnesses
