#!/usr/bin/env bash
# Builds Pollen's OCI image without a Docker daemon (docs/deploy.md, "The image"):
#   1. builds `pollen` (scripts/build.sh) and strips its debug info;
#   2. a distroless-style root with `mmdebstrap --variant=extract`: only the Debian packages
#      that hold the shared libraries pollen needs (found with ldd and dpkg -S),
#      llvm-symbolizer, llvm-profdata and llvm-cov with their own, base-files and netbase;
#      no shell, no package manager
#      (nothing under /usr/bin but tini, the PID 1 that reaps the targets' orphans and passes
#      SIGTERM on); /etc/passwd with the unprivileged user
#      65534 the image runs as; pollen at /usr/local/bin/pollen, the entrypoint (under tini);
#   3. one squashed layer with buildah (vfs storage under the build directory), written as
#      an OCI archive whose bytes depend only on the commit and the Debian package versions
#      (SOURCE_DATE_EPOCH = the commit's time, names sorted, owners and mtimes fixed).
# The command chooses the role: `pollen broker ...`, `pollen controller ...`, `pollen node ...`.
#
# Usage: scripts/image/build-image.sh [--tag=TAG]     (as root: mmdebstrap --mode=root)
#   --tag=TAG   image tag (default dev): localhost/pollen:TAG
# Output: $POLLEN_BUILD_DIR/image/pollen-TAG.oci.tar, and its sha256 in pollen-TAG.sha256.
# Environment: POLLEN_BUILD_DIR (default ./build), SOURCE_DATE_EPOCH (default: the commit's),
#   POLLEN_IMAGE_REVISION (the revision label; default: the commit's hash).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
tag=dev
for arg in "$@"; do
  case "$arg" in
    --tag=*) tag=${arg#--tag=} ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "ERROR: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$tag" =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]] || { echo "ERROR: bad tag '$tag'" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "ERROR: needs root (mmdebstrap --mode=root, buildah)" >&2; exit 2; }
log() { echo "build-image: $*" >&2; }
for tool in mmdebstrap buildah; do
  command -v "$tool" >/dev/null || { echo "ERROR: $tool missing: scripts/setup.sh installs it" >&2; exit 2; }
done

bash "$root/scripts/build.sh" pollen >&2
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct)}
export SOURCE_DATE_EPOCH=$epoch
out=$build/image
work=$out/work-$tag
rm -rf "$work"
mkdir -p "$work"

# 1. The binary, without its debug info (symbols stay, for stack traces).
objcopy --strip-debug "$build/cli/pollen" "$work/pollen"
touch -d "@$epoch" "$work/pollen"

# 2. The packages holding its shared libraries, and llvm-symbolizer's (with its libraries):
#    the sanitizers and Pollen symbolize crash stacks with it. binutils' addr2line would be
#    2 MB instead of LLVM's 150 MB, but it cannot read the inlined frames and lines of clang
#    14's DWARF 5, and then crash signatures would differ from a developer's machine.
symbolizer=/usr/lib/llvm-14/bin/llvm-symbolizer
[ -x "$symbolizer" ] || { echo "ERROR: $symbolizer missing: scripts/setup.sh installs llvm-14" >&2; exit 2; }
# llvm-profdata and llvm-cov: `pollen nightly` and `pollen coverage` measure coverage with them.
coverage_tools=(/usr/lib/llvm-14/bin/llvm-profdata /usr/lib/llvm-14/bin/llvm-cov)
for tool in "${coverage_tools[@]}"; do
  [ -x "$tool" ] || { echo "ERROR: $tool missing: scripts/setup.sh installs llvm-14" >&2; exit 2; }
done
owner_of() {
  local path owner
  for path in "$1" "$(readlink -f "$1")" "/usr$1" "${1#/usr}"; do
    if owner=$(dpkg -S "$path" 2>/dev/null); then echo "${owner%%:*}"; return; fi
  done
  echo "ERROR: no Debian package holds $1: it cannot go into the image" >&2
  return 1
}
packages=$(set -o pipefail; for binary in "$work/pollen" "$symbolizer" "${coverage_tools[@]}"; do
  ldd "$binary" | awk '$3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' |
    while read -r lib; do owner_of "$lib" || exit 1; done || exit 1
done; owner_of "$symbolizer"; echo tini)
packages=$(sort -u <<<"$packages" | tr '\n' ',')
[ -n "$packages" ] || { echo "ERROR: no packages found for pollen's libraries" >&2; exit 1; }
log "runtime packages: ${packages%,}"

cat >"$work/hook.sh" <<'HOOK'
#!/bin/sh
set -e
r=$1
install -D -m 0755 "$POLLEN_IMAGE_BINARY" "$r/usr/local/bin/pollen"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$r/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$r/etc/group"
mkdir -p "$r/tmp" "$r/data" "$r/target"
chmod 1777 "$r/tmp"
chown 65534:65534 "$r/data"
find "$r/etc/passwd" "$r/etc/group" "$r/tmp" "$r/data" "$r/target" "$r/usr/local" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
HOOK
chmod +x "$work/hook.sh"
log "mmdebstrap --variant=extract (bookworm)"
POLLEN_IMAGE_BINARY=$work/pollen mmdebstrap --quiet --variant=extract --mode=root \
  --include="base-files,netbase,${packages%,}" \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/lintian/*' \
  --dpkgopt='path-exclude=/usr/bin/*' --dpkgopt='path-include=/usr/bin/tini' \
  --dpkgopt='path-exclude=/usr/lib/llvm-14/*' \
  --dpkgopt='path-include=/usr/lib/llvm-14/bin/llvm-symbolizer' \
  --dpkgopt='path-include=/usr/lib/llvm-14/bin/llvm-profdata' \
  --dpkgopt='path-include=/usr/lib/llvm-14/bin/llvm-cov' \
  --extract-hook="$work/hook.sh \"\$1\"" \
  bookworm "$work/rootfs.tar" \
  "deb http://deb.debian.org/debian bookworm main" \
  "deb http://deb.debian.org/debian bookworm-updates main" \
  "deb http://deb.debian.org/debian-security bookworm-security main"

# 3. The image.
# shellcheck source=scripts/image/container-env.sh
source "$root/scripts/image/container-env.sh"
version=$("$work/pollen" --version | head -1)
"${B[@]}" rmi -f "localhost/pollen:$tag" >/dev/null 2>&1 || true
c=$("${B[@]}" from scratch)
trap '"${B[@]}" rm "$c" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"${B[@]}" add "$c" "$work/rootfs.tar" / >/dev/null
"${B[@]}" config --entrypoint '["/usr/bin/tini", "--", "/usr/local/bin/pollen"]' --cmd '' --user 65534:65534 \
  --workingdir /data --env TMPDIR=/tmp \
  --label "org.opencontainers.image.title=pollen" \
  --label "org.opencontainers.image.version=$version" \
  --label "org.opencontainers.image.revision=${POLLEN_IMAGE_REVISION:-$(git -C "$root" rev-parse HEAD)}" \
  --label "org.opencontainers.image.source=https://github.com/pollen/pollen" "$c"
"${B[@]}" commit --quiet --rm --squash --omit-history --identity-label=false \
  --timestamp "$epoch" "$c" "localhost/pollen:$tag" >/dev/null
rm -rf "$work/oci"
"${B[@]}" push --quiet "localhost/pollen:$tag" "oci:$work/oci:localhost/pollen:$tag" >/dev/null
archive=$out/pollen-$tag.oci.tar
tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -cf "$archive.tmp" -C "$work/oci" .
mv "$archive.tmp" "$archive"
sha256sum "$archive" | cut -d' ' -f1 >"$out/pollen-$tag.sha256"
log "$archive ($(du -h "$archive" | cut -f1), sha256 $(cat "$out/pollen-$tag.sha256")); layer unpacked: $(du -sh --apparent-size "$work/rootfs.tar" | cut -f1)"
echo "$archive"
