#!/usr/bin/env bash
# Proves that the README's two commands work on a bare Debian 12 machine: builds a minbase
# Debian 12 root (mmdebstrap --variant=minbase with git, ca-certificates and sudo; cached as a
# tarball between runs), clones the current commit into a fresh copy of it, and runs the
# README's command 1 and then command 2 inside it (chroot with /proc, /dev and /sys mounted;
# apt reaches Debian's registry through the host's network). Prints each command's exit code
# and wall time; exits 0 only when both succeeded.
#
# Needs root (chroot, mounts); installs mmdebstrap if it is missing. Not part of command 2:
# it builds everything from scratch twice over and takes most of an hour on 2 cores.
# Uncommitted changes are not checked: it clones HEAD, as a new user would.
#
# Usage: scripts/fresh-machine-check.sh [--user] [--keep] [--only=1|2]
#   --user     run the commands as a non-root user with passwordless sudo (default: root,
#              as CI does; root also runs the tests that need it)
#   --keep     keep the root directory afterwards (default: removed)
#   --only=N   run only command N
# Environment: POLLEN_FRESH_DIR (default /var/tmp/pollen-fresh): the cached minbase tarball
#   (bookworm-minbase.tar; delete it to rebuild) and the run's root (root/) and logs (*.log).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${POLLEN_FRESH_DIR:-/var/tmp/pollen-fresh}
as_user=0 keep=0 only=""
for arg in "$@"; do
  case "$arg" in
    --user) as_user=1 ;;
    --keep) keep=1 ;;
    --only=1 | --only=2) only=${arg#--only=} ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "ERROR: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done
log() { echo "fresh-machine-check: $*"; }
[ "$(id -u)" -eq 0 ] || { echo "ERROR: needs root (chroot and mounts)" >&2; exit 2; }

# The README's two commands: the first two lines of its first sh block, comments stripped.
mapfile -t commands < <(awk '/^```sh$/ { inside = 1; next } /^```/ { if (inside) exit } inside' \
  "$repo/README.md" | sed 's/[[:space:]]*#.*$//' | grep -v '^[[:space:]]*$' | head -n 2)
[ ${#commands[@]} -eq 2 ] || { echo "ERROR: README.md's first sh block has no two commands" >&2; exit 2; }

commit=$(git -C "$repo" rev-parse HEAD)
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
  log "warning: the working tree has uncommitted changes; they are not checked (HEAD is)"
fi

if ! command -v mmdebstrap >/dev/null; then
  log "installing mmdebstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
           --no-install-recommends mmdebstrap; }
fi

mkdir -p "$dir"
tarball=$dir/bookworm-minbase.tar
if [ ! -s "$tarball" ]; then
  log "building the minbase root ($tarball)"
  mmdebstrap --quiet --variant=minbase --include=git,ca-certificates,sudo bookworm "$dir/bookworm-minbase.tmp.tar" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main"
  mv "$dir/bookworm-minbase.tmp.tar" "$tarball"
fi

rootfs=$dir/root
# Removes the root only once nothing is mounted under it any more: a bind-mounted /dev or
# /sys must never be deleted through it.
unmount_all() {
  # Everything mounted under the root (tests mount netns files under run/), deepest first,
  # then the root's own bind mount.
  local m
  for m in $(awk -v r="$rootfs/" 'index($2, r) == 1 {print $2}' /proc/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  for m in dev sys proc; do
    if mountpoint -q "$rootfs/$m"; then umount -R "$rootfs/$m" || umount -R -l "$rootfs/$m"; fi
  done
  while mountpoint -q "$rootfs" 2>/dev/null; do umount "$rootfs" || umount -l "$rootfs"; done
  if grep -q " $rootfs/" /proc/mounts; then
    echo "ERROR: still mounted under $rootfs; not removing it:" >&2
    grep " $rootfs/" /proc/mounts >&2
    return 1
  fi
}
cleanup() {
  unmount_all || return 0
  if [ "$keep" = 0 ]; then rm -rf "$rootfs"; else log "kept $rootfs"; fi
}
unmount_all
rm -rf "$rootfs"
mkdir -p "$rootfs"
trap cleanup EXIT
tar -xf "$tarball" -C "$rootfs" --numeric-owner -p
cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
cp /etc/hosts "$rootfs/etc/hosts"
# The network's own trust: certificate authorities this machine was given locally (a
# TLS-inspecting proxy in front of npm's registry, say) are part of the network a bare
# machine here would be in, not of Pollen's dependencies.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/"
  chroot "$rootfs" update-ca-certificates >/dev/null 2>&1 || log "warning: update-ca-certificates failed"
fi
# The root is a mount point, as on a machine: `ip netns` and buildah remount / (make it a
# slave, or private), which fails on a directory that is not one.
mount --bind "$rootfs" "$rootfs"
mount -t proc proc "$rootfs/proc"
mount --rbind /sys "$rootfs/sys" && mount --make-rslave "$rootfs/sys"
mount --rbind /dev "$rootfs/dev" && mount --make-rslave "$rootfs/dev"

home=/root
run_as=(bash -c)
if [ "$as_user" = 1 ]; then
  chroot "$rootfs" useradd --create-home --shell /bin/bash dev
  echo 'dev ALL=(ALL) NOPASSWD: ALL' >"$rootfs/etc/sudoers.d/dev"
  home=/home/dev
  run_as=(sudo -u dev -H bash -c)
fi
git clone --quiet --no-local "$repo" "$rootfs$home/pollen"
git -C "$rootfs$home/pollen" checkout --quiet --detach "$commit"
[ "$as_user" = 0 ] || chroot "$rootfs" chown -R dev:dev "$home/pollen"
log "commit $commit in $rootfs$home/pollen ($( [ "$as_user" = 1 ] && echo "user dev with sudo" || echo root))"

declare -a results
status=0
for i in 1 2; do
  [ -z "$only" ] || [ "$only" = "$i" ] || continue
  cmd=${commands[$((i - 1))]}
  logf=$dir/command-$i.log
  log "command $i: $cmd (log: $logf)"
  start=$(date +%s)
  set +e
  chroot "$rootfs" /usr/bin/env -i HOME="$home" TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    "${run_as[@]}" "cd $home/pollen && $cmd" 2>&1 | tee "$logf"
  code=${PIPESTATUS[0]}
  set -e
  took=$(($(date +%s) - start))
  results+=("command $i: $cmd -> exit $code in ${took} s")
  [ "$code" -eq 0 ] || status=1
done

echo
log "commit $commit on a bare Debian 12 minbase root"
for r in "${results[@]}"; do log "$r"; done
log "$([ "$status" = 0 ] && echo PASS || echo FAIL)"
exit "$status"
