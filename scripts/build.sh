#!/usr/bin/env bash
# Installs what building needs that is missing (scripts/setup.sh --build), configures once and builds with Ninja.
# Usage: scripts/build.sh [NINJA_TARGET...]   (default: everything)
# The build directory is $POLLEN_BUILD_DIR, default ./build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
bash "$root/scripts/setup.sh" --build
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
fi
ninja -C "$build" "$@"
