#!/usr/bin/env bash
# ctest k8s_manifests: renders every overlay of k8s/ with `kubectl kustomize` (keys made with
# the built pollen, in a copy of k8s/), then checks each rendering with check_manifests.mjs:
# the Kubernetes OpenAPI schemas (npm kubernetes-models, installed once into the build
# directory from tests/k8s/package-lock.json) and Pollen's invariants (non-root, read-only
# root, probes on served paths, references that exist, ports that match). Then proves the
# checker can fail: a rendering with a writable root and a probe on a wrong path is refused.
#
# Usage: tests/k8s/check_manifests.sh      Environment: POLLEN_BUILD_DIR (default ./build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in kubectl node npm; do
  command -v "$tool" >/dev/null || fail "$tool is missing: scripts/setup.sh installs it"
done
[ -x "$build/cli/pollen" ] || fail "$build/cli/pollen missing: build first"

# The checker's npm packages, installed again only when the lock file changes.
deps=$build/k8s-checks
if ! cmp -s "$root/tests/k8s/package-lock.json" "$deps/package-lock.json" 2>/dev/null ||
   [ ! -d "$deps/node_modules/kubernetes-models" ]; then
  rm -rf "$deps" && mkdir -p "$deps"
  cp "$root/tests/k8s/package.json" "$root/tests/k8s/package-lock.json" "$deps/"
  (cd "$deps" && npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci in $deps"
fi
cp "$root/tests/k8s/check_manifests.mjs" "$deps/"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/k8s_manifests.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -r "$root/k8s" "$tmp/k8s"
rm -rf "$tmp"/k8s/overlays/*/keys
for overlay in "$tmp"/k8s/overlays/*/; do
  name=$(basename "$overlay")
  if grep -q secretGenerator "$overlay/kustomization.yaml"; then
    POLLEN=$build/cli/pollen bash "$tmp/k8s/make-keys.sh" "$overlay" >/dev/null
  fi
done
for overlay in "$tmp"/k8s/overlays/*/; do
  name=$(basename "$overlay")
  kubectl kustomize "$overlay" >"$tmp/$name.yaml" 2>"$tmp/$name.err" ||
    fail "kubectl kustomize $name: $(grep -v '^# Warning' "$tmp/$name.err")"
  node "$deps/check_manifests.mjs" "$tmp/$name.yaml" "$name" || fail "overlay $name"
done

# The checker refuses a broken rendering, naming what is wrong.
sed 's/readOnlyRootFilesystem: true/readOnlyRootFilesystem: false/; s|path: /readyz|path: /ready|' \
  "$tmp/dev.yaml" >"$tmp/broken.yaml"
if out=$(node "$deps/check_manifests.mjs" "$tmp/broken.yaml" dev); then
  fail "the checker passed a broken rendering"
fi
grep -q "has a writable root" <<<"$out" || fail "no writable-root problem in: $out"
grep -q "asks /ready, not /readyz" <<<"$out" || fail "no probe-path problem in: $out"
# ... and a nightly whose nights may overlap and have no deadline.
sed 's/concurrencyPolicy: Forbid/concurrencyPolicy: Allow/; /activeDeadlineSeconds/d' \
  "$tmp/nightly.yaml" >"$tmp/broken-nightly.yaml"
if out=$(node "$deps/check_manifests.mjs" "$tmp/broken-nightly.yaml" nightly); then
  fail "the checker passed a broken nightly"
fi
grep -q "nights may overlap" <<<"$out" || fail "no overlap problem in: $out"
grep -q "a night has no deadline" <<<"$out" || fail "no deadline problem in: $out"
echo "k8s manifests: OK ($(ls "$tmp"/k8s/overlays | tr '\n' ' '))"
