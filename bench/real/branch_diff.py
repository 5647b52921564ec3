#!/usr/bin/env python3
"""Which branches one run's corpus covers and another's does not, by function.

Usage: bench/real/branch_diff.py RUN_A RUN_B [--top=N]
  RUN_A, RUN_B  trial directories written by bench/real/run.sh
                (RESULTS/TARGET/FUZZER/trial-N), of the same target

Runs the target's coverage build on each run's last snapshot plus the target's seeds (as
measure.sh does), exports both profiles with llvm-cov-14, and prints the functions where the
two differ most: branch sides covered by A only and by B only. Environment: POLLEN_BUILD_DIR,
BENCH_REAL_DIR (as the other scripts).
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile


def fail(msg):
    print(f"ERROR: {msg}", file=sys.stderr)
    sys.exit(1)


def last_snapshot(run):
    snaps = sorted((p for p in (run / "snapshots").iterdir() if p.is_dir() and p.name.isdigit()),
                   key=lambda p: int(p.name))
    if not snaps:
        fail(f"{run} has no snapshots")
    return snaps[-1]


def covered_sides(cov, seeds, snapshot, tmp):
    """{function name: set of (file, line, col, side)} of the branch sides taken."""
    prof = tmp / "prof"
    shutil.rmtree(prof, ignore_errors=True)
    env = dict(os.environ, LLVM_PROFILE_FILE=str(prof / "cov-%p.profraw"))
    subprocess.run([str(cov), "-timeout=25", "-close_fd_mask=3", str(seeds), str(snapshot)],
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    raws = [str(p) for p in prof.glob("*.profraw")]
    if not raws:
        fail(f"no profile from {snapshot}")
    data = tmp / "cov.profdata"
    subprocess.run(["llvm-profdata-14", "merge", "-sparse", *raws, "-o", str(data)], check=True)
    out = subprocess.run(["llvm-cov-14", "export", str(cov), f"-instr-profile={data}",
                          "-skip-expansions"], check=True, capture_output=True, text=True).stdout
    sides = {}
    for export in json.loads(out)["data"]:
        for fn in export.get("functions", []):
            files = fn.get("filenames", [""])
            taken = sides.setdefault(fn["name"], set())
            # A branch: [line, col, end_line, end_col, true_count, false_count, file_id, ...]
            for b in fn.get("branches", []):
                f = files[b[6]] if len(b) > 6 and b[6] < len(files) else files[0]
                if b[4] > 0:
                    taken.add((f, b[0], b[1], True))
                if b[5] > 0:
                    taken.add((f, b[0], b[1], False))
    return sides


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    top = 25
    for a in sys.argv[1:]:
        if a.startswith("--top="):
            top = int(a.split("=", 1)[1])
        elif a.startswith("--"):
            fail(f"unknown flag {a}")
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    runs = [pathlib.Path(a).resolve() for a in args]
    targets = {r.parent.parent.name for r in runs}
    if len(targets) != 1:
        fail(f"the runs are of different targets: {sorted(targets)}")
    target = targets.pop()
    root = pathlib.Path(__file__).resolve().parents[2]
    build = pathlib.Path(os.environ.get("POLLEN_BUILD_DIR", root / "build"))
    out = pathlib.Path(os.environ.get("BENCH_REAL_DIR", build / "bench-real"))
    cov, seeds = out / "targets" / target / "cov", out / "targets" / target / "seeds"
    if not os.access(cov, os.X_OK):
        fail(f"{cov} missing: bench/real/build_target.sh {target} cov")
    with tempfile.TemporaryDirectory() as t:
        tmp = pathlib.Path(t)
        a, b = (covered_sides(cov, seeds, last_snapshot(r), tmp) for r in runs)
    names = set(a) | set(b)
    rows = []
    for n in names:
        sa, sb = a.get(n, set()), b.get(n, set())
        only_a, only_b = len(sa - sb), len(sb - sa)
        if only_a or only_b:
            rows.append((only_a - only_b, only_a, only_b, n))
    total_a = sum(len(s) for s in a.values())
    total_b = sum(len(s) for s in b.values())
    print(f"{target}: A={runs[0]} ({total_a} branch sides), B={runs[1]} ({total_b})")
    print(f"sides covered by A only: {sum(r[1] for r in rows)}, by B only: {sum(r[2] for r in rows)}")
    print(f"{'A only':>7} {'B only':>7}  function")
    rows.sort(key=lambda r: (-abs(r[0]), r[3]))
    rows = rows[:top]
    # Names are mangled ("file:name" for static functions): c++filt reads one per line.
    shown = subprocess.run(["c++filt"], input="\n".join(r[3] for r in rows), capture_output=True,
                           text=True, check=False).stdout.splitlines()
    if len(shown) != len(rows):
        shown = [r[3] for r in rows]
    for (_, oa, ob, _), name in zip(rows, shown):
        print(f"{oa:7d} {ob:7d}  {name[:150]}")


if __name__ == "__main__":
    main()
