#!/usr/bin/env bash
# ctest libfuzzer_mode_real_harness: a real harness (re2's, from Debian's source package, as
# bench/real builds it) linked with nothing but `pollen config --ldflags`, then run with the
# command lines FuzzBench and ClusterFuzz use for libFuzzer targets (tests/libfuzzer_mode_test.cc
# runs them on the bundled examples): FuzzBench's run_fuzzer(), ClusterFuzz's fuzzing task,
# its corpus merge, and its reproduction. Skipped (exit 77), saying why, when bench/real has
# not built the harness (bench/real/setup.sh does, from Debian's source packages).
#
# Usage: tests/libfuzzer_mode_real.sh [TARGET]     Environment: POLLEN_BUILD_DIR (./build),
#   BENCH_REAL_DIR (POLLEN_BUILD_DIR/bench-real)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
bench=${BENCH_REAL_DIR:-$build/bench-real}
target=${1:-re2}
pollen=$build/cli/pollen
fail() { echo "FAIL: $*" >&2; exit 1; }
info=$bench/targets/$target/BUILD_INFO
work=$bench/work/$target/pollen
if [ ! -f "$info" ] || [ ! -f "$work/harness.o" ]; then
  echo "SKIP: $target's harness is not built in $bench (bench/real/setup.sh --targets=$target builds it)"
  exit 77
fi
[ -x "$pollen" ] || fail "$pollen missing: build first"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/libfuzzer_mode_real.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The pollen flavor's link line, up to where bench/real links the runtime by hand.
link=$(awk '/^flavor: pollen$/ {f=1} f && /^link:/ {sub(/^link: /, ""); print; exit}' "$info")
objects=${link%%-Xlinker*}
[ -n "$objects" ] || fail "no link line for the pollen flavor in $info"
# shellcheck disable=SC2086 # the flags are words
(cd "$work" && clang++-14 $objects $("$pollen" config --ldflags) -o "$tmp/fuzzer") || fail "linking $target"
cp "$pollen" "$tmp/pollen"  # found beside the target, as an installed pair would be

mkdir -p "$tmp/out" "$tmp/in" "$tmp/new" "$tmp/merged" "$tmp/crashes"
cp "$bench/targets/$target/seeds/"* "$tmp/in/" 2>/dev/null || printf 'hi' >"$tmp/in/seed"
stat_of() { sed -n "s/^stat::$1: *//p" "$2"; }

# FuzzBench, fuzzers/libfuzzer/fuzzer.py (it stops the trial from outside; -max_total_time here).
"$tmp/fuzzer" -print_final_stats=1 -close_fd_mask=3 -fork=1 -ignore_ooms=1 -ignore_timeouts=1 \
  -ignore_crashes=1 -detect_leaks=0 -keep_seed=1 -cross_over_uniform_dist=1 -max_total_time=10 \
  "$tmp/out" "$tmp/in" >"$tmp/fuzzbench.log" 2>&1 || { tail -20 "$tmp/fuzzbench.log" >&2; fail "FuzzBench's command line exited non-zero"; }
grep -q "unrecognized flag" "$tmp/fuzzbench.log" && fail "a FuzzBench flag was not recognised: $(grep unrecognized "$tmp/fuzzbench.log")"
units=$(find "$tmp/out" -type f | wc -l)
[ "$units" -ge 10 ] || fail "FuzzBench's run wrote $units inputs to its output corpus"
runs=$(stat_of number_of_executed_units "$tmp/fuzzbench.log")
[ "${runs:-0}" -gt 10000 ] || fail "FuzzBench's run: stat::number_of_executed_units '$runs'"
echo "FuzzBench: $runs executions, $units inputs in the output corpus"

# ClusterFuzz's fuzzing task: new units first, the corpus second.
"$tmp/fuzzer" -timeout=25 -rss_limit_mb=2560 -max_len=4096 -use_value_profile=1 -artifact_prefix="$tmp/crashes/" \
  -max_total_time=10 -print_final_stats=1 "$tmp/new" "$tmp/out" >"$tmp/clusterfuzz.log" 2>&1 \
  || { tail -20 "$tmp/clusterfuzz.log" >&2; fail "ClusterFuzz's fuzzing command line exited non-zero"; }
grep -qE $'^#[0-9]+\tINITED cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/' "$tmp/clusterfuzz.log" || fail "no INITED line in libFuzzer's shape"
new_units=$(stat_of new_units_added "$tmp/clusterfuzz.log")
echo "ClusterFuzz fuzzing: stat::new_units_added $new_units, $(find "$tmp/new" -type f | wc -l) files in the new-units directory"

# ClusterFuzz's corpus pruning: merge everything into an empty directory.
"$tmp/fuzzer" -merge=1 -merge_control_file="$tmp/mcf" -rss_limit_mb=2560 -timeout=60 "$tmp/merged" "$tmp/out" "$tmp/new" \
  >"$tmp/merge.log" 2>&1 || { tail -20 "$tmp/merge.log" >&2; fail "ClusterFuzz's merge exited non-zero"; }
merged=$(find "$tmp/merged" -type f | wc -l)
[ "$merged" -ge 5 ] && [ "$merged" -le "$(( units + $(find "$tmp/new" -type f | wc -l) ))" ] || fail "the merge kept $merged inputs"
grep -q "^MERGE-OUTER: $merged new files" "$tmp/merge.log" || fail "no MERGE-OUTER line for $merged files: $(tail -3 "$tmp/merge.log")"
echo "ClusterFuzz merge: $merged inputs kept of $units + new"

# ClusterFuzz's reproduction of a testcase: -runs=100 and the file.
one=$(find "$tmp/merged" -type f -print -quit)
"$tmp/fuzzer" -rss_limit_mb=2560 -timeout=60 -runs=100 "$one" >"$tmp/repro.log" 2>&1 || fail "reproducing $one exited non-zero"
grep -q "^Executed $one in " "$tmp/repro.log" || fail "no 'Executed' line: $(cat "$tmp/repro.log")"
echo "PASS"
