#!/usr/bin/env bash
# Runs one fuzzer on one benchmark target, pinned to one CPU, and keeps a snapshot of its
# corpus at fixed intervals. Called by bench/real/run.sh; usable alone.
#
# Usage: bench/real/run_one.sh FUZZER TARGET_DIR OUT_DIR CPU SECONDS SNAPSHOT_S MODE
#   FUZZER      pollen | pollen-routines (the target built with Pollen's compiler pass) |
#               libfuzzer (with -fork=1, as FuzzBench) | libfuzzer-plain (in-process, no
#               -fork, restarted on its corpus after a crash: bench/real/libfuzzer_plain.sh)
#               | aflplusplus (AFL++ with its CmpLog binary, as FuzzBench)
#               | afl (AFL++ without CmpLog)
#   TARGET_DIR  build/bench-real/targets/NAME (binaries, seeds/, dict, afl-dict2file.dict)
#   OUT_DIR     created; must not exist
#   CPU         the CPU the fuzzer and all its processes are pinned to (taskset)
#   SECONDS     how long the fuzzer runs
#   SNAPSHOT_S  seconds between corpus snapshots (OUT_DIR/snapshots/NNNNNN: the corpus as it
#               was NNNNNN seconds after the start); a last one is taken when the fuzzer stops
#   MODE        coverage: go on after crashes (Pollen --keep-going, libFuzzer -ignore_crashes,
#               AFL++ AFL_SKIP_CRASHES) for the whole time
#               bug: stop at the first crash (the time is a limit)
#               speed: like coverage, no snapshots but the last one (exec/s of the empty harness)
#
# Environment: POLLEN_CLI (the pollen command; default build/cli/pollen), POLLEN_BUILD_DIR,
# POLLEN_FUZZ_FLAGS (extra flags for pollen fuzz, split on spaces).
# Writes OUT_DIR/log (the fuzzer's output, each line prefixed with the seconds since the start)
# and OUT_DIR/result, lines of "key value": fuzzer, seconds (how long it really ran), execs,
# exec_per_s (from the fuzzer's own statistics), first_crash_s (seconds to the first crash, or
# "-"), corpus (entries in the last snapshot).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
# run.sh copies the CLI into the results directory so that a rebuild during the runs
# changes nothing.
pollen_cli=${POLLEN_CLI:-$build/cli/pollen}
[ $# -eq 7 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
fuzzer=$1 d=$2 out=$3 cpu=$4 T=$5 snap=$6 mode=$7
case "$mode" in coverage | bug | speed) ;; *) echo "ERROR: unknown mode $mode" >&2; exit 2 ;; esac
[ ! -e "$out" ] || { echo "ERROR: $out exists" >&2; exit 2; }
mkdir -p "$out/snapshots"
work=$out/work
mkdir -p "$work"

# The fuzzer's command line, in the configuration FuzzBench uses (../shared/deps.md) for
# libFuzzer and AFL++, and the way docs/usage.md tells users to run Pollen.
cmd=() env_vars=()
dict=""; [ -f "$d/dict" ] && dict=$d/dict
case "$fuzzer" in
  pollen | pollen-routines)
    bin=$d/$fuzzer
    cmd=("$pollen_cli" fuzz "$bin" "$d/seeds" --workers=1 --time="$T" --workdir="$work/pollen")
    [ -n "$dict" ] && cmd+=("--dict=$dict")
    [ "$mode" = bug ] || cmd+=(--keep-going)
    # POLLEN_FUZZ_FLAGS: extra flags for the variant measured (e.g. --use-value-profile).
    read -r -a extra_flags <<<"${POLLEN_FUZZ_FLAGS:-}"
    cmd+=("${extra_flags[@]}")
    corpus_of() { "$pollen_cli" corpus export "$work/pollen" "$1" >/dev/null 2>&1; } ;;
  libfuzzer | libfuzzer-plain)
    bin=$d/libfuzzer
    mkdir -p "$work/corpus" "$work/artifacts"
    lf_flags=(-entropic=1 -keep_seed=1 -cross_over_uniform_dist=1 -entropic_scale_per_exec_time=1
              -detect_leaks=0 -rss_limit_mb=2560 -timeout=25 -close_fd_mask=3
              -artifact_prefix="$work/artifacts/")
    [ -n "$dict" ] && lf_flags+=("-dict=$dict")
    lf_flags+=("$work/corpus" "$d/seeds")
    if [ "$fuzzer" = libfuzzer ]; then
      cmd=("$bin" -fork=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$T")
      [ "$mode" = bug ] || cmd+=(-ignore_crashes=1)
      cmd+=("${lf_flags[@]}")
      corpus_of() { cp -r "$work/corpus/." "$1/" 2>/dev/null; }
    else
      # In process the -ignore_* flags have no effect: the wrapper starts libFuzzer again
      # after a crash instead (in bug mode it stops at the first).
      restart=1
      [ "$mode" = bug ] && restart=0
      cmd=(bash "$root/bench/real/libfuzzer_plain.sh" "$T" "$restart" "$bin" "${lf_flags[@]}")
      # In-process libFuzzer deletes an entry when it finds a smaller one with the same
      # features (-reduce_inputs): a file gone during the copy is not an error.
      corpus_of() {
        find "$work/corpus" -maxdepth 1 -type f -exec cp -t "$1/" {} + 2>/dev/null
        return 0
      }
    fi ;;
  afl | aflplusplus)
    bin=$d/afl
    cmd=(afl-fuzz -i "$d/seeds" -o "$work/afl" -m none -V "$T")
    [ -n "$dict" ] && cmd+=(-x "$dict")
    [ -f "$d/afl-dict2file.dict" ] && cmd+=(-x "$d/afl-dict2file.dict")
    [ "$fuzzer" = aflplusplus ] && cmd+=(-c "$d/afl-cmplog" -l 2)
    cmd+=(-- "$bin")
    env_vars=(AFL_FAST_CAL=1 AFL_CMPLOG_ONLY_NEW=1 AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1
              AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_SKIP_CRASHES=1)
    [ "$mode" = bug ] && env_vars+=(AFL_BENCH_UNTIL_CRASH=1)
    corpus_of() {
      local q=$work/afl/default/queue
      [ -d "$q" ] && find "$q" -maxdepth 1 -type f -name 'id:*' -exec cp -t "$1/" {} +
      return 0
    } ;;
  *) echo "ERROR: unknown fuzzer $fuzzer" >&2; exit 2 ;;
esac
[ -x "$bin" ] || { echo "ERROR: $bin missing: bench/real/build_target.sh $(basename "$d")" >&2; exit 1; }
[ "$fuzzer" != aflplusplus ] || [ -x "$d/afl-cmplog" ] || { echo "ERROR: $d/afl-cmplog missing" >&2; exit 1; }

start=$(perl -MTime::HiRes=time -e 'printf "%.3f", time')
# Each output line gets the seconds since the start (time to first crash for Pollen, whose
# artifact is written only after minimization).
env "${env_vars[@]}" taskset -c "$cpu" "${cmd[@]}" </dev/null 2>&1 |
  perl -MTime::HiRes=time -ne 'BEGIN { $| = 1 } printf "%.3f %s", time - '"$start"', $_' \
  >"$out/log" &
fuzz_pid=$!

take_snapshot() {  # take_snapshot SECONDS: fails, leaving no snapshot, if the copy fails
  local s
  s=$out/snapshots/$(printf '%06d' "$1")
  rm -rf "$s.tmp" && mkdir -p "$s.tmp"
  # A copy can fail while the fuzzer stops (Pollen's store is being closed): an empty
  # snapshot would be measured as a corpus of nothing, so none is kept, and the last one
  # is taken again once the fuzzer has exited.
  if corpus_of "$s.tmp"; then
    mv "$s.tmp" "$s"
  else
    rm -rf "$s.tmp"
    return 1
  fi
}
# Snapshots at fixed offsets from the start (the benchmark's clock, not synchronisation).
if [ "$mode" != speed ]; then
  k=1
  while kill -0 "$fuzz_pid" 2>/dev/null; do
    due=$(perl -e "printf '%.3f', $start + $k * $snap")
    now=$(perl -MTime::HiRes=time -e 'printf "%.3f", time')
    wait_s=$(perl -e "printf '%.3f', $due - $now")
    if perl -e "exit !($wait_s > 0)"; then
      # Wake up early if the fuzzer stops.
      timeout "$wait_s" tail --pid="$fuzz_pid" -s 0.1 -f /dev/null 2>/dev/null || true
      kill -0 "$fuzz_pid" 2>/dev/null || break
    fi
    take_snapshot $((k * snap)) || echo "bench/real: snapshot at $((k * snap)) s failed (retried at the end if it is the last)" >&2
    k=$((k + 1))
  done
fi
wait "$fuzz_pid" || true
end=$(perl -MTime::HiRes=time -e 'printf "%.3f", time')
elapsed=$(perl -e "printf '%.1f', $end - $start")
final=$(perl -e "printf '%d', $end - $start + 0.5")
[ -d "$out/snapshots/$(printf '%06d' "$final")" ] || take_snapshot "$final" ||
  echo "bench/real: the last snapshot of $out failed" >&2

# exec/s from the fuzzer's own statistics.
execs="-" eps="-" first_crash="-"
case "$fuzzer" in
  pollen | pollen-routines)
    # "  executions:   2815 in 0.2 s (13154 exec/s)"
    line=$(grep -a 'executions:' "$out/log" | tail -1 || true)
    execs=$(sed -n 's/.*executions: *\([0-9]*\) in.*/\1/p' <<<"$line")
    eps=$(sed -n 's/.*(\([0-9]*\) exec\/s).*/\1/p' <<<"$line")
    first_crash=$(grep -a -m1 -E 'FAILURE|ERROR: pollen' "$out/log" | cut -d' ' -f1 || true) ;;
  libfuzzer | libfuzzer-plain)
    if [ "$fuzzer" = libfuzzer ]; then
      # fork mode: "#123456: cov: 1 ft: 2 corp: 3 exec/s 4567 oom/timeout/crash: 0/0/0 time: 9s ..."
      # The exec/s there is the last job's alone; the run's figure is executions over time.
      line=$(grep -a -E '#[0-9]+:? .*cov: .* exec/s:? [0-9]' "$out/log" | tail -1 || true)
      execs=$(sed -n 's/^[0-9.]* #\([0-9]*\).*/\1/p' <<<"$line")
      eps=$(sed -n 's/.* exec\/s:\{0,1\} \([0-9]*\).*/\1/p' <<<"$line")
      secs=$(sed -n 's/.* time: \([0-9]*\)s .*/\1/p' <<<"$line")
      if [ -n "$execs" ] && [ -n "$secs" ] && [ "$secs" -gt 0 ]; then eps=$((execs / secs)); fi
    else
      # In process: "#123456 NEW cov: ... exec/s: 4567 rss: ..." for each part of the run (the
      # wrapper prints "bench/real: libFuzzer restarted" between them): executions are the
      # sum of the parts' last counts, exec/s executions over the run's time.
      execs=$(perl -ne 'if (/bench\/real: libFuzzer restarted/) { $sum += $last; $last = 0 }
                        elsif (/^[0-9.]+ #(\d+)\s/) { $last = $1 }
                        END { $sum += $last; print $sum if $sum }' "$out/log")
      [ -z "$execs" ] || eps=$(perl -e "printf '%d', $execs / ($elapsed > 0.001 ? $elapsed : 0.001)")
    fi
    c=$(ls -1tr "$work/artifacts/" 2>/dev/null | grep -E '^crash-' | head -1 || true)
    [ -z "$c" ] || first_crash=$(perl -MTime::HiRes=stat -e "printf '%.3f', (stat('$work/artifacts/$c'))[9] - $start") ;;
  afl | aflplusplus)
    st=$work/afl/default/fuzzer_stats
    if [ -f "$st" ]; then
      # execs_per_sec: executions over the time since the start (AFL++ 4.04c).
      execs=$(sed -n 's/^execs_done *: *//p' "$st")
      eps=$(sed -n 's/^execs_per_sec *: *\([0-9]*\).*/\1/p' "$st")
    fi
    c=$(ls -1 "$work/afl/default/crashes/" 2>/dev/null | grep '^id:' | head -1 || true)
    [ -z "$c" ] || first_crash=$(perl -MTime::HiRes=stat -e "printf '%.3f', (stat('$work/afl/default/crashes/$c'))[9] - $start") ;;
esac
[ -n "$first_crash" ] || first_crash="-"
# Runs shorter than a second (a crash found at once) report 0 exec/s: executions over the
# seconds measured here instead.
if [ "${eps:-0}" = 0 ] && [ -n "${execs:-}" ] && [ "$execs" != "-" ]; then
  eps=$(perl -e "printf '%d', $execs / ($elapsed > 0.001 ? $elapsed : 0.001)")
fi
last=$(ls -1 "$out/snapshots" | tail -1)
corpus=$(find "$out/snapshots/$last" -maxdepth 1 -type f | wc -l)
{
  echo "fuzzer $fuzzer"
  echo "seconds $elapsed"
  echo "execs ${execs:--}"
  echo "exec_per_s ${eps:--}"
  echo "first_crash_s $first_crash"
  echo "corpus $corpus"
} >"$out/result"
# The fuzzer's own work directory is large (AFL's queue metadata, Pollen's store); the
# snapshots are what is measured.
[ -n "${BENCH_KEEP_WORK:-}" ] || rm -rf "$work"
[ "${eps:--}" != "-" ] || { echo "ERROR: $fuzzer on $d: no statistics; see $out/log" >&2; tail -5 "$out/log" >&2; exit 1; }
