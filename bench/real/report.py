#!/usr/bin/env python3
"""Report of a bench/real/run.sh results directory: tables and coverage-over-time plots.

Usage: bench/real/report.py RESULTS_DIR [MORE_RESULTS_DIR...] [--docs=docs/benchmarks.md]
                             [--img-dir=docs/img] [--section=NAME] [--pool-anchors]

Reads RESULTS/meta, RESULTS/TARGET/FUZZER/trial-N/{result,coverage.tsv} (run_one.sh and
measure.sh) and writes RESULTS/report.md and, with gnuplot installed, RESULTS/TARGET.svg.
Every figure is the median over the trials. Branch and line coverage are those of the
coverage build (llvm-cov) on the seeds plus the fuzzer's corpus at the end of the run (the
last snapshot no later than the run's time); exec/s is each fuzzer's own figure.

With --docs, the report replaces what lies between the markers
"<!-- bench/real report: begin -->" and "<!-- bench/real report: end -->" in that file (they
are appended if missing) and the plots are copied into --img-dir as bench-real-TARGET.svg.
--section=NAME uses the markers "<!-- bench/real report NAME: begin -->" (and end) instead,
for a run of some targets that must not replace the main report.
A directory that run.sh --first-trial added trials to lists each continuation from its meta.
Several results directories (runs of the same length, say one for the anchors and a later
one for another Pollen build) are reported as one: each target's fuzzers from all of them
(a fuzzer in two directories: the first one's), each directory's date and command listed,
the report written into the first. With --pool-anchors, the trials of libFuzzer and AFL++
are pooled across all the directories instead (their binaries do not change with Pollen's
commits, so a trial run in one session counts with those of another; see docs/decisions.md).
Exits 1 if RESULTS has no run at all; runs without coverage.tsv are reported as unmeasured.
"""
import os
import shutil
import statistics
import subprocess
import sys

BEGIN = "<!-- bench/real report: begin -->"
END = "<!-- bench/real report: end -->"
LABELS = {"pollen": "Pollen", "pollen-routines": "Pollen + compiler plugin", "libfuzzer": "libFuzzer (-fork=1)",
          "libfuzzer-plain": "libFuzzer (in-process)",
          "aflplusplus": "AFL++ (CmpLog)", "afl": "AFL++ (no CmpLog)"}
OTHERS = ("libfuzzer", "libfuzzer-plain", "aflplusplus", "afl")


def read_meta(results):
    meta = {"target": []}
    with open(os.path.join(results, "meta")) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition(" ")
            if key == "target":
                meta["target"].append(value.split())
            elif key in ("source", "continued"):
                meta.setdefault(key, []).append(value)
            else:
                meta[key] = value
    return meta


def read_run(path):
    run = {"result": {}, "coverage": []}
    try:
        with open(os.path.join(path, "result")) as f:
            for line in f:
                key, _, value = line.strip().partition(" ")
                run["result"][key] = value
    except FileNotFoundError:
        pass
    try:
        with open(os.path.join(path, "coverage.tsv")) as f:
            for line in f:
                fields = line.split()
                if len(fields) == 6:
                    run["coverage"].append([int(x) for x in fields])
    except FileNotFoundError:
        pass
    return run


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def spread(values):
    """(lowest, highest) of two or more values; None for fewer (nothing to show)."""
    values = [v for v in values if v is not None]
    return (min(values), max(values)) if len(values) >= 2 else None


def fmt_range(r):
    return f" ({fmt(r[0])}–{fmt(r[1])})" if r else ""


def fmt(value, digits=0):
    if value is None:
        return "–"
    if digits == 0:
        return f"{round(value):,}"
    return f"{value:,.{digits}f}"


def final_row(coverage, seconds):
    """The last snapshot taken no later than the run's time (1 s of rounding allowed)."""
    rows = [r for r in coverage if r[0] <= seconds + 1]
    return rows[-1] if rows else (coverage[-1] if coverage else None)


def summarize(fuzzer, runs, seconds):
    """One fuzzer's figures on one target: medians and spreads over its runs."""
    finals = [final_row(r["coverage"], seconds) for r in runs]
    finals = [f for f in finals if f]
    crashes = [number(r["result"].get("first_crash_s")) for r in runs]
    found = [c for c in crashes if c is not None]
    return {
        "fuzzer": fuzzer,
        "trials": len(runs),
        "measured": len(finals),
        "branches": median([f[1] for f in finals]),
        "branches_range": spread([f[1] for f in finals]),
        "branches_total": finals[0][2] if finals else None,
        "lines": median([f[3] for f in finals]),
        "lines_total": finals[0][4] if finals else None,
        "corpus": median([number(r["result"].get("corpus")) for r in runs]),
        "eps": median([number(r["result"].get("exec_per_s")) for r in runs]),
        "eps_range": spread([number(r["result"].get("exec_per_s")) for r in runs]),
        "crash_s": median(found),
        "crash_found": len(found),
        "runs": runs,
    }


def collect(results, meta):
    seconds = int(meta.get("seconds", "0"))
    targets = []
    for name, mode in meta["target"]:
        fuzzers = []
        for fuzzer in meta.get("fuzzers", "").split():
            fdir = os.path.join(results, name, fuzzer)
            trials = sorted(d for d in os.listdir(fdir) if d.startswith("trial-")
                            and os.path.isdir(os.path.join(fdir, d))) if os.path.isdir(fdir) else []
            runs = [dict(read_run(os.path.join(fdir, t)), trial=t) for t in trials]
            fuzzers.append(summarize(fuzzer, runs, seconds))
        targets.append({"name": name, "mode": mode, "fuzzers": fuzzers})
    return seconds, targets


def over_time(runs, step):
    """Median branches covered at each snapshot time (seconds -> value)."""
    points = {}
    for run in runs:
        for row in run["coverage"]:
            points.setdefault(row[0], []).append(row[1])
    return sorted((t, statistics.median(v)) for t, v in points.items())


def plot(target, seconds, path_svg):
    if not shutil.which("gnuplot"):
        return False
    datafiles = []
    base = path_svg[:-4]
    for f in target["fuzzers"]:
        series = over_time(f["runs"], 60)
        if not series:
            continue
        data = f"{base}.{f['fuzzer']}.dat"
        with open(data, "w") as out:
            for t, v in series:
                out.write(f"{t / 60:.3f} {v}\n")
        datafiles.append((data, LABELS.get(f["fuzzer"], f["fuzzer"])))
    if not datafiles:
        return False
    plots = ", ".join(f"'{d}' using 1:2 with linespoints title '{label}'" for d, label in datafiles)
    script = (f"set terminal svg size 640,400 dynamic font 'sans,11'\n"
              f"set output '{path_svg}'\n"
              f"set title '{target['name']}: branches covered (median of trials)'\n"
              f"set xlabel 'minutes'\nset ylabel 'branches (llvm-cov)'\n"
              f"set key bottom right\nset grid\nset xrange [0:{seconds / 60:g}]\n"
              f"plot {plots}\n")
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    for d, _ in datafiles:
        os.remove(d)
    return True


def best_other(fuzzers, key):
    values = [f[key] for f in fuzzers if f["fuzzer"] in OTHERS and f[key] is not None]
    return max(values) if values else None


def ratio(a, b, digits=2):
    return f"{a / b:.{digits}f}×" if a is not None and b else "–"


def by_trial(f, seconds):
    """A fuzzer's runs by trial name -> (branches at the end, exec/s). Names are unique: one
    directory's trial-N, or "pooled I" for anchors pooled from several (main)."""
    out = {}
    for r in f["runs"]:
        final = final_row(r["coverage"], seconds)
        out[r["trial"]] = (final[1] if final else None, number(r["result"].get("exec_per_s")))
    return out


def paired(arm, others, seconds, key):
    """The median of per-trial ratios: the arm's exec/s over libFuzzer's (key "eps"), or its
    branches over the best anchor's (key "branches"), over the trials every one of `others` ran
    with the same name (on one machine, as bench/real/long_runs.sh runs them; trials pooled
    with --pool-anchors are renamed and pair with nothing).
    Returns (median ratio, number of trials) or None."""
    index = 1 if key == "eps" else 0
    mine = by_trial(arm, seconds)
    theirs = [by_trial(o, seconds) for o in others]
    ratios = []
    for trial, figures in mine.items():
        values = [t.get(trial, (None, None))[index] for t in theirs]
        if figures[index] is None or not values or any(not v for v in values):
            continue
        ratios.append(figures[index] / max(values))
    return (statistics.median(ratios), len(ratios)) if ratios else None


def with_paired(cell, pair, digits):
    """A summary cell: the ratio of the medians, then the median of the paired ratios."""
    if not pair or cell == "–":
        return cell
    return f"{cell}; paired {pair[0]:.{digits}f}× ({pair[1]})"


def render(results, metas, seconds, targets, img_prefix):
    md = []
    meta = metas[0]
    for m in metas:
        md.append(f"Measured {m.get('date', '?')} on {m.get('cpu', '?')}, {m.get('memory', '?')} "
                  f"(kernel {m.get('kernel', '?')}); Pollen {m.get('pollen', '?')}, "
                  f"{m.get('clang', '?')}, afl++ {m.get('afl++', '–')}.")
        md.append(f"Command: `{m.get('command', '?')}` — {seconds / 60:g} min per run, "
                  f"{m.get('trials', '?')} trial(s), snapshots every {m.get('snapshot', '?')} s; "
                  f"speed runs {m.get('speed_time', '?')} s.")
        for line in m.get("continued", []):
            md.append(f"Continued (run.sh --first-trial): {line}.")
    md.append("Sources: " + "; ".join(meta.get("source", [])) + ".")
    md.append("")
    md.append("Figures are medians over the trials, with the lowest and highest trial in "
              "brackets when there are several. Branches and lines: llvm-cov on the coverage "
              "build, seeds plus the fuzzer's corpus at the end. exec/s: each fuzzer's own "
              "figure, one CPU each. \"vs best\": Pollen's branches over the best of libFuzzer "
              "and AFL++; \"vs libFuzzer\": exec/s over libFuzzer's. In the first table, a ratio of "
              "medians is followed by the paired one: the median of the per-trial ratios over the "
              "trials every fuzzer compared ran under the same number (on one machine; none when "
              "the anchors are pooled), and how many. libFuzzer (-fork=1) runs as "
              "FuzzBench runs it, so that it goes on after a crash; its exec/s is executions over time, jobs' restarts "
              "included. libFuzzer (in-process) is the same without -fork=1, restarted on its corpus after "
              "a crash; when it ran, \"vs libFuzzer\" is against it.")
    md.append("")
    summary = []
    for t in targets:
        fz = t["fuzzers"]
        arms = [next((f for f in fz if f["fuzzer"] == a and f["trials"]), None)
                for a in ("pollen", "pollen-routines")]
        # exec/s is compared with libFuzzer in process when it ran (fork mode counts its
        # jobs' restarts as time), else with fork mode.
        lf = (next((f for f in fz if f["fuzzer"] == "libfuzzer-plain" and f["trials"]), None)
              or next((f for f in fz if f["fuzzer"] == "libfuzzer"), None))
        md.append(f"### {t['name']} ({t['mode']})")
        md.append("")
        if t["mode"] == "speed":
            md.append("| fuzzer | exec/s | vs libFuzzer |")
            md.append("|---|---|---|")
            for f in fz:
                md.append(f"| {LABELS.get(f['fuzzer'], f['fuzzer'])} | {fmt(f['eps'])} | "
                          f"{ratio(f['eps'], lf['eps'] if lf else None)} |")
        else:
            best = best_other(fz, "branches")
            md.append("| fuzzer | trials | branches | lines | exec/s | vs libFuzzer | corpus | branches vs best | first crash (s) |")
            md.append("|---|---|---|---|---|---|---|---|---|")
            for f in fz:
                crash = (f"{fmt(f['crash_s'], 1)} ({f['crash_found']}/{f['trials']})"
                         if f["crash_found"] else f"none (0/{f['trials']})")
                md.append(
                    f"| {LABELS.get(f['fuzzer'], f['fuzzer'])} | {f['trials']} | {fmt(f['branches'])} / {fmt(f['branches_total'])}"
                    f"{fmt_range(f['branches_range'])} | "
                    f"{fmt(f['lines'])} / {fmt(f['lines_total'])} | {fmt(f['eps'])}{fmt_range(f['eps_range'])} | "
                    f"{ratio(f['eps'], lf['eps'] if lf else None)} | {fmt(f['corpus'])} | "
                    f"{ratio(f['branches'], best, 3)} | {crash} |")
            svg = os.path.join(results, f"{t['name']}.svg")
            if t["mode"] == "coverage" and plot(t, seconds, svg):
                md.append("")
                md.append(f"![{t['name']}: branches over time]({img_prefix}{t['name']}.svg)")
        md.append("")
        if any(arms):
            # Bug runs last a fraction of a second: their exec/s is start-up, their coverage
            # trivial; the time to the bug is what they measure.
            cells = []
            anchors = [f for f in fz if f["fuzzer"] in OTHERS and f["trials"]]
            for arm in arms:
                cells.append(with_paired(ratio(arm["eps"], lf["eps"] if lf else None),
                                         paired(arm, [lf] if lf else [], seconds, "eps"), 2)
                             if arm and t["mode"] != "bug" else "–")
                cells.append(with_paired(ratio(arm["branches"], best_other(fz, "branches"), 3),
                                         paired(arm, anchors, seconds, "branches"), 3)
                             if arm and t["mode"] == "coverage" else "–")
            bug = " / ".join(
                f"{fmt(f['crash_s'], 1)} s" if f["crash_found"] else "not found"
                for f in fz) if t["mode"] == "bug" else "–"
            summary.append((t["name"], t["mode"], *cells, bug))
    names = " / ".join(LABELS.get(f["fuzzer"], f["fuzzer"]) for f in targets[0]["fuzzers"]) if targets else ""
    head = ["| target | mode | Pollen exec/s vs libFuzzer (goal ≥ 1.2×) | Pollen branches vs best of "
            "libFuzzer/AFL++ (goal ≥ 1.000×) | Pollen + compiler plugin: exec/s vs libFuzzer | "
            f"Pollen + compiler plugin: branches vs best | time to the bug ({names}) |",
            "|---|---|---|---|---|---|---|"]
    head += ["| " + " | ".join(row) + " |" for row in summary]
    return "\n".join(head + [""] + md) + "\n"


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv[1:] if a.startswith("--") and "=" in a)
    flags = {a[2:] for a in argv[1:] if a.startswith("--") and "=" not in a}
    pool = "pool-anchors" in flags
    if not args or any(k not in ("docs", "img-dir", "section") for k in opts) or flags - {"pool-anchors"}:
        sys.stderr.write(__doc__)
        return 2
    # The same directory twice (or through a link) would count its trials twice.
    seen, unique = set(), []
    for d in args:
        if os.path.realpath(d) not in seen:
            seen.add(os.path.realpath(d))
            unique.append(d)
    args = unique
    results = args[0]
    metas, collected = [], []
    for d in args:
        try:
            metas.append(read_meta(d))
        except OSError as e:
            sys.stderr.write(f"report: cannot read {d}/meta: {e}\n")
            return 1
        collected.append(collect(d, metas[-1]))
    seconds, targets = collected[0]
    for d, (more_seconds, more_targets) in zip(args[1:], collected[1:]):
        if more_seconds != seconds:
            sys.stderr.write(f"report: {d} has runs of {more_seconds} s, {results} of {seconds} s\n")
            return 2
        by_name = {t["name"]: t for t in targets}
        for t in more_targets:
            if t["name"] not in by_name:
                targets.append(t)
                by_name[t["name"]] = t
                continue
            have = {f["fuzzer"]: f for f in by_name[t["name"]]["fuzzers"] if f["trials"]}
            for f in t["fuzzers"]:
                if not f["trials"]:
                    continue
                if f["fuzzer"] in have and pool and f["fuzzer"] in OTHERS:
                    # Pooled trials come from several sessions: their names pair with nothing.
                    runs = have[f["fuzzer"]]["runs"] + f["runs"]
                    runs = [dict(r, trial=f"pooled {i}") for i, r in enumerate(runs)]
                    f = summarize(f["fuzzer"], runs, seconds)
                elif f["fuzzer"] in have:
                    continue
                have[f["fuzzer"]] = f
                by_name[t["name"]]["fuzzers"] = [g for g in by_name[t["name"]]["fuzzers"]
                                                 if g["fuzzer"] != f["fuzzer"]] + [f]
    if not any(f["trials"] for t in targets for f in t["fuzzers"]):
        sys.stderr.write(f"report: no runs in {results}\n")
        return 1
    order = list(LABELS)
    for t in targets:
        t["fuzzers"].sort(key=lambda f: order.index(f["fuzzer"]) if f["fuzzer"] in order else len(order))
    text = render(results, metas, seconds, targets, "")
    with open(os.path.join(results, "report.md"), "w") as f:
        f.write(text)
    if "docs" in opts:
        img_dir = opts.get("img-dir", os.path.join(os.path.dirname(opts["docs"]), "img"))
        os.makedirs(img_dir, exist_ok=True)
        rel = os.path.relpath(img_dir, os.path.dirname(opts["docs"]))
        text = render(results, metas, seconds, targets, f"{rel}/bench-real-")
        for t in targets:
            svg = os.path.join(results, f"{t['name']}.svg")
            if os.path.exists(svg):
                shutil.copyfile(svg, os.path.join(img_dir, f"bench-real-{t['name']}.svg"))
        with open(opts["docs"]) as f:
            doc = f.read()
        begin, end = BEGIN, END
        if "section" in opts:
            begin = BEGIN.replace("report:", f"report {opts['section']}:")
            end = END.replace("report:", f"report {opts['section']}:")
        block = f"{begin}\n{text}{end}"
        if begin in doc and end in doc:
            doc = doc[:doc.index(begin)] + block + doc[doc.index(end) + len(end):]
        else:
            doc = doc.rstrip("\n") + "\n\n" + block + "\n"
        with open(opts["docs"], "w") as f:
            f.write(doc)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
