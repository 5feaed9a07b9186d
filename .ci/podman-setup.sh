#!/usr/bin/env bash
# Podman as the Docker-API engine for the container-desktop tests (see README "Real desktops").
# SOURCE this file (`. .ci/podman-setup.sh`): it configures podman, starts
# `podman system service` on a private socket, exports DOCKER_HOST, builds the desktop image
# (skipped when it exists) and installs an EXIT trap that stops the service again.
# Needs the packages from .ci/system-deps.sh (podman runc uidmap fuse-overlayfs slirp4netns debootstrap).

retrace_podman_conf() {
  local hard nofile
  hard=$(ulimit -Hn)
  nofile=20000
  if [ "$hard" != "unlimited" ] && [ "$hard" -lt "$nofile" ]; then nofile=$hard; fi
  mkdir -p /etc/containers
  if ! grep -q 'retrace: podman as docker engine' /etc/containers/containers.conf 2>/dev/null; then
    cat > /etc/containers/containers.conf <<CONF
# retrace: podman as docker engine (written by .ci/podman-setup.sh)
[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=4096:4096"]

[engine]
runtime = "runc"
exit_command_delay = 5
CONF
  fi
}

retrace_podman_stop() {
  if [ -n "${RETRACE_PODMAN_PID:-}" ] && kill -0 "$RETRACE_PODMAN_PID" 2>/dev/null; then
    # leftovers of a crashed test run first, then the service itself
    podman ps -aq --filter label=retrace.managed=true | xargs -r podman rm -f -t 0 >/dev/null 2>&1 || true
    kill "$RETRACE_PODMAN_PID" 2>/dev/null || true
    wait "$RETRACE_PODMAN_PID" 2>/dev/null || true
    echo "::ci podman service stopped"
  fi
}

retrace_podman_start() {
  local dir=${RETRACE_PODMAN_DIR:-/tmp/retrace-podman}
  mkdir -p "$dir"
  rm -f "$dir/podman.sock"
  podman system service --time=0 "unix://$dir/podman.sock" >"$dir/service.log" 2>&1 &
  RETRACE_PODMAN_PID=$!
  for _ in $(seq 1 100); do [ -S "$dir/podman.sock" ] && break; sleep 0.05; done
  [ -S "$dir/podman.sock" ] || { echo "podman service did not start; see $dir/service.log" >&2; return 1; }
  export DOCKER_HOST="unix://$dir/podman.sock"
  export RETRACE_PODMAN_PID
  echo "::ci podman service pid $RETRACE_PODMAN_PID at $DOCKER_HOST"
}

# The X11 desktop runs its apps as this unprivileged user when the tests run as root.
if [ "$(id -u)" = 0 ] && ! id cua >/dev/null 2>&1; then useradd -m cua; fi
retrace_podman_conf
retrace_podman_start
trap retrace_podman_stop EXIT
retrace_image_start=$(date +%s)
bash "$(dirname "${BASH_SOURCE[0]}")/../experiments/docker/build-image.sh"
echo "::ci desktop image ready in $(( $(date +%s) - retrace_image_start ))s"
