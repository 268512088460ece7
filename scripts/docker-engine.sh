#!/usr/bin/env bash
# A Docker Engine that Inspect accepts (>= 24.0.6, Compose >= 2.24), for `-T sandbox=docker`, on Debian 12 or 13,
# as root, with no image registry. Idempotent. See docs/docker.md.
#
#   scripts/docker-engine.sh [start]   install what is missing, start the engine, build the local base image;
#                                      the engine then stays up until `stop` (it is pinned)
#   scripts/docker-engine.sh start --lease PID   the same, for process PID only: the engine is kept while PID lives
#   scripts/docker-engine.sh stop --lease PID    drop PID's lease; the engine stops only when no pin and no other
#                                      live lease holds it (two CI runs at once share one engine: the first to end
#                                      must not stop the other's containers)
#   scripts/docker-engine.sh stop [--force]      stop the engine (refused while another live process holds a lease)
#   scripts/docker-engine.sh status    exit 0 when the engine answers
#   scripts/docker-engine.sh env       print the exports a shell needs to use it: eval "$(scripts/docker-engine.sh env)"
#
# Debian 13: the distribution's docker.io/docker-compose, run by this script (not by systemd).
# Debian 12: the same trixie packages in their own root file system (debootstrap), the engine started in a
# private mount namespace whose root is that file system, switched with pivot_root -- never chroot: under a
# chroot, `docker exec` joins the namespace's real root and runs on the host's file system.
# Either way: no default bridge, no iptables rules, no IP forwarding; the host's libc and network are untouched.
#
# Environment: VERIFIERBENCH_DOCKER_STATE (default /var/lib/verifierbench-docker), DEBIAN_MIRROR
# (default http://deb.debian.org/debian), VERIFIERBENCH_DOCKER_BINDS (colon-separated host directories that
# containers bind-mount, made visible to the engine at the same path; default /tmp:/var/tmp).
set -euo pipefail

STATE=${VERIFIERBENCH_DOCKER_STATE:-/var/lib/verifierbench-docker}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
BINDS=${VERIFIERBENCH_DOCKER_BINDS:-/tmp:/var/tmp}
BASE_IMAGE=verifierbench-base:bookworm
ENGINE_PACKAGES=docker.io,containerd,runc,docker-cli,docker-compose,tini,ca-certificates
ROOTFS=$STATE/rootfs          # Debian 12: the trixie system the engine runs in
RUN=$STATE/run                # socket and pid file, shared between the host and the engine's namespace
SOCKET=$RUN/docker.sock
CLI=$STATE/cli                # DOCKER_CONFIG: cli-plugins/docker-compose
BIN=$STATE/bin                # the docker CLI matching the engine
LOG=$STATE/dockerd.log
LEASES=$RUN/leases            # one file per process using the engine, named by its pid (docs/docker.md, "Leases")
PIN=$RUN/pinned               # present when someone started the engine by hand: only a plain `stop` stops it
# The build cache is bounded (BuildKit's GC, least recently used first): every new instance image gives the CLI
# harnesses' derived image a new 1.7 GB layer (sandboxes/cli_overlay.py), and nothing else ever removed them.
DAEMON_JSON='{"bridge": "none", "iptables": false, "ip6tables": false, "ip-forward": false, "ip-masq": false,
  "storage-driver": "overlay2", "data-root": "/var/lib/docker", "exec-root": "/run/vgb-docker/exec",
  "pidfile": "/run/vgb-docker/docker.pid", "hosts": ["unix:///run/vgb-docker/docker.sock"],
  "builder": {"gc": {"enabled": true, "defaultKeepStorage": "12GB"}}}'

die() { echo "docker-engine: $*" >&2; exit 1; }
say() { echo "docker-engine: $*" >&2; }

debian_major() { cut -d. -f1 /etc/debian_version 2>/dev/null | grep -E '^[0-9]+$' || echo 0; }

export_env() {
  echo "export DOCKER_HOST=unix://$SOCKET DOCKER_CONFIG=$CLI PATH=$BIN:\$PATH"
}

use_engine() { export DOCKER_HOST=unix://$SOCKET DOCKER_CONFIG=$CLI PATH=$BIN:$PATH; }

answers() { use_engine; timeout 10 docker version >/dev/null 2>&1; }

# -- install ---------------------------------------------------------------------------------------

install_packages_trixie() {  # Debian 13: the host's own packages; systemd's unit is left disabled
  local missing=()
  for p in docker.io containerd runc docker-cli docker-compose tini; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if ((${#missing[@]})); then
    mkdir -p /usr/sbin && printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT  # keep apt from starting docker.service with its default bridge
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
    rm -f /usr/sbin/policy-rc.d; trap - EXIT
    systemctl disable docker.service docker.socket >/dev/null 2>&1 || true
  fi
}

install_rootfs_bookworm() {  # Debian 12: trixie's engine in its own root file system
  [ -e "$ROOTFS/.verifierbench-complete" ] && return
  command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap
  say "debootstrap trixie with the engine into $ROOTFS (about 1.5 min)"
  rm -rf "$ROOTFS.partial"
  debootstrap --variant=minbase --include="$ENGINE_PACKAGES" trixie "$ROOTFS.partial" "$MIRROR" >"$STATE/debootstrap.log" 2>&1 \
    || die "debootstrap failed, see $STATE/debootstrap.log"
  mv "$ROOTFS.partial" "$ROOTFS"
  touch "$ROOTFS/.verifierbench-complete"
}

install_clients() {  # the CLI and the compose plugin of the engine's release, outside $PATH's usual places
  local root=$1
  mkdir -p "$BIN" "$CLI/cli-plugins"
  ln -sf "$root/usr/bin/docker" "$BIN/docker"
  ln -sf "$root/usr/libexec/docker/cli-plugins/docker-compose" "$CLI/cli-plugins/docker-compose"
  [ -e "$CLI/config.json" ] || echo '{}' >"$CLI/config.json"
}

# -- start -----------------------------------------------------------------------------------------

start_engine() {
  local root=$1  # "/" on Debian 13
  mkdir -p "$RUN" "$STATE/data"
  rm -f "$SOCKET" "$RUN/docker.pid"
  printf '%s\n' "$DAEMON_JSON" >"$STATE/daemon.json"
  # In a private mount namespace: the engine's root (pivot_root), its run directory and data root bound in.
  # The host directories containers bind-mount must be there before the engine starts (later mounts do not
  # propagate in; new files do).
  local binds="" d
  IFS=: read -ra dirs <<<"$BINDS"
  for d in "${dirs[@]}"; do [ -d "$d" ] && binds+=" $d"; done
  STATE="$STATE" ROOT="$root" RUNDIR="$RUN" HOST_BINDS="$binds" setsid unshare --mount --propagation private --fork \
    /bin/sh -ec '
      if [ "$ROOT" = / ]; then
        mkdir -p /run/vgb-docker && mount --bind "$RUNDIR" /run/vgb-docker
        mount --bind "$STATE/data" /var/lib/docker 2>/dev/null || { mkdir -p /var/lib/docker; mount --bind "$STATE/data" /var/lib/docker; }
        exec dockerd --config-file "$STATE/daemon.json"
      fi
      mount --bind "$ROOT" "$ROOT"   # pivot_root needs a mount point (else import/build/cp fail on remount /)
      mount --rbind /proc "$ROOT/proc"; mount --rbind /sys "$ROOT/sys"; mount --rbind /dev "$ROOT/dev"
      mount -t tmpfs -o mode=755 tmpfs "$ROOT/run"
      mkdir -p "$ROOT/run/vgb-docker" "$ROOT/var/lib/docker" "$ROOT/etc/docker"
      mount --bind "$RUNDIR" "$ROOT/run/vgb-docker"
      mount --bind "$STATE/data" "$ROOT/var/lib/docker"
      cp "$STATE/daemon.json" "$ROOT/etc/docker/daemon.json"
      for d in $HOST_BINDS; do mkdir -p "$ROOT$d"; mount --rbind "$d" "$ROOT$d"; done
      cd "$ROOT"; mkdir -p .oldroot
      pivot_root . .oldroot
      cd /; umount -l /.oldroot
      exec dockerd --config-file /etc/docker/daemon.json
    ' >"$LOG" 2>&1 </dev/null 9>&- &   # 9: the verb lock, which the engine must not inherit
  local started=$SECONDS
  until answers; do
    ((SECONDS - started < 60)) || die "the engine did not answer within 60 s, see $LOG"
    sleep 0.5
  done
  readlink "/proc/$(cat "$RUN/docker.pid")/ns/mnt" >"$RUN/mount-ns"
  say "engine up in $((SECONDS - started)) s: $(docker version --format '{{.Server.Version}}') (socket $SOCKET)"
}

# -- base image ------------------------------------------------------------------------------------

build_base_image() {  # the sandbox's base, from Debian packages: no registry needed
  use_engine
  docker image inspect "$BASE_IMAGE" >/dev/null 2>&1 && return
  command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap
  local dir=$STATE/base.partial started=$SECONDS
  say "debootstrap bookworm minbase with python3 for $BASE_IMAGE (about 1.7 min)"
  rm -rf "$dir"
  debootstrap --variant=minbase --include=python3 bookworm "$dir" "$MIRROR" >"$STATE/debootstrap-base.log" 2>&1 \
    || die "debootstrap of the base image failed, see $STATE/debootstrap-base.log"
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
  tar -C "$dir" --exclude='./proc/*' --exclude='./sys/*' --exclude='./dev/*' -c . \
    | docker import --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null
  rm -rf "$dir"
  say "$BASE_IMAGE built in $((SECONDS - started)) s"
}

# -- leases ----------------------------------------------------------------------------------------
# A lease file holds its process's start time (field 22 of /proc/PID/stat), so a reused pid is not taken for the
# process that leased. Leases of processes that are gone are dropped when read.

start_time() { awk '{print $22}' "/proc/$1/stat" 2>/dev/null; }

take_lease() {
  local pid=$1 t
  t=$(start_time "$pid") || true
  [ -n "$t" ] || die "--lease $pid: no such process"
  mkdir -p "$LEASES"
  echo "$t" >"$LEASES/$pid"
}

live_leases() {  # prints the pids of live lease holders, dropping stale leases
  local f pid
  for f in "$LEASES"/*; do
    [ -e "$f" ] || continue
    pid=${f##*/}
    if [ -n "$(start_time "$pid")" ] && [ "$(start_time "$pid")" = "$(cat "$f" 2>/dev/null)" ]; then echo "$pid"
    else rm -f "$f"; fi
  done
}

# -- stop ------------------------------------------------------------------------------------------

stop_engine() {
  local pid
  pid=$(cat "$RUN/docker.pid" 2>/dev/null || true)
  if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then say "not running"; return; fi
  # Containers first, so none outlives the engine's namespace.
  use_engine
  docker ps -q 2>/dev/null | xargs -r docker rm -f >/dev/null 2>&1 || true
  kill -TERM "$pid"
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  # Leftovers of the engine's mount namespace (containerd, shims), by pid; the mounts go with the namespace.
  local ns p
  ns=$(cat "$RUN/mount-ns" 2>/dev/null || true)
  if [ -n "$ns" ]; then
    for p in /proc/[0-9]*; do
      [ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$ns" ] && kill -TERM "${p#/proc/}" 2>/dev/null || true
    done
  fi
  rm -f "$SOCKET" "$RUN/docker.pid" "$PIN"
  rm -rf "$LEASES"
  say "stopped"
}

stop_verb() {  # stop [--lease PID | --force]
  local holders
  if [ "${1:-}" = --lease ]; then
    [ -n "${2:-}" ] || die "stop --lease needs a pid"
    rm -f "$LEASES/$2"
    holders=$(live_leases | paste -sd' ')
    if [ -n "$holders" ]; then say "kept running: in use by pid(s) $holders"; return; fi
    if [ -e "$PIN" ]; then say "kept running: started by hand (a plain stop stops it)"; return; fi
  elif [ "${1:-}" != --force ]; then
    holders=$(live_leases | paste -sd' ')
    [ -z "$holders" ] || die "in use by pid(s) $holders (a CI run or test session holds a lease); stop --force to stop it anyway"
  fi
  stop_engine
}

verb=${1:-start}
[ "$verb" = env ] && { export_env; exit 0; }
[ "$verb" = status ] && { answers && exit 0 || exit 1; }
[ "$(id -u)" = 0 ] || die "run as root"
mkdir -p "$STATE" "$RUN"
# One verb at a time: two runs starting, or one starting while another stops, must not interleave.
exec 9>"$STATE/lock"
flock 9
case "$verb" in
  start)
    lease=
    if [ "${2:-}" = --lease ]; then lease=${3:-}; [ -n "$lease" ] || die "start --lease needs a pid"
    elif [ -n "${2:-}" ]; then die "unknown option $2 (start [--lease PID])"; fi
    if ! answers; then
      major=$(debian_major)
      if ((major >= 13)); then install_packages_trixie; root=/
      elif ((major == 12)); then install_rootfs_bookworm; root=$ROOTFS
      else die "Debian 12 or 13 needed (found /etc/debian_version: $(cat /etc/debian_version 2>/dev/null || echo none))"; fi
      install_clients "$root"
      rm -rf "$LEASES" "$PIN"   # an engine that does not answer holds nothing
      start_engine "$root"
    elif [ -n "$lease" ] && [ ! -e "$PIN" ] && [ -z "$(live_leases)" ]; then
      touch "$PIN"   # up, yet nobody holds it: started by hand (or by an older script), so a lease must not stop it
    fi
    if [ -n "$lease" ]; then take_lease "$lease"; else touch "$PIN"; fi
    build_base_image
    holders=$(live_leases | paste -sd' ')
    say "up; leases: ${holders:-none}$([ -e "$PIN" ] && echo "; started by hand (kept until a plain stop)")"
    ;;
  stop) stop_verb "${2:-}" "${3:-}" ;;
  *) die "unknown verb $verb (start, stop, status, env)" ;;
esac
