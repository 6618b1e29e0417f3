#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn bench.jsonl into a ratio table (nvfab / in-kernel).

Per round, each metric's ratio nvfab/kernel is computed; the table shows
the median ratio and the spread (min..max) over rounds, and whether the
ratio meets "no worse than the in-kernel host" (lower is better for
latency, higher for IOPS and bandwidth).
"""
import json
import statistics
import sys

ROWS = [
    ("4 KiB randread QD1, mean latency", "qd1", "lat_mean_us", "lower"),
    ("4 KiB randread QD1, p99 latency", "qd1", "lat_p99_us", "lower"),
    ("4 KiB randread QD32, IOPS", "qd32", "iops", "higher"),
    ("128 KiB seq read, bandwidth", "seq128k", "bw_kib", "higher"),
]


def main():
    runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    by = {}
    for r in runs:
        by[(r["init"], r["round"], r["job"])] = r
    rounds = sorted({r["round"] for r in runs})
    out = []
    out.append("%-36s %10s %10s %8s %16s  %s" % (
        "metric", "nvfab", "in-kernel", "ratio", "spread", "goal"))
    for title, job, key, better in ROWS:
        ratios, a_vals, b_vals = [], [], []
        for rnd in rounds:
            a = by.get(("nvfab", rnd, job))
            b = by.get(("kernel", rnd, job))
            if not a or not b or not b[key]:
                continue
            a_vals.append(a[key])
            b_vals.append(b[key])
            ratios.append(a[key] / b[key])
        if not ratios:
            out.append("%-36s %s" % (title, "no data"))
            continue
        med = statistics.median(ratios)
        ok = med <= 1.0 if better == "lower" else med >= 1.0
        out.append("%-36s %10.1f %10.1f %8.2f %7.2f..%-7.2f  %s" % (
            title, statistics.median(a_vals), statistics.median(b_vals),
            med, min(ratios), max(ratios),
            ("met" if ok else "NOT met") + " (%s is better)" % better))
    out.append("rounds: %d (A/B interleaved); units: us, IOPS, KiB/s" %
               len(rounds))
    print("\n".join(out))


if __name__ == "__main__":
    main()
