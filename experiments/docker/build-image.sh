#!/usr/bin/env bash
# Build the retrace container-desktop image with podman and no registry: a debootstrap root
# filesystem imported as the base, then the Dockerfile on top. Skips when the image exists.
# Env: RETRACE_DESKTOP_IMAGE (default retrace-desktop:3), DEBIAN_MIRROR (default: the one apt uses),
# RETRACE_DESKTOP_APPS=1: also the opt-in apps image on top (experiments/docker/apps: Chromium,
# LibreOffice, GIMP, VLC, Thunderbird, ...; ~1.9 GB more), named RETRACE_DESKTOP_APPS_IMAGE
# (default retrace-desktop-apps:1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
IMAGE=${RETRACE_DESKTOP_IMAGE:-retrace-desktop:3}
BASE=localhost/retrace-bookworm-base:1
MIRROR=${DEBIAN_MIRROR:-$(grep -hoE 'https?://[^ ]+/debian/?$' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -1 || true)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
start=$(date +%s)

APPS_IMAGE=${RETRACE_DESKTOP_APPS_IMAGE:-retrace-desktop-apps:1}

build_apps() {
  [ "${RETRACE_DESKTOP_APPS:-0}" = 1 ] || return 0
  if podman image exists "$APPS_IMAGE"; then
    echo "::ci image $APPS_IMAGE exists, build skipped"
    return 0
  fi
  local t0
  t0=$(date +%s)
  podman build -q -t "$APPS_IMAGE" --build-arg "BASE=localhost/${IMAGE#localhost/}" -f "$here/apps/Dockerfile" "$here/apps" >/dev/null
  echo "::ci image $APPS_IMAGE built in $(( $(date +%s) - t0 ))s"
}

if podman image exists "$IMAGE"; then
  echo "::ci image $IMAGE exists, build skipped"
  build_apps
  exit 0
fi
if ! podman image exists "$BASE"; then
  work=$(mktemp -d /tmp/retrace-rootfs.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  debootstrap --variant=minbase bookworm "$work/rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  rm -rf "$work/rootfs/var/lib/apt/lists/"* "$work/rootfs/var/cache/apt/archives/"*.deb
  tar -C "$work/rootfs" -c . | podman import - "$BASE" >/dev/null
  echo "::ci base image $BASE imported in $(( $(date +%s) - start ))s"
fi
podman build -q -t "$IMAGE" --build-arg "BASE=$BASE" -f "$here/Dockerfile" "$here" >/dev/null
echo "::ci image $IMAGE built in $(( $(date +%s) - start ))s"
build_apps
