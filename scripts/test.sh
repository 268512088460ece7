#!/usr/bin/env bash
# Runs the test suite in the project's environment (bootstrapping it first).
#
#   bash scripts/test.sh [PYTEST ARGS]      the CI suite (what .ci/run runs); opt-in heavy suites skip with their switch
#   bash scripts/test.sh --full [ARGS]      also the heavy suites (docs/testing.md: several hours on 2 cores)
#   bash scripts/test.sh --random [ARGS]    test files and the tests within each in a random order (seed printed;
#                                           repeat one with --shuffle=SEED)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --full)
      # Every opt-in heavy suite: all CLI harnesses in Docker, the real astropy and matplotlib instances (compiled
      # environments), the wheel's dependencies installed by pip (docs/testing.md lists each switch).
      export VERIFIERBENCH_ALL_HARNESSES=1 VERIFIERBENCH_REAL_ASTROPY=1 VERIFIERBENCH_REAL_MATPLOTLIB=1 \
             VERIFIERBENCH_WHEEL_DEPS=install VERIFIERBENCH_MATPLOTLIB=1 VERIFIERBENCH_EXHAUSTIVE=1
      shift ;;
    --random) extra+=(--shuffle); shift ;;
    *) break ;;
  esac
done

VERIFIERBENCH_BROWSER=1 bash "$root/scripts/bootstrap.sh"
cd "$root"
# In CI ($CI set), a test that would skip for lack of bubblewrap isolation, shipped data, an installed package,
# chromium, the Python 3.9 root file system (made with debootstrap) or Ray fails instead, and so, beside ../shared,
# does one that would skip for lack of the offline SWE-bench copy: a green CI means they ran (tests/conftest.py,
# skip_unless_required; the same default as .ci/run). Override with VERIFIERBENCH_REQUIRE=...
if [ -n "${CI:-}" ] && [ -z "${VERIFIERBENCH_REQUIRE+set}" ]; then
  VERIFIERBENCH_REQUIRE=sandbox,data,packages,browser,rootfs-py39,ray
  if [ -d ../shared ]; then VERIFIERBENCH_REQUIRE=$VERIFIERBENCH_REQUIRE,swebench-copy; fi
  export VERIFIERBENCH_REQUIRE
fi
# Two workers (pytest-xdist): Docker tests share one worker, Ray tests another, a module's tests stay together, and
# the longest groups start first (tests/conftest.py); VERIFIERBENCH_TEST_WORKERS=0 runs in one process.
workers=(-n "${VERIFIERBENCH_TEST_WORKERS:-2}" --dist loadscope --no-loadscope-reorder)
# -rs prints every skip with its reason; --durations the 25 slowest steps (set-up, call, teardown), where CI's time goes.
exec .venv/bin/python -m pytest -q -rs --durations=25 "${workers[@]}" "${extra[@]}" "$@"
