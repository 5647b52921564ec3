#!/usr/bin/env bash
# The dashboard's load time with a large fleet (docs/dashboard.md, "How fast it loads"):
# starts a controller with --http on loopback, fills it with bench/dashboard_fill (1,000
# simulated nodes that stay alive, 10,000 crash signatures, 30 nights of reports), then
# loads each view in Debian's chromium (bench/dashboard_load.mjs) and prints the median and
# slowest load time of each, and the API bytes it read. A measurement, not a test: exits
# non-zero only when something fails.
#
# Usage: bench/dashboard_load.sh [--nodes=N] [--crashes=M] [--nights=K] [--rounds=R]
# Environment: POLLEN_BUILD_DIR (default ./build; pollen and dashboard_fill built in it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
pollen=$build/cli/pollen
fill=$build/bench/dashboard_fill
nodes=1000 crashes=10000 nights=30 rounds=5
for a in "$@"; do
  case "$a" in
    --nodes=*) nodes=${a#--nodes=} ;;
    --crashes=*) crashes=${a#--crashes=} ;;
    --nights=*) nights=${a#--nights=} ;;
    --rounds=*) rounds=${a#--rounds=} ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
fail() { echo "ERROR: $*" >&2; exit 1; }
[ -x "$pollen" ] && [ -x "$fill" ] || fail "$pollen or $fill missing: ninja -C $build pollen dashboard_fill"
for tool in node npm chromium python3; do
  command -v "$tool" >/dev/null || fail "$tool is missing: scripts/setup.sh installs it"
done
deps=$("$root/tests/dashboard/node_deps.sh" "$build")
cp "$root/bench/dashboard_load.mjs" "$deps/"

# shellcheck source=tests/dashboard/scratch.sh
. "$root/tests/dashboard/scratch.sh" dashboard_load

"$pollen" controller --listen="$endpoint" --data="$tmp/data" --insecure-plaintext \
  --http=127.0.0.1:"$http_port" --status-every=0 >"$tmp/controller.log" 2>&1 &
pids+=($!)
"$fill" "$endpoint" --campaign=fill --nodes="$nodes" --crashes="$crashes" --nights="$nights" \
  --keep-alive=3600 >"$tmp/fill.log" 2>&1 &
pids+=($!)
while ! grep -q "nights of reports put" "$tmp/fill.log"; do
  kill -0 "${pids[1]}" 2>/dev/null || { cat "$tmp/fill.log" "$tmp/controller.log" >&2; fail "dashboard_fill"; }
  sleep 1
done
cat "$tmp/fill.log"
echo "dashboard_load: $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), chromium $(chromium --version 2>/dev/null | awk '{print $2}'), $rounds rounds"
(cd "$deps" && DASHBOARD_URL=$url CAMPAIGN=fill ROUNDS=$rounds node dashboard_load.mjs)
