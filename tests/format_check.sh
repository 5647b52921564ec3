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
if [ -d .git ] || [ -f .git ]; then
  mapfile -t files < <(git ls-files '*.c' '*.cc' '*.h' | grep -v '/node_modules/')
else
  mapfile -t files < <(find . -path ./build -prune -o -path '*/node_modules' -prune -o \
    \( -name '*.c' -o -name '*.cc' -o -name '*.h' \) -print)
fi
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no C or C++ file found under $root"; exit 1; }
bad=()
for f in "${files[@]}"; do
  clang-format-14 --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "FAIL: ${#bad[@]} of ${#files[@]} files are not formatted:"
  printf '  %s\n' "${bad[@]}"
  echo "fix: clang-format-14 -i ${bad[*]}"
  exit 1
fi
echo "PASS: ${#files[@]} files formatted as .clang-format says"
