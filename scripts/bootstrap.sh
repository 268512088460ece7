#!/usr/bin/env bash
# Creates (or refreshes) the project's environment in .venv and the system tools it needs.
# Idempotent: a second run with an unchanged pyproject.toml only checks.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

apt_install() {
  # Installs Debian packages when we are root and apt is there; otherwise says what is missing.
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: installing $* (apt)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1 || {
      apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
    }
  else
    echo "bootstrap: missing $* and cannot install it (needs root and apt-get)" >&2
    return 1
  fi
}

# bubblewrap isolates generated verifiers and candidate code (docs/isolation.md).
command -v bwrap >/dev/null 2>&1 || apt_install bubblewrap || \
  echo "bootstrap: no bubblewrap: untrusted code will be refused unless you opt into unsandboxed mode" >&2

# debootstrap makes the Python 3.9 root file system for code tasks whose gold resolves only there
# (sources/swebench/python39_rootfs.py): without it a SWE-bench build excludes them (V), so the 47 would not be the 47.
command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap || \
  echo "bootstrap: no debootstrap: code tasks that need Python 3.9 will be excluded with that reason" >&2

# Headless chromium for the leaderboard page's browser check (tests only: scripts/test.sh asks for it).
if [ "${VERIFIERBENCH_BROWSER:-0}" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
  apt_install chromium || echo "bootstrap: no chromium: the browser check will skip" >&2
fi

# matplotlib's SWE-bench instances compile their extensions (sources/swebench/extensions.py): opt in where you build them.
if [ "${VERIFIERBENCH_MATPLOTLIB:-0}" = 1 ]; then
  apt_install pkg-config libfreetype-dev libpng-dev libqhull-dev ghostscript || \
    echo "bootstrap: matplotlib's build packages are missing: its instances will be excluded with the reason" >&2
fi

# The environment is built from the system interpreter: the sandbox's unprivileged uid can run it,
# unlike a pyenv build under /root.
py="${VERIFIERBENCH_PYTHON:-/usr/bin/python3}"
[ -x "$py" ] || py="$(command -v python3)"
"$py" -c 'import ensurepip, venv' 2>/dev/null || apt_install python3-venv

# Every source's package, the optional backends and the test tools ('.[test]'), at the releases constraints.txt pins.
# BFCL's data and AST checker come from bfcl-eval (the `bfcl` extra in pyproject.toml, which holds the pin),
# installed with --no-deps: the checker needs none of its dependencies (verifierbench.sources.bfcl.checker), and
# with them the install pulls torch (6 GB), so `pip install '.[bfcl]'` is not used.
bfcl_pin="$(grep -o 'bfcl-eval==[0-9.]*' pyproject.toml | head -n 1)"

stamp=".venv/.bootstrap-stamp"
want="$( (cat pyproject.toml constraints.txt; echo "$bfcl_pin") | sha256sum | cut -c1-64)"
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] \
   || ! .venv/bin/python -c 'import verifierbench.cli.main' 2>/dev/null; then
  echo "bootstrap: creating .venv with $py" >&2
  "$py" -m venv .venv
  log=".venv/bootstrap.log"
  if ! { .venv/bin/python -m pip install --upgrade pip && .venv/bin/python -m pip install -c constraints.txt -e '.[test]' \
         && .venv/bin/python -m pip install --no-deps "$bfcl_pin"; } >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "bootstrap: pip install failed; full log in $log" >&2
    exit 1
  fi
  echo "$want" > "$stamp"
fi
