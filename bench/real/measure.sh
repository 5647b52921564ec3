#!/usr/bin/env bash
# Measures the corpus snapshots of benchmark runs with each target's coverage build.
#
# Usage: bench/real/measure.sh RESULTS_DIR [JOBS]
#   RESULTS_DIR  written by bench/real/run.sh: RESULTS_DIR/TARGET/FUZZER/trial-N/{snapshots,result}
#   JOBS         runs measured at the same time (default: the number of CPUs)
#
# For every snapshot S of a run, runs targets/TARGET/cov (engine/coverage_main/coverage_main.cc) on S
# plus the target's seeds (every fuzzer started from them, and not every fuzzer copies them
# into its corpus), merges the profiles and reads llvm-cov's TOTAL line (bench/real/branches.sh;
# POLLEN_BUILD_DIR and BENCH_REAL_DIR as there). Writes
# RUN/coverage.tsv, one line per snapshot:
#   seconds  branches_covered  branches_total  lines_covered  lines_total  corpus_files
# A run whose coverage.tsv is newer than its snapshots is skipped, so an interrupted
# measurement resumes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
results=$1
jobs=${2:-$(nproc)}
[ -d "$results" ] || { echo "ERROR: $results is not a directory" >&2; exit 1; }

measure_run() {  # measure_run RUN_DIR
  local run=$1 target s secs files bc bt lc lt
  target=$(basename "$(dirname "$(dirname "$run")")")
  if [ -f "$run/coverage.tsv" ] && [ -z "$(find "$run/snapshots" -newer "$run/coverage.tsv" -print -quit)" ]; then
    return 0
  fi
  : >"$run/coverage.tsv.tmp"
  for s in "$run"/snapshots/*/; do
    s=${s%/}
    secs=$((10#$(basename "$s")))
    # "DIR branches_covered branches_total lines_covered lines_total" (bench/real/branches.sh)
    read -r _ bc bt lc lt < <(bash "$here/branches.sh" "$target" "$s") || return 1
    [ -n "${lt:-}" ] || return 1
    files=$(find "$s" -maxdepth 1 -type f | wc -l)
    printf '%d\t%d\t%d\t%d\t%d\t%d\n' "$secs" "$bc" "$bt" "$lc" "$lt" "$files" >>"$run/coverage.tsv.tmp"
  done
  mv "$run/coverage.tsv.tmp" "$run/coverage.tsv"
  echo "measured $run ($(wc -l <"$run/coverage.tsv") snapshots)" >&2
}
export -f measure_run
export here=$root/bench/real

find "$results" -mindepth 3 -maxdepth 3 -type d -name 'trial-*' | sort |
  xargs -r -P "$jobs" -I{} bash -c 'measure_run "$1"' _ {}
