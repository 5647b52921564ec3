#!/usr/bin/env bash
# Time to each planted bug: runs `pollen fuzz` on every example with a planted bug, one
# worker, for several seeds, and prints the executions and seconds each run took to find
# its bug (the summary line of the run that stopped at the failure).
# Usage: bench/time_to_bug.sh [SEEDS (default 3)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
seeds=${1:-3}
bash "$root/scripts/build.sh" pollen shallow_crash magic4 magic8 keyword hang oom exception exit_call heap_overflow >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

declare -A flags=([hang]="--timeout=1" [oom]="--rss-limit-mb=300")
echo "# Time to the planted bug, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# command: bench/time_to_bug.sh $seeds   (pollen fuzz EXAMPLE --workers=1 --seed=S)"
echo
echo "| example | seed | found | executions | seconds |"
echo "|---|---:|---|---:|---:|"
for example in shallow_crash magic4 magic8 keyword hang oom exception exit_call heap_overflow; do
  for seed in $(seq 1 "$seeds"); do
    set +e
    out=$("$build/cli/pollen" fuzz "$build/examples/${example}_fuzzer" --workers=1 --seed="$seed" \
          --runs=50000000 --minimize-time=5 --workdir="$work/$example-$seed" ${flags[$example]:-} 2>&1)
    code=$?
    set -e
    line=$(grep -E '^  executions:' <<<"$out" || true)
    execs=$(sed -E 's/^  executions: +([0-9]+) in ([0-9.]+) s.*/\1/' <<<"$line")
    secs=$(sed -E 's/^  executions: +([0-9]+) in ([0-9.]+) s.*/\2/' <<<"$line")
    found=$([ "$code" -eq 1 ] && echo yes || echo "no (exit $code)")
    echo "| $example | $seed | $found | $execs | $secs |"
  done
done
