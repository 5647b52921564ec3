#!/usr/bin/env bash
# Branches (and lines) a corpus covers, as the suite measures them: the target's coverage
# build runs the seeds plus the corpus, llvm-cov reads the merged profile. measure.sh
# measures each snapshot with it, ab_pollen.sh each run's store.
#
# Usage: bench/real/branches.sh NAME DIR...
#   NAME  a target under $BENCH_REAL_DIR/targets (default build/bench-real) with a cov build
#   DIR   a corpus directory, or a Pollen work directory (its corpus is exported first)
# Prints one line per DIR: "DIR branches_covered branches_total lines_covered lines_total".
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
out=${BENCH_REAL_DIR:-$build/bench-real}
cli=${POLLEN_CLI:-$build/cli/pollen}
[ $# -ge 2 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
name=$1
shift
cov=$out/targets/$name/cov seeds=$out/targets/$name/seeds
[ -x "$cov" ] || { echo "ERROR: $cov missing: bench/real/build_target.sh $name cov" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_branches.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for dir in "$@"; do
  [ -d "$dir" ] || { echo "ERROR: $dir is not a directory" >&2; exit 1; }
  corpus=$dir
  if [ -d "$dir/corpus" ] && [ -x "$cli" ]; then  # a Pollen work directory: its store
    corpus=$tmp/corpus
    rm -rf "$corpus" && mkdir -p "$corpus"
    "$cli" corpus export "$dir" "$corpus" >/dev/null 2>&1 ||
      { echo "ERROR: pollen corpus export $dir failed" >&2; exit 1; }
  fi
  rm -rf "$tmp/prof"
  LLVM_PROFILE_FILE="$tmp/prof/cov-%p.profraw" "$cov" -timeout=25 -close_fd_mask=3 "$seeds" "$corpus" \
    >"$tmp/cov.log" 2>&1 || true
  llvm-profdata-14 merge -sparse "$tmp"/prof/*.profraw -o "$tmp/cov.profdata" 2>>"$tmp/cov.log" ||
    { echo "ERROR: measuring $dir failed:" >&2; tail -5 "$tmp/cov.log" >&2; exit 1; }
  tot=$(llvm-cov-14 report "$cov" -instr-profile="$tmp/cov.profdata" 2>/dev/null | grep '^TOTAL' || true)
  [ -n "$tot" ] || { echo "ERROR: no llvm-cov TOTAL for $dir" >&2; exit 1; }
  # TOTAL regions missed % functions missed % lines missed % branches missed %
  read -r _ _ _ _ _ _ _ lines lmiss _ br bmiss _ <<<"$tot"
  echo "$dir $((br - bmiss)) $br $((lines - lmiss)) $lines"
done
