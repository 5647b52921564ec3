#!/usr/bin/env bash
# What the same inputs cost in each fuzzer's build of a real target: separates a gap in exec/s
# that comes from the inputs a fuzzer chose (a deeper corpus runs slower code) from one that
# comes from the engine or its instrumentation.
#
# Usage: bench/real/replay_speed.sh TARGET RUN_DIR... [--runs=N] [--cpu=C] [--slowest=K]
#   TARGET   a target built by bench/real/build_target.sh with its libfuzzer and
#            pollen-routines flavors
#   RUN_DIR  a run of bench/real/run.sh (RESULTS/TARGET/FUZZER/trial-N); its last corpus
#            snapshot is replayed
#   --runs   times each input runs (default 5), --cpu the CPU both replays are pinned to
#            (default 1), --slowest how many of the slowest inputs to list (default 5)
#
# For each run's last snapshot, and for their union, both builds run every input N times in
# their reproduction mode (`BINARY -runs=N FILE...`: libFuzzer's RunOneTest loop, Pollen's
# standalone runtime), one after the other on one CPU, the target's output to /dev/null.
# Prints per corpus: inputs, mean microseconds per run in each build, and their ratio.
# Neither mode mutates or collects coverage between runs, so the figures are the target's
# code with each build's instrumentation; the engines' own costs per run are what
# bench/exec_speed.sh measures on the empty harness.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
out=${BENCH_REAL_DIR:-$build/bench-real}
die() { echo "ERROR: $*" >&2; exit 2; }
runs=5 cpu=1 slowest=5 target="" dirs=()
for a in "$@"; do
  case "$a" in
    --runs=*) runs=${a#--runs=} ;;
    --cpu=*) cpu=${a#--cpu=} ;;
    --slowest=*) slowest=${a#--slowest=} ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown flag $a (see --help)" ;;
    *) if [ -z "$target" ]; then target=$a; else dirs+=("$a"); fi ;;
  esac
done
for n in "$runs" "$cpu" "$slowest"; do [[ "$n" =~ ^[0-9]+$ ]] || die "bad number $n"; done
[ "$runs" -ge 1 ] || die "--runs must be at least 1"
[ -n "$target" ] && [ ${#dirs[@]} -ge 1 ] || die "usage: $0 TARGET RUN_DIR... (see --help)"
tdir=$out/targets/$target
for f in libfuzzer pollen-routines; do
  [ -x "$tdir/$f" ] || die "$tdir/$f missing: bench/real/build_target.sh $target $f"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay_speed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/union"

# micros_per_run BINARY DIR: mean wall-clock microseconds per run over DIR's inputs.
micros_per_run() {
  local bin=$1 dir=$2 n start end
  n=$(find "$dir" -maxdepth 1 -type f | wc -l)
  [ "$n" -gt 0 ] || { echo "-"; return; }
  start=$(date +%s%N)
  # Files, not the directory: a directory would make libFuzzer fuzz it. (-timeout: Pollen's
  # standalone runtime times a file's N runs together, libFuzzer each run.)
  find "$dir" -maxdepth 1 -type f -print0 |
    xargs -0 taskset -c "$cpu" "$bin" -runs="$runs" -timeout=$((25 * runs)) >/dev/null 2>"$tmp/err" ||
    die "$bin failed on an input of $dir: $(tail -3 "$tmp/err")"
  end=$(date +%s%N)
  echo $(((end - start) / 1000 / (n * runs)))
}

# slowest_inputs DIR: the K inputs of DIR that take longest in libFuzzer's build, one run each.
slowest_inputs() {
  local f s e
  for f in "$1"/*; do
    [ -f "$f" ] || continue
    s=$(date +%s%N)
    taskset -c "$cpu" "$tdir/libfuzzer" -runs=1 "$f" >/dev/null 2>&1 || true
    e=$(date +%s%N)
    echo "$(((e - s) / 1000)) $(stat -c %s "$f") $(basename "$f")"
  done | sort -rn | awk -v k="$slowest" 'NR <= k'

}

printf '| corpus | inputs | libFuzzer build: µs per run | Pollen build: µs per run | Pollen / libFuzzer |\n'
printf '|---|---|---|---|---|\n'
row() {  # row NAME DIR
  local n lf pr ratio
  n=$(find "$2" -maxdepth 1 -type f | wc -l)
  lf=$(micros_per_run "$tdir/libfuzzer" "$2")
  pr=$(micros_per_run "$tdir/pollen-routines" "$2")
  ratio=$(awk -v a="$pr" -v b="$lf" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
  printf '| %s | %s | %s | %s | %s |\n' "$1" "$n" "$lf" "$pr" "$ratio"
}
for d in "${dirs[@]}"; do
  [ -d "$d/snapshots" ] || die "$d has no snapshots directory"
  last=$(find "$d/snapshots" -mindepth 1 -maxdepth 1 -type d | sort | tail -1)
  [ -n "$last" ] || die "$d has no snapshots"
  name=$(basename "$(dirname "$d")")/$(basename "$d")
  row "$name" "$last"
  i=$((${i:-0} + 1))  # AFL++'s names repeat across runs: each run's copies get their own prefix
  for f in "$last"/*; do [ -f "$f" ] && cp "$f" "$tmp/union/$i-$(basename "$f")"; done
done
if [ ${#dirs[@]} -gt 1 ]; then row "union" "$tmp/union"; fi
if [ "$slowest" -gt 0 ]; then
  echo
  echo "Slowest inputs of the union (one run, libFuzzer's build, process start included): µs, bytes, name"
  slowest_inputs "$tmp/union"
fi
