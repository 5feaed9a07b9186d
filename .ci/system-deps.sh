#!/usr/bin/env bash
# Debian packages the integration tests need. Idempotent: skips what is already installed.
set -euo pipefail
PKGS=(
  # fonts for SimDesk's SVG text rendering
  fonts-dejavu-core
  # headless browser for the report test (test/experiments/report.int.test.ts)
  chromium
)
missing=()
for p in "${PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
