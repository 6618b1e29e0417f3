#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Draw report.py's summary.json as a PNG bar chart of the ratios.

  plot.py SUMMARY.json OUT.png

One horizontal bar per row, from parity (1.0) to the median ratio A/B on
a log axis, with the spread over rounds (min..max) as an error bar and the
row's goal as a blue dashed tick. Green: goal met, red: not met, grey:
informational. Rows without data (sets that did not run, figures an older
bench.jsonl lacks) and rows of A alone (no ratio: the peer set's counters,
the disc set's removal times) are left out; the title says how many. The
peer set's rows are device memory / host memory on nvfab-rdma, not nvfab /
in-kernel; the title says so when they are drawn. Needs matplotlib
(Debian: python3-matplotlib, for /usr/bin/python3); exits non-zero when
it cannot draw (also when no row has data), and bench.sh then only warns.
"""
import json
import sys

COLOURS = {"met": "#2e8b57", "NOT met": "#c0392b", "info": "#8c8c8c"}


def has_data(r):
    ratio = r.get("ratio")
    return (r.get("status") != "no data" and isinstance(ratio, (int, float))
            and ratio > 0)


def drawn_rows(summary):
    """The rows the chart shows: those with a ratio, in table order."""
    return [r for r in summary.get("rows", []) if has_data(r)]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: plot.py SUMMARY.json OUT.png", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        summary = json.load(f)
    all_rows = summary.get("rows", [])
    rows = drawn_rows(summary)
    if not rows:
        print("plot: no row of %s has data (%d rows, all 'no data'); no "
              "chart" % (argv[0], len(all_rows)), file=sys.stderr)
        return 1
    left_out = len(all_rows) - len(rows)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    vals = [v for r in rows for v in (r.get("min"), r.get("max"),
                                      r.get("ratio"), r.get("goal"))
            if isinstance(v, (int, float)) and v > 0]
    lo = min(vals + [0.5]) / 1.5
    hi = max(vals + [2.0]) * 1.5

    n = len(rows)
    fig, ax = plt.subplots(figsize=(12, 1.2 + 0.34 * n))
    labels = []
    for i, r in enumerate(rows):
        y = n - 1 - i
        labels.append((y, r["title"]))
        ratio = r["ratio"]
        colour = COLOURS.get(r.get("status"), "#8c8c8c")
        ax.barh(y, ratio - 1.0, left=1.0, height=0.6, color=colour,
                alpha=0.85)
        rmin, rmax = r.get("min"), r.get("max")
        if isinstance(rmin, (int, float)) and isinstance(rmax, (int, float)):
            ax.errorbar(ratio, y, xerr=[[max(ratio - rmin, 0)],
                                        [max(rmax - ratio, 0)]],
                        fmt="none", ecolor="black", elinewidth=1,
                        capsize=3)
        goal = r.get("goal")
        if isinstance(goal, (int, float)) and goal > 0:
            ax.plot([goal, goal], [y - 0.45, y + 0.45], color="#1f3fbf",
                    linestyle="--", linewidth=2)
        text = "%.2f" % ratio
        if r.get("status") in ("met", "NOT met"):
            text += " " + r["status"]
        elif r.get("better") in ("lower", "higher"):
            text += " (info, %s is better)" % r["better"]
        right = max(x for x in (ratio, rmax, goal, 1.0)
                    if isinstance(x, (int, float)))
        ax.text(right * 1.04, y, text, va="center", fontsize=7)

    ax.axvline(1.0, color="#333333", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_yticks([y for y, _ in labels])
    ax.set_yticklabels([t for _, t in labels], fontsize=7)
    ticks = [t for t in (0.1, 0.2, 0.5, 0.8, 0.95, 1.0, 1.25, 1.5, 2.0,
                         5.0, 10.0, 20.0, 50.0, 100.0) if lo <= t <= hi]
    ax.set_xticks(ticks)
    ax.set_xticklabels(["%g" % t for t in ticks], fontsize=7)
    ax.minorticks_off()
    ax.set_xlabel("ratio A / B (median over rounds; bar from parity, "
                  "whiskers min..max, blue dashes: goal)", fontsize=8)
    rounds = summary.get("rounds") or []
    g = summary.get("goals", {})
    peer = any(str(r.get("id", "")).startswith("peer-") for r in rows)
    ax.set_title("nvfab vs in-kernel NVMe host%s: %d round(s); goals %d met, "
                 "%d NOT met; %d row(s) without a ratio not shown" % (
                     " (peer rows: device / host memory)" if peer else "",
                     len(rounds), g.get("met", 0), g.get("not_met", 0),
                     left_out), fontsize=9)
    ax.grid(axis="x", color="#dddddd", linewidth=0.5)
    fig.tight_layout()
    fig.savefig(argv[1], dpi=110)
    plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
