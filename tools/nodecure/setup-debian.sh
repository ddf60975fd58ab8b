#!/bin/sh
# Installs what nodecure's build and tests need on Debian 12 (bookworm).
# Run as root (or with sudo). Idempotent.
set -eu
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  build-essential ca-certificates ccache clang-19 cmake git make patch \
  pkg-config python3 xz-utils nodejs npm \
  libssl-dev zlib1g-dev libbrotli-dev libnghttp2-dev libsqlite3-dev \
  libzstd-dev
