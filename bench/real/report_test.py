#!/usr/bin/env python3
"""Tests of bench/real/report.py on made-up results directories: how several directories
combine (a fuzzer from the first directory that has it; with --pool-anchors, libFuzzer's and
AFL++'s trials from all of them) and that a bad flag is refused.

Usage: bench/real/report_test.py (exit status 0 when every check holds)."""
import os
import subprocess
import sys
import tempfile

REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.py")


def make_results(root, pollen_commit, runs):
    """runs: {(fuzzer, trial): (branches, exec_per_s)} on the one target "re2"."""
    fuzzers = sorted({f for f, _ in runs}, key=["pollen-routines", "libfuzzer", "aflplusplus"].index)
    os.makedirs(root)
    with open(os.path.join(root, "meta"), "w") as f:
        f.write(f"date 2026-11-27T00:00:00Z\ncommand run.sh\nseconds 600\ntrials 1\n"
                f"fuzzers {' '.join(fuzzers)}\ntarget re2 coverage\npollen {pollen_commit}\n")
    for (fuzzer, trial), (branches, eps) in runs.items():
        d = os.path.join(root, "re2", fuzzer, f"trial-{trial}")
        os.makedirs(d)
        with open(os.path.join(d, "result"), "w") as f:
            f.write(f"fuzzer {fuzzer}\nexec_per_s {eps}\nfirst_crash_s -\ncorpus 10\n")
        with open(os.path.join(d, "coverage.tsv"), "w") as f:
            f.write(f"600\t{branches}\t4582\t100\t8588\t10\n")


def row(report, label):
    for line in report.splitlines():
        if line.startswith(f"| {label} |"):
            return [c.strip() for c in line.strip("|").split("|")]
    raise AssertionError(f"no row for {label} in:\n{report}")


def main():
    failures = []

    def check(what, got, want):
        if got != want:
            failures.append(f"{what}: got {got!r}, want {want!r}")

    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        make_results(a, "new", {("pollen-routines", 1): (3400, 20000), ("libfuzzer", 1): (3000, 10000),
                                ("aflplusplus", 1): (3300, 15000)})
        make_results(b, "old", {("pollen-routines", 1): (1, 1), ("libfuzzer", 1): (3100, 12000),
                                ("aflplusplus", 1): (3500, 16000), ("aflplusplus", 2): (3600, 17000)})

        plain = subprocess.run([sys.executable, REPORT, a, b], capture_output=True, text=True)
        check("exit status without pooling", plain.returncode, 0)
        afl = row(plain.stdout, "AFL++ (CmpLog)")
        check("AFL++ trials without pooling (the first directory's)", afl[1], "1")
        check("AFL++ branches without pooling", afl[2].split(" /")[0], "3,300")

        pooled = subprocess.run([sys.executable, REPORT, a, b, "--pool-anchors"], capture_output=True, text=True)
        check("exit status with pooling", pooled.returncode, 0)
        afl = row(pooled.stdout, "AFL++ (CmpLog)")
        check("AFL++ trials pooled", afl[1], "3")
        check("AFL++ median branches pooled, with the range", afl[2], "3,500 / 4,582 (3,300–3,600)")
        lf = row(pooled.stdout, "libFuzzer (-fork=1)")
        check("libFuzzer trials pooled", lf[1], "2")
        check("libFuzzer median exec/s pooled", lf[4].split(" ")[0], "11,000")
        pollen = row(pooled.stdout, "Pollen + compiler plugin")
        check("Pollen is never pooled: the first directory's only", (pollen[1], pollen[2].split(" /")[0]),
              ("1", "3,400"))
        # 3,400 over the pooled AFL++ median of 3,500.
        check("branches vs best against the pooled anchors", pollen[7], "0.971×")
        check("pooled anchors give no paired ratio", row(pooled.stdout, "re2")[4:6], ["1.82×", "0.971×"])
        check("unpooled: the first directory's trial 1 pairs", row(plain.stdout, "re2")[4:6],
              ["2.00×; paired 2.00× (1)", "1.030×; paired 1.030× (1)"])

        # Paired ratios: each trial's Pollen against the anchors of the same trial. Medians of
        # the fuzzers apart give exec/s 35,000 / 20,000 and branches 3,500 / 3,400 (AFL++'s);
        # the per-trial ratios are 2.00, 0.75, 2.00 and, against the better anchor of each
        # trial, 3,300 / 3,600 (libFuzzer's), 0.90, 1.00 (trial 4, Pollen's alone, pairs with
        # nothing).
        c = os.path.join(tmp, "c")
        make_results(c, "new", {("pollen-routines", 1): (3300, 20000), ("pollen-routines", 2): (3600, 30000),
                                ("pollen-routines", 3): (3400, 40000), ("pollen-routines", 4): (9999, 99999),
                                ("libfuzzer", 1): (3600, 10000), ("libfuzzer", 2): (3000, 40000),
                                ("libfuzzer", 3): (3000, 20000),
                                ("aflplusplus", 1): (3000, 1), ("aflplusplus", 2): (4000, 1),
                                ("aflplusplus", 3): (3400, 1)})
        summary = subprocess.run([sys.executable, REPORT, c], capture_output=True, text=True)
        check("exit status of the paired report", summary.returncode, 0)
        cells = row(summary.stdout, "re2")
        check("exec/s: ratio of medians, then paired", cells[4], "1.75×; paired 2.00× (3)")
        check("branches: ratio of medians, then paired", cells[5], "1.029×; paired 0.917× (3)")

        bad = subprocess.run([sys.executable, REPORT, a, "--pool"], capture_output=True, text=True)
        check("an unknown flag is refused", bad.returncode, 2)

    for f in failures:
        print("FAIL:", f)
    print("report_test:", "ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
