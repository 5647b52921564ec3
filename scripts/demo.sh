#!/usr/bin/env bash
# The main job: installs what is missing, builds, and fuzzes the bundled `keyword` example
# (a command parser with a bug behind a memcmp'd keyword and a number) until Pollen finds
# the planted bug; then shows the minimized reproducer and replays it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh" pollen keyword
work=$build/demo-work
rm -rf "$work"
echo
echo "== pollen fuzz $build/examples/keyword_fuzzer =="
set +e
"$build/cli/pollen" fuzz "$build/examples/keyword_fuzzer" --workdir="$work" --time=600 "$@"
code=$?
set -e
if [ "$code" -ne 1 ]; then
  echo "demo: the planted bug was not found (exit code $code)" >&2
  exit 1
fi
artifact=$(ls "$work"/crashes/crash-* | grep -v '\.txt$' | head -n 1)
echo
echo "== the minimized reproducer: $artifact =="
od -A d -c "$artifact"
echo
echo "== pollen repro $build/examples/keyword_fuzzer $artifact =="
"$build/cli/pollen" repro "$build/examples/keyword_fuzzer" "$artifact" || true
