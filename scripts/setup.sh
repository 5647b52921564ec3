#!/usr/bin/env bash
# Installs, from Debian 12's own packages, whatever Pollen needs that is missing.
# Idempotent: installed packages are skipped, and apt is not touched when nothing is missing.
#
# Usage: scripts/setup.sh [--build]
#   --build  only what building Pollen and running its demo need (scripts/build.sh and
#            scripts/demo.sh ask for this much); without it, also every program the tests
#            and the benchmarks run (scripts/test.sh, bench/real/setup.sh)
set -euo pipefail
scope=all
case "${1:-}" in
  "") ;;
  --build) scope=build ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "ERROR: unknown argument $1 (scripts/setup.sh [--build])" >&2; exit 2 ;;
esac

# Build: cmake ninja-build pkg-config g++ clang-14 lld-14 and the -dev libraries; llvm-14-dev
# (the LLVM 14 headers) for Pollen's compiler pass, compiler/; llvm-14 (llvm-symbolizer for
# the demo's stack traces; llvm-profdata and llvm-cov for `pollen coverage` and the tests);
# zlib1g-dev (the engine's tests check its own inflater against zlib).
# Tests and benchmark smoke runs: python3
# (bench/real/report.py), perl (Time::HiRes in bench/real/run_one.sh; perl-base lacks it),
# git (bench scripts record the commit), util-linux (taskset), binutils (objcopy, readelf),
# clang-format-14 (tests/format_check.sh).
# The HTTP endpoints: libcpp-httplib-dev, prometheus-cpp-dev; the controller's dashboard draws
# its plots with Debian's Chart.js (libjs-chart.js, built into the binary). The nightly (nightly/): campaign
# files with libyaml-cpp-dev, reports and saved state with nlohmann-json3-dev. The OCI image and its test
# (scripts/image/, tests/image/): mmdebstrap, buildah, podman, runc. The cluster-in-a-box
# test (tests/k8s/cluster_in_a_box.py): iproute2 (ip netns), python3-yaml. The dashboard's
# browser test (tests/dashboard/): chromium, driven by npm playwright-core.
# scripts/fresh-machine-check.sh proves on a bare Debian 12 root that this list is complete.
# The build and the demo.
build_packages=(
  cmake ninja-build pkg-config g++ clang-14 lld-14 libclang-rt-14-dev llvm-14 llvm-14-dev
  libzmq3-dev cppzmq-dev capnproto libcapnp-dev librocksdb-dev libspdlog-dev
  libgtest-dev libgmock-dev libzstd-dev liblz4-dev zlib1g-dev libcpp-httplib-dev prometheus-cpp-dev
  libyaml-cpp-dev nlohmann-json3-dev libjs-chart.js
)
# The tests and the benchmarks.
test_packages=(
  python3 perl git util-linux binutils clang-format-14
  mmdebstrap buildah podman runc iproute2 python3-yaml chromium
)

# Programs the tests run that a machine may already have from elsewhere (kubectl from
# Kubernetes' own packages, node from NodeSource): installed from Debian only when the
# command is missing, so that apt does not fight over /usr/bin/kubectl or /usr/bin/node.
# kubectl: tests/k8s renders k8s/ with `kubectl kustomize`; node, npm: its schema checks.
commands=(kubectl:kubernetes-client node:nodejs npm:npm)
if [ "$scope" = build ]; then
  test_packages=() commands=()
fi

missing=()
for p in "${build_packages[@]}" "${test_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
for c in "${commands[@]}"; do
  command -v "${c%%:*}" >/dev/null || missing+=("${c#*:}")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "pollen setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "ERROR: not root and no sudo: install ${missing[*]} by hand" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
