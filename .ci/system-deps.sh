#!/usr/bin/env bash
# Debian packages the integration tests need. Idempotent: skips what is already installed.
set -euo pipefail
PKGS=(
  # fonts for SimDesk's SVG text rendering
  fonts-dejavu-core
  # headless browser for the report test (test/experiments/report.int.test.ts)
  chromium
  # real desktops (test/adapters/environments/{x11,osworld}): X server, window manager, input, screenshots, apps, AT-SPI; python3-tk draws the clock/pop-up noise of the R_Om X11 test
  xvfb xdotool x11-utils imagemagick dbus matchbox-window-manager mousepad galculator gnumeric python3-pyatspi at-spi2-core xclip python3-tk
  # OSWorld's control API on local desktops (test/adapters/environments/osworld): screen recordings, and lxml to parse /accessibility as OSWorld does
  ffmpeg python3-lxml
  # container desktops (test/adapters/environments/docker): podman as the Docker-API engine, image from debootstrap
  podman runc uidmap fuse-overlayfs slirp4netns debootstrap
)
missing=()
for p in "${PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
