#!/usr/bin/env python3
"""Compares two runs of a chapter's bench (bench.json, or a --sizes sizes.json) made by two
builds of the course: the same header fields, the same rows in the same order with the same
labels and verdicts, and each time within the run-to-run spread.

    python3 bench/compare_reports.py OLD.json NEW.json [--again OLD2.json] [--tolerance F]

`--again` is a second run of the OLD build: each row's spread is |OLD2 / OLD - 1|, and a
NEW time counts as the same when |NEW / OLD - 1| <= max(tolerance, 2 * spread) (default
tolerance 0.10). Without it the tolerance alone decides. Fields that name the run (date,
commit, command, warm-up sentence, notes about paths) are not compared. Prints one line per
difference and a verdict; exit status 0 when the two agree.
"""
import json
import sys

# Header fields that say when, from which commit or command line, or how long the warm-up
# took: they differ between any two runs.
RUN_FIELDS = {"date_utc", "git_commit", "command", "warm_up", "targets", "notes",
              "read_kernel_gbps", "copy_gbps", "read_bw_gbps", "read_kernel_launch",
              "host_clock_ghz"}
# Row fields that are measurements (compared within the spread) or follow from them.
TIME_FIELDS = {"median_ms", "gbps", "pct_read_bw", "mbps", "reps"}


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"DIFFERENT: cannot read {path}: {e}")
        sys.exit(1)


def reports(doc):
    """(label, report) pairs: a bench.json is one, a sizes.json one per size."""
    if "runs" in doc:
        return [(f"size {r['bytes']}", r["report"]) for r in doc["runs"]]
    return [("", doc)]


def label(row):
    keys = ("impl", "kernel", "step", "input", "dtype", "bins", "bytes", "grid",
            "blocks_per_sm", "words_per_thread")
    return " ".join(str(row[k]) for k in keys if k in row)


def main(argv):
    args = argv[1:]
    tol, again = 0.10, None
    if "--tolerance" in args:
        i = args.index("--tolerance")
        tol = float(args[i + 1])
        del args[i:i + 2]
    if "--again" in args:
        i = args.index("--again")
        again = load(args[i + 1])
        del args[i:i + 2]
    old, new = load(args[0]), load(args[1])
    problems, checked, timed = [], 0, 0
    olds, news = reports(old), reports(new)
    agains = reports(again) if again else [None] * len(olds)
    if [l for l, _ in olds] != [l for l, _ in news]:
        problems.append(f"sizes differ: {[l for l, _ in olds]} against {[l for l, _ in news]}")
    for (name, a), (_, b), c in zip(olds, news, agains):
        c = c[1] if c else None
        ha, hb = a["header"], b["header"]
        if list(ha) != list(hb):
            problems.append(f"{name} header fields differ: {list(ha)} against {list(hb)}")
        for k in ha:
            if k not in RUN_FIELDS and ha.get(k) != hb.get(k):
                problems.append(f"{name} header {k}: {ha.get(k)!r} against {hb.get(k)!r}")
        ra, rb = a["rows"], b["rows"]
        if [label(r) for r in ra] != [label(r) for r in rb]:
            problems.append(f"{name} rows differ:\n  old: {[label(r) for r in ra]}\n  new: {[label(r) for r in rb]}")
            continue
        rc = c["rows"] if c and len(c["rows"]) == len(ra) else [None] * len(ra)
        for x, y, z in zip(ra, rb, rc):
            checked += 1
            if list(x) != list(y):
                problems.append(f"{name} {label(x)}: fields {list(x)} against {list(y)}")
            for k in x:
                if k not in TIME_FIELDS and x[k] != y[k]:
                    problems.append(f"{name} {label(x)}: {k} {x[k]!r} against {y[k]!r}")
            t0, t1 = x.get("median_ms"), y.get("median_ms")
            if t0 is None or t1 is None:
                if (t0 is None) != (t1 is None):
                    problems.append(f"{name} {label(x)}: time {t0} against {t1}")
                continue
            timed += 1
            spread = abs(z["median_ms"] / t0 - 1) if z and z.get("median_ms") else 0.0
            allowed = max(tol, 2 * spread)
            off = t1 / t0 - 1
            line = f"{name} {label(x)}: old {t0:.4f} ms, new {t1:.4f} ms ({off:+.1%}; spread {spread:.1%})"
            if abs(off) > allowed:
                problems.append("TIME " + line)
            elif "-v" in args:
                print("same " + line)
    for p in problems:
        print(p)
    verdict = "SAME" if not problems else "DIFFERENT"
    print(f"{verdict}: {checked} rows compared, {timed} timed, {len(problems)} differences "
          f"(tolerance {tol:.0%} or twice the old build's own spread)")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
