#!/usr/bin/env bash
# What carrying the corpus across builds is worth (issue 16; docs/nightly.md, "Measured").
#
# On one real target of bench/real, with a local controller and `pollen nightly`:
#   carried: night 1 on build A for M minutes, then night 2 on build B for M minutes (the
#            merged corpus of A carried to B and run once on it first);
#   scratch: night 2 on build B for M minutes in a campaign of its own (seeds only).
# Build B is build A with one extra ELF section (objcopy), so a new build id with the same
# code: the nightly's usual case, a rebuild. Prints night 2's coverage (llvm-cov on the
# merged corpus, the cov build) both ways, their ratio, and the carried run's cost: the
# inputs carried and the time the node spent running them before it fuzzed.
#
# Usage: bench/nightly_carry.sh [TARGET] [--minutes=M | --seconds=S]  (libpng, 5 minutes)
# Needs bench/real/setup.sh (as root) once; builds TARGET's pollen and cov flavors if absent.
# Environment: POLLEN_BUILD_DIR (./build), BENCH_REAL_DIR (build/bench-real).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
real=${BENCH_REAL_DIR:-$build/bench-real}
target=libpng
budget=5m
for arg in "$@"; do
  case "$arg" in
    --minutes=*) budget=${arg#--minutes=}m ;;
    --seconds=*) budget=${arg#--seconds=}s ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "ERROR: unknown flag $arg" >&2; exit 2 ;;
    *) target=$arg ;;
  esac
done
pollen=$build/cli/pollen
t=$real/targets/$target
if [ ! -x "$t/pollen" ] || [ ! -x "$t/cov" ]; then
  bash "$root/bench/real/build_target.sh" "$target" pollen cov
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/pollen-nightly-carry-XXXXXX")
controller_pid=""
cleanup() {
  [ -n "$controller_pid" ] && kill "$controller_pid" 2>/dev/null && wait "$controller_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/builds/a" "$work/builds/b"
cp "$t/pollen" "$work/builds/a/$target"
printf 'night 2\n' > "$work/night2.note"
objcopy --add-section .pollen_bench_night="$work/night2.note" "$t/pollen" "$work/builds/b/$target"

"$pollen" controller --listen="tcp://127.0.0.1:*" --data="$work/controller" --insecure-plaintext \
  --status-every=0 --merge-every=0 >"$work/controller.log" 2>&1 &
controller_pid=$!
endpoint=""
for _ in $(seq 1 100); do
  endpoint=$(grep -o 'listening on tcp://127.0.0.1:[0-9]*' "$work/controller.log" | sed 's/listening on //' || true)
  [ -n "$endpoint" ] && break
  sleep 0.1
done
[ -n "$endpoint" ] || { cat "$work/controller.log"; echo "ERROR: the controller did not start" >&2; exit 1; }

campaign_file() {  # NAME
  {
    echo "campaign: $1"
    echo "target: $target"
    echo "builds: {fuzz: $work/builds/a/$target, coverage: $t/cov}"
    echo "seeds: $t/seeds"
    [ -f "$t/dict" ] && echo "dictionary: $t/dict"
    echo "budget: $budget"
    echo "nodes: 1"
    echo "workers: 1"
  } >"$work/$1.yaml"
}
night() {  # NAME NIGHT BUILD
  "$pollen" nightly --campaign="$work/$1.yaml" --controller="$endpoint" --insecure-plaintext \
    --state="$work/state" --night="$2" --build="$work/builds/$3/$target" >"$work/$1-$2.out" 2>&1 || true
  [ -f "$work/state/$1/$2/report.json" ] || { cat "$work/$1-$2.out"; echo "ERROR: night $2 of $1 made no report" >&2; exit 1; }
}

campaign_file carried
campaign_file scratch
echo "nightly_carry: $target, $budget per night, $(date -u +%FT%TZ), commit $(git -C "$root" rev-parse --short HEAD)"
night carried 2026-01-01 a
night carried 2026-01-02 b
night scratch 2026-01-02 b

python3 - "$work" <<'PY'
import json, re, sys
work = sys.argv[1]
def report(name):
    return json.load(open(f"{work}/state/{name}/2026-01-02/report.json"))
def baseline_ms(name):
    log = open(f"{work}/state/{name}/2026-01-02/nodes/0.log").read()
    m = re.search(r"baseline (\d+) ms", log)
    return int(m.group(1)) if m else -1
c, s = report("carried"), report("scratch")
for name, r in (("carried", c), ("scratch", s)):
    if not r.get("coverage"):  # a night that could not fuzz or measure: say why, not a traceback
        print(f"ERROR: night 2 of {name} has no coverage; its report's problems: "
              f"{r.get('problems')} (a target built with an older Pollen runtime must be "
              "rebuilt: delete it and run again)",
              file=sys.stderr)
        sys.exit(1)
for kind in ("branches", "lines", "functions"):
    cc, sc = c["coverage"][kind]["covered"], s["coverage"][kind]["covered"]
    total = c["coverage"][kind]["count"]
    print(f"night 2 {kind:9}: carried {cc}/{total}, from scratch {sc}/{total}, "
          f"ratio {cc / sc if sc else float('inf'):.3f}")
print(f"carried inputs: {c['corpus']['carried_entries']} from build "
      f"{c['corpus']['carried_from_build']}; the node ran its start-up inputs in "
      f"{baseline_ms('carried')} ms (from scratch: {baseline_ms('scratch')} ms)")
print(f"night 2 executions: carried {c['fuzzing']['executions']}, "
      f"from scratch {s['fuzzing']['executions']}")
print(f"night 2 merged corpus: carried {c['corpus']['entries']} inputs / "
      f"{c['corpus']['features']} features, from scratch {s['corpus']['entries']} / "
      f"{s['corpus']['features']}")
PY
