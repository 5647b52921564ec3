#!/usr/bin/env bash
# libFuzzer in its default in-process mode (no -fork), the way developers run it, for
# SECONDS in all: after a crash, a timeout or an out-of-memory exit it starts again on the
# same corpus directory until the time is used up (in-process libFuzzer stops at the first
# one; -ignore_crashes works only with -fork). Called by bench/real/run_one.sh.
#
# Usage: bench/real/libfuzzer_plain.sh SECONDS RESTART BINARY [libFuzzer flags and dirs...]
#   RESTART  1: start again after an abnormal exit while time is left; 0: stop there
# Before each restart it prints "bench/real: libFuzzer restarted (...)", so that the
# executions of the whole run are the sum of each part's last "#N" line. A part that failed
# before it began fuzzing (no "INITED" line: a seed that crashes, a bad flag) would fail
# again: the run stops there with libFuzzer's exit status.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
total=$1 restart=$2 bin=$3
shift 3
part_log=$(mktemp "${TMPDIR:-/tmp}/libfuzzer_plain.XXXXXX")
trap 'rm -f "$part_log"' EXIT
start=$SECONDS
while true; do
  left=$((total - (SECONDS - start)))
  [ "$left" -ge 1 ] || exit 0
  rc=0
  "$bin" -max_total_time="$left" "$@" 2>&1 | tee "$part_log" || rc=${PIPESTATUS[0]}
  [ "$rc" != 0 ] || exit 0
  [ "$restart" = 1 ] || exit "$rc"
  grep -q -a 'INITED' "$part_log" ||
    { echo "bench/real: libFuzzer failed before fuzzing (exit $rc); not restarting" >&2; exit "$rc"; }
  left=$((total - (SECONDS - start)))
  [ "$left" -ge 1 ] || exit 0
  echo "bench/real: libFuzzer restarted (it exited with $rc; $left s left)"
done
