#!/usr/bin/env bash
# Makes the CURVE keys of a Pollen deployment for one overlay (docs/deploy.md, "Keys"):
# OVERLAY/keys/{broker,controller,node,operator}.{key,pub}, which the overlay's
# secretGenerator turns into three Secrets, one per role, each holding only what that role
# needs. Existing keys are kept (delete the directory to make new ones). operator.key is
# yours: the developer commands use it (pollen status --key=... --controller-key=...).
# The keys directory is git-ignored: keep the secret keys out of version control.
#
# Usage: k8s/make-keys.sh OVERLAY_DIR        Environment: POLLEN (default: pollen on PATH,
#                                            else build/cli/pollen)
set -euo pipefail
[ $# -eq 1 ] && [ -d "$1" ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
pollen=${POLLEN:-$(command -v pollen || echo "$root/build/cli/pollen")}
[ -x "$pollen" ] || { echo "ERROR: no pollen binary (build it: scripts/build.sh pollen)" >&2; exit 2; }
keys=$1/keys
mkdir -p "$keys"
chmod 700 "$keys"
for role in broker controller node operator; do
  if [ -f "$keys/$role.key" ] && [ -f "$keys/$role.pub" ]; then
    echo "kept $keys/$role.key"
  else
    "$pollen" keygen "$keys/$role" --force >/dev/null
    echo "made $keys/$role.key and .pub"
  fi
done
