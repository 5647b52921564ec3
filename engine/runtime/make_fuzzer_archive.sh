#!/bin/sh
# Builds libpollen_fuzzer.a, the one archive a fuzz target links (docs/targets.md):
#  - pollen_fuzzer.o: the runtime, engine, base and schema archives combined by `ld -r` into
#    one relocatable object. A target's link pulls it for `main`, and with it every
#    SanitizerCoverage callback: the sanitizer runtimes define weak no-op ones, which an
#    archive member alone would never replace (the reason for --whole-archive before);
#  - every member of Debian's static libcapnp.a and libkj.a, pulled as needed, so the target
#    needs no shared library of Pollen's or of Cap'n Proto's.
# An `ar -M` script cannot quote a path, so it runs in a directory of its own where every
# input is a symbolic link with a plain name.
#
# Usage: make_fuzzer_archive.sh OUT LD AR POLLEN_ARCHIVE... -- STATIC_ARCHIVE...
set -eu
out=$1 ld=$2 ar=$3
shift 3
work=$out.parts
rm -rf "$work" && mkdir -p "$work"
n=0
pollen=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  n=$((n + 1))
  ln -s "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" "$work/pollen$n.a"
  pollen="$pollen pollen$n.a"
  shift
done
[ $# -gt 0 ] && shift
n=0
libs=""
for lib in "$@"; do
  n=$((n + 1))
  ln -s "$lib" "$work/static$n.a"
  libs="$libs static$n.a"
done
cd "$work"
# shellcheck disable=SC2086 # plain names, one word each
"$ld" -r -o pollen_fuzzer.o --whole-archive $pollen --no-whole-archive
{
  echo "create fuzzer.a"
  echo "addmod pollen_fuzzer.o"
  for lib in $libs; do echo "addlib $lib"; done
  echo "save"
  echo "end"
} | "$ar" -M
"$ar" s fuzzer.a
cd - >/dev/null
mv "$work/fuzzer.a" "$out"
rm -rf "$work"
