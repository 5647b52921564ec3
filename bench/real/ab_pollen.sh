#!/usr/bin/env bash
# Compares two Pollen target binaries of the same target (A: before a runtime change, B: after)
# side by side: each round runs A and B at the same time, each pinned to its own CPU, from the
# target's seeds with its dictionary, then swaps the CPUs; the libFuzzer binary of the target
# runs once against B, so the figures also read as ratios to libFuzzer. Prints each run's exec/s,
# edges and, when the target has a coverage build, the branches its corpus covers as the suite
# measures them (bench/real/branches.sh), then the medians and the ratios B/A and
# B/libFuzzer (exec/s). Edges are the fuzzer's own count of the instrumented binary's
# counters and can disagree with branches: on zstd 512-run units gave 1.099x the edges and
# 1.006x the branches (docs/benchmarks.md).
#
# Usage: bench/real/ab_pollen.sh NAME A_BINARY B_BINARY [--time=S] [--rounds=N] [--cpus=C0,C1]
#                                 [--no-libfuzzer]
#   (default 60 s, 2 rounds = 4 runs of each, CPUs 0,1)
# --no-libfuzzer skips the last pair (libFuzzer beside one more B run): only A against B.
#   libFuzzer's figure, when it runs, is its own "cov:" count in the edges column.
# Environment: POLLEN_CLI (default build/cli/pollen), POLLEN_CLI_A (A's, when the change
#   moved the worker's shared-memory layout or the mutator table and B's pollen refuses A;
#   default POLLEN_CLI),
#   POLLEN_BUILD_DIR, BENCH_REAL_DIR, POLLEN_FUZZ_FLAGS (more flags for both Pollen arms, e.g.
#   "--speed-weight=false"), POLLEN_FUZZ_FLAGS_A / POLLEN_FUZZ_FLAGS_B (more flags for one arm
#   only: A and B may then be one binary, e.g. B "--mutant-cmp-hooks=auto" against A
#   "--mutant-cmp-hooks=true"), AB_KEEP=DIR (keep every run's work directory, its corpus
#   included, in DIR instead of deleting them).
# --cpus=C,C runs both arms on one CPU, sharing it: a fair comparison when the other CPU is
#   busy, at half of each run's speed.
# The machine should be otherwise idle: the two runs share it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
out=${BENCH_REAL_DIR:-$build/bench-real}
cli=${POLLEN_CLI:-$build/cli/pollen}
cli_a=${POLLEN_CLI_A:-$cli}
T=60 rounds=2 cpus=0,1 with_libfuzzer=1

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
args=()
for a in "$@"; do
  case "$a" in
    --time=*) T=${a#--time=} ;;
    --rounds=*) rounds=${a#--rounds=} ;;
    --cpus=*) cpus=${a#--cpus=} ;;
    --no-libfuzzer) with_libfuzzer=0 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "ERROR: unknown flag $a" >&2; exit 2 ;;
    *) args+=("$a") ;;
  esac
done
[ ${#args[@]} = 3 ] || { usage >&2; exit 2; }
name=${args[0]} bin_a=${args[1]} bin_b=${args[2]}
[[ "$T" =~ ^[1-9][0-9]*$ && "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ERROR: --time and --rounds take positive integers" >&2; exit 2; }
IFS=, read -r cpu0 cpu1 <<<"$cpus"
[[ "$cpu0" =~ ^[0-9]+$ && "$cpu1" =~ ^[0-9]+$ ]] || { echo "ERROR: --cpus=C0,C1" >&2; exit 2; }
d=$out/targets/$name
need=("$bin_a" "$bin_b" "$cli" "$cli_a")
[ "$with_libfuzzer" = 1 ] && need+=("$d/libfuzzer")
for f in "${need[@]}"; do
  [ -x "$f" ] || { echo "ERROR: $f missing or not executable" >&2; exit 1; }
done
dict_args=() lf_dict=()
read -r -a extra_flags <<<"${POLLEN_FUZZ_FLAGS:-}"
read -r -a flags_a <<<"${POLLEN_FUZZ_FLAGS_A:-}"
read -r -a flags_b <<<"${POLLEN_FUZZ_FLAGS_B:-}"
[ -f "$d/dict" ] && { dict_args=("--dict=$d/dict"); lf_dict=("-dict=$d/dict"); }
if [ -n "${AB_KEEP:-}" ]; then
  mkdir -p "$AB_KEEP"
  tmp=$(cd "$AB_KEEP" && pwd)
else
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/ab_pollen.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
fi

# run_pollen LABEL BINARY CPU: one run; prints "LABEL exec/s edges".
run_pollen() {
  local w log run_cli=$cli arm_flags=("${flags_b[@]}")
  w=$(mktemp -d "$tmp/$1.XXXXXX")
  [ "$1" = A ] && { run_cli=$cli_a; arm_flags=("${flags_a[@]}"); }
  log=$w.log
  taskset -c "$3" "$run_cli" fuzz "$2" "$d/seeds" --workers=1 --time="$T" "${dict_args[@]}" \
    --keep-going --workdir="$w" "${extra_flags[@]}" "${arm_flags[@]}" >"$log" 2>&1 || true
  local ex ed
  ex=$(sed -n 's/.*executions: *[0-9]* in [0-9.]* s (\([0-9]*\) exec\/s).*/\1/p' "$log")
  ed=$(sed -n 's/.*coverage: *\([0-9]*\) edges.*/\1/p' "$log" | tail -1)
  [ -n "$ex" ] || { echo "ERROR: no summary from $2; last lines of its log:" >&2; tail -5 "$log" >&2; return 1; }
  local br=0
  if [ -x "$d/cov" ]; then
    br=$(POLLEN_CLI=$run_cli bash "$root/bench/real/branches.sh" "$name" "$w" | awk '{print $2}') || br=0
  fi
  echo "$1 $ex ${ed:-0} ${br:-0}"
}
# run_libfuzzer CPU: prints "libfuzzer exec/s cov".
run_libfuzzer() {
  local c log
  c=$(mktemp -d "$tmp/lf.XXXXXX")
  log=$c.log
  taskset -c "$1" "$d/libfuzzer" -max_total_time="$T" -detect_leaks=0 -rss_limit_mb=2560 \
    -timeout=25 -close_fd_mask=3 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -fork=1 \
    "${lf_dict[@]}" "$c" "$d/seeds" >"$log" 2>&1 || true
  local last
  last=$(grep -E '^#[0-9]+' "$log" | grep 'exec/s' | tail -1)
  [ -n "$last" ] || { echo "ERROR: no status line from libFuzzer; last lines:" >&2; tail -5 "$log" >&2; return 1; }
  # -fork=1 prints "exec/s N", the plain mode "exec/s: N".
  local br=0
  if [ -x "$d/cov" ]; then br=$(bash "$root/bench/real/branches.sh" "$name" "$c" | awk '{print $2}') || br=0; fi
  echo "libfuzzer $(sed -n 's/.*exec\/s:\{0,1\} \([0-9]*\).*/\1/p' <<<"$last") $(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last") ${br:-0}"
}

results=$tmp/results
: >"$results"
for ((r = 1; r <= rounds; r++)); do
  run_pollen A "$bin_a" "$cpu0" >>"$results" & p1=$!
  run_pollen B "$bin_b" "$cpu1" >>"$results" & p2=$!
  wait $p1 && wait $p2
  run_pollen B "$bin_b" "$cpu0" >>"$results" & p1=$!
  run_pollen A "$bin_a" "$cpu1" >>"$results" & p2=$!
  wait $p1 && wait $p2
done
if [ "$with_libfuzzer" = 1 ]; then
  run_libfuzzer "$cpu0" >>"$results" & p1=$!
  run_pollen B "$bin_b" "$cpu1" >>"$results" & p2=$!
  wait $p1 && wait $p2
fi

echo "$name: A=$bin_a B=$bin_b, ${T} s per run, $rounds rounds (A and B side by side, CPUs swapped)"
sort -k1,1 -s "$results" | awk '{printf "  %-9s exec/s %8d  edges %6d  branches %6d\n", $1, $2, $3, $4}'
python3 - "$results" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    label, ex, ed, br = line.split()
    runs.setdefault(label, []).append((int(ex), int(ed), int(br)))
med = {k: [statistics.median(r[i] for r in v) for i in range(3)] for k, v in runs.items()}
for k in ("A", "B", "libfuzzer"):
    if k not in runs:
        continue
    v = runs[k]
    print(f"  median {k:9s} exec/s {med[k][0]:8.0f} (min {min(r[0] for r in v)}, max {max(r[0] for r in v)})  "
          f"edges/cov {med[k][1]:.0f}  branches {med[k][2]:.0f}")
print(f"  ratio B/A exec/s {med['B'][0] / med['A'][0]:.3f}   edges {med['B'][1] / max(1, med['A'][1]):.3f}   "
      f"branches {med['B'][2] / max(1, med['A'][2]):.3f}")
if "libfuzzer" in med:
    print(f"  ratio B/libFuzzer exec/s {med['B'][0] / med['libfuzzer'][0]:.3f}")
EOF
