#!/usr/bin/env bash
# Instructions per execution of Pollen's worker, example by example, counted by valgrind's
# callgrind: a figure that, unlike exec/s, does not move with where the linker put the code
# (up to 5 % of exec/s on this VM, docs/benchmarks.md) nor with the machine's load, so two
# commits' runtimes compare closely. Not exactly: fuzz units end after 100 ms or 8,192 runs,
# so how many runs share a unit's fixed cost (the entry's run, the messages) still depends
# on the speed of the machine under valgrind.
#
# Usage: bench/exec_instructions.sh [--runs=N] [EXAMPLE...]
#   EXAMPLE...  examples whose bench binaries bench/exec_speed.sh built (default: empty keyword)
#   --runs=N    executions of the longer run (default 200000); the shorter makes N/4
# Environment: POLLEN_BUILD_DIR (default ./build): the `pollen` and the <example>_pollen
#   binaries measured (bench/exec_speed.sh builds them in POLLEN_BUILD_DIR/bench/, with the
#   planted bugs disarmed; run it once, with --time=1, in a tree that lacks them).
#
# Each example runs twice under `valgrind --tool=callgrind --trace-children=yes`, one worker,
# --seed=1, --runs=N/4 and --runs=N; the worker process's instruction counts are subtracted
# and divided by the difference in executions, which cancels start-up and the baseline. The
# coordinator runs under valgrind too, but its instructions are not counted. The worker keeps
# every comparison hook (--mutant-cmp-hooks=true): valgrind does not see code that rewrites
# itself in pages that stay executable, and would count a mix of both states.
# Prints "EXAMPLE instructions-per-execution" lines.
# It needs the worker to exit on its own at the run's end (callgrind writes a process's counts
# when it exits): the coordinator gives its workers up to 2 s to do so (docs/architecture.md,
# "The worker protocol"). Two calls in a row give the same figures (2026-11-28: empty 625,
# keyword 1231).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
runs=200000
examples=()
for a in "$@"; do
  case "$a" in
    --runs=*) runs=${a#--runs=} ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "ERROR: unknown flag $a" >&2; exit 2 ;;
    *) examples+=("$a") ;;
  esac
done
[ ${#examples[@]} -gt 0 ] || examples=(empty keyword)
[[ "$runs" =~ ^[0-9]+$ ]] && [ "$runs" -ge 4000 ] || { echo "ERROR: --runs takes a number >= 4000" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "ERROR: valgrind is missing (bench/real/setup.sh installs it)" >&2; exit 1; }
[ -x "$build/cli/pollen" ] || { echo "ERROR: $build/cli/pollen missing: build Pollen first" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exec_instructions.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# valgrind 3.19 (Debian 12) gives up on clang 14's DWARF 5 ("Possibly corrupted debuginfo
# file"): it runs copies without debug information, which execute the same instructions.
mkdir -p "$tmp/bin"
cli=$tmp/bin/pollen
strip --strip-debug -o "$cli" "$build/cli/pollen"

# worker_instructions EXAMPLE RUNS: the instructions of the example's worker process.
worker_instructions() {
  local bin=$tmp/bin/$1_pollen d
  d=$(mktemp -d "$tmp/$1.XXXXXX")
  valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$d/cg.%p" \
    "$cli" fuzz "$bin" --workers=1 --seed=1 --runs="$2" --workdir="$d/work" \
    --mutant-cmp-hooks=true >"$d/log" 2>&1 || {
    echo "ERROR: the run of $1 under valgrind failed; last lines:" >&2
    tail -5 "$d/log" >&2
    return 1
  }
  local files
  # The worker's file: its command is the example's binary itself (the coordinator's is
  # pollen, with the binary among its arguments).
  files=$(grep -l "^cmd: *[^ ]*/$1_pollen\( \|\$\)" "$d"/cg.* || true)
  [ -n "$files" ] || { echo "ERROR: no callgrind output of $1's worker" >&2; return 1; }
  # One worker, never restarted: one file. callgrind's "summary:" line is the total Ir.
  [ "$(wc -l <<<"$files")" = 1 ] || { echo "ERROR: $1 ran more than one worker process" >&2; return 1; }
  sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$files" | head -1
}

for ex in "${examples[@]}"; do
  [ -x "$build/bench/${ex}_pollen" ] || {
    echo "ERROR: $build/bench/${ex}_pollen missing: run bench/exec_speed.sh --time=1 $ex first" >&2
    exit 1
  }
  strip --strip-debug -o "$tmp/bin/${ex}_pollen" "$build/bench/${ex}_pollen"
  short=$((runs / 4))
  a=$(worker_instructions "$ex" "$short")
  b=$(worker_instructions "$ex" "$runs")
  echo "$ex $(((b - a) / (runs - short)))"
done
