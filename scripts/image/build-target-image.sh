#!/usr/bin/env bash
# Builds a campaign's target image FROM Pollen's image (docs/deploy.md, "Targets"): the fuzz
# target binary at /target/fuzzer, its seeds at /target/seeds/ and its dictionary at
# /target/fuzzer.dict (empty when none), readable by the image's user. The node StatefulSet
# runs `pollen node /target/fuzzer /target/seeds` in it, so each node fuzzes exactly this
# binary: its build id (printed, and in the image's label pollen.target.build-id) is the one
# the campaign names. Pollen's image stays one layer below, shared by every target image.
#
# The target must run on Pollen's image as it is: its shared libraries must be there. Build
# targets as docs/targets.md says (sanitizer runtimes are static); a library missing from the
# image is an error that names it.
#
# Usage: scripts/image/build-target-image.sh TARGET [--seeds=DIR] [--dict=FILE] [--tag=TAG]
#          [--name=NAME] [--base=OCI_ARCHIVE]
#   --name=NAME  image name (default pollen-target): localhost/NAME:TAG
#   --tag=TAG    (default dev)
#   --base=...   Pollen's image (default $POLLEN_BUILD_DIR/image/pollen-dev.oci.tar)
# Output: $POLLEN_BUILD_DIR/image/NAME-TAG.oci.tar (byte-stable for the same inputs).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
target="" seeds="" dict="" tag=dev name=pollen-target base=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
for arg in "$@"; do
  case "$arg" in
    --seeds=*) seeds=${arg#--seeds=} ;;
    --dict=*) dict=${arg#--dict=} ;;
    --tag=*) tag=${arg#--tag=} ;;
    --name=*) name=${arg#--name=} ;;
    --base=*) base=${arg#--base=} ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "ERROR: unknown flag $arg (see --help)" >&2; exit 2 ;;
    *) [ -z "$target" ] || { echo "ERROR: one TARGET only" >&2; exit 2; }; target=$arg ;;
  esac
done
fail() { echo "ERROR: $*" >&2; exit 2; }
[ -n "$target" ] || { usage >&2; exit 2; }
[ -f "$target" ] && [ -x "$target" ] || fail "$target is not an executable file"
[ -z "$seeds" ] || [ -d "$seeds" ] || fail "--seeds=$seeds is not a directory"
[ -z "$dict" ] || [ -f "$dict" ] || fail "--dict=$dict is not a file"
[[ "$tag" =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]] || fail "bad tag '$tag'"
[[ "$name" =~ ^[a-z0-9][a-z0-9._-]{0,127}$ ]] && [[ "$name" != *..* ]] ||
  fail "bad image name '$name' (lowercase letters, digits, '.', '_', '-')"
base=${base:-$build/image/pollen-dev.oci.tar}
[ -f "$base" ] || fail "no Pollen image at $base (make it: scripts/image/build-image.sh)"
[ "$(id -u)" -eq 0 ] || fail "needs root (buildah)"
log() { echo "build-target-image: $*" >&2; }

# The target's build id as pollen computes it (cli/target_setup.h: the first 16 hex digits
# of the file's SHA-1): the campaign's key.
build_id=$(sha1sum "$target" | cut -c1-16)

out=$build/image
mkdir -p "$out"
work=$(mktemp -d "$out/work-target.XXXXXX")
mkdir -p "$work/target/seeds"
trap 'rm -rf "$work"' EXIT
cp "$target" "$work/target/fuzzer"
[ -z "$seeds" ] || cp -r "$seeds"/. "$work/target/seeds/"
if [ -n "$dict" ]; then cp "$dict" "$work/target/fuzzer.dict"; else : >"$work/target/fuzzer.dict"; fi
chmod -R a+rX,go-w "$work/target"
epoch=${SOURCE_DATE_EPOCH:-$(stat -c %Y "$target")}
find "$work/target" -exec touch -h -d "@$epoch" {} +
tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -cf "$work/target.tar" -C "$work" target

# shellcheck source=scripts/image/container-env.sh
source "$root/scripts/image/container-env.sh"
c=$("${B[@]}" from --quiet "oci-archive:$base")
# Every shared library the target needs must be in the image.
mnt=$("${B[@]}" mount "$c")
missing=()
while read -r lib; do
  found=0
  for dir in lib lib/x86_64-linux-gnu usr/lib usr/lib/x86_64-linux-gnu usr/local/lib; do
    if [ -e "$mnt/$dir/$lib" ]; then found=1; break; fi
  done
  [ $found = 1 ] || missing+=("$lib")
done < <(readelf -d "$target" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
readelf -h "$target" >/dev/null 2>&1 || { "${B[@]}" umount "$c" >/dev/null; fail "$target is not an ELF file"; }
"${B[@]}" umount "$c" >/dev/null
if [ ${#missing[@]} -gt 0 ]; then
  "${B[@]}" rm "$c" >/dev/null
  fail "$target needs ${missing[*]}, which Pollen's image does not have: link them statically"
fi
"${B[@]}" add "$c" "$work/target.tar" / >/dev/null
"${B[@]}" config --label "pollen.target.build-id=$build_id" \
  --label "pollen.target.name=$(basename "$target")" --cmd '["node", "/target/fuzzer", "/target/seeds"]' "$c"
"${B[@]}" commit --quiet --rm --omit-history --identity-label=false --timestamp "$epoch" \
  "$c" "localhost/$name:$tag" >/dev/null
rm -rf "$work/oci"
"${B[@]}" push --quiet "localhost/$name:$tag" "oci:$work/oci:localhost/$name:$tag" >/dev/null
archive=$out/$name-$tag.oci.tar
tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -cf "$archive.tmp" -C "$work/oci" .
mv "$archive.tmp" "$archive"
log "$archive ($(du -h "$archive" | cut -f1)): $(basename "$target") build id $build_id"
echo "$archive"
