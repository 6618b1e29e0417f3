#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn bench.jsonl into a ratio table (A / B, mostly nvfab / in-kernel).

  report.py BENCH.jsonl [--out DIR]

Every row compares one fio job of side A with one of side B (an
initiator and a job name, see ROWS). Per round the ratio A/B is taken;
the table shows the median of A, of B and of the ratio, and the spread of
the ratio (min..max) over the rounds that have both sides. A row with a
goal says whether the median ratio meets it ("met" / "NOT met"): lower
is better for latencies, stalls and CPU per I/O (ratio <= goal), higher
for IOPS and bandwidth (ratio >= goal). Rows without a goal are
informational. Rows with no usable round print "no data", with the reason
when the jobs ran but lack the row's figure (CPU per I/O in a bench.jsonl
from before the guest measured it). CPU per I/O rows also show the
median share of the guest's CPUs that was busy on each side.

With --out DIR the table is also written to DIR/table.txt and a
machine-readable summary to DIR/summary.json (plot.py draws it).
Only the standard library: runs under any python3.
"""
import argparse
import json
import os
import re
import statistics
import sys

NVFAB, KERNEL = "nvfab", "kernel"
SHORT = {"round-robin": "rr", "queue-depth": "qd", "service-time": "st",
         "numa": "numa"}
NAME = {NVFAB: "nvfab", KERNEL: "in-kernel"}


def row(rid, group, title, metric, unit, a, b, better, goal=None,
        notes=None, b_metric=None):
    """One row: A / B of metric per round. b_metric: B's figure is another
    metric (of the same run, e.g. a peak against its limit). b None: a row
    of A alone (B has nothing to compare: the in-kernel host never removes
    what left the discovery log); its table line shows A's median, no
    ratio, and it is informational."""
    r = {"id": rid, "group": group, "title": title, "metric": metric,
         "unit": unit, "a": a, "b": b, "better": better, "goal": goal,
         "notes": notes}
    if b_metric:
        r["b_metric"] = b_metric
    return r


def cpu_row(rid, group, what, job, goal):
    """CPU per I/O of one single-path job: the guest's busy CPU time
    (/proc/stat, all CPUs) per completed I/O, in microseconds."""
    return row(rid, group, "%s CPU per I/O (us), nvfab / in-kernel" % what,
               "cpu_per_io_us", "CPU us/I/O", (NVFAB, job), (KERNEL, job),
               "lower", goal, notes="cpu")


def seg_row(rid, group, what, job, way):
    """TCP segments per I/O of one single-path job, both ways counted in
    the hosts' netns (pure ACKs included): what the host puts on the wire
    and takes off it for each I/O. Informational: fewer is cheaper, for
    the host and for the target."""
    return row(rid, group,
               "%s TCP segments %s per I/O, nvfab / in-kernel" % (what, way),
               "tcp_%s_per_io" % ("out" if way == "sent" else "in"),
               "segments/I/O", (NVFAB, job), (KERNEL, job), "lower")


def single_rows():
    g = ("single path: 1 controller, QD1/QD32 4 KiB randread, 128 KiB seq "
         "read; guest CPU time (all CPUs) per I/O")
    return [
        row("qd1-mean", g, "QD1 mean latency, nvfab / in-kernel",
            "lat_mean_us", "us", (NVFAB, "qd1"), (KERNEL, "qd1"),
            "lower", 1.0),
        row("qd1-p99", g, "QD1 p99 latency, nvfab / in-kernel",
            "lat_p99_us", "us", (NVFAB, "qd1"), (KERNEL, "qd1"),
            "lower", 1.0),
        cpu_row("qd1-cpu", g, "QD1", "qd1", 1.0),
        row("qd32-iops", g, "QD32 IOPS, nvfab / in-kernel", "iops",
            "IOPS", (NVFAB, "qd32"), (KERNEL, "qd32"), "higher", 1.0),
        cpu_row("qd32-cpu", g, "QD32", "qd32", 0.9),
        row("qd32j-iops", g, "QD32 as 4 jobs x QD8 IOPS, nvfab / in-kernel",
            "iops", "IOPS", (NVFAB, "qd32-jobs"), (KERNEL, "qd32-jobs"),
            "higher"),
        cpu_row("qd32j-cpu", g, "QD32 as 4 jobs x QD8", "qd32-jobs", None),
        row("seq128k-bw", g, "128 KiB seq bandwidth, nvfab / in-kernel",
            "bw_kib", "KiB/s", (NVFAB, "seq128k"), (KERNEL, "seq128k"),
            "higher", 1.0),
        cpu_row("seq128k-cpu", g, "128 KiB seq", "seq128k", 1.0),
        seg_row("qd32-segs-out", g, "QD32", "qd32", "sent"),
        seg_row("qd32-segs-in", g, "QD32", "qd32", "received"),
        seg_row("seq128k-segs-out", g, "128 KiB seq", "seq128k", "sent"),
        seg_row("seq128k-segs-in", g, "128 KiB seq", "seq128k", "received"),
    ]


def transport_rows(name, g):
    """The rows of a single-path set over transport @name (rdma, tls):
    nvfab / in-kernel, one controller each to the same subsystem, jobs
    @name-qd1, @name-qd32 and @name-seq128k; @g is the set's group text.
    The in-kernel host's own transport code is the reference on every row,
    CPU per I/O too (goal 1.00)."""
    return [
        row(name + "-qd1-mean", g,
            "%s QD1 mean latency, nvfab / in-kernel" % name,
            "lat_mean_us", "us", (NVFAB, name + "-qd1"),
            (KERNEL, name + "-qd1"), "lower", 1.0),
        row(name + "-qd1-p99", g,
            "%s QD1 p99 latency, nvfab / in-kernel" % name,
            "lat_p99_us", "us", (NVFAB, name + "-qd1"),
            (KERNEL, name + "-qd1"), "lower", 1.0),
        cpu_row(name + "-qd1-cpu", g, name + " QD1", name + "-qd1", 1.0),
        row(name + "-qd32-iops", g, "%s QD32 IOPS, nvfab / in-kernel" % name,
            "iops", "IOPS", (NVFAB, name + "-qd32"),
            (KERNEL, name + "-qd32"), "higher", 1.0),
        cpu_row(name + "-qd32-cpu", g, name + " QD32", name + "-qd32", 1.0),
        row(name + "-seq128k-bw", g,
            "%s 128 KiB seq bandwidth, nvfab / in-kernel" % name, "bw_kib",
            "KiB/s", (NVFAB, name + "-seq128k"),
            (KERNEL, name + "-seq128k"), "higher", 1.0),
        cpu_row(name + "-seq128k-cpu", g, name + " 128 KiB seq",
                name + "-seq128k", 1.0),
    ]


def rdma_rows():
    """The rdma set: nvfab-rdma / nvme-rdma on soft RoCE (rxe). rxe costs
    CPU in the TCG guest, so CPU per I/O has goal 1.00 on every row."""
    return transport_rows(
        "rdma", "rdma: 1 controller over soft RoCE (rxe), nvfab-rdma / "
        "nvme-rdma: QD1/QD32 4 KiB randread, 128 KiB seq read; guest CPU "
        "time (all CPUs) per I/O")


def tls_rows():
    """The tls set: nvfab / in-kernel, each with one controller over
    NVMe/TCP with TLS 1.3 (PSK, tlshd) to the same subsystem. Both hosts
    use the kernel's TLS (kTLS) for the records, so the goals are those
    of the rdma set: no worse than the in-kernel host, CPU too."""
    return transport_rows(
        "tls", "tls: 1 controller over NVMe/TCP with TLS 1.3 (PSK, tlshd), "
        "nvfab / in-kernel: QD1/QD32 4 KiB randread, 128 KiB seq read; "
        "guest CPU time (all CPUs) per I/O")


def auth_rows():
    """The auth set: connect time with DH-HMAC-CHAP (bidirectional),
    nvfab / in-kernel, the median of the round's connects. Lower is
    better; the goal: no slower than the in-kernel host."""
    g = ("auth: connect with DH-HMAC-CHAP (bidirectional, hmac(sha256), "
         "ffdhe2048; admin + 2 I/O queues), nvfab / in-kernel; median of "
         "the round's connects")
    return [
        row("auth-connect", g, "auth connect -> block device of the "
            "namespace, nvfab / in-kernel", "connect_ms", "ms",
            (NVFAB, "auth-connect"), (KERNEL, "auth-connect"), "lower", 1.0),
        row("auth-write", g, "auth connect, the write of the options "
            "(queues authenticated), nvfab / in-kernel", "write_ms", "ms",
            (NVFAB, "auth-connect"), (KERNEL, "auth-connect"), "lower"),
    ]


# The peer set's jobs: (name, what, metric, metric's title, unit).
PEER_JOBS = (
    ("read128k", "128 KiB seq read QD8", "bw_kib", "bandwidth", "KiB/s"),
    ("write128k", "128 KiB seq write QD8", "bw_kib", "bandwidth", "KiB/s"),
    ("rand4k", "4 KiB randread QD1", "iops", "IOPS", "IOPS"),
)


def peer_rows():
    """The peer set: on one nvfab-rdma controller over rxe, the same
    O_DIRECT I/O (peerio) with its buffers in device memory (the test
    provider's, registered-buffer route) and in host memory, device / host.
    Under TCG and rxe "device memory" is ivshmem RAM that the CPU copies
    like any other: only the ratios and the counters mean something, and
    no ratio has a goal. The bounces (copies through host memory) must be
    0, the device-memory runs must take the peer route (the head's peer
    I/Os) and the host-memory runs must not."""
    g = ("peer: 1 nvfab-rdma controller over rxe, the same O_DIRECT I/O "
         "(peerio) into / from device memory (nvfab-peermem-test, "
         "registered-buffer route, no P2PDMA) / host memory; guest CPU time "
         "(all CPUs) per I/O")
    out = []
    for job, what, metric, mtitle, unit in PEER_JOBS:
        dev, host = (NVFAB, "peer-dev-" + job), (NVFAB, "peer-host-" + job)
        out.append(row("peer-%s-%s" % (job, "bw" if metric == "bw_kib"
                                       else metric), g,
                       "peer %s %s, device / host memory" % (what, mtitle),
                       metric, unit, dev, host, "higher"))
        out.append(row("peer-%s-cpu" % job, g,
                       "peer %s CPU per I/O (us), device / host memory" % what,
                       "cpu_per_io_us", "CPU us/I/O", dev, host, "lower",
                       notes="cpu"))
    out += [
        row("peer-bounces", g, "peer bounce copies, controller + head (must "
            "be 0)", "bounces", "copies", (NVFAB, "peer-counters"), None,
            "lower", 0),
        row("peer-dev-ios", g, "peer I/Os of the head in the device-memory "
            "runs (must not be 0)", "dev_peer_ios", "I/Os",
            (NVFAB, "peer-counters"), None, "higher", 1),
        row("peer-host-ios", g, "peer I/Os of the head in the host-memory "
            "runs (must be 0)", "host_peer_ios", "I/Os",
            (NVFAB, "peer-counters"), None, "lower", 0),
    ]
    return out


def disc_rows():
    """The disc set: nvfab-discovery against the in-kernel route (nvme
    discover -p, its DLP-change uevent running nvme connect-all)."""
    g = ("discovery: a subsystem linked to the port -> its block device "
         "usable (first 4 KiB O_DIRECT read); nvfab-discovery / in-kernel "
         "(nvme discover -p + uevent -> nvme connect-all); median of the "
         "changes of a round")
    return [
        row("disc-ready", g, "time to a usable device after a link, nvfab / "
            "in-kernel", "ready_ms", "ms", (NVFAB, "disc-ready"),
            (KERNEL, "disc-ready"), "lower", 0.5),
        row("disc-ready-nojitter", g, "the same, nvfab with "
            "connect_jitter_ms=0 / in-kernel", "ready_ms", "ms",
            (NVFAB, "disc-ready-nojitter"), (KERNEL, "disc-ready"), "lower",
            0.5),
        row("disc-remove", g, "time from the unlink to the controller gone, "
            "nvfab (in-kernel: never removed)", "remove_ms", "ms",
            (NVFAB, "disc-ready"), None, "lower"),
        row("disc-storm", g, "N subsystems linked at once, all usable, "
            "nvfab / in-kernel", "storm_ms", "ms", (NVFAB, "disc-storm"),
            (KERNEL, "disc-storm"), "lower"),
        row("disc-peak", g, "connects in flight: peak / the entry's "
            "max_inflight, nvfab", "inflight_peak", "connects",
            (NVFAB, "disc-storm"), (NVFAB, "disc-storm"), "lower", 1.0,
            b_metric="max_inflight"),
        row("disc-storm-remove", g, "N subsystems unlinked, all controllers "
            "gone, nvfab (in-kernel: never removed)", "storm_remove_ms",
            "ms", (NVFAB, "disc-storm"), None, "lower"),
    ]


def ana_rows():
    g = ("2 paths: ANA flip stall (the optimized port carrying the I/O -> "
         "inaccessible, the other non-optimized -> optimized; longest I/O "
         "latency, QD4, median of the flips of a run)")
    out = []
    for a in ("round-robin", "service-time"):
        for b in ("round-robin", "numa"):
            out.append(row(
                "ana-%s-%s" % (SHORT[a], SHORT[b]), g,
                "ANA flip stall, nvfab %s / in-kernel %s" % (a, b),
                "stall_ms", "ms", (NVFAB, "ana-" + a), (KERNEL, "ana-" + b),
                "lower", 1.0, notes="errors"))
    g = ("2 paths: ANA flip, from the trace: I/O moved (first I/O command on "
         "the other controller, ms after the flip) and the host's part of it "
         "(from the first path error it received)")
    for rid, title, metric in (("move", "I/O moved", "switch_ms"),
                               ("react", "host part", "react_ms")):
        for a in ("round-robin", "service-time"):
            for b in ("round-robin", "numa"):
                out.append(row(
                    "ana-%s-%s-%s" % (rid, SHORT[a], SHORT[b]), g,
                    "ANA flip %s, nvfab %s / in-kernel %s" % (title, a, b),
                    metric, "ms", (NVFAB, "ana-" + a),
                    (KERNEL, "ana-" + b), "lower"))
    return out


def cut_rows():
    g = ("2 paths: path 1 link cut (keep_alive_tmo 5, reconnect_delay 1; "
         "longest I/O latency, QD4)")
    return [row("cut-rr", g, "path cut stall, nvfab rr / in-kernel rr",
                "stall_ms", "ms", (NVFAB, "cut-round-robin"),
                (KERNEL, "cut-round-robin"), "lower", 1.0, notes="errors")]


def asym_rows(delays):
    out = []
    for d in delays:
        g = "2 paths, path 2 +%d ms (netem): QD16 4 KiB randread IOPS" % d
        for p in ("numa", "round-robin", "queue-depth"):
            out.append(row(
                "asym%d-%s" % (d, SHORT[p]), g,
                "+%d ms IOPS, nvfab %s / in-kernel %s" % (d, p, p),
                "iops", "IOPS", (NVFAB, "asym%d-%s" % (d, p)),
                (KERNEL, "asym%d-%s" % (d, p)), "higher"))
        out.append(row(
            "asym%d-st-qd" % d, g,
            "+%d ms IOPS, nvfab service-time / in-kernel queue-depth" % d,
            "iops", "IOPS", (NVFAB, "asym%d-service-time" % d),
            (KERNEL, "asym%d-queue-depth" % d), "higher",
            1.5 if d == 30 else None))
        out.append(ceiling_row("asym%d" % d, g, "+%d ms" % d))
    return out


def ceiling_row(job, group, what):
    # Path 1 alone against queue-depth on both: when this is near 1, the
    # slow path costs queue-depth nothing (the fast path is CPU-bound) and
    # no policy can gain much over it.
    return row("%s-ceiling" % job, group,
               "%s IOPS, in-kernel numa (path 1 only) / in-kernel "
               "queue-depth" % what, "iops", "IOPS",
               (KERNEL, "%s-numa" % job), (KERNEL, "%s-queue-depth" % job),
               "higher")


def lb_rows():
    g = ("2 paths, latency-bound: path 1 and path 2 delayed (netem, "
         "BENCH_LB_DELAYS): QD16 4 KiB randread IOPS")
    out = []
    for p in ("numa", "round-robin", "queue-depth"):
        out.append(row(
            "lb-%s" % SHORT[p], g,
            "lb IOPS, nvfab %s / in-kernel %s" % (p, p), "iops", "IOPS",
            (NVFAB, "lb-" + p), (KERNEL, "lb-" + p), "higher"))
    out.append(row(
        "lb-st-qd", g, "lb IOPS, nvfab service-time / in-kernel queue-depth",
        "iops", "IOPS", (NVFAB, "lb-service-time"),
        (KERNEL, "lb-queue-depth"), "higher"))
    out.append(ceiling_row("lb", g, "lb"))
    return out


def sym_rows():
    g = "2 paths, no delay: QD16 4 KiB randread IOPS"
    return [
        row("sym-rr", g, "2 paths rr IOPS, nvfab / in-kernel", "iops",
            "IOPS", (NVFAB, "sym2"), (KERNEL, "sym2"), "higher", 0.95),
        row("sym-nvfab-2v1", g, "nvfab IOPS, 2 paths rr / 1 path", "iops",
            "IOPS", (NVFAB, "sym2"), (NVFAB, "sym1"), "higher"),
        row("sym-kernel-2v1", g, "in-kernel IOPS, 2 paths rr / 1 path",
            "iops", "IOPS", (KERNEL, "sym2"), (KERNEL, "sym1"), "higher"),
    ]


def all_rows(runs):
    # netem delays: the two default ones, and any other a run used.
    delays = {1, 30}
    for r in runs:
        m = re.match(r"asym(\d+)-", str(r.get("job", "")))
        if m:
            delays.add(int(m.group(1)))
    return (single_rows() + rdma_rows() + tls_rows() + peer_rows() +
            disc_rows() + auth_rows() + sym_rows() +
            asym_rows(sorted(delays)) + lb_rows() + ana_rows() + cut_rows())


def load(path):
    """The JSON lines of path; unreadable lines are skipped with a note."""
    runs = []
    try:
        f = open(path, errors="replace")
    except OSError as e:
        print("report: %s" % e, file=sys.stderr)
        return runs
    with f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError:
                print("report: %s:%d: not JSON, skipped" % (path, n),
                      file=sys.stderr)
                continue
            if isinstance(r, dict) and {"init", "round", "job"} <= r.keys():
                runs.append(r)
    return runs


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# Why a row whose jobs ran has no data, when the runs lack its metric.
NO_SEGS = ("runs without TCP segment counts: an older bench.jsonl, or no "
           "/proc/net/snmp in the samples")
MISSING = {
    "cpu_per_io_us": "runs without CPU figures: an older bench.jsonl, "
                     "or no /proc/stat sample (guest log)",
    "tcp_out_per_io": NO_SEGS,
    "tcp_in_per_io": NO_SEGS,
}


def evaluate_a_only(r, by, rounds):
    """A row without B: A's median over the rounds that have the figure.
    With a goal, every round must meet it (the worst round decides: a
    count that must stay 0)."""
    av, used = [], []
    ran = False
    for rnd in rounds:
        a = by.get((r["a"][0], rnd, r["a"][1]))
        if not a:
            continue
        ran = True
        if num(a.get(r["metric"])):
            av.append(a[r["metric"]])
            used.append(rnd)
    res = dict(r)
    res["a"] = {"init": r["a"][0], "job": r["a"][1]}
    res.update(rounds=used, n=len(av), ratio=None, min=None, max=None,
               b_median=None)
    if not av:
        res.update(status="no data", a_median=None)
        if ran:
            res["why"] = MISSING.get(r["metric"],
                                     "runs without %s" % r["metric"])
        return res
    res.update(status="info", a_median=statistics.median(av),
               a_min=min(av), a_max=max(av))
    if r["goal"] is not None:
        ok = (max(av) <= r["goal"] if r["better"] == "lower"
              else min(av) >= r["goal"])
        res["status"] = "met" if ok else "NOT met"
    return res


def evaluate(r, by, rounds):
    if r["b"] is None:
        return evaluate_a_only(r, by, rounds)
    ratios, av, bv, err_a, err_b, used = [], [], [], 0, 0, []
    busy_a, busy_b = [], []
    paired = 0      # rounds with both jobs, whether or not they have metric
    for rnd in rounds:
        a = by.get((r["a"][0], rnd, r["a"][1]))
        b = by.get((r["b"][0], rnd, r["b"][1]))
        if not a or not b:
            continue
        paired += 1
        x, y = a.get(r["metric"]), b.get(r.get("b_metric", r["metric"]))
        if not num(x) or not num(y) or y <= 0:
            continue
        av.append(x)
        bv.append(y)
        ratios.append(x / y)
        used.append(rnd)
        err_a += a.get("errors") or 0
        err_b += b.get("errors") or 0
        if num(a.get("cpu_busy_pct")) and num(b.get("cpu_busy_pct")):
            busy_a.append(a["cpu_busy_pct"])
            busy_b.append(b["cpu_busy_pct"])
    res = dict(r)
    res["a"] = {"init": r["a"][0], "job": r["a"][1]}
    res["b"] = {"init": r["b"][0], "job": r["b"][1]}
    res["rounds"] = used
    res["n"] = len(ratios)
    if not ratios:
        res.update(status="no data", ratio=None, min=None, max=None,
                   a_median=None, b_median=None)
        if paired:
            res["why"] = MISSING.get(
                r["metric"], "runs without %s" % r["metric"])
        return res
    med = statistics.median(ratios)
    res.update(ratio=med, min=min(ratios), max=max(ratios),
               ratios=ratios, a_median=statistics.median(av),
               b_median=statistics.median(bv))
    if r["goal"] is None:
        res["status"] = "info"
    else:
        ok = med <= r["goal"] if r["better"] == "lower" else med >= r["goal"]
        res["status"] = "met" if ok else "NOT met"
    if r["notes"] == "errors":
        res["errors"] = {"a": err_a, "b": err_b}
    if r["notes"] == "cpu" and busy_a:
        res["cpu_busy_pct"] = {"a": statistics.median(busy_a),
                               "b": statistics.median(busy_b)}
    return res


def fmt_val(v):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    return "%.2f" % v


def goal_text(res):
    g = res["goal"]
    if g is None:
        return "(info, %s is better)" % res["better"]
    op = "<=" if res["better"] == "lower" else ">="
    if res["b"] is None:
        return "%s (goal: every round %s %g)" % (res["status"], op, g)
    return "%s (goal %s %.2f)" % (res["status"], op, g)


def table(results, rounds, source):
    w = max([len(r["title"]) for r in results] + [20])
    head = "%-*s %9s %9s %7s %13s %2s  %s" % (
        w, "A / B", "A", "B", "ratio", "spread", "n", "goal")
    out = ["nvfab vs in-kernel NVMe/TCP host (rdma rows: NVMe/RDMA on "
           "rxe; tls rows: NVMe/TCP over TLS 1.3; peer rows: nvfab-rdma, "
           "device / host memory): %s" % source,
           "ratio = A / B per round; median over rounds, spread min..max", "",
           head, "-" * len(head)]
    group = None
    for res in results:
        if res["group"] != group:
            group = res["group"]
            out.append("[%s]" % group)
        if res["status"] == "no data":
            why = " (%s)" % res["why"] if res.get("why") else ""
            out.append("%-*s no data%s" % (w, res["title"], why))
            continue
        if res["b"] is None:
            what = ("(info, A alone: spread of A, %s)" % res["unit"]
                    if res["goal"] is None else
                    "%s (A alone: spread of A, %s)" % (goal_text(res),
                                                       res["unit"]))
            out.append("%-*s %9s %9s %7s %6s..%-5s %2d  %s" % (
                w, res["title"], fmt_val(res["a_median"]), "-", "-",
                fmt_val(res["a_min"]), fmt_val(res["a_max"]), res["n"],
                what))
            continue
        line = "%-*s %9s %9s %7.2f %6.2f..%-5.2f %2d  %s" % (
            w, res["title"], fmt_val(res["a_median"]),
            fmt_val(res["b_median"]), res["ratio"], res["min"], res["max"],
            res["n"], goal_text(res))
        if "errors" in res:
            line += "  I/O errors A/B: %d/%d" % (res["errors"]["a"],
                                                  res["errors"]["b"])
        if "cpu_busy_pct" in res:
            line += "  CPU busy A/B: %.0f%%/%.0f%%" % (
                res["cpu_busy_pct"]["a"], res["cpu_busy_pct"]["b"])
        out.append(line)
    met = sum(r["status"] == "met" for r in results)
    miss = sum(r["status"] == "NOT met" for r in results)
    nodata = sum(r["status"] == "no data" for r in results)
    out.append("")
    out.append("goals: %d met, %d NOT met; %d rows without data" %
               (met, miss, nodata))
    out.append("rounds: %s (A/B interleaved, order alternating); A and B "
               "columns: medians in the row's unit (us, IOPS, KiB/s, ms; "
               "CPU per I/O: us of guest CPU time per I/O)" %
               (len(rounds) or "none"))
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("jsonl")
    ap.add_argument("--out", help="write table.txt and summary.json here")
    a = ap.parse_args(argv)

    runs = load(a.jsonl)
    by = {}
    for r in runs:
        by[(r["init"], r["round"], r["job"])] = r
    rounds = sorted({r["round"] for r in runs},
                    key=lambda x: (0, x, "") if num(x) else (1, 0, str(x)))
    results = [evaluate(r, by, rounds) for r in all_rows(runs)]
    text = table(results, rounds, a.jsonl)
    print(text)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "table.txt"), "w") as f:
            f.write(text + "\n")
        summary = {
            "source": a.jsonl,
            "rounds": rounds,
            "runs": len(runs),
            "goals": {
                "met": sum(r["status"] == "met" for r in results),
                "not_met": sum(r["status"] == "NOT met" for r in results),
                "no_data": sum(r["status"] == "no data" for r in results),
            },
            "rows": results,
        }
        with open(os.path.join(a.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
