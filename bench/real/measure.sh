#!/usr/bin/env bash
# Measures the corpus snapshots of benchmark runs with each target's coverage build.
#
# Usage: bench/real/measure.sh RESULTS_DIR [JOBS]
#   RESULTS_DIR  written by bench/real/run.sh: RESULTS_DIR/TARGET/FUZZER/trial-N/{snapshots,result}
#   JOBS         runs measured at the same time (default: the number of CPUs)
#
# For every snapshot S of a run, runs targets/TARGET/cov (engine/coverage_main/coverage_main.cc) on S
# plus the target's seeds (every fuzzer started from them, and not every fuzzer copies them
# into its corpus), merges the profiles and reads llvm-cov's TOTAL line. Writes
# RUN/coverage.tsv, one line per snapshot:
#   seconds  branches_covered  branches_total  lines_covered  lines_total  corpus_files
# A run whose coverage.tsv is newer than its snapshots is skipped, so an interrupted
# measurement resumes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
out=${BENCH_REAL_DIR:-$build/bench-real}
[ $# -ge 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
results=$1
jobs=${2:-$(nproc)}
[ -d "$results" ] || { echo "ERROR: $results is not a directory" >&2; exit 1; }

measure_run() {  # measure_run RUN_DIR
  local run=$1 target cov seeds tmp s secs tot files
  target=$(basename "$(dirname "$(dirname "$run")")")
  cov=$out/targets/$target/cov
  seeds=$out/targets/$target/seeds
  [ -x "$cov" ] || { echo "ERROR: $cov missing: bench/real/build_target.sh $target cov" >&2; return 1; }
  if [ -f "$run/coverage.tsv" ] && [ -z "$(find "$run/snapshots" -newer "$run/coverage.tsv" -print -quit)" ]; then
    return 0
  fi
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_measure.XXXXXX")
  : >"$run/coverage.tsv.tmp"
  for s in "$run"/snapshots/*/; do
    s=${s%/}
    secs=$((10#$(basename "$s")))
    rm -rf "$tmp/prof"
    LLVM_PROFILE_FILE="$tmp/prof/cov-%p.profraw" "$cov" -timeout=25 -close_fd_mask=3 "$seeds" "$s" \
      >"$tmp/cov.log" 2>&1 || true
    if ! ls "$tmp"/prof/*.profraw >/dev/null 2>&1 ||
       ! llvm-profdata-14 merge -sparse "$tmp"/prof/*.profraw -o "$tmp/cov.profdata" 2>>"$tmp/cov.log"; then
      echo "ERROR: measuring $s failed:" >&2; tail -5 "$tmp/cov.log" >&2; rm -rf "$tmp"; return 1
    fi
    tot=$(llvm-cov-14 report "$cov" -instr-profile="$tmp/cov.profdata" 2>/dev/null | grep '^TOTAL' || true)
    [ -n "$tot" ] || { echo "ERROR: no llvm-cov TOTAL for $s" >&2; rm -rf "$tmp"; return 1; }
    # TOTAL regions missed % functions missed % lines missed % branches missed %
    local _r _rm _rp _f _fm _fp lines lmiss _lp br bmiss _bp
    read -r _ _r _rm _rp _f _fm _fp lines lmiss _lp br bmiss _bp <<<"$tot"
    files=$(find "$s" -maxdepth 1 -type f | wc -l)
    printf '%d\t%d\t%d\t%d\t%d\t%d\n' "$secs" $((br - bmiss)) "$br" $((lines - lmiss)) "$lines" "$files" \
      >>"$run/coverage.tsv.tmp"
  done
  mv "$run/coverage.tsv.tmp" "$run/coverage.tsv"
  rm -rf "$tmp"
  echo "measured $run ($(wc -l <"$run/coverage.tsv") snapshots)" >&2
}
export -f measure_run
export out

find "$results" -mindepth 3 -maxdepth 3 -type d -name 'trial-*' | sort |
  xargs -r -P "$jobs" -I{} bash -c 'measure_run "$1"' _ {}
