#!/usr/bin/env bash
# ctest format_check: every C and C++ file of the repository is as clang-format-14 writes it
# (.clang-format: Google style, 100 columns), so that a change's diff is its change and not
# someone's editor settings. Lists the files that are not, with the command that fixes them.
#
# Usage: tests/format_check.sh SOURCE_DIR
set -euo pipefail
root=${1:?usage: format_check.sh SOURCE_DIR}
cd "$root"
command -v clang-format-14 >/dev/null || { echo "FAIL: clang-format-14 missing (scripts/setup.sh installs it)"; exit 1; }
files=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -d '' -t files < <(git -c core.quotePath=false ls-files -z -- '*.c' '*.cc' '*.h' |
    grep -z -v '/node_modules/')
fi
if [ ${#files[@]} -eq 0 ]; then  # not a git checkout (a source tarball), or git refused it
  mapfile -d '' -t files < <(find . -type d \( -name 'build*' -o -name node_modules -o -name .git \) -prune \
    -o \( -name '*.c' -o -name '*.cc' -o -name '*.h' \) -print0)
fi
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no C or C++ file found under $root"; exit 1; }
bad=()
for f in "${files[@]}"; do
  clang-format-14 --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "FAIL: ${#bad[@]} of ${#files[@]} files are not formatted:"
  printf '  %s\n' "${bad[@]}"
  echo "fix: clang-format-14 -i$(printf ' %q' "${bad[@]}")"
  exit 1
fi
echo "PASS: ${#files[@]} files formatted as .clang-format says"
