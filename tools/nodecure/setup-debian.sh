#!/bin/sh
# Installs what nodecure's build and tests need on Debian 12 (bookworm).
# Run as root (or with sudo). Idempotent.
set -eu
pkgs="build-essential ca-certificates ccache clang-19 cmake git make patch
  pkg-config python3 xz-utils libclang-rt-19-dev
  libssl-dev zlib1g-dev libbrotli-dev libnghttp2-dev libsqlite3-dev
  libzstd-dev"
# The build needs a host Node.js with npm (llhttp's generator, the test
# fixtures). Keep one that is already installed (e.g. NodeSource's, which
# bundles npm and conflicts with Debian's npm package).
if ! command -v npm >/dev/null 2>&1; then
  pkgs="$pkgs nodejs npm"
fi
apt-get update
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $pkgs
