#!/usr/bin/env bash
# Executions per second of Pollen against libFuzzer, example by example, on one core.
#
# Usage: bench/exec_speed.sh [--smoke] [--time=T] [--trials=N] [--fork] [EXAMPLE...]
#   EXAMPLE...   names from examples/*.cc (default: all of them, empty.cc included)
#   --time=T     seconds each fuzzer runs on each example (default $POLLEN_BENCH_TIME, else 20)
#   --trials=N   runs of each fuzzer on each example, alternating (default 1); the table gives
#                the median, and with N > 1 the lowest and highest run and the spread
#                ((highest - lowest) / median)
#   --fork       also runs libFuzzer with -fork=1 (as bench/real/ does, FuzzBench's way), a
#                column of its own: fork mode restarts a child process for every job
#   --smoke      T=1, 2 trials, on empty and keyword only; fails unless both fuzzers ran
#                (ctest: bench)
# Environment:
#   POLLEN_BUILD_DIR   build directory (default ./build); configured once by scripts/build.sh,
#                      never reconfigured here, so ctest can point it at its own build
#   POLLEN_BENCH_TIME  default for --time
#   POLLEN_BENCH_CPU   the one CPU both fuzzers are pinned to with taskset (default 0)
#
# For each example, two binaries are built into $POLLEN_BUILD_DIR/bench/ from the same source
# with the same flags (-O2 -g -DPOLLEN_DISARM_PLANTED_BUGS, plus -fsanitize=address for
# heap_overflow): <example>_libfuzzer with -fsanitize=fuzzer, and <example>_pollen with
# -fsanitize=fuzzer-no-link linked against the Pollen runtime exactly like examples/ (the link
# libraries are read from the generated build.ninja). The planted bugs are disarmed
# (examples/planted_bug.h): both fuzzers stop at the first failure, and a benchmark needs
# both to run for the whole T seconds. The fuzzers then run one after the other, never in
# parallel, from an empty corpus, pinned to the same CPU. exec/s is executions over the
# seconds each fuzzer really ran: Pollen's own summary line for Pollen, the process's
# wall-clock time for libFuzzer (see run_libfuzzer).
#
# Prints a plain table and the same table as Markdown (for docs) on stdout; progress goes to
# stderr. Exits non-zero only if something failed to build or run, never because of a ratio:
# this is a benchmark, not a test.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
time_s=${POLLEN_BENCH_TIME:-20}
cpu=${POLLEN_BENCH_CPU:-0}
smoke=0
trials=1
fork=0
examples=()
original_args=("$@")

for arg in "$@"; do
  case "$arg" in
    --smoke) smoke=1 ;;
    --time=*) time_s=${arg#--time=} ;;
    --trials=*) trials=${arg#--trials=} ;;
    --fork) fork=1 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "ERROR: unknown flag $arg (see --help)" >&2
      exit 2
      ;;
    *) examples+=("$arg") ;;
  esac
done
if [ "$smoke" = 1 ]; then
  time_s=1
  trials=2
  [ ${#examples[@]} -gt 0 ] || examples=(empty keyword)
fi
if ! [[ "$time_s" =~ ^[1-9][0-9]*$ ]]; then
  echo "ERROR: the time must be a whole number of seconds >= 1, got '$time_s'" >&2
  exit 2
fi
if ! [[ "$trials" =~ ^[1-9][0-9]*$ ]]; then
  echo "ERROR: --trials takes a whole number >= 1, got '$trials'" >&2
  exit 2
fi
if [ ${#examples[@]} -eq 0 ]; then
  for f in "$root"/examples/*.cc; do examples+=("$(basename "$f" .cc)"); done
fi
for ex in "${examples[@]}"; do
  [ -f "$root/examples/$ex.cc" ] || { echo "ERROR: no examples/$ex.cc" >&2; exit 2; }
done

log() { echo "exec_speed: $*" >&2; }

# --- Build -------------------------------------------------------------------------------
log "building pollen and the runtime in $build"
POLLEN_BUILD_DIR=$build bash "$root/scripts/build.sh" pollen pollen_runtime pollen_engine pollen_base \
  pollen_schema >&2
pollen=$build/cli/pollen

# The libraries of the Pollen link line, exactly as CMake links the examples: everything after
# "-o examples/empty_fuzzer" in the generated command (whole-archive runtime, engine, base, schema,
# capnp/kj). Relative paths there are relative to the build directory.
link_cmd=$(ninja -C "$build" -t commands empty | tail -1)
pollen_libs=$(sed -n 's|.* -o examples/empty_fuzzer \(.*\) && :$|\1|p' <<<"$link_cmd")
if [ -z "$pollen_libs" ] || [[ "$pollen_libs" != *libpollen_runtime.a* ]]; then
  echo "ERROR: could not read the link line of examples/empty_fuzzer from $build/build.ninja:" >&2
  echo "  $link_cmd" >&2
  exit 1
fi
read -r -a pollen_lib_args <<<"$pollen_libs"

# Several invocations may run at once (ctest runs the smoke mode while someone runs the full
# benchmark): each one builds, runs and logs in its own temporary directory, and only then
# publishes its binaries and logs into $out with renames, so one never reads or runs
# another's files.
out=$build/bench
mkdir -p "$out/logs"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pollen_exec_speed.XXXXXX")
mkdir -p "$tmp/bin" "$tmp/logs"
publish() {  # copies FILE into DIR under a temporary name, then renames it over the old one
  cp -f "$1" "$2/.$(basename "$1").$$" && mv -f "$2/.$(basename "$1").$$" "$2/$(basename "$1")"
}
cleanup() {
  for f in "$tmp"/logs/*; do
    if [ -e "$f" ]; then publish "$f" "$out/logs" || true; fi
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cxx=clang++-14
base_flags=(-O2 -g -DPOLLEN_DISARM_PLANTED_BUGS)

failed=()
declare -A built
for ex in "${examples[@]}"; do
  extra=""
  [ "$ex" = heap_overflow ] && extra=",address"
  log "compiling $ex"
  blog=$tmp/logs/$ex.build.log
  if "$cxx" "${base_flags[@]}" -fsanitize=fuzzer$extra "$root/examples/$ex.cc" \
      -o "$tmp/bin/${ex}_libfuzzer" >"$blog" 2>&1 &&
    "$cxx" "${base_flags[@]}" -fsanitize=fuzzer-no-link$extra -c "$root/examples/$ex.cc" \
      -o "$tmp/bin/$ex.o" >>"$blog" 2>&1 &&
    (cd "$build" && "$cxx" "${base_flags[@]}" -fsanitize=fuzzer-no-link$extra "$tmp/bin/$ex.o" \
      -o "$tmp/bin/${ex}_pollen" "${pollen_lib_args[@]}") >>"$blog" 2>&1; then
    built[$ex]=1
    publish "$tmp/bin/${ex}_libfuzzer" "$out"
    publish "$tmp/bin/${ex}_pollen" "$out"
  else
    log "FAILED to build $ex (log: $out/logs/$ex.build.log):"
    sed 's/^/  /' "$blog" >&2
    failed+=("$ex: build")
  fi
done

# --- Run -----------------------------------------------------------------------------------
# Each run prints "EXECUTIONS SECONDS" on stdout, or nothing if it failed.
#
# libFuzzer's seconds are the process's wall-clock time, measured here, not T: libFuzzer
# stops when its whole-second clock is *above* -max_total_time (FuzzerInternal.h,
# TimedOut(): secondsSinceProcessStartUp() > MaxTotalTimeSec), so it runs T+1 s ("Done N
# runs in 21 second(s)" for T=20), and N/T would overstate its speed by (T+1)/T: 5% at
# T=20, 2x in the smoke mode.
run_libfuzzer() {  # EXAMPLE [fork]
  local ex=$1 mode=${2:-} logf=$tmp/logs/$1.libfuzzer${2:+-$2}.log start end corpus
  local fork_args=()
  corpus=$tmp/$ex.libfuzzer${mode:+-$mode}_corpus.$RANDOM
  mkdir -p "$corpus"
  [ "$mode" = fork ] && fork_args=(-fork=1 -ignore_crashes=1)
  start=$(date +%s%N)
  if ! taskset -c "$cpu" "$tmp/bin/${ex}_libfuzzer" "${fork_args[@]}" -max_total_time="$time_s" \
      -print_final_stats=1 -close_fd_mask=3 -detect_leaks=0 -rss_limit_mb=2048 -timeout=10 \
      "$corpus" >"$logf" 2>&1; then
    log "FAILED: libFuzzer${mode:+ -$mode=1} on $ex exited with an error (log: $out/logs/$(basename "$logf"))"
    return 0
  fi
  end=$(date +%s%N)
  local n
  if [ "$mode" = fork ]; then
    # The parent's status lines count the executions of the jobs that ended:
    # "#123456: cov: 1 ft: 2 corp: 3 exec/s 4567 oom/timeout/crash: 0/0/0 time: 9s ..."
    n=$(sed -n 's/^#\([0-9][0-9]*\): cov:.*/\1/p' "$logf" | tail -1)
  else
    n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9][0-9]*\).*/\1/p' "$logf" | tail -1)
  fi
  [ -n "$n" ] && echo "$n $(awk -v ns=$((end - start)) 'BEGIN { printf "%.3f", ns / 1e9 }')"
}

run_pollen() {  # EXAMPLE
  local ex=$1 logf=$tmp/logs/$1.pollen.log
  if ! taskset -c "$cpu" "$pollen" fuzz "$tmp/bin/${ex}_pollen" --workers=1 --time="$time_s" \
      --workdir="$tmp/$ex.pollen_workdir.$RANDOM" >"$logf" 2>&1; then
    log "FAILED: pollen on $ex exited with an error (log: $out/logs/$ex.pollen.log)"
    return 0
  fi
  sed -n 's/^ *executions: *\([0-9][0-9]*\) in \([0-9.][0-9.]*\) s.*/\1 \2/p' "$logf" | tail -1
}

rate() {  # EXECUTIONS SECONDS -> exec/s, or "" if no execution was counted
  awk -v n="$1" -v s="$2" 'BEGIN { if (n > 0 && s > 0) printf "%.0f", n / s }'
}

# stats RATE... -> "MEDIAN LOWEST HIGHEST" (nothing for no rate)
stats() {
  [ $# -gt 0 ] || return 0
  printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.0f %d %d", m, v[1], v[NR] }'
}

# Per example, the rates of every trial, space-separated; then "MEDIAN LOWEST HIGHEST".
declare -A lf_rate pl_rate fk_rate
for ex in "${examples[@]}"; do
  [ -n "${built[$ex]:-}" ] || continue
  for ((trial = 1; trial <= trials; trial++)); do
    log "trial $trial/$trials: libFuzzer on $ex for $time_s s (CPU $cpu, load $(cut -d" " -f1 /proc/loadavg))"
    read -r n s <<<"$(run_libfuzzer "$ex")" || true
    r=$(rate "${n:-0}" "${s:-0}")
    if [ -n "$r" ]; then lf_rate[$ex]+=" $r"; else failed+=("$ex: libFuzzer (no executions counted, see $out/logs/$ex.libfuzzer.log)"); fi
    n="" s=""
    if [ "$fork" = 1 ]; then
      log "trial $trial/$trials: libFuzzer -fork=1 on $ex for $time_s s"
      read -r n s <<<"$(run_libfuzzer "$ex" fork)" || true
      r=$(rate "${n:-0}" "${s:-0}")
      if [ -n "$r" ]; then fk_rate[$ex]+=" $r"; else failed+=("$ex: libFuzzer -fork=1 (no executions counted, see $out/logs/$ex.libfuzzer-fork.log)"); fi
      n="" s=""
    fi
    log "trial $trial/$trials: Pollen on $ex for $time_s s (CPU $cpu, load $(cut -d" " -f1 /proc/loadavg))"
    read -r n s <<<"$(run_pollen "$ex")" || true
    r=$(rate "${n:-0}" "${s:-0}")
    if [ -n "$r" ]; then pl_rate[$ex]+=" $r"; else failed+=("$ex: Pollen (no executions counted, see $out/logs/$ex.pollen.log)"); fi
    n="" s=""
  done
  # shellcheck disable=SC2086  # the lists are numbers split on purpose
  { lf_rate[$ex]=$(stats ${lf_rate[$ex]:-}); pl_rate[$ex]=$(stats ${pl_rate[$ex]:-}); fk_rate[$ex]=$(stats ${fk_rate[$ex]:-}); }
done

# --- Report --------------------------------------------------------------------------------
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$root" diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
command="bench/exec_speed.sh${original_args[*]:+ ${original_args[*]}}"
[ -n "${POLLEN_BENCH_TIME:-}" ] && command="POLLEN_BENCH_TIME=$POLLEN_BENCH_TIME $command"
[ -n "${POLLEN_BENCH_CPU:-}" ] && command="POLLEN_BENCH_CPU=$POLLEN_BENCH_CPU $command"

# 1234567 -> 1,234,567 (by hand: printf's %'d depends on the locale).
fmt_rate() { if [ -n "${1:-}" ]; then sed ':a; s/\B[0-9]\{3\}\>/,&/; ta' <<<"$1"; else echo failed; fi; }
ratio() { [ -n "${1:-}" ] && [ -n "${2:-}" ] && awk -v p="$1" -v l="$2" 'BEGIN { printf "%.2f", p / l }' || echo "-"; }

# cell "MEDIAN LOWEST HIGHEST" -> "1,234,567", or with several trials
# "1,234,567 (1,200,000–1,300,000, 8 %)": the lowest and highest run, and the spread.
cell() {
  local m lo hi
  read -r m lo hi <<<"${1:-}"
  if [ -z "${m:-}" ]; then echo failed; return; fi
  if [ "$trials" -gt 1 ]; then
    echo "$(fmt_rate "$m") ($(fmt_rate "$lo")–$(fmt_rate "$hi"), $(awk -v m="$m" -v lo="$lo" -v hi="$hi" \
      'BEGIN { printf "%.0f", 100 * (hi - lo) / m }') %)"
  else
    fmt_rate "$m"
  fi
}
median() { local m; read -r m _ <<<"${1:-}"; echo "${m:-}"; }

cols=("libFuzzer exec/s")
[ "$fork" = 1 ] && cols+=("libFuzzer -fork=1 exec/s")
cols+=("Pollen exec/s" "Pollen/libFuzzer")
[ "$fork" = 1 ] && cols+=("Pollen/libFuzzer -fork=1")
rows=()  # "example|cell|...", as cols
log_sum=0 n_ratios=0
for ex in "${examples[@]}"; do
  name=$ex
  [ "$ex" = heap_overflow ] && name="heap_overflow (ASan)"
  r=$(ratio "$(median "${pl_rate[$ex]:-}")" "$(median "${lf_rate[$ex]:-}")")
  row="$name|$(cell "${lf_rate[$ex]:-}")"
  [ "$fork" = 1 ] && row+="|$(cell "${fk_rate[$ex]:-}")"
  row+="|$(cell "${pl_rate[$ex]:-}")|$r"
  [ "$fork" = 1 ] && row+="|$(ratio "$(median "${pl_rate[$ex]:-}")" "$(median "${fk_rate[$ex]:-}")")"
  rows+=("$row")
  if [ "$r" != "-" ]; then
    log_sum=$(awk -v a="$log_sum" -v r="$r" 'BEGIN { printf "%.6f", a + log(r) }')
    n_ratios=$((n_ratios + 1))
  fi
done
geomean="-"
[ "$n_ratios" -gt 0 ] && geomean=$(awk -v a="$log_sum" -v n="$n_ratios" 'BEGIN { printf "%.2f", exp(a / n) }')

header() {
  echo "date:    $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "machine: $(nproc) CPUs, $cpu_model; the fuzzers pinned to CPU $cpu, one after the other"
  echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min, at the end)"
  echo "commit:  $commit"
  echo "command: $command"
  echo "time:    $time_s s per fuzzer per example, $trials trial(s) each, alternating; flags -O2 -g -DPOLLEN_DISARM_PLANTED_BUGS"
}

echo
echo "exec_speed: executions per second, libFuzzer vs Pollen (one worker), $time_s s each"
header
echo
line() { printf '%-22s' "$1"; shift; printf ' %28s' "$@"; echo; }
line example "${cols[@]}"
for row in "${rows[@]}"; do
  IFS='|' read -r -a c <<<"$row"
  line "${c[@]}"
done
if [ "$fork" = 1 ]; then line "geometric mean" "" "" "" "$geomean"; else line "geometric mean" "" "" "$geomean"; fi

echo
echo "## Execution speed: Pollen vs libFuzzer"
echo
header | sed 's/^\([a-z]*\):  */- \1: /; s/command: \(.*\)/command: `\1`/'
echo
echo "| example | $(IFS='|'; echo "${cols[*]}" | sed 's/|/ | /g') |"
echo "|---$(printf '|---:%.0s' "${cols[@]}")|"
for row in "${rows[@]}"; do
  echo "| $(sed 's/|/ | /g' <<<"$row") |"
done
if [ "$fork" = 1 ]; then echo "| geometric mean | | | | $geomean | |"; else echo "| geometric mean | | | $geomean |"; fi

if [ ${#failed[@]} -gt 0 ]; then
  echo >&2
  log "FAILED:"
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
exit 0
