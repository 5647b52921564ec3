#!/usr/bin/env bash
# Time to the planted bug of every puzzle target (bench/puzzles/, one class of hard input
# each), for Pollen, libFuzzer and AFL++ with CmpLog side by side: bench/real/run.sh in bug
# mode, one core per run, then bench/puzzles/report.py.
# Usage: bench/puzzles.sh [--trials=N (5)] [--time=S (120)] [--fuzzers=LIST] [--cpus=LIST]
#                         [--puzzles=crc32,tlv,...] [--out=DIR]
# The results stay in DIR (default build/bench-real/results/puzzles-DATE); the table is
# printed at the end and written to DIR/puzzles.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
trials=5 T=120 fuzzers=pollen,libfuzzer,aflplusplus cpus=0,1 out=""
puzzles=$(cd "$root/bench/puzzles" && ls puzzle_*.cc | sed 's/\.cc$//' | paste -sd,)
for a in "$@"; do
  case "$a" in
    --trials=*) trials=${a#--trials=} ;;
    --time=*) T=${a#--time=} ;;
    --fuzzers=*) fuzzers=${a#--fuzzers=} ;;
    --cpus=*) cpus=${a#--cpus=} ;;
    --puzzles=*) puzzles=$(tr ',' '\n' <<<"${a#--puzzles=}" | sed 's/^/puzzle_/; s/^puzzle_puzzle_/puzzle_/' | paste -sd,) ;;
    --out=*) out=${a#--out=} ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "ERROR: unknown argument $a (see --help)" >&2; exit 2 ;;
  esac
done
build=${POLLEN_BUILD_DIR:-$root/build}
[ -n "$out" ] || out=${BENCH_REAL_DIR:-$build/bench-real}/results/puzzles-$(date -u +%Y%m%d-%H%M%S)
bash "$root/bench/real/run.sh" --targets="$puzzles" --time="${T}s" --trials="$trials" \
  --fuzzers="$fuzzers" --cpus="$cpus" --snapshot="$T" --out="$out" >/dev/null
python3 "$root/bench/puzzles/report.py" "$out" | tee "$out/puzzles.md"
