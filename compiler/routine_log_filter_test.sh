#!/usr/bin/env bash
# ctest compiler_routine_log_filter: the routine-log pass logs calls where one pointer may be
# a literal of the program, and leaves calls on buffers alone (routine_log_pass.cc,
# MayPassLiteral). Compiles testdata/routine_calls.c with the plugin and checks the pass's
# own count (POLLEN_PASS_STATS) and the hook calls in the object.
# Usage: routine_log_filter_test.sh PLUGIN
set -euo pipefail
plugin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
POLLEN_PASS_STATS=1 clang-14 -O1 -fsanitize=fuzzer-no-link -fpass-plugin="$plugin" \
  -c "$here/testdata/routine_calls.c" -o "$tmp/calls.o" 2>"$tmp/stats"
grep -q ': 3 of 5 calls with two or more pointers logged' "$tmp/stats" || {
  echo "FAIL: expected 3 of 5 calls logged; the pass said:" >&2
  cat "$tmp/stats" >&2
  exit 1
}
# Each logged function calls the hook; the others do not.
for f in literal table local buffers cursor; do
  n=$(llvm-objdump-14 -dr --no-show-raw-insn --disassemble-symbols="$f" "$tmp/calls.o" |
      grep -c '__pollen_trace_routine' || true)
  case "$f" in
    literal | table | local) [ "$n" -ge 1 ] || { echo "FAIL: $f does not call the hook" >&2; exit 1; } ;;
    *) [ "$n" = 0 ] || { echo "FAIL: $f calls the hook" >&2; exit 1; } ;;
  esac
done
echo "PASS: 3 of 5 calls logged, each in the function that passes a literal"
