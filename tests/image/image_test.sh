#!/usr/bin/env bash
# ctest image_podman: Pollen's OCI image, built twice from the same commit (the same bytes),
# and run with podman as Kubernetes would run it: `pollen --version`; `pollen coverage` of a
# coverage build (llvm-profdata and llvm-cov are in the image); then a broker, a
# controller and a node container (the node from a target image built FROM Pollen's image
# with the keyword example) on the host's loopback (--network=host), each with a read-only
# root, no capabilities, the image's non-root user, CURVE keys mounted read-only. The node
# becomes ready, its crash reaches the controller, symbolized in the container, and a
# developer host reads it there with `pollen crashes list|pull`; SIGTERM (podman stop) ends
# each container with exit code 0.
#
# Skips (exit 77, with the reason) only where containers cannot run at all: not root.
# Usage: tests/image/image_test.sh        Environment: POLLEN_BUILD_DIR (default ./build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
export POLLEN_BUILD_DIR=$build
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: building and running images needs root here (mmdebstrap --mode=root, podman)"
  exit 77
fi
for tool in mmdebstrap buildah podman python3; do
  command -v "$tool" >/dev/null || fail "$tool is missing: scripts/setup.sh installs it"
done
pollen=$build/cli/pollen
[ -x "$pollen" ] && [ -x "$build/examples/keyword_fuzzer" ] && [ -x "$build/tests/nightly_v1_cov" ] ||
  fail "build pollen, keyword and nightly_v1_cov first"

# 1. The image, twice: byte-identical. The commit is read once: a commit made while the test
#    runs must not count as a difference.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct)}
export POLLEN_IMAGE_REVISION=${POLLEN_IMAGE_REVISION:-$(git -C "$root" rev-parse HEAD)}
bash "$root/scripts/image/build-image.sh" --tag=test >/dev/null || fail "build-image.sh"
first=$(cat "$build/image/pollen-test.sha256")
bash "$root/scripts/image/build-image.sh" --tag=test >/dev/null || fail "build-image.sh (again)"
second=$(cat "$build/image/pollen-test.sha256")
[ "$first" = "$second" ] || fail "two builds of the same commit differ: $first vs $second"
image=$build/image/pollen-test.oci.tar
echo "image: $(du -h "$image" | cut -f1) compressed, sha256 $first (twice)"

bash "$root/scripts/image/build-target-image.sh" "$build/examples/keyword_fuzzer" \
  --name=pollen-keyword --tag=test --base="$image" >/dev/null || fail "build-target-image.sh"
target_image=$build/image/pollen-keyword-test.oci.tar

# shellcheck source=scripts/image/container-env.sh
source "$root/scripts/image/container-env.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/image_test.XXXXXX")
names=()
cleanup() {
  for n in "${names[@]}"; do "${P[@]}" rm -f -t 0 "$n" >/dev/null 2>&1 || true; done
  "${P[@]}" rmi -f localhost/pollen:test localhost/pollen-keyword:test >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
"${P[@]}" load -q -i "$image" >/dev/null || fail "podman load $image"
"${P[@]}" load -q -i "$target_image" >/dev/null || fail "podman load $target_image"

# 2. pollen --version, as the image's own user.
version=$("${P[@]}" run --rm --network=none localhost/pollen:test --version) || fail "podman run --version"
[ "$version" = "$("$pollen" --version)" ] || fail "the image says '$version'"
user=$("${P[@]}" image inspect --format '{{.Config.User}}' localhost/pollen:test)
[ "$user" = "65534:65534" ] || fail "the image runs as '$user', not 65534:65534"
echo "podman run: $version, user $user"

# 2b. pollen coverage in the image: llvm-profdata and llvm-cov are there (the nightly's
# coverage step), and a crashing input costs no coverage.
mkdir -p "$tmp/cov-in" "$tmp/cov-out"
printf get >"$tmp/cov-in/get"
printf 'A!' >"$tmp/cov-in/crash"
chmod 0777 "$tmp/cov-out"
cov=$("${P[@]}" run --rm --network=none -v "$build/tests/nightly_v1_cov:/cov/fuzzer-cov:ro" \
  -v "$tmp/cov-in:/in:ro" -v "$tmp/cov-out:/out" localhost/pollen:test \
  coverage /cov/fuzzer-cov /in --out=/out/report 2>&1) || fail "pollen coverage in the image: $cov"
grep -q '^lines [0-9]*/[0-9]* ' <<<"$cov" || fail "pollen coverage printed no totals: $cov"
[ -f "$tmp/cov-out/report/html/index.html" ] || fail "pollen coverage wrote no HTML report"
echo "pollen coverage in the image: $(grep '^lines' <<<"$cov")"

# 3. Keys as the Secrets would give them, readable by the image's user only.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
k=$tmp/keys
mkdir -p "$k/broker/authorized" "$k/controller/authorized" "$k/node" "$k/operator"
"$pollen" keygen "$k/broker/broker" >/dev/null
"$pollen" keygen "$k/controller/controller" >/dev/null
"$pollen" keygen "$k/node/node" >/dev/null
"$pollen" keygen "$k/operator/operator" >/dev/null
cp "$k/node/node.pub" "$k/broker/authorized/"
cp "$k/node/node.pub" "$k/operator/operator.pub" "$k/controller/authorized/"
cp "$k/broker/broker.pub" "$k/controller/controller.pub" "$k/node/"
mkdir -p "$tmp/controller-data" "$tmp/node-data"
# As a Secret volume with fsGroup 65534 and defaultMode 0440 gives them: root's, group-readable.
chown -R 0:65534 "$k/broker" "$k/controller" "$k/node"
find "$k/broker" "$k/controller" "$k/node" -type f -exec chmod 0440 {} +
chown -R 65534:65534 "$tmp/controller-data" "$tmp/node-data"
bp=$(free_port) bh=$(free_port) cp=$(free_port) ch=$(free_port) nh=$(free_port)
hardened=(--network=host --read-only --tmpfs /tmp --cap-drop=ALL --security-opt=no-new-privileges)

run() {  # NAME IMAGE [PODMAN_OPTION...] -- [ARG...]: a detached container
  local name=$1 image=$2 opts=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  names+=("$name")
  "${P[@]}" run -d --name "$name" "${hardened[@]}" "${opts[@]}" "$image" "$@" >/dev/null ||
    fail "podman run $name"
}
get() {  # PORT PATH: prints the status code and the body
  python3 - "$1" "$2" <<'PY'
import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}{sys.argv[2]}", timeout=5)
    print(r.status); print(r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code); print(e.read().decode())
except Exception as e:
    print(0); print(e)
PY
}
wait_for() {  # SECONDS DESCRIPTION COMMAND...: polls the command until it succeeds
  local deadline=$((SECONDS + $1)) what=$2
  shift 2
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
}
ready() { [ "$(get "$1" /readyz | sed -n 1p)" = 200 ]; }

run pollen-test-broker localhost/pollen:test -v "$k/broker:/keys:ro" \
  -e POLLEN_LISTEN="tcp://127.0.0.1:$bp" -e POLLEN_KEYS=/keys -e POLLEN_HTTP="127.0.0.1:$bh" -- broker
run pollen-test-controller localhost/pollen:test -v "$k/controller:/keys:ro" \
  -v "$tmp/controller-data:/data" -e POLLEN_LISTEN="tcp://127.0.0.1:$cp" -e POLLEN_KEYS=/keys \
  -e POLLEN_DATA=/data -e POLLEN_HTTP="127.0.0.1:$ch" -- controller
wait_for 60 "broker ready" ready "$bh" || fail "broker not ready: $("${P[@]}" logs pollen-test-broker 2>&1 | tail -5)"
wait_for 60 "controller ready" ready "$ch" || fail "controller not ready: $("${P[@]}" logs pollen-test-controller 2>&1 | tail -5)"
run pollen-test-node localhost/pollen-keyword:test -v "$k/node:/keys:ro" -v "$tmp/node-data:/data" \
  -e POLLEN_NODE_ID=pollen-node-0 -e POLLEN_WORKERS=1 -e POLLEN_WORKDIR=/data \
  -e POLLEN_BROKER="tcp://127.0.0.1:$bp" -e POLLEN_CONTROLLER="tcp://127.0.0.1:$cp" \
  -e POLLEN_KEY=/keys/node.key -e POLLEN_BROKER_KEY=/keys/broker.pub \
  -e POLLEN_CONTROLLER_KEY=/keys/controller.pub -e POLLEN_HTTP="127.0.0.1:$nh" \
  -e POLLEN_KEEP_GOING=true -e POLLEN_CAMPAIGN=keyword --
wait_for 60 "node ready" ready "$nh" || fail "node not ready: $(get "$nh" /readyz | tail -1); $("${P[@]}" logs pollen-test-node 2>&1 | tail -5)"
echo "containers: broker, controller and node ready"

# 4. The node's crash reaches the controller; a developer host reads it there.
crashes() {
  "$pollen" crashes list keyword --controller="tcp://127.0.0.1:$cp" --key="$k/operator/operator" \
    --controller-key="$k/controller/controller.pub" 2>&1
}
has_crash() { grep -q SEGV <<<"$(crashes)"; }
wait_for 120 "a crash at the controller" has_crash ||
  fail "no crash at the controller: $(crashes | tail -3); node: $("${P[@]}" logs pollen-test-node 2>&1 | tail -5)"
metrics=$(get "$nh" /metrics)
grep -q '^pollen_node_controller_state{state="registered"} 1$' <<<"$metrics" || fail "node not registered: $metrics"
grep -q '^pollen_node_broker_connected 1$' <<<"$metrics" || fail "node not connected to the broker"
echo "crash at the controller: $(crashes | grep SEGV | sed -n 1p)"
# Its stack was symbolized in the node's container (the image's llvm-symbolizer).
"$pollen" crashes pull keyword --out="$tmp/pulled" --controller="tcp://127.0.0.1:$cp" \
  --key="$k/operator/operator" --controller-key="$k/controller/controller.pub" >/dev/null ||
  fail "crashes pull"
grep -qs " in Pollinate(long) .*keyword.cc" "$tmp"/pulled/*.txt ||
  fail "the crash report names no function: $(cat "$tmp"/pulled/*.txt | head -20)"
# ... so its signature is the one this machine (with llvm-symbolizer) gives the same input.
remote=$(sed -n 's/^signature: //p' "$tmp"/pulled/*.txt | sed -n 1p)
input=$(find "$tmp/pulled" -name 'crash-*' ! -name '*.txt' | sed -n 1p)
here=$({ "$pollen" repro "$build/examples/keyword_fuzzer" "$input" 2>&1 || true; } |
  sed -n 's/.*\[signature \([0-9a-f]*\)\].*/\1/p' | sed -n 1p)
[ -n "$remote" ] && [ "$remote" = "$here" ] ||
  fail "signature in the container '$remote', on this machine '$here'"
echo "the same crash signature in the container and here: $remote"

# 5. podman stop sends SIGTERM: each drains and exits 0, the node first.
for n in pollen-test-node pollen-test-broker pollen-test-controller; do
  "${P[@]}" stop -t 30 "$n" >/dev/null || fail "podman stop $n"
  code=$("${P[@]}" inspect --format '{{.State.ExitCode}}' "$n")
  [ "$code" = 0 ] || fail "$n exited $code after SIGTERM: $("${P[@]}" logs "$n" 2>&1 | tail -5)"
done

# 6. A night whose builds are an image (builds.image): `pollen nightly` on this machine copies
#    /target/fuzzer out of the target image with podman (the environment's configuration, as
#    container-env.sh set it) and fuzzes it; the night's build is the image's file.
"$pollen" controller --listen="tcp://127.0.0.1:$cp" --data="$tmp/night-controller" \
  --insecure-plaintext --status-every=0 --merge-every=0 >"$tmp/night-controller.log" 2>&1 &
night_controller=$!
mkdir -p "$tmp/night"
printf 'campaign: from-image\nbuilds:\n  image: localhost/pollen-keyword:test\n  fuzz: /target/fuzzer\nbudget: 3s\nnodes: 1\n' \
  >"$tmp/night/campaign.yaml"
set +e
"$pollen" nightly --campaign="$tmp/night/campaign.yaml" --controller="tcp://127.0.0.1:$cp" \
  --insecure-plaintext --state="$tmp/night/state" --night=2026-11-25 >"$tmp/night/out.log" 2>&1
night_code=$?
set -e
kill "$night_controller" 2>/dev/null || true
wait "$night_controller" 2>/dev/null || true
[ "$night_code" = 0 ] || [ "$night_code" = 1 ] ||
  fail "the night from an image exited $night_code: $(tail -20 "$tmp/night/out.log")"
grep -q "builds.fuzz /target/fuzzer copied" "$tmp/night/out.log" ||
  fail "the night copied no build out of the image: $(tail -20 "$tmp/night/out.log")"
want=$(sha1sum "$build/examples/keyword_fuzzer" | cut -c1-16)
got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["build_id"])' \
  "$tmp/night/state/from-image/2026-11-25/report.json")
[ "$got" = "$want" ] || fail "the night fuzzed build $got, not the image's $want"
echo "a night from the target image: build $got (exit code $night_code)"
echo "image test: OK"
