#!/usr/bin/env bash
# Installs the browser checks' npm packages (playwright-core, pinned by
# tests/dashboard/package-lock.json) into BUILD/dashboard-checks once, again only when the
# lock file changed, and prints that directory: a script run from there finds them.
# Used by tests/dashboard/run_dashboard_test.sh and bench/dashboard_load.sh.
#
# Usage: tests/dashboard/node_deps.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# = 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
deps=$1/dashboard-checks
if ! cmp -s "$root/tests/dashboard/package-lock.json" "$deps/package-lock.json" 2>/dev/null ||
   [ ! -d "$deps/node_modules/playwright-core" ]; then
  rm -rf "$deps" && mkdir -p "$deps"
  cp "$root/tests/dashboard/package.json" "$root/tests/dashboard/package-lock.json" "$deps/"
  (cd "$deps" && npm ci --no-audit --no-fund --loglevel=error >&2) || { echo "FAIL: npm ci in $deps" >&2; exit 1; }
fi
echo "$deps"
