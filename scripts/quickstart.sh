#!/usr/bin/env bash
# The main job on the embedded default: no API key, no network.
#
#   bash scripts/quickstart.sh                  smoke run: a few tasks of every available source (a few minutes)
#   bash scripts/quickstart.sh --per-source N   the smoke run with N tasks per source (default 3)
#   bash scripts/quickstart.sh --full           the full reproduction: every task (about half an hour on 2 cores)
#
# Builds the suite from the installed sources and the data shipped in the package, screens it (full run only), runs
# `inspect eval-set` of the VerifierBench task with the four model-free policies (each drives the real agent loop in
# the no-Docker sandbox and delivers a verifier; the scorer runs it on every hidden case) and the heuristic policy
# once more with the single-reply harness, then audits every delivered verifier (TestJack witnesses) and writes the
# leaderboard's tables and figures (audited scores beside the hidden-suite ones) and prints the ranking. Logs go to
# results/quickstart/logs (full) or results/quickstart/smoke/logs (smoke); an interrupted run resumes there
# without redoing finished samples.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

full=0
per_source=3
while [ $# -gt 0 ]; do
  case "$1" in
    --full) full=1 ;;
    --per-source) per_source="${2:?--per-source needs a number}"; shift ;;
    --per-source=*) per_source="${1#*=}" ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "quickstart: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$per_source" in ''|*[!0-9]*|0) echo "quickstart: --per-source needs a positive number" >&2; exit 2 ;; esac

started=$SECONDS
step() { echo "quickstart [$((SECONDS - started)) s]: $*" >&2; }

bash "$root/scripts/bootstrap.sh"
cd "$root"
vb=.venv/bin/verifierbench
$vb doctor
# Every source but SWE-bench, whose 47 code tasks take hours to build (`verifierbench build --source swebench`).
step "building the suite into tasks/suite (sources without data are named in one line and skipped)"
$vb build --out tasks/suite --source bfcl --source acebench --source tau2 --source agentdojo --source appworld
$vb suite stats tasks/suite
if [ "$full" = 1 ]; then
  # The smoke run leaves this out (minutes on 2 cores; every offline task passes it): `verifierbench screen`.
  step "screening the suite (V4V checks C1-C7; writes tasks/suite/screened.json, which the eval honours)"
  $vb screen --suite tasks/suite
fi

if [ "$full" = 1 ]; then
  out=results/quickstart
  selection=()
  report=()  # results/leaderboard/, paper_figures/ and results/audit/
  what="every retained task"
else
  out=results/quickstart/smoke
  # The first N retained tasks of every source in the suite (suite order), as -T task_ids.
  ids="$(.venv/bin/python - "$per_source" <<'EOF'
import sys
from pathlib import Path

from verifierbench.screening.run import retained_ids
from verifierbench.suite.store import load_suite

directory = Path("tasks/suite")
suite = load_suite(directory)
retained = retained_ids(directory, suite)
chosen: dict[str, list[str]] = {}
for task in suite.tasks.values():
    if retained is None or task.id in retained:
        picked = chosen.setdefault(task.source.value, [])
        if len(picked) < int(sys.argv[1]):
            picked.append(task.id)
print(",".join(i for ids in chosen.values() for i in ids))
print(", ".join(f"{source} {len(ids)}" for source, ids in chosen.items()), file=sys.stderr)
EOF
)"
  # One judgment round for state tasks instead of three (rounds only settle their variance).
  selection=(-T "task_ids=$ids" -T rounds=1)
  report=(--out "$out/leaderboard" --figures "$out/figures")  # the full run's tables stay where they are
  what="$per_source tasks per source"
fi
logs=$out/logs
policies=verifierbench/always_accept,verifierbench/always_reject,verifierbench/random,verifierbench/heuristic
export INSPECT_DISPLAY="${INSPECT_DISPLAY:-plain}"
step "inspect eval-set with $policies, default harness, $what (logs in $logs/default)"
.venv/bin/inspect eval-set verifierbench/verifierbench --model "$policies" -T suite=tasks/suite "${selection[@]}" \
  --log-dir "$logs/default" --log-level warning
step "inspect eval-set with the heuristic policy, single_reply harness, $what (logs in $logs/single_reply)"
.venv/bin/inspect eval-set verifierbench/verifierbench --model verifierbench/heuristic -T suite=tasks/suite \
  "${selection[@]}" -T harness=single_reply --log-dir "$logs/single_reply" --log-level warning
# TestJack audit of every configuration's verifiers (witnesses pooled in $out/witnesses), summary in results/audit/
# (smoke: results/quickstart/smoke/audit/).
step "auditing every delivered verifier (TestJack witnesses pooled in $out/witnesses)"
audit_out=results/audit
[ "$full" = 1 ] || audit_out=$out/audit
$vb audit "$logs" --suite tasks/suite --pool "$out/witnesses" --out "$audit_out"
# Tables (CSV, Markdown, LaTeX) and index.html in results/leaderboard/ (smoke: results/quickstart/smoke/leaderboard/),
# figures in paper_figures/ (smoke: results/quickstart/smoke/figures/); the audited scores beside the hidden-suite ones.
step "leaderboard from the logs and the audit summary"
$vb leaderboard "$logs" --audit "$audit_out/summary.json" "${report[@]}"
step "done"
if [ "$full" = 0 ]; then
  echo "quickstart: that was the smoke run ($what). The full reproduction (every task, about half an hour on" \
       "2 cores): bash scripts/quickstart.sh --full" >&2
fi
