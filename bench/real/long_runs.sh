#!/usr/bin/env bash
# The campaign's long runs (an hour each, three trials of Pollen and of both anchors on the
# targets with the most headroom: issue 20) spread over sessions. Each call runs the pending
# runs that fit in --budget minutes, two at a time, a trial's runs (Pollen, libFuzzer, AFL++
# on one target) one after the other (a fuzzer beside a fuzzer, never a build:
# docs/decisions.md, tenth and fourteenth sessions). What a session's end cut short is
# started again; a run that ended but was not measured is measured. Nothing else should run
# meanwhile. A Pollen target older than the build directory's runtime is rebuilt first.
# With hour-long runs, a trial of three needs two rounds (130 minutes) and the
# next trial does not open in the same call: --budget=150 runs three, --budget=195 six.
#
# Results: OUT/TARGET-FUZZER/, one bench/real/run.sh results directory per target and fuzzer,
# trials numbered 1..N (run.sh --first-trial), reported together with
#   bench/real/report.py OUT/*-pollen-routines OUT/*-libfuzzer OUT/*-aflplusplus --pool-anchors
#
# Records: with --keep=DIR, each measured run's small files (OUT/TARGET-FUZZER/meta and its
# trial's result and coverage.tsv: all that report.py reads) are copied into DIR, and DIR's
# records are copied into OUT (never over a file there) before the states are read, so a run
# measured on an earlier machine counts as done on a new one. The project keeps its records
# in bench/results/ (committed; docs/decisions.md), and report.py reads DIR as it reads OUT.
#
# Usage: bench/real/long_runs.sh --out=DIR [--targets=sqlite3,expat,mbedtls] [--time=60]
#          [--trials=3] [--budget=MINUTES] [--fuzzers=pollen-routines,libfuzzer,aflplusplus]
#          [--cpus=0,1] [--keep=DIR] [--dry-run]
#   --time     minutes per run, or "30s" for seconds (a smoke test)
#   --budget   minutes this call may take (default 150); a run starts only if it can end,
#              measured, within it (its time plus 5 minutes), and a trial's first run only
#              if the whole trial can (its runs two at a time)
#   --dry-run  print what is done, what waits and what this call would start, and stop
#              (it creates OUT and restores DIR's records into it, as a real call does)
# Environment: as run.sh (POLLEN_BUILD_DIR, BENCH_REAL_DIR, POLLEN_FUZZ_FLAGS).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "ERROR: $*" >&2; exit 2; }
out="" keep="" targets=sqlite3,expat,mbedtls minutes=60 trials=3 budget=150 dry=0
fuzzers=pollen-routines,libfuzzer,aflplusplus cpus=0,1
for a in "$@"; do
  case "$a" in
    --out=*) out=${a#--out=} ;;
    --targets=*) targets=${a#--targets=} ;;
    --time=*) minutes=${a#--time=} ;;
    --trials=*) trials=${a#--trials=} ;;
    --budget=*) budget=${a#--budget=} ;;
    --fuzzers=*) fuzzers=${a#--fuzzers=} ;;
    --cpus=*) cpus=${a#--cpus=} ;;
    --keep=*) keep=${a#--keep=} ;;
    --dry-run) dry=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $a (see --help)" ;;
  esac
done
[ -n "$out" ] || die "--out=DIR is needed"
for n in "$trials" "$budget"; do [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "bad number $n"; done
if [[ "$minutes" =~ ^[1-9][0-9]*s$ ]]; then
  run_seconds=${minutes%s}
elif [[ "$minutes" =~ ^[1-9][0-9]*$ ]]; then
  run_seconds=$((minutes * 60))
else
  die "bad --time $minutes (minutes, or Ns)"
fi
IFS=, read -r -a cpu_list <<<"$cpus"
[ ${#cpu_list[@]} -eq 2 ] || die "--cpus needs two CPUs"
IFS=, read -r -a target_list <<<"$targets"
IFS=, read -r -a fuzzer_list <<<"$fuzzers"
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  keep=$(cd "$keep" && pwd)
  # Never over a file in OUT (cp -n's exit status differs between coreutils versions).
  while IFS= read -r -d '' rec; do
    rel=${rec#"$keep"/}
    [ -e "$out/$rel" ] && continue
    mkdir -p "$(dirname "$out/$rel")"
    cp "$rec" "$out/$rel"
  done < <(find "$keep" -type f -print0)
fi

# Copies the records of T-F (its meta, and each measured trial's result and coverage.tsv)
# into the --keep directory.
save_records() {  # save_records T F
  [ -n "$keep" ] || return 0
  local dir=$1-$2 cov trial
  [ -f "$out/$dir/meta" ] || return 0
  mkdir -p "$keep/$dir"
  cp "$out/$dir/meta" "$keep/$dir/meta"
  for cov in "$out/$dir/$1/$2"/trial-*/coverage.tsv; do
    [ -f "$cov" ] || continue
    trial=${cov%/coverage.tsv}
    trial=${trial##*/}
    mkdir -p "$keep/$dir/$1/$2/$trial"
    cp "$cov" "$out/$dir/$1/$2/$trial/result" "$keep/$dir/$1/$2/$trial/"
  done
}

# The state of trial K of fuzzer F on target T: done (measured), unmeasured, or pending
# (absent, or cut short: its directory is removed before it runs again).
state_of() {  # state_of T F K
  local run=$out/$1-$2/$1/$2/trial-$3
  if [ -f "$run/coverage.tsv" ] && [ -z "$(find "$run/snapshots" -newer "$run/coverage.tsv" -print -quit 2>/dev/null)" ]; then
    echo done
  elif [ -f "$run/result" ]; then
    echo unmeasured
  else
    echo pending
  fi
}

# The queue: trial by trial, target by target, fuzzer by fuzzer.
queue=() unmeasured=() n_pollen=0 n_anchor=0
for ((k = 1; k <= trials; k++)); do
  for t in "${target_list[@]}"; do
    for f in "${fuzzer_list[@]}"; do
      s=$(state_of "$t" "$f" "$k")
      case $s in
        done) echo "done: $f on $t, trial $k" ;;
        unmeasured) unmeasured+=("$t $f $k") ;;
        pending)
          queue+=("$t $f $k")
          if [[ $f == pollen* ]]; then n_pollen=$((n_pollen + 1)); else n_anchor=$((n_anchor + 1)); fi ;;
      esac
    done
  done
done
echo "pending: $n_pollen Pollen runs, $n_anchor anchor runs, ${#unmeasured[@]} to measure"

# Measures what ran but was not measured (a session ended during the measurement).
for u in "${unmeasured[@]}"; do
  read -r t f k <<<"$u"
  echo "measuring $f on $t, trial $k"
  [ $dry = 1 ] && continue
  if bash "$here/measure.sh" "$out/$t-$f" 2; then
    save_records "$t" "$f"
  else
    echo "FAILED: measuring $f on $t, trial $k"
  fi
done

# A Pollen target missing or older than the build directory's runtime is built before any
# run starts: the runs go through run.sh --no-setup, which would not, and pollen refuses a
# target linked with another protocol or mutator table ("rebuild it").
if [ ${#queue[@]} -gt 0 ]; then
  build=${POLLEN_BUILD_DIR:-$(cd "$here/../.." && pwd)/build}
  bench_out=${BENCH_REAL_DIR:-$build/bench-real}
  for t in "${target_list[@]}"; do
    for f in "${fuzzer_list[@]}"; do
      [[ $f == pollen* ]] || continue
      bin=$bench_out/targets/$t/$f
      if [ ! -x "$bin" ] || [ "$bin" -ot "$build/engine/runtime/libpollen_runtime.a" ]; then
        echo "building $f of $t (missing, or older than the Pollen runtime)"
        [ $dry = 1 ] || bash "$here/build_target.sh" "$t" "$f" || die "building $f of $t failed"
      fi
    done
  done
fi

start_s=$(date +%s)
run_s=$((run_seconds + 300))  # the run, then its measurement, with room to spare
# Whether the queue's first run fits in what is left of the budget after ELAPSED seconds: its
# own time and measurement, or, when it opens a trial none of whose runs is done or started,
# the whole trial's on two CPUs (a CPU idles rather than start a trial this call cannot end).
fits_next() {  # fits_next ELAPSED
  [ ${#queue[@]} -gt 0 ] || return 1
  local t k r rt rk m=0 slots=1
  read -r t _ k <<<"${queue[0]}"
  for r in "${queue[@]}"; do
    read -r rt _ rk <<<"$r"
    [ "$rt" = "$t" ] && [ "$rk" = "$k" ] && m=$((m + 1))
  done
  [ "$m" = "${#fuzzer_list[@]}" ] && slots=$(((m + 1) / 2))
  [ $(($1 + slots * run_s)) -le $((budget * 60)) ]
}

# One run: T F K on CPU C, in its own run.sh results directory, pinned to C (the
# measurement too).
run_one() {  # run_one T F K C
  local t=$1 f=$2 k=$3 c=$4 dir=$out/$1-$2 first
  if [ "$k" = 1 ]; then
    rm -rf "$dir"  # trial 1 cut short: nothing else can be in it (trials run in order)
    first=(--trials=1)
  else
    rm -rf "$dir/$t/$f/trial-$k" "$dir/$t/$f/trial-$k.stdout"
    first=(--first-trial="$k" --trials=1)
  fi
  echo "$(date -u +%H:%M:%S) start: $f on $t, trial $k, CPU $c"
  taskset -c "$c" bash "$here/run.sh" --no-setup --targets="$t" --fuzzers="$f" --time="$minutes" \
    "${first[@]}" --cpus="$c" --out="$dir" >"$out/$t-$f-trial-$k.log" 2>&1 ||
    echo "$(date -u +%H:%M:%S) FAILED: $f on $t, trial $k (see $out/$t-$f-trial-$k.log)"
  save_records "$t" "$f"
  echo "$(date -u +%H:%M:%S) end: $f on $t, trial $k"
}

# The runs go in one queue, trial by trial, target by target, fuzzer by fuzzer, and each CPU
# takes the next one when it is free: a target's trial (Pollen, libFuzzer, AFL++) runs in
# one stretch of time, on one machine, each run beside another fuzzer's. Sessions may run on
# different machines (2026-11-27: an Intel Xeon after AMD EPYC), so a trial's three runs
# must not be spread over sessions (docs/decisions.md).
# Two runs of one target and fuzzer never run at once (they share a results directory, and
# the measurement reads all of it): a CPU waits instead. BUSY is the other CPU's "T F".
busy_with() {  # busy_with BUSY: whether the queue's first run is of BUSY's target and fuzzer
  [ ${#queue[@]} -gt 0 ] && [ -n "$1" ] || return 1
  local t f
  read -r t f _ <<<"${queue[0]}"
  [ "$t $f" = "$1" ]
}
next_run=""
take() {  # take: sets next_run to the queue's first run and removes it, or "" when none
  next_run=""
  if [ ${#queue[@]} -gt 0 ]; then next_run=${queue[0]}; queue=("${queue[@]:1}"); fi
}
if [ $dry = 1 ]; then
  n=$(((budget * 60) / run_s))
  echo "would start, on each CPU, up to $n runs of $run_seconds s (budget ${budget} min):"
  for ((i = 0; i < n; i++)); do
    other=""
    for c in "${cpu_list[@]}"; do
      fits_next $((i * run_s)) || continue
      busy_with "$other" && continue
      take; echo "  CPU $c: $next_run"
      read -r t f _ <<<"$next_run"
      other="$t $f"
    done
  done
  [ ${#queue[@]} -eq 0 ] || echo "then waits: ${queue[0]} (it, or its whole trial, does not fit in the budget)"
  exit 0
fi
declare -A lane_pid=() lane_run=()
while :; do
  for lane in 0 1; do
    pid=${lane_pid[$lane]:-}
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then continue; fi
    [ -n "$pid" ] && wait "$pid" || true
    unset "lane_pid[$lane]"
    lane_run[$lane]=""
    fits_next $(($(date +%s) - start_s)) || continue
    busy_with "${lane_run[$((1 - lane))]:-}" && continue
    take
    read -r t f k <<<"$next_run"
    run_one "$t" "$f" "$k" "${cpu_list[$lane]}" &
    lane_pid[$lane]=$!
    lane_run[$lane]="$t $f"
  done
  [ ${#lane_pid[@]} -gt 0 ] || break
  wait -n "${lane_pid[@]}" || true
done
left=${#queue[@]}
echo "this call ended; $left runs wait for the next one"
[ "$left" -eq 0 ] || echo "next: ${queue[0]} (it, or its whole trial, did not fit in what was left of the budget)"
