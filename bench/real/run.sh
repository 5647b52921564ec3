#!/usr/bin/env bash
# The benchmark suite in one command: every fuzzer on every target for T minutes and N trials,
# two runs at a time, each pinned to its own CPU, all from the same seeds; corpus snapshots
# every minute measured with the coverage build; a report with tables and plots.
#
# Usage: bench/real/run.sh [flags]
#   --time=T        minutes per run (default 10); "30s" for seconds
#   --trials=N      trials per fuzzer and target (default 3)
#   --targets=LIST  comma-separated; NAME or NAME:MODE (default libpng,jsoncpp,re2,expat,lz4,sqlite3,mbedtls,libsndfile,zstd,keyword,magic4,empty)
#                   modes: coverage (real targets: run T, go on after crashes), bug (keyword,
#                   magic4: stop at the first crash, T is a limit), speed (empty: exec/s only,
#                   --speed-time seconds)
#   --fuzzers=LIST  comma-separated (default pollen,libfuzzer,aflplusplus; also: afl = AFL++
#                   without CmpLog, pollen-routines = Pollen on a build with its compiler pass,
#                   libfuzzer-plain = libFuzzer in-process, without -fork=1)
#   --snapshot=S    seconds between corpus snapshots (default 60)
#   --speed-time=S  seconds of a speed-mode run (default 60)
#   --cpus=A,B      the two CPUs the runs are pinned to (default 0,1)
#   --out=DIR       results directory (default build/bench-real/results/YYYYMMDD-HHMMSS)
#   --first-trial=K number the trials from K (default 1): K > 1 adds trials to the results
#                   directory of an earlier run.sh with the same --time, --targets and
#                   --fuzzers (a campaign longer than one sitting); its meta gains a
#                   "continued" line, trials already there are never overwritten
#   --no-setup      do not run setup.sh nor build missing targets (they must be there)
#   --docs          write the report into docs/benchmarks.md and the plots into docs/img/
#
# Each run: bench/real/run_one.sh; measurement: bench/real/measure.sh; report:
# bench/real/report.py (RESULTS/report.md, RESULTS/*.svg). The default (9 targets, 3 fuzzers,
# 10 min, 3 trials) takes about 7 h on 2 CPUs, plus the measurement.
# Exits non-zero if a run or the measurement failed; never because of a result.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
out=${BENCH_REAL_DIR:-$build/bench-real}
here=$root/bench/real

T=600 trials=3 first_trial=1 snap=60 speed_time=60 cpus=0,1 results="" setup=1 docs=0
targets=libpng,jsoncpp,re2,expat,lz4,sqlite3,mbedtls,libsndfile,zstd,keyword,magic4,empty
fuzzers=pollen,libfuzzer,aflplusplus
die() { echo "ERROR: $*" >&2; exit 2; }
is_uint() { [[ "$1" =~ ^[0-9]+$ ]]; }
for a in "$@"; do
  case "$a" in
    --time=*s) T=${a#--time=}; T=${T%s}; is_uint "$T" || die "bad $a" ;;
    --time=*) T=${a#--time=}; is_uint "$T" || die "bad $a (minutes, or seconds with s)"; T=$((T * 60)) ;;
    --trials=*) trials=${a#--trials=}; is_uint "$trials" && [ "$trials" -ge 1 ] || die "bad $a" ;;
    --first-trial=*) first_trial=${a#--first-trial=}; is_uint "$first_trial" && [ "$first_trial" -ge 1 ] || die "bad $a" ;;
    --targets=*) targets=${a#--targets=} ;;
    --fuzzers=*) fuzzers=${a#--fuzzers=} ;;
    --snapshot=*) snap=${a#--snapshot=}; is_uint "$snap" && [ "$snap" -ge 1 ] || die "bad $a" ;;
    --speed-time=*) speed_time=${a#--speed-time=}; is_uint "$speed_time" && [ "$speed_time" -ge 1 ] || die "bad $a" ;;
    --cpus=*) cpus=${a#--cpus=} ;;
    --out=*) results=${a#--out=} ;;
    --no-setup) setup=0 ;;
    --docs) docs=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $a (see --help)" ;;
  esac
done
[ "$T" -ge 1 ] || die "--time must be positive"
IFS=, read -r -a cpu_list <<<"$cpus"
[ ${#cpu_list[@]} -ge 1 ] || die "--cpus is empty"
for c in "${cpu_list[@]}"; do is_uint "$c" || die "bad CPU $c"; done
IFS=, read -r -a fuzzer_list <<<"$fuzzers"
for f in "${fuzzer_list[@]}"; do
  case "$f" in pollen | pollen-routines | libfuzzer | libfuzzer-plain | aflplusplus | afl) ;; *) die "unknown fuzzer $f" ;; esac
done
declare -A mode_of=()
target_list=()
IFS=, read -r -a specs <<<"$targets"
for spec in "${specs[@]}"; do
  name=${spec%%:*} mode=""
  [[ "$spec" == *:* ]] && mode=${spec#*:}
  case "$name" in
    libpng | jsoncpp | re2 | expat | lz4 | sqlite3 | mbedtls | libsndfile | zstd) : "${mode:=coverage}" ;;
    keyword | magic4 | puzzle_*) : "${mode:=bug}" ;;
    empty) : "${mode:=speed}" ;;
    *) die "unknown target $name (libpng, jsoncpp, re2, expat, lz4, sqlite3, mbedtls, libsndfile, zstd, keyword, magic4, empty, puzzle_*)" ;;
  esac
  case "$mode" in coverage | bug | speed) ;; *) die "unknown mode $mode in $spec" ;; esac
  target_list+=("$name"); mode_of[$name]=$mode
done
[ -n "$results" ] || results=$out/results/$(date -u +%Y%m%d-%H%M%S)
last_trial=$((first_trial + trials - 1))
if [ "$first_trial" = 1 ]; then
  [ ! -e "$results" ] || [ -z "$(ls -A "$results")" ] || die "$results exists and is not empty"
else
  # Continuing a campaign: the same runs as the one that made the directory.
  [ -f "$results/meta" ] || die "--first-trial=$first_trial needs the results directory of an earlier run ($results/meta missing)"
  was_T=$(sed -n 's/^seconds //p' "$results/meta")
  was_fuzzers=$(sed -n 's/^fuzzers //p' "$results/meta")
  was_targets=$(sed -n 's/^target //p' "$results/meta" | cut -d' ' -f1 | paste -sd,)
  [ "$was_T" = "$T" ] || die "$results has runs of $was_T s, not $T s"
  [ "$was_fuzzers" = "$(IFS=' '; echo "${fuzzer_list[*]}")" ] || die "$results was run with fuzzers $was_fuzzers"
  [ "$was_targets" = "$(IFS=,; echo "${target_list[*]}")" ] || die "$results was run with targets $was_targets"
  for name in "${target_list[@]}"; do
    for f in "${fuzzer_list[@]}"; do
      for ((t = first_trial; t <= last_trial; t++)); do
        [ ! -e "$results/$name/$f/trial-$t" ] || die "$results/$name/$f/trial-$t exists already"
      done
    done
  done
fi
mkdir -p "$results"
results=$(cd "$results" && pwd)

# 1. Packages, sources and binaries (each step skips what is already there).
flavors_for() {  # the binaries the chosen fuzzers need, plus the coverage build
  local f fl=(cov)
  for f in "${fuzzer_list[@]}"; do
    case "$f" in
      pollen | pollen-routines | libfuzzer) fl+=("$f") ;;
      libfuzzer-plain) fl+=(libfuzzer) ;;
      afl) fl+=(afl) ;;
      aflplusplus) fl+=(afl afl-cmplog) ;;
    esac
  done
  printf '%s\n' "${fl[@]}" | sort -u
}
if [ $setup = 1 ]; then
  bash "$here/setup.sh"
  for name in "${target_list[@]}"; do
    missing=()
    for fl in $(flavors_for); do [ -x "$out/targets/$name/$fl" ] || missing+=("$fl"); done
    # A pollen binary linked with an older runtime than the build directory's is rebuilt
    # (a changed shared-memory layout would make every run of it refuse to start).
    for fl in pollen pollen-routines; do
      if [[ " $(flavors_for | tr '\n' ' ') " == *" $fl "* && " ${missing[*]} " != *" $fl "* ]] &&
         [ "$out/targets/$name/$fl" -ot "$build/engine/runtime/libpollen_runtime.a" ]; then
        echo "bench/real: $name/$fl is older than the Pollen runtime: rebuilding it" >&2
        missing+=("$fl")
      fi
    done
    [ ${#missing[@]} -eq 0 ] || bash "$here/build_target.sh" "$name" "${missing[@]}"
  done
fi
for name in "${target_list[@]}"; do
  for fl in $(flavors_for); do
    [ -x "$out/targets/$name/$fl" ] || die "$out/targets/$name/$fl missing: bench/real/build_target.sh $name $fl"
  done
done

# The pollen command used for every run: a copy, so that rebuilding during the runs
# changes nothing.
mkdir -p "$results/bin"
cp "$build/cli/pollen" "$results/bin/pollen"
export POLLEN_CLI=$results/bin/pollen

# 2. What was run, where and how (continuing: one line more).
if [ "$first_trial" != 1 ]; then
  echo "continued $(date -u +%Y-%m-%dT%H:%M:%SZ) trials $first_trial-$last_trial pollen $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo ' (modified)') cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs pollen_flags ${POLLEN_FUZZ_FLAGS:-} command bench/real/run.sh $*" >>"$results/meta"
else
{
  echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "command bench/real/run.sh $*"
  echo "seconds $T"
  echo "trials $trials"
  echo "snapshot $snap"
  echo "speed_time $speed_time"
  echo "fuzzers ${fuzzer_list[*]}"
  for name in "${target_list[@]}"; do echo "target $name ${mode_of[$name]}"; done
  echo "cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
  echo "memory $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "kernel $(uname -r)"
  echo "pollen $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo ' (modified)')"
  echo "pollen_flags ${POLLEN_FUZZ_FLAGS:-}"
  echo "clang $(clang-14 --version | head -1)"
  command -v afl-fuzz >/dev/null && echo "afl++ $(dpkg-query -W -f='${Version}' afl++ 2>/dev/null || echo unknown)"
  for name in "${target_list[@]}"; do
    [ -f "$out/targets/$name/BUILD_INFO" ] && echo "source $name $(sed -n 's/^source: //p' "$out/targets/$name/BUILD_INFO")"
  done
} >"$results/meta"
fi

# 3. The runs: trial by trial, target by target, fuzzer by fuzzer, so that the two runs side
# by side are mostly two fuzzers on the same target. A run starts on a CPU as soon as the
# CPU is free.
jobs=()
for ((t = first_trial; t <= last_trial; t++)); do
  for name in "${target_list[@]}"; do
    for f in "${fuzzer_list[@]}"; do jobs+=("$name $f $t"); done
  done
done
echo "bench/real: ${#jobs[@]} runs on CPUs ${cpu_list[*]}; results in $results" >&2
declare -A core_pid=()   # CPU -> pid of the run on it
declare -A pid_job=()
failed=0
reap_one() {
  local pid rc=0 c
  wait -n -p pid "${core_pid[@]}" || rc=$?
  for c in "${!core_pid[@]}"; do [ "${core_pid[$c]}" = "$pid" ] && unset "core_pid[$c]"; done
  if [ $rc -ne 0 ]; then echo "bench/real: FAILED: ${pid_job[$pid]} (exit $rc)" >&2; failed=1
  else echo "bench/real: done: ${pid_job[$pid]}" >&2; fi
}
n=0
for job in "${jobs[@]}"; do
  read -r name f t <<<"$job"
  while [ ${#core_pid[@]} -ge ${#cpu_list[@]} ]; do reap_one; done
  for c in "${cpu_list[@]}"; do [ -z "${core_pid[$c]:-}" ] && break; done
  mode=${mode_of[$name]}
  secs=$T; [ "$mode" = speed ] && secs=$speed_time
  n=$((n + 1))
  echo "bench/real: [$n/${#jobs[@]}] $f on $name ($mode, ${secs} s, trial $t) on CPU $c" >&2
  mkdir -p "$results/$name/$f"
  bash "$here/run_one.sh" "$f" "$out/targets/$name" "$results/$name/$f/trial-$t" "$c" "$secs" "$snap" "$mode" \
    >"$results/$name/$f/trial-$t.stdout" 2>&1 &
  core_pid[$c]=$!
  pid_job[$!]="$f on $name, trial $t"
done
while [ ${#core_pid[@]} -gt 0 ]; do reap_one; done

# 4. Coverage of every snapshot, then the report.
bash "$here/measure.sh" "$results" "${#cpu_list[@]}" || failed=1
report_args=("$results")
[ $docs = 1 ] && report_args+=(--docs="$root/docs/benchmarks.md" --img-dir="$root/docs/img")
python3 "$here/report.py" "${report_args[@]}" || failed=1
echo "bench/real: report in $results/report.md" >&2
exit $failed
