#!/usr/bin/env python3
"""Time to the planted bug of each puzzle, per fuzzer, from bench/real/run.sh results.

Usage: bench/puzzles/report.py RESULTS_DIR...

Reads RESULTS/puzzle_*/FUZZER/trial-N/result (bench/real/run_one.sh) from every directory
given (the runs of one fuzzer may come from another directory than those of the others) and
prints a Markdown table: per puzzle and fuzzer, the trials that found the bug, the median
time to the bug counting a miss as never (">T" when more than half missed), and the slowest
find. Exits 1 when no puzzle run is found.
"""
import glob
import os
import statistics
import sys

LABELS = {"pollen": "Pollen", "pollen-routines": "Pollen + compiler plugin", "libfuzzer": "libFuzzer",
          "aflplusplus": "AFL++ (CmpLog)", "afl": "AFL++ (no CmpLog)"}
ORDER = ["pollen", "pollen-routines", "libfuzzer", "aflplusplus", "afl"]


def read_result(path):
    result = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.strip().partition(" ")
            result[key] = value
    return result


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    runs = {}  # (puzzle, fuzzer) -> list of (found seconds or None, limit seconds)
    for results in argv[1:]:
        limit = None
        meta = os.path.join(results, "meta")
        if os.path.exists(meta):
            for line in open(meta):
                if line.startswith("seconds "):
                    limit = float(line.split()[1])
        for path in sorted(glob.glob(os.path.join(results, "puzzle_*", "*", "trial-*", "result"))):
            parts = path.split(os.sep)
            puzzle, fuzzer = parts[-4], parts[-3]
            r = read_result(path)
            crash = r.get("first_crash_s", "-")
            found = None if crash in ("-", "") else float(crash)
            runs.setdefault((puzzle, fuzzer), []).append((found, limit))
    if not runs:
        sys.stderr.write("report: no puzzle runs found\n")
        return 1
    puzzles = sorted({p for p, _ in runs})
    fuzzers = [f for f in ORDER if any(k[1] == f for k in runs)]
    print("| puzzle | " + " | ".join(LABELS[f] for f in fuzzers) + " |")
    print("|---|" + "---|" * len(fuzzers))
    for p in puzzles:
        cells = []
        for f in fuzzers:
            trials = runs.get((p, f), [])
            if not trials:
                cells.append("–")
                continue
            times = sorted(t if t is not None else float("inf") for t, _ in trials)
            found = sum(1 for t, _ in trials if t is not None)
            limit = max((l for _, l in trials if l), default=None)
            median = statistics.median_low(times)
            med = f"{median:.1f} s" if median != float("inf") else (f">{limit:.0f} s" if limit else "never")
            slowest = max((t for t, _ in trials if t is not None), default=None)
            tail = f", max {slowest:.1f} s" if slowest is not None and found > 1 else ""
            cells.append(f"{found}/{len(trials)}: {med}{tail}")
        print(f"| {p.removeprefix('puzzle_')} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
