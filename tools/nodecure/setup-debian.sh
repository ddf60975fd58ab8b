#!/bin/sh
# Installs what nodecure's build and tests need on Debian 12 (bookworm).
# As root:            sh tools/nodecure/setup-debian.sh
# As another user:    sudo sh tools/nodecure/setup-debian.sh
# (run as another user without sudo, it re-runs itself through sudo when
# sudo is installed). Idempotent.
set -eu
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    exec sudo sh "$0" "$@"
  fi
  echo "setup-debian.sh: installing packages needs root: run it as root" \
       "(su -c 'sh $0'), or with sudo" >&2
  exit 1
fi
pkgs="build-essential ca-certificates ccache clang-19 cmake git make patch
  pkg-config python3 xz-utils libclang-rt-19-dev
  libssl-dev zlib1g-dev libbrotli-dev libnghttp2-dev libsqlite3-dev
  libzstd-dev valgrind
  curl tcl debootstrap"
# The build needs a host Node.js with npm (llhttp's generator, the test
# fixtures). Keep one that is already installed (e.g. NodeSource's, which
# bundles npm and conflicts with Debian's npm package).
if ! command -v npm >/dev/null 2>&1; then
  pkgs="$pkgs nodejs npm"
fi
apt-get update
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $pkgs
