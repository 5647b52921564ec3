#!/usr/bin/env bash
# ctest dashboard_browser: the controller's dashboard in Debian's chromium. Starts a
# controller with --http on loopback (a sample every second) and two nodes fuzzing the
# shallow_crash example with --keep-going, waits until the campaign has a crash and two
# samples, exports its crashes with `pollen crashes export`; fills a second campaign, "fill",
# with bench/dashboard_fill (250 simulated nodes, 30 crashes, 5 nights of nightly reports:
# the node pager and the nights views); then runs dashboard.test.mjs
# (node --test, npm playwright-core installed once into the build directory from
# tests/dashboard/package-lock.json). Screenshots go to BUILD/dashboard-shots/.
#
# Usage: tests/dashboard/run_dashboard_test.sh      Environment: POLLEN_BUILD_DIR (./build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
pollen=$build/cli/pollen
target=$build/examples/shallow_crash_fuzzer
fill=$build/bench/dashboard_fill
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in node npm chromium python3; do
  command -v "$tool" >/dev/null || fail "$tool is missing: scripts/setup.sh installs it"
done
[ -x "$pollen" ] && [ -x "$target" ] && [ -x "$fill" ] || fail "$pollen, $target or $fill missing: build first"

deps=$("$root/tests/dashboard/node_deps.sh" "$build") || fail "the npm packages"
cp "$root/tests/dashboard/dashboard.test.mjs" "$deps/"

# shellcheck source=tests/dashboard/scratch.sh
. "$root/tests/dashboard/scratch.sh" dashboard_browser
campaign=dash

"$pollen" controller --listen="$endpoint" --data="$tmp/data" --insecure-plaintext \
  --http=127.0.0.1:"$http_port" --sample-every=1 --status-every=0 >"$tmp/controller.log" 2>&1 &
pids+=($!)
for n in 1 2; do
  "$pollen" node "$target" --controller="$endpoint" --insecure-plaintext --campaign="$campaign" \
    --node-id=node-$n --workers=1 --keep-going --minimize-time=2 --controller-every=1 \
    --workdir="$tmp/node-$n" \
    >"$tmp/node-$n.log" 2>&1 &
  pids+=($!)
done

# Until the campaign has a crash on the controller and two samples of it with the nodes'
# edges in them (60 s at most).
ready=0
for _ in $(seq 1 120); do
  if python3 - "$url" "$campaign" <<'EOF' 2>/dev/null; then ready=1; break; fi
import json, sys, urllib.request
url, campaign = sys.argv[1], sys.argv[2]
get = lambda p: json.load(urllib.request.urlopen(url + p, timeout=5))
figures = {f["name"]: f for f in get("/api/campaigns")["figures"]}
samples = [s for s in get("/api/campaigns/" + campaign + "/samples")["samples"] if s["edges"] > 0]
sys.exit(0 if figures.get(campaign, {}).get("crashes", 0) >= 1 and len(samples) >= 2 else 1)
EOF
  sleep 0.5
done
[ $ready = 1 ] || { tail -20 "$tmp"/*.log >&2; fail "no crash and two samples within 60 s"; }
# The nodes end (SIGTERM: they say they leave) before the export, so that no later, smaller
# reproducer replaces the one the test compares with.
kill -TERM "${pids[1]}" "${pids[2]}"
wait "${pids[1]}" "${pids[2]}" || true
"$pollen" crashes export "$campaign" "$tmp/export" --controller="$endpoint" --insecure-plaintext \
  >/dev/null || fail "pollen crashes export"

# The simulated campaign; its nodes stay alive (heartbeats) until the test ends.
"$fill" "$endpoint" --campaign=fill --nodes=250 --crashes=30 --nights=5 --keep-alive=600 \
  >"$tmp/fill.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do
  grep -q "nights of reports put" "$tmp/fill.log" && break
  kill -0 "${pids[-1]}" 2>/dev/null || { cat "$tmp/fill.log" >&2; fail "dashboard_fill"; }
  sleep 0.5
done
grep -q "nights of reports put" "$tmp/fill.log" || { cat "$tmp/fill.log" >&2; fail "dashboard_fill within 60 s"; }

shots=$build/dashboard-shots
rm -rf "$shots" && mkdir -p "$shots"
(cd "$deps" && DASHBOARD_URL=$url CAMPAIGN=$campaign SHOTS_DIR=$shots EXPORT_DIR=$tmp/export \
  node --test --test-reporter=spec dashboard.test.mjs) || { tail -20 "$tmp"/controller.log >&2; fail "dashboard.test.mjs"; }
echo "PASS: every view drawn; screenshots in $shots"
