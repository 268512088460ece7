#!/usr/bin/env bash
# The harness image with strace, for the connection check (VERIFIERBENCH_TRACE_CONNECTIONS=1, docs/docker.md):
# `verifierbench-harness:trace`, built on the image scripts/harness-clis.sh makes, plus strace and the Debian packages
# it needs, downloaded on the host with apt (same release as the image) and installed offline. A separate tag, so the
# image every harness run uses stays as it is (and its source digest unchanged). Idempotent: an image built on the
# current harness image is kept.
#
#   scripts/harness-trace-image.sh   build it (after scripts/harness-clis.sh build), print its tag
#
# Needs a running engine (scripts/docker-engine.sh, used when $DOCKER_HOST is unset) and apt.
# Environment: VERIFIERBENCH_HARNESS_CACHE (default ~/.cache/verifierbench/harness-clis).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE=${VERIFIERBENCH_HARNESS_CACHE:-$HOME/.cache/verifierbench/harness-clis}
BASE=verifierbench-harness:latest
IMAGE=verifierbench-harness:trace
LABEL=org.verifierbench.sandbox=harness

die() { echo "harness-trace-image: $*" >&2; exit 1; }

if [ -z "${DOCKER_HOST:-}" ]; then eval "$(bash "$root/scripts/docker-engine.sh" env)"; fi
timeout 30 docker version >/dev/null 2>&1 || die "no Docker engine answers (start one: scripts/docker-engine.sh)"
base_id=$(docker image inspect "$BASE" --format '{{.Id}}' 2>/dev/null) || die "no $BASE: build it with scripts/harness-clis.sh build"
if [ "$(docker image inspect "$IMAGE" --format '{{ index .Config.Labels "org.verifierbench.trace-base" }}' 2>/dev/null)" = "$base_id" ]; then
  echo "$IMAGE"; exit 0
fi

# strace's packages the image lacks (libunwind8 on bookworm), fetched once.
debs=$CACHE/strace-debs
if ! ls "$debs"/strace_*.deb >/dev/null 2>&1; then
  command -v apt-get >/dev/null || die "apt-get is needed to fetch strace's Debian packages"
  missing=$(comm -23 \
    <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances strace \
        | grep -v '^ ' | grep -v '<' | sort -u) \
    <(docker run --rm --network none "$BASE" dpkg-query -W -f '${Package}\n' | sort))
  rm -rf "$debs.partial" && mkdir -p "$debs.partial"
  # shellcheck disable=SC2086 # one package name per word
  (cd "$debs.partial" && apt-get download -q -o APT::Sandbox::User=root $missing >/dev/null)
  rm -rf "$debs" && mv "$debs.partial" "$debs"
fi

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp -r "$debs" "$context/debs"
cat > "$context/Dockerfile" <<EOF
FROM $BASE
USER root
COPY debs/ /var/cache/vgb-debs/
RUN dpkg -i /var/cache/vgb-debs/*.deb && rm -rf /var/cache/vgb-debs && strace -V >/dev/null
USER agent
EOF
docker build --quiet --force-rm --network none --label "$LABEL" --label "org.verifierbench.trace-base=$base_id" \
  -t "$IMAGE" "$context" >/dev/null || die "image build failed: $IMAGE"
echo "$IMAGE"
