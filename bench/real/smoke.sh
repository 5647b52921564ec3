#!/usr/bin/env bash
# Checks that the binaries bench/real/build_target.sh built for a target run: a short run of
# each fuzzer from the target's seeds with its dictionary, and a coverage measurement of the
# seeds. Prints one line per fuzzer: exec/s and coverage as the fuzzer itself reports them
# (Pollen: edges; libFuzzer: cov; AFL++: edges_found/total_edges), and llvm-cov's branch and
# line coverage of the seeds. Numbers from a few seconds on a shared machine only show that
# things work: they are not benchmark results.
#
# Usage: bench/real/smoke.sh NAME [--time=S]     (default 20 s per fuzzer)
# Exits non-zero if a binary is missing or a run fails (a crash found is not a failure).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
out=${BENCH_REAL_DIR:-$build/bench-real}
T=20
name=""
for a in "$@"; do
  case "$a" in
    --time=*) T=${a#--time=} ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) name=$a ;;
  esac
done
[ -n "$name" ] || { echo "usage: $0 NAME [--time=S]" >&2; exit 2; }
d=$out/targets/$name
[ -d "$d" ] || { echo "ERROR: $d missing: run bench/real/build_target.sh $name" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_real_smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dict_args=() afl_dicts=()
if [ -f "$d/dict" ]; then dict_args=("--dict=$d/dict"); afl_dicts+=(-x "$d/dict"); fi
[ -f "$d/afl-dict2file.dict" ] && afl_dicts+=(-x "$d/afl-dict2file.dict")
status=0
report() { printf '%-8s %-11s %s\n' "$name" "$1" "$2"; }

# Pollen, as docs/usage.md tells users to run it.
if [ -x "$d/pollen" ]; then
  "$build/cli/pollen" fuzz "$d/pollen" "$d/seeds" --workers=1 --time="$T" "${dict_args[@]}" \
    --workdir="$tmp/pollen" >"$tmp/pollen.log" 2>&1 || true
  if grep -q 'executions:' "$tmp/pollen.log"; then
    ex=$(sed -n 's/.*executions: *[0-9]* in [0-9.]* s (\([0-9]*\) exec\/s).*/\1/p' "$tmp/pollen.log")
    ed=$(sed -n 's/.*coverage: *\([0-9]*\) edges.*/\1/p' "$tmp/pollen.log")
    res=$(sed -n 's/== pollen summary: \(.*\) ==/\1/p' "$tmp/pollen.log")
    report pollen "exec/s=$ex edges=$ed ($res)"
  else
    report pollen "FAILED"; tail -5 "$tmp/pollen.log"; status=1
  fi
else report pollen "missing"; status=1; fi

# libFuzzer, with FuzzBench's resource flags; new inputs go to a scratch corpus.
if [ -x "$d/libfuzzer" ]; then
  lf_dict=(); [ -f "$d/dict" ] && lf_dict=("-dict=$d/dict")
  mkdir -p "$tmp/lf"
  "$d/libfuzzer" -max_total_time="$T" -print_final_stats=1 -detect_leaks=0 -rss_limit_mb=2560 \
    -timeout=25 "${lf_dict[@]}" -artifact_prefix="$tmp/lf-" "$tmp/lf" "$d/seeds" \
    >"$tmp/lf.log" 2>&1 || true
  if grep -q 'stat::number_of_executed_units' "$tmp/lf.log"; then
    ex=$(sed -n 's/stat::average_exec_per_sec: *//p' "$tmp/lf.log")
    cov=$(grep -aoE 'cov: [0-9]+' "$tmp/lf.log" | tail -1 | cut -d' ' -f2)
    crash=""; ls "$tmp"/lf-crash-* >/dev/null 2>&1 && crash=" (crash found)"
    report libfuzzer "exec/s=$ex cov=$cov$crash"
  else
    report libfuzzer "FAILED"; tail -5 "$tmp/lf.log"; status=1
  fi
else report libfuzzer "missing"; status=1; fi

# AFL++, persistent mode through libAFLDriver; then with the CmpLog binary (-c, -l 2).
run_afl() {  # run_afl LABEL EXTRA_ARGS...
  local label=$1; shift
  AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 \
  AFL_FAST_CAL=1 AFL_CMPLOG_ONLY_NEW=1 AFL_SKIP_CRASHES=1 \
    timeout $((T + 120)) afl-fuzz -V "$T" -i "$d/seeds" -o "$tmp/$label" "${afl_dicts[@]}" "$@" \
    -- "$d/afl" >"$tmp/$label.log" 2>&1 || true
  local st=$tmp/$label/default/fuzzer_stats
  if [ -f "$st" ]; then
    local ex ef te cr
    ex=$(sed -n 's/^execs_per_sec *: *//p' "$st"); ef=$(sed -n 's/^edges_found *: *//p' "$st")
    te=$(sed -n 's/^total_edges *: *//p' "$st"); cr=$(sed -n 's/^saved_crashes *: *//p' "$st")
    report "$label" "exec/s=$ex edges=$ef/$te crashes=$cr"
  else
    report "$label" "FAILED"; tail -5 "$tmp/$label.log"; status=1
  fi
}
if [ -x "$d/afl" ]; then run_afl afl; else report afl "missing"; status=1; fi
if [ -x "$d/afl" ] && [ -x "$d/afl-cmplog" ]; then run_afl afl-cmplog -c "$d/afl-cmplog" -l 2
else report afl-cmplog "missing"; status=1; fi

# Coverage of the seeds with the coverage build.
if [ -x "$d/cov" ]; then
  LLVM_PROFILE_FILE="$tmp/prof/cov-%p.profraw" "$d/cov" -timeout=25 -close_fd_mask=3 "$d/seeds" \
    >"$tmp/cov.log" 2>&1 || true
  if ls "$tmp"/prof/*.profraw >/dev/null 2>&1 &&
     llvm-profdata-14 merge -sparse "$tmp"/prof/*.profraw -o "$tmp/cov.profdata" 2>>"$tmp/cov.log"; then
    tot=$(llvm-cov-14 report "$d/cov" -instr-profile="$tmp/cov.profdata" 2>>"$tmp/cov.log" | grep '^TOTAL')
    # TOTAL regions missed % functions missed % lines missed % branches missed %
    read -r _ _ _ _ _ _ _ lines lmiss lpct br bmiss bpct <<<"$tot"
    report cov "seeds: branches $((br - bmiss))/$br ($bpct), lines $((lines - lmiss))/$lines ($lpct); $(tail -1 "$tmp/cov.log")"
  else
    report cov "FAILED"; tail -5 "$tmp/cov.log"; status=1
  fi
else report cov "missing"; status=1; fi
exit $status
