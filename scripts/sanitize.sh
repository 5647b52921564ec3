#!/usr/bin/env bash
# Builds Pollen with a sanitizer and runs the whole test suite under it (docs/development.md,
# "Sanitizer runs"). Not part of command 2: it builds everything a second time.
#
# Usage: scripts/sanitize.sh address|thread [CTEST_ARGS...]
#   address  ASan + UBSan on all of Pollen's code, the fuzz targets and their runtime too,
#            in build-asan/
#   thread   TSan on Pollen's services, CLI, libraries and tests (not on fuzz targets and the
#            code linked into them), in build-tsan/
# POLLEN_BUILD_DIR picks another build directory. Extra arguments go to ctest
# (scripts/sanitize.sh thread -R controller). Exit status: ctest's.
#
# With address, two benchmark smoke tests are left out: bench_exec_speed_smoke and
# bench_real_suite_smoke compile targets outside CMake without ASan and link them with the
# build's runtime, which then needs ASan's. (image_podman is left out in both modes: the image
# ships the release build.)
#
# The sanitizers' own defaults hold (ASan finds leaks at exit; TSan reports every race and
# exits 66): no *SAN_OPTIONS are set here, so the worker processes Pollen starts keep the
# options Pollen gives them (node/worker_process.cc). At the end the script counts the
# sanitizer reports in ctest's log.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
mode=${1:-}
case "$mode" in
  address) dir=build-asan ;;
  thread) dir=build-tsan ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac
shift
build=${POLLEN_BUILD_DIR:-$root/$dir}
bash "$root/scripts/setup.sh"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DPOLLEN_SANITIZE="$mode" >/dev/null
fi
start=$(date +%s)
ninja -C "$build"
built=$(date +%s)
status=0
exclude='^image_podman$'
[ "$mode" = address ] && exclude='^(image_podman|bench_exec_speed_smoke|bench_real_suite_smoke)$'
(cd "$build" && ctest --output-on-failure -j "$(nproc)" --timeout 1800 -E "$exclude" "$@") || status=$?
end=$(date +%s)
log=$build/Testing/Temporary/LastTest.log
reports=0
if [ -f "$log" ]; then
  reports=$(grep -cE 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|WARNING: ThreadSanitizer' "$log" || true)
fi
echo "sanitize.sh $mode: build $((built - start)) s, tests $((end - built)) s, ctest exit $status," \
  "$reports sanitizer report line(s) in $log (planted bugs of the test targets included)"
exit "$status"
