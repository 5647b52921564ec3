#!/usr/bin/env bash
# The campaign's long runs (an hour each, three trials of Pollen and of both anchors on the
# targets with the most headroom: issue 20) spread over sessions. Each call runs the pending
# runs that fit in --budget minutes, two at a time: Pollen's on one CPU beside an anchor's on
# the other while both kinds wait (a fuzzer beside a fuzzer, never a build: docs/decisions.md,
# tenth session). What a session's end cut short is started again; a run that ended but was
# not measured is measured. Nothing else should run meanwhile.
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
# Usage: bench/real/long_runs.sh --out=DIR [--targets=re2,sqlite3,expat] [--time=60]
#          [--trials=3] [--budget=MINUTES] [--fuzzers=pollen-routines,libfuzzer,aflplusplus]
#          [--cpus=0,1] [--keep=DIR] [--dry-run]
#   --time     minutes per run, or "30s" for seconds (a smoke test)
#   --budget   minutes this call may take (default 150); a run starts only if it can end,
#              measured, within it (its time plus 5 minutes)
#   --dry-run  print what is done, what waits and what this call would start, and stop
# Environment: as run.sh (POLLEN_BUILD_DIR, BENCH_REAL_DIR, POLLEN_FUZZ_FLAGS).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "ERROR: $*" >&2; exit 2; }
out="" keep="" targets=re2,sqlite3,expat minutes=60 trials=3 budget=150 dry=0
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
  cp -R -n "$keep"/. "$out"/
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

# Lanes: Pollen's runs and the anchors' runs, trial by trial, target by target.
pollen_lane=() anchor_lane=() unmeasured=()
for ((k = 1; k <= trials; k++)); do
  for t in "${target_list[@]}"; do
    for f in "${fuzzer_list[@]}"; do
      s=$(state_of "$t" "$f" "$k")
      case $s in
        done) echo "done: $f on $t, trial $k" ;;
        unmeasured) unmeasured+=("$t $f $k") ;;
        pending)
          if [[ $f == pollen* ]]; then pollen_lane+=("$t $f $k"); else anchor_lane+=("$t $f $k"); fi ;;
      esac
    done
  done
done
echo "pending: ${#pollen_lane[@]} Pollen runs, ${#anchor_lane[@]} anchor runs, ${#unmeasured[@]} to measure"

# Measures what ran but was not measured (a session ended during the measurement).
for u in "${unmeasured[@]}"; do
  read -r t f k <<<"$u"
  echo "measuring $f on $t, trial $k"
  [ $dry = 1 ] || { bash "$here/measure.sh" "$out/$t-$f" 2 && save_records "$t" "$f"; }
done

start_s=$(date +%s)
run_s=$((run_seconds + 300))  # the run, then its measurement, with room to spare
fits() { [ $(($(date +%s) - start_s + run_s)) -le $((budget * 60)) ]; }

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

# A lane runs its runs one after the other while they fit; a lane that is empty takes from
# the other, so that both CPUs stay busy (and each run has a fuzzer beside it) while runs
# wait.
next_run=""
take() {  # take LANE (0: Pollen first, 1: anchors first): sets next_run, or "" when none
  next_run=""
  if [ "$1" = 0 ] && [ ${#pollen_lane[@]} -gt 0 ]; then next_run=${pollen_lane[0]}; pollen_lane=("${pollen_lane[@]:1}");
  elif [ ${#anchor_lane[@]} -gt 0 ]; then next_run=${anchor_lane[0]}; anchor_lane=("${anchor_lane[@]:1}");
  elif [ ${#pollen_lane[@]} -gt 0 ]; then next_run=${pollen_lane[0]}; pollen_lane=("${pollen_lane[@]:1}"); fi
}
if [ $dry = 1 ]; then
  n=$(((budget * 60) / run_s))
  echo "would start, on each CPU, up to $n runs of $run_seconds s (budget ${budget} min):"
  for ((i = 0; i < n; i++)); do
    take 0; [ -n "$next_run" ] && echo "  CPU ${cpu_list[0]}: $next_run"
    take 1; [ -n "$next_run" ] && echo "  CPU ${cpu_list[1]}: $next_run"
  done
  exit 0
fi
declare -A lane_pid=()
while :; do
  for lane in 0 1; do
    pid=${lane_pid[$lane]:-}
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then continue; fi
    [ -n "$pid" ] && wait "$pid" || true
    unset "lane_pid[$lane]"
    fits || continue
    take "$lane"
    [ -n "$next_run" ] || continue
    read -r t f k <<<"$next_run"
    run_one "$t" "$f" "$k" "${cpu_list[$lane]}" &
    lane_pid[$lane]=$!
  done
  [ ${#lane_pid[@]} -gt 0 ] || break
  wait -n "${lane_pid[@]}" || true
done
left=$((${#pollen_lane[@]} + ${#anchor_lane[@]}))
echo "this call ended; $left runs wait for the next one"
