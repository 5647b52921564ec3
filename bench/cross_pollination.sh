#!/usr/bin/env bash
# Cross-pollination benefit on a real target: two `pollen node`s joined by a `pollen broker`
# against two isolated `pollen fuzz` runs: the same seeds, dictionary, random seeds, time
# budget, and one core each (taskset).
#
# Usage: bench/cross_pollination.sh [TARGET [SECONDS [SNAPSHOT_S]]]
#   TARGET      a target built by bench/real (build/bench-real/targets/TARGET, with its
#               pollen and cov binaries and seeds/): re2 (default), jsoncpp, ...
#   SECONDS     how long each pair fuzzes (default 120)
#   SNAPSHOT_S  seconds between corpus snapshots (default 10)
# Environment: CPUS (the two CPUs, default "0 1"), NICE (niceness of every process,
# default 0), OUT (results directory, default build/cross-pollination/DATE-TARGET-SECONDS;
# must not exist), SNAPSHOTS (where snapshots go, default a new directory in /dev/shm),
# POLLEN_CLI (default build/cli/pollen).
#
# The isolated pair runs first, then the joined pair: never both at once. Every SNAPSHOT_S
# seconds both corpora of the running pair are exported (`pollen corpus export` reads a
# store while it is written) into tmpfs: export fsyncs every file, which on this disk took
# 6 s for 2,500 entries and made snapshots a minute late; in tmpfs it takes 0.2 s. The time
# each snapshot was really taken is what counts. Afterwards the target's coverage build
# measures each snapshot as the union of the pair: the seeds plus both corpora, llvm-cov's
# branch count, as bench/real/measure.sh does. Writes OUT/coverage.tsv (snapshot, seconds
# when the isolated and the joined snapshots were taken, their branches), OUT/result, and
# each process's log; prints the result:
#   isolated_final   branches of the isolated pair at the end
#   joined_final     branches of the joined pair at the end
#   joined_reaches_isolated_final_s   when the joined pair first covered as much as the
#                    isolated pair did at the end (linear between snapshots; "-": never)
#   ratio            that time over SECONDS (the goal: at most 0.7)
#   edges_*          Pollen's own edge counts of each node at the end
#   arrivals, arrival_ms_p50/p90/p99/max   find to arrival: for every input one joined node
#                    found and the other took into its corpus from it, the milliseconds
#                    between the two stores' entries (`pollen corpus ls --times`); the
#                    claim is that what one node finds reaches the others within a second
# With TRIALS=N (N > 1) it runs N trials into OUT/trial-K, one after another, and prints
# each trial's ratio and their mean, median, lowest and highest (a trial whose joined pair
# never reached the isolated pair's final coverage counts as 1.0 in the mean and median,
# and is named), also into OUT/summary: the goal is judged on the median, as measured.
# SNAPSHOTS is ignored then: each trial uses a tmpfs directory of its own.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
pollen=${POLLEN_CLI:-$build/cli/pollen}
target=${1:-re2} T=${2:-120} snap=${3:-10}
read -r -a cpus <<<"${CPUS:-0 1}"
nice_n=${NICE:-0}
d=$build/bench-real/targets/$target
out=${OUT:-$build/cross-pollination/$(date +%Y%m%d-%H%M%S)-$target-$T}
[ ${#cpus[@]} -eq 2 ] || { echo "ERROR: CPUS needs two CPU numbers" >&2; exit 2; }
for f in "$d/pollen" "$d/cov" "$pollen"; do
  [ -x "$f" ] || { echo "ERROR: $f missing (bench/real/build_target.sh $target; ninja pollen)" >&2; exit 1; }
done
[ ! -e "$out" ] || { echo "ERROR: $out exists" >&2; exit 2; }
trials=${TRIALS:-1}
[[ "$trials" =~ ^[1-9][0-9]*$ ]] || { echo "ERROR: TRIALS must be a positive integer" >&2; exit 2; }
mkdir -p "$out"
if [ "$trials" -gt 1 ]; then
  cp "$pollen" "$out/pollen"  # one binary for every trial, whatever is rebuilt meanwhile
  for ((k = 1; k <= trials; k++)); do
    echo "cross-pollination: trial $k of $trials" >&2
    TRIALS=1 OUT=$out/trial-$k SNAPSHOTS= POLLEN_CLI=$out/pollen bash "$0" "$target" "$T" "$snap" >/dev/null
  done
  python3 - "$out" "$trials" <<'PY' | tee "$out/summary"
import statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
ratios, never = [], []
for k in range(1, n + 1):
    fields = dict(line.split(" ", 1) for line in open(f"{out}/trial-{k}/result").read().splitlines() if " " in line)
    r = fields.get("ratio", "-").strip()
    print(f"trial_{k} ratio {r} isolated_final {fields['isolated_final'].strip()} "
          f"joined_final {fields['joined_final'].strip()} arrivals {fields.get('arrivals', '-').strip()} "
          f"arrival_ms_p50 {fields.get('arrival_ms_p50', '-').strip()} arrival_ms_p99 {fields.get('arrival_ms_p99', '-').strip()}")
    if r == "-":
        never.append(k)
        ratios.append(1.0)
    else:
        ratios.append(float(r))
print(f"trials {n}")
print(f"ratio_mean {statistics.mean(ratios):.3f}")
print(f"ratio_median {statistics.median(ratios):.3f}")
print(f"ratio_lowest {min(ratios):.2f}")
print(f"ratio_highest {max(ratios):.2f}")
print(f"never_reached {','.join(map(str, never)) if never else 'none'}")
PY
  exit 0
fi
if [ -n "${SNAPSHOTS:-}" ]; then
  snapshots=$SNAPSHOTS
  mkdir -p "$snapshots"
else
  snapshots=$(mktemp -d /dev/shm/cross_pollination.XXXXXX)
  trap 'rm -rf "$snapshots"' EXIT
fi
cp "$pollen" "$out/pollen"  # a rebuild during the runs changes nothing
pollen=$out/pollen
fuzz_flags=(--workers=1 --time="$T" --keep-going --status-every=10)
[ -f "$d/dict" ] && fuzz_flags+=("--dict=$d/dict")
now() { perl -MTime::HiRes=time -e 'printf "%.3f", time'; }

# run_pair isolated|joined: runs two fuzzers for T seconds, with corpus snapshots.
run_pair() {
  local mode=$1 dir=$out/$1 snaps=$snapshots/$1 broker_pid="" endpoint="" pids=() i start k due wait_s cmd
  mkdir -p "$dir" "$snaps"
  if [ "$mode" = joined ]; then
    nice -n "$nice_n" "$pollen" broker --listen='tcp://127.0.0.1:*' --insecure-plaintext \
      --status-every=10 >"$dir/broker.log" 2>&1 &
    broker_pid=$!
    for _ in $(seq 100); do  # the broker prints its port once it listens
      endpoint=$(sed -n 's/.*listening on \(tcp:[^ ]*\).*/\1/p' "$dir/broker.log")
      [ -n "$endpoint" ] && break
      sleep 0.1
    done
    [ -n "$endpoint" ] || { echo "ERROR: the broker did not start:" >&2; cat "$dir/broker.log" >&2; exit 1; }
  fi
  start=$(now)
  for i in 0 1; do
    if [ "$mode" = joined ]; then
      cmd=("$pollen" node "$d/pollen" "$d/seeds" --broker="$endpoint" --insecure-plaintext
           --node-id="node-$i")
    else
      cmd=("$pollen" fuzz "$d/pollen" "$d/seeds")
    fi
    cmd+=("${fuzz_flags[@]}" --seed=$((i + 1)) --workdir="$dir/node-$i")
    nice -n "$nice_n" taskset -c "${cpus[$i]}" "${cmd[@]}" </dev/null >"$dir/node-$i.log" 2>&1 &
    pids+=($!)
  done
  snapshot() {  # snapshot SECONDS: both corpora, and the seconds since the start it took them
    local s
    s=$snaps/$(printf '%06d' "$1")
    mkdir -p "$s"
    perl -e "printf '%.1f', $(now) - $start" >"$s/taken_s"
    for i in 0 1; do
      nice -n "$nice_n" "$pollen" corpus export "$dir/node-$i" "$s/node-$i" >/dev/null 2>&1 || true
    done
  }
  for ((k = 1; k * snap < T; k++)); do
    due=$(perl -e "printf '%.3f', $start + $k * $snap")
    wait_s=$(perl -e "printf '%.3f', $due - $(now)")
    perl -e "exit !($wait_s > 0)" && sleep "$wait_s"
    snapshot $((k * snap))
  done
  for p in "${pids[@]}"; do wait "$p" || true; done
  snapshot "$T"
  [ -z "$broker_pid" ] || { kill -INT "$broker_pid"; wait "$broker_pid" || true; }
}

# branches SNAPSHOT_DIR: the branches the seeds and both corpora of a snapshot cover.
branches() {
  local s=$1 tmp tot br bmiss
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/cross_pollination.XXXXXX")
  mkdir -p "$s/node-0" "$s/node-1"
  LLVM_PROFILE_FILE="$tmp/cov-%p.profraw" nice -n "$nice_n" "$d/cov" -timeout=25 -close_fd_mask=3 \
    "$d/seeds" "$s/node-0" "$s/node-1" >"$tmp/log" 2>&1 || true
  llvm-profdata-14 merge -sparse "$tmp"/*.profraw -o "$tmp/cov.profdata" 2>>"$tmp/log"
  tot=$(llvm-cov-14 report "$d/cov" -instr-profile="$tmp/cov.profdata" 2>/dev/null | grep '^TOTAL')
  # TOTAL regions missed % functions missed % lines missed % branches missed %
  read -r _ _ _ _ _ _ _ _ _ _ br bmiss _ <<<"$tot"
  rm -rf "$tmp"
  echo $((br - bmiss))
}

echo "cross-pollination on $target: ${T} s per pair, snapshots every ${snap} s, CPUs ${cpus[*]}, nice $nice_n; results in $out" >&2
run_pair isolated
run_pair joined
echo "measuring the snapshots..." >&2
printf 'snapshot\tisolated_s\tjoined_s\tisolated\tjoined\n' >"$out/coverage.tsv"
for s in "$snapshots"/isolated/*/; do
  name=$(basename "$s")
  i=$snapshots/isolated/$name j=$snapshots/joined/$name
  printf '%d\t%s\t%s\t%d\t%d\n' $((10#$name)) "$(cat "$i/taken_s")" "$(cat "$j/taken_s")" \
    "$(branches "$i")" "$(branches "$j")" >>"$out/coverage.tsv"
done

edges() { sed -n 's/.*coverage: *\([0-9]*\) edges.*/\1/p' "$1" | tail -1; }
perl -e '
  my ($T, $file) = @ARGV;
  open my $f, "<", $file or die;
  <$f>;
  my @rows = map { [split] } <$f>;
  my $iso = $rows[-1][3];
  my $reach = "-";
  my ($pt, $pj) = (0, 0);
  for my $r (@rows) {
    my ($t, $j) = ($r->[2], $r->[4]);  # when the joined snapshot was taken, its branches
    if ($j >= $iso) {
      $reach = $j == $pj ? $t : $pt + ($t - $pt) * ($iso - $pj) / ($j - $pj);
      $reach = sprintf "%.1f", $reach;
      last;
    }
    ($pt, $pj) = ($t, $j);
  }
  printf "isolated_final %d\njoined_final %d\njoined_reaches_isolated_final_s %s\nratio %s\n",
    $iso, $rows[-1][4], $reach, $reach eq "-" ? "-" : sprintf("%.2f", $reach / $T);
' "$T" "$out/coverage.tsv" >"$out/result"
{
  echo "target $target"
  echo "seconds $T"
  for m in isolated joined; do
    echo "edges_${m} $(edges "$out/$m/node-0.log") $(edges "$out/$m/node-1.log")"
  done
  grep -h '^info: cluster: inputs' "$out"/joined/node-*.log | sed 's/^info: /joined_/'
} >>"$out/result"
# Find to arrival: for each input one joined node found and the other took into its corpus
# from it, the time between the two stores' entries (`pollen corpus ls --times`).
for i in 0 1; do "$pollen" corpus ls "$out/joined/node-$i" --times >"$out/joined/node-$i.entries"; done
python3 - "$out/joined/node-0.entries" "$out/joined/node-1.entries" <<'PY' >>"$out/result"
import sys
stores = []
for path in sys.argv[1:]:
    entries = {}
    for line in open(path):
        f = line.split()
        if len(f) == 5:
            entries[f[0]] = (f[3], int(f[4]))  # hash -> (origin, joined the store, ms)
    stores.append(entries)
delays = []
for me, other in ((0, 1), (1, 0)):
    for h, (origin, t) in stores[other].items():
        mine = stores[me].get(h)
        if origin.startswith("peer:") and mine and not mine[0].startswith("peer:"):
            delays.append(t - mine[1])
delays.sort()
def pct(p):  # nearest rank
    return delays[max(0, -(-p * len(delays) // 100) - 1)] if delays else "-"
print(f"arrivals {len(delays)}")
print(f"arrival_ms_p50 {pct(50)}\narrival_ms_p90 {pct(90)}\narrival_ms_p99 {pct(99)}\narrival_ms_max {delays[-1] if delays else '-'}")
PY
cat "$out/result"
