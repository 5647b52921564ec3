#!/usr/bin/env bash
# ctest pollen_config_link: fuzz targets built as docs/targets.md says, with nothing but
# `pollen config --cflags` and `--ldflags` (one archive, no --whole-archive, no other
# library): examples/heap_overflow.cc with clang++-14 and ASan, and a C harness with
# clang-14. Each needs no shared library of Pollen's or Cap'n Proto's (ldd), and `pollen
# fuzz` finds each one's planted bug, which it can only if the runtime's SanitizerCoverage
# callbacks replaced the sanitizer runtime's weak no-op ones (no coverage: no progress).
# Then `cmake --install` into a prefix: the installed pollen's `config` names the installed
# archive, and a CMake project with find_package(Pollen) and pollen_add_fuzz_target builds
# a target whose bug the installed pollen finds, and a typed fuzz test (pollen_add_fuzz_test)
# whose bug the installed pollen finds too.
#
# Usage: tests/config_link_test.sh      Environment: POLLEN_BUILD_DIR (./build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
pollen=$build/cli/pollen
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$pollen" ] || fail "$pollen missing: build first"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/config_link.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# A wrong flag is a usage error that says so.
if "$pollen" config --nonsense >"$tmp/out" 2>&1; then fail "pollen config --nonsense succeeded"; fi
grep -q "nonsense" "$tmp/out" || fail "pollen config --nonsense did not name the flag: $(cat "$tmp/out")"

cflags=$("$pollen" config --cflags) || fail "pollen config --cflags"
ldflags=$("$pollen" config --ldflags) || fail "pollen config --ldflags"
echo "cflags: $cflags"
echo "ldflags: $ldflags"
case "$ldflags" in *whole-archive*) fail "--ldflags must not need --whole-archive: $ldflags" ;; esac

# shellcheck disable=SC2086 # the flags are words
clang++-14 -g -O1 $cflags -fsanitize=address -I"$root/examples" "$root/examples/heap_overflow.cc" \
  $ldflags -o "$tmp/cxx_fuzzer" || fail "clang++-14 could not build the C++ harness"
cat >"$tmp/harness.c" <<'C'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 4 && data[0] == 'F' && data[1] == 'U' && data[2] == 'Z' && data[3] == 'Z') {
    volatile int* p = 0;
    *p = 1;
  }
  return 0;
}
C
# shellcheck disable=SC2086
clang-14 -g -O1 $cflags "$tmp/harness.c" $ldflags -o "$tmp/c_fuzzer" || fail "clang-14 could not build the C harness"

for f in cxx_fuzzer c_fuzzer; do
  ldd "$tmp/$f" >"$tmp/$f.ldd"
  if grep -E "libcapnp|libkj|pollen|not found" "$tmp/$f.ldd"; then
    fail "$f needs a shared library it should not"
  fi
done

check_finds() {
  local f=$1 expect=$2 rc=0
  "$pollen" fuzz "$tmp/$f" --workers=1 --seed=1 --time=60 --workdir="$tmp/work-$f" \
    >"$tmp/$f.log" 2>&1 || rc=$?
  [ "$rc" = 1 ] || { tail -20 "$tmp/$f.log" >&2; fail "pollen fuzz $f exited $rc, not 1 (a failure found)"; }
  grep -q "$expect" "$tmp/$f.log" || { tail -20 "$tmp/$f.log" >&2; fail "$f: no '$expect' in the log"; }
  echo "$f: $(grep -m1 -o "$expect" "$tmp/$f.log") found"
}
check_finds cxx_fuzzer heap-buffer-overflow
check_finds c_fuzzer SEGV

prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; fail "cmake --install"; }
archive=$("$prefix/bin/pollen" config --archive) || fail "the installed pollen config --archive"
case "$archive" in "$prefix"/*) ;; *) fail "the installed pollen names $archive, not its own archive" ;; esac
mkdir -p "$tmp/project"
cp "$root/examples/heap_overflow.cc" "$root/examples/planted_bug.h" "$tmp/project/"
cat >"$tmp/project/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(uses_pollen CXX)
find_package(Pollen 0.1 REQUIRED)
pollen_add_fuzz_target(installed_fuzzer heap_overflow.cc SANITIZE address)
CMAKE
cmake -S "$tmp/project" -B "$tmp/project/build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/project.log" 2>&1 || { cat "$tmp/project.log" >&2; fail "configuring a project with find_package(Pollen)"; }
cmake --build "$tmp/project/build" >>"$tmp/project.log" 2>&1 || { cat "$tmp/project.log" >&2; fail "building it"; }
cp "$tmp/project/build/installed_fuzzer" "$tmp/"
pollen=$prefix/bin/pollen
check_finds installed_fuzzer heap-buffer-overflow

# A typed fuzz test built against the installed headers and library: its seeds pass, and
# --fuzz finds the planted bug with the installed pollen and writes the failing input.
mkdir -p "$tmp/tests"
cp "$root/examples/key_value_fuzz_test.cc" "$tmp/tests/"
cat >"$tmp/tests/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(uses_pollen_fuzz_tests CXX)
set(CMAKE_CXX_STANDARD 20)
enable_testing()
find_package(Pollen 0.1 REQUIRED)
pollen_add_fuzz_test(kv_tests key_value_fuzz_test.cc)
CMAKE
cmake -S "$tmp/tests" -B "$tmp/tests/build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/tests.log" 2>&1 || { cat "$tmp/tests.log" >&2; fail "configuring a project with pollen_add_fuzz_test"; }
cmake --build "$tmp/tests/build" >>"$tmp/tests.log" 2>&1 || { cat "$tmp/tests.log" >&2; fail "building the fuzz tests"; }
(cd "$tmp/tests/build" && ctest --output-on-failure >>"$tmp/tests.log" 2>&1) || { cat "$tmp/tests.log" >&2; fail "ctest of the fuzz tests' seeds"; }
rc=0
(cd "$tmp/tests/build" && POLLEN=$pollen ./kv_tests --fuzz=KeyValue.RoundTrips --fuzz_time=60 >"$tmp/kv.log" 2>&1) || rc=$?
[ "$rc" = 1 ] || { tail -20 "$tmp/kv.log" >&2; fail "kv_tests --fuzz exited $rc, not 1"; }
ls "$tmp/tests/testdata/fuzz/KeyValue.RoundTrips/"* >/dev/null 2>&1 || { tail -20 "$tmp/kv.log" >&2; fail "no failing input in testdata/fuzz"; }
echo "kv_tests: the typed fuzz test's bug found, its input in testdata/fuzz"
echo "PASS"
