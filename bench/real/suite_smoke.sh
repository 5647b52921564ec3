#!/usr/bin/env bash
# Smoke run of the benchmark suite's scripts (ctest: bench_real_suite_smoke), so that they do
# not rot: builds three bundled examples (pollen, libfuzzer and cov flavors) into a scratch
# BENCH_REAL_DIR, runs bench/real/run.sh with Pollen and libFuzzer for a few seconds (magic4
# in bug mode, keyword in coverage mode with snapshots, empty in speed mode), and checks the
# results: every run has statistics, the snapshots were measured, the planted bug of magic4
# was found by both, and the report has every row; libFuzzer in process (libfuzzer-plain)
# restarted after magic4's bug; then a second trial added to the same directory with
# --first-trial. Checks that things work, not how well.
# AFL++ is left out (it is not one of the project's own packages).
#
# Usage: bench/real/suite_smoke.sh        Environment: POLLEN_BUILD_DIR (default ./build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
export POLLEN_BUILD_DIR=$build
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_real_suite_smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export BENCH_REAL_DIR=$tmp/bench-real
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -x "$build/cli/pollen" ] || fail "$build/cli/pollen missing: build first"
for name in magic4 keyword empty; do
  bash "$root/bench/real/build_target.sh" "$name" pollen libfuzzer cov || fail "build of $name"
done
results=$tmp/results
bash "$root/bench/real/run.sh" --no-setup --time=6s --snapshot=2 --speed-time=2 --trials=1 \
  --targets=magic4,keyword:coverage,empty --fuzzers=pollen,libfuzzer --out="$results" \
  || fail "run.sh failed"

for name in magic4 keyword empty; do
  for f in pollen libfuzzer; do
    r=$results/$name/$f/trial-1
    [ -f "$r/result" ] || fail "no $r/result"
    eps=$(sed -n 's/^exec_per_s //p' "$r/result")
    [[ "$eps" =~ ^[0-9]+$ ]] && [ "$eps" -gt 0 ] || fail "$name/$f: exec/s '$eps'"
    [ "$name" = empty ] && continue
    [ -s "$r/coverage.tsv" ] || fail "$name/$f: no coverage.tsv"
    # seconds branches_covered branches_total lines_covered lines_total files
    read -r _ bc bt lc lt _ < <(tail -1 "$r/coverage.tsv")
    [ "$bt" -gt 0 ] && [ "$bc" -gt 0 ] && [ "$bc" -le "$bt" ] && [ "$lc" -gt 0 ] && [ "$lc" -le "$lt" ] \
      || fail "$name/$f: coverage row '$(tail -1 "$r/coverage.tsv")'"
  done
  # The planted bug of magic4 is found by both, and reported with a time.
  if [ "$name" = magic4 ]; then
    for f in pollen libfuzzer; do
      c=$(sed -n 's/^first_crash_s //p' "$results/magic4/$f/trial-1/result")
      [[ "$c" =~ ^[0-9.]+$ ]] || fail "magic4/$f: first crash '$c'"
    done
  fi
done
# Coverage mode keeps snapshots over time: at least two for a 6 s run every 2 s.
for f in pollen libfuzzer; do
  rows=$(wc -l <"$results/keyword/$f/trial-1/coverage.tsv")
  [ "$rows" -ge 2 ] || fail "keyword/$f: $rows snapshot(s) measured"
done
report=$results/report.md
[ -s "$report" ] || fail "no report"
for row in '^| magic4 |' '^| keyword |' '^| empty |' '^### magic4 (bug)' '^### keyword (coverage)' \
           '^### empty (speed)' '^| Pollen | [0-9]' '^| libFuzzer (-fork=1) | [0-9]'; do
  grep -q -- "$row" "$report" || fail "report has no line matching $row"
done
# libFuzzer in process (libfuzzer-plain) goes on after magic4's planted bug: it starts again
# on its corpus, and the result counts the executions of every part.
plain=$tmp/plain
bash "$root/bench/real/run_one.sh" libfuzzer-plain "$BENCH_REAL_DIR/targets/magic4" "$plain" \
  0 6 2 coverage >/dev/null 2>&1 || fail "run_one.sh libfuzzer-plain failed: $(tail -3 "$plain/log")"
grep -q 'bench/real: libFuzzer restarted' "$plain/log" || fail "libfuzzer-plain did not restart after the bug"
c=$(sed -n 's/^first_crash_s //p' "$plain/result")
[[ "$c" =~ ^[0-9.]+$ ]] || fail "libfuzzer-plain: first crash '$c'"
execs=$(sed -n 's/^execs //p' "$plain/result")
last_part=$(grep -a -E '^[0-9.]+ #[0-9]+\s' "$plain/log" | tail -1 | sed 's/^[0-9.]* #\([0-9]*\).*/\1/')
[[ "$execs" =~ ^[0-9]+$ ]] && [ "$execs" -gt "$last_part" ] ||
  fail "libfuzzer-plain: $execs executions, no more than its last part's $last_part"
# A campaign continued later (--first-trial): trial 2 joins the same directory, the report
# counts both; a trial that is there already, or other fuzzers, are refused.
bash "$root/bench/real/run.sh" --no-setup --time=6s --snapshot=2 --speed-time=2 --trials=1 --first-trial=2 \
  --targets=magic4,keyword:coverage,empty --fuzzers=pollen,libfuzzer --out="$results" >/dev/null 2>&1 \
  || fail "run.sh --first-trial=2 failed"
[ -f "$results/keyword/pollen/trial-2/result" ] || fail "no trial 2 after --first-trial=2"
grep -q '^continued .* trials 2-2 ' "$results/meta" || fail "meta has no continued line"
grep -q '^| Pollen | 2 | ' "$report" || fail "the report does not count two Pollen trials"
grep -q '^Continued (run.sh --first-trial)' "$report" || fail "the report does not list the continuation"
if bash "$root/bench/real/run.sh" --no-setup --time=6s --trials=1 --first-trial=2 \
     --targets=magic4,keyword:coverage,empty --fuzzers=pollen,libfuzzer --out="$results" >/dev/null 2>&1; then
  fail "run.sh wrote over trial 2"
fi
if bash "$root/bench/real/run.sh" --no-setup --time=6s --trials=1 --first-trial=3 \
     --targets=magic4,keyword:coverage,empty --fuzzers=pollen --out="$results" >/dev/null 2>&1; then
  fail "run.sh continued a campaign with other fuzzers"
fi
[ ! -e "$results/keyword/pollen/trial-3" ] || fail "a refused continuation left a trial 3"
# long_runs.sh keeps each measured run's records (--keep), and a new machine, with an empty
# OUT, counts them as done: only trial 2 is left to run.
keep=$tmp/records
bash "$root/bench/real/long_runs.sh" --out="$tmp/long" --keep="$keep" --targets=magic4 \
  --fuzzers=pollen,libfuzzer --time=4s --trials=1 --budget=6 >"$tmp/long.log" 2>&1 \
  || fail "long_runs.sh failed: $(tail -3 "$tmp/long.log")"
for f in pollen libfuzzer; do
  for rec in meta magic4/$f/trial-1/result magic4/$f/trial-1/coverage.tsv; do
    [ -s "$keep/magic4-$f/$rec" ] || fail "long_runs.sh kept no $rec for $f"
  done
done
[ "$(find "$keep" -type f | wc -l)" = 6 ] || fail "long_runs.sh kept more than the records: $(find "$keep" -type f)"
dry=$(bash "$root/bench/real/long_runs.sh" --out="$tmp/long-new" --keep="$keep" --targets=magic4 \
  --fuzzers=pollen,libfuzzer --time=4s --trials=2 --budget=6 --dry-run)
grep -q '^done: pollen on magic4, trial 1$' <<<"$dry" || fail "kept records not counted as done: $dry"
grep -q '^pending: 1 Pollen runs, 1 anchor runs, 0 to measure$' <<<"$dry" || fail "long_runs.sh --dry-run: $dry"
# The same OUT again: its records stay, nothing is pending.
again=$(bash "$root/bench/real/long_runs.sh" --out="$tmp/long" --keep="$keep" --targets=magic4 \
  --fuzzers=pollen,libfuzzer --time=4s --trials=1 --budget=6 --dry-run)
grep -q '^pending: 0 Pollen runs, 0 anchor runs, 0 to measure$' <<<"$again" || fail "a second call on OUT: $again"
# A trial opens only if all its runs fit (three runs of 304 s: two rounds, 608 s), and one
# target and fuzzer never runs on both CPUs at once.
plan() { bash "$root/bench/real/long_runs.sh" --out="$tmp/plan" --targets=magic4 --time=4s --dry-run "$@"; }
p=$(plan --fuzzers=pollen,libfuzzer,aflplusplus --trials=1 --budget=10)
! grep -q 'CPU [01]:' <<<"$p" && grep -q '^then waits: magic4 pollen 1 ' <<<"$p" || fail "a trial opened that cannot end: $p"
p=$(plan --fuzzers=pollen,libfuzzer,aflplusplus --trials=1 --budget=11)
[ "$(grep -c 'CPU [01]: magic4' <<<"$p")" = 3 ] || fail "a trial that fits did not open: $p"
p=$(plan --fuzzers=pollen --trials=2 --budget=11)
[ "$(grep -c 'CPU 0: magic4 pollen' <<<"$p")" = 2 ] && ! grep -q 'CPU 1:' <<<"$p" \
  || fail "one target and fuzzer on both CPUs at once: $p"
python3 "$root/bench/real/report.py" "$keep/magic4-pollen" "$keep/magic4-libfuzzer" >/dev/null \
  || fail "report.py cannot read the kept records"
grep -q '^| Pollen | 1 | ' "$keep/magic4-pollen/report.md" || fail "the report of the kept records has no Pollen row"
echo "bench/real suite smoke: OK ($(grep -c '^| Pollen |' "$report") Pollen rows)"
