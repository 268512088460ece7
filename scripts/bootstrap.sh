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

# The dependencies are kept, per content of what pins them and per interpreter, in a venv of the user's cache (issue
# 50: installing them is 4 of CI's minutes). A new .venv is a hard-linked copy of it (pip and Python replace files,
# never write into them, so the cache stays as it was), its scripts pointed at .venv, and the project installed
# into it alone. The cache is used only where it is the user's and no one else can write to it.
cache_root="${VERIFIERBENCH_VENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/verifierbench/venvs}"
deps="$cache_root/$want-$("$py" -c 'import sys; print("py%d.%d" % sys.version_info[:2])')"

private_dir() {  # ours, and writable by no one else, along the part of the path we make
  local d="$1"
  while [ "$d" != "/" ] && [ "$d" != "$HOME" ] && [ -n "$d" ]; do
    if [ -e "$d" ]; then
      [ -d "$d" ] && [ ! -L "$d" ] && [ "$(stat -c %u "$d")" = "$(id -u)" ] && [ -z "$(find "$d" -maxdepth 0 -perm /022)" ] || return 1
    fi
    d="$(dirname "$d")"
  done
}

pip_into() {  # pip_into VENV ARGS...: quiet, its log in the venv
  "$1/bin/python" -m pip "${@:2}" >>"$1/bootstrap.log" 2>&1 || {
    tail -n 30 "$1/bootstrap.log" >&2
    echo "bootstrap: pip ${*:2} failed; full log in $1/bootstrap.log" >&2
    return 1
  }
}

make_deps_cache() {  # the dependencies alone, made aside and moved in whole (two bootstraps at once: one wins)
  local partial="$deps.partial.$$"
  echo "bootstrap: caching the dependencies in $deps (once per pyproject.toml and constraints.txt)" >&2
  mkdir -p -m 0700 "$cache_root"
  rm -rf "$partial"
  "$py" -m venv "$partial"
  pip_into "$partial" install --upgrade pip && pip_into "$partial" install -c constraints.txt -e '.[test]' \
    && pip_into "$partial" install --no-deps "$bfcl_pin" && pip_into "$partial" uninstall -y verifierbench \
    || { rm -rf "$partial"; return 1; }
  mv -T "$partial" "$deps" 2>/dev/null || rm -rf "$partial"
}

venv_from_cache() {
  rm -rf .venv
  cp -al "$deps" .venv
  # Scripts and activate name the venv they were made in; sed -i writes new files, the cache's stay.
  # (They were made in the partial directory the cache was moved from.)
  grep -lIr --fixed-strings "$deps" .venv/bin | xargs -r sed -i "s#$deps\(\.partial\.[0-9]*\)\?#$root/.venv#g"
  rm -f .venv/bootstrap.log
  pip_into .venv install --no-deps -e .
}

if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] \
   || ! .venv/bin/python -c 'import verifierbench.cli.main' 2>/dev/null; then
  if [ "${VERIFIERBENCH_VENV_CACHE:-}" != 0 ] && private_dir "$cache_root" \
     && { [ -d "$deps" ] || make_deps_cache; }; then
    echo "bootstrap: creating .venv from the cached dependencies ($deps)" >&2
    venv_from_cache
  else
    echo "bootstrap: creating .venv with $py" >&2
    "$py" -m venv .venv
    pip_into .venv install --upgrade pip && pip_into .venv install -c constraints.txt -e '.[test]' \
      && pip_into .venv install --no-deps "$bfcl_pin" || exit 1
  fi
  echo "$want" > "$stamp"
fi
