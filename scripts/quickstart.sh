#!/usr/bin/env bash
# The main job on the embedded default: no API key, no network.
# Builds the tool-call suite from the installed sources, judges the reference verifier and the
# baseline verifiers (always-accept, always-reject, exact-match) on every hidden case in the
# sandbox, and prints the leaderboard. Decisions are kept in results/quickstart/ and resumed if
# the run is interrupted. Model-driven runs (inspect eval) join with issue 5.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/bootstrap.sh"
cd "$root"
vb=.venv/bin/verifierbench
$vb doctor
$vb build --out tasks/suite
$vb suite stats tasks/suite
out=results/quickstart
mkdir -p "$out"
for kind in reference always-accept always-reject exact-match; do
  rm -rf "$out/verifiers/$kind"
  $vb export-verifiers "$kind" --suite tasks/suite --out "$out/verifiers/$kind" >/dev/null
  extra=()
  [ "$kind" = reference ] && extra=(--reference-libs)
  echo "quickstart: judging $kind on every hidden case" >&2
  $vb judge --suite tasks/suite --verifiers "$out/verifiers/$kind" --all --out "$out/$kind.jsonl" --resume --quiet "${extra[@]}"
done
$vb metrics "$out"/reference.jsonl "$out"/always-accept.jsonl "$out"/always-reject.jsonl "$out"/exact-match.jsonl
