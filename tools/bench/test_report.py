#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of report.py, fio2jsonl.py and plot.py on synthetic data; no
guest needed:  python3 tools/bench/test_report.py  (plot tests are skipped
when this python3 has no matplotlib)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True     # no __pycache__ in the tree
sys.path.insert(0, HERE)
import fio2jsonl  # noqa: E402
import report  # noqa: E402
import trace_flip  # noqa: E402

NV, K = "nvfab", "kernel"


def synthetic(rounds=3, drop=(), cpu=True):
    """bench.jsonl lines for every job the guest runs; jobs in drop left out;
    cpu=False: without the CPU figures (a bench.jsonl from before them)."""
    lines = []

    def add(init, rnd, job, **kv):
        if job in drop or (init, job) in drop:
            return
        rec = {"init": init, "round": rnd, "job": job, "errors": 0}
        rec.update(kv)
        lines.append(rec)

    def c(us, busy, segs_in=None, segs_out=None):
        if not cpu:
            return {}
        rec = {"cpu_per_io_us": us, "cpu_busy_pct": busy,
               "cpu_us": 1e6, "cpu_win_s": 4.0}
        if segs_in is not None:
            rec.update(tcp_in_per_io=segs_in, tcp_out_per_io=segs_out)
        return rec

    for rnd in range(1, rounds + 1):
        f = 1 + 0.05 * (rnd - 2)     # some spread between rounds
        add(NV, rnd, "qd1", lat_mean_us=90 * f, lat_p99_us=200 * f,
            iops=11000, **c(30 * f, 40.0))
        add(K, rnd, "qd1", lat_mean_us=100, lat_p99_us=180, iops=10000,
            **c(40, 45.0))
        add(NV, rnd, "qd32", iops=40000 * f, **c(47 * f, 99.0, 0.5, 1.2))
        add(K, rnd, "qd32", iops=38000, **c(50, 98.0, 1.0, 2.0))
        add(NV, rnd, "qd32-jobs", iops=39000 * f, **c(52 * f, 100.0))
        add(K, rnd, "qd32-jobs", iops=39000, **c(50, 100.0))
        add(NV, rnd, "seq128k", bw_kib=900000 * f,
            **c(300 * f, 97.0, 33.0 * f, 3.0))
        add(K, rnd, "seq128k", bw_kib=1000000, **c(250, 96.0, 30.0, 2.5))
        # rdma set: nvfab better on latency and CPU, worse on seq bw
        add(NV, rnd, "rdma-qd1", lat_mean_us=180 * f, lat_p99_us=400 * f,
            iops=5500, **c(120 * f, 60.0))
        add(K, rnd, "rdma-qd1", lat_mean_us=200, lat_p99_us=380, iops=5000,
            **c(150, 62.0))
        add(NV, rnd, "rdma-qd32", iops=21000 * f, **c(95 * f, 100.0))
        add(K, rnd, "rdma-qd32", iops=20000, **c(100, 100.0))
        add(NV, rnd, "rdma-seq128k", bw_kib=450000 * f, **c(900 * f, 99.0))
        add(K, rnd, "rdma-seq128k", bw_kib=500000, **c(850, 99.0))
        # tls set: nvfab better on QD1 and CPU, worse on QD32 IOPS
        add(NV, rnd, "tls-qd1", lat_mean_us=140 * f, lat_p99_us=300 * f,
            iops=7000, **c(70 * f, 50.0, 1.0, 2.0))
        add(K, rnd, "tls-qd1", lat_mean_us=160, lat_p99_us=300, iops=6200,
            **c(80, 52.0, 1.0, 3.0))
        add(NV, rnd, "tls-qd32", iops=19000 * f, **c(110 * f, 100.0))
        add(K, rnd, "tls-qd32", iops=20000, **c(100, 100.0))
        add(NV, rnd, "tls-seq128k", bw_kib=600000 * f, **c(700 * f, 99.0))
        add(K, rnd, "tls-seq128k", bw_kib=600000, **c(800, 99.0))
        # peer set: device memory / host memory on nvfab-rdma (both
        # init nvfab): reads 0.95x, writes 1.0x, 4k 0.9x IOPS; CPU 1.1x on
        # the reads; no bounce, no peer I/O from host memory
        for job, metric, dev, host, cdev, chost in (
                ("read128k", "bw_kib", 95000, 100000, 1100, 1000),
                ("write128k", "bw_kib", 80000, 80000, 1500, 1500),
                ("rand4k", "iops", 900, 1000, 400, 400)):
            add(NV, rnd, "peer-dev-" + job, **{metric: dev * f},
                peer_ios=2000, bounces=0, **c(cdev * f, 98.0))
            add(NV, rnd, "peer-host-" + job, **{metric: host},
                peer_ios=0, bounces=0, **c(chost, 97.0))
        add(NV, rnd, "peer-counters", bounces=0, dev_peer_ios=6000,
            host_peer_ios=0, map_failures=0)
        # disc set: nvfab 0.4x the in-kernel route; the in-kernel host
        # never removes (remove_ms null); nvfab's peak at its limit
        add(NV, rnd, "disc-ready", ready_ms=400 * f, remove_ms=300 * f,
            ready_all=[400 * f] * 10, remove_all=[300 * f] * 10, failed=0)
        add(NV, rnd, "disc-ready-nojitter", ready_ms=300 * f,
            remove_ms=300 * f, ready_all=[300 * f] * 10,
            remove_all=[300 * f] * 10, failed=0, connect_jitter_ms=0)
        add(K, rnd, "disc-ready", ready_ms=1000, remove_ms=None,
            ready_all=[1000] * 10, failed=0, kept_after_unlink=1)
        add(NV, rnd, "disc-storm", n_subsys=200, storm_ms=30000 * f,
            inflight_peak=8, max_inflight=8, storm_remove_ms=20000 * f)
        add(K, rnd, "disc-storm", n_subsys=200, storm_ms=60000,
            inflight_peak=None, max_inflight=None, storm_remove_ms=None)
        # auth set: nvfab connects in 0.8x the in-kernel host's time, its
        # write in 0.9x
        add(NV, rnd, "auth-connect", connect_all=[800 * f] * 10,
            connect_ms=800 * f, write_all=[720 * f] * 10, write_ms=720 * f,
            connect_min_ms=700 * f, connect_max_ms=900 * f, connects=10,
            failed=0, hash="hmac(sha256)", dhgroup="ffdhe2048")
        add(K, rnd, "auth-connect", connect_all=[1000] * 10,
            connect_ms=1000, write_all=[800] * 10, write_ms=800,
            connect_min_ms=950, connect_max_ms=1100, connects=10, failed=0,
            hash="hmac(sha256)", dhgroup="ffdhe2048")
        add(NV, rnd, "sym1", iops=30000 * f)
        add(K, rnd, "sym1", iops=30000)
        add(NV, rnd, "sym2", iops=33000 * f)
        add(K, rnd, "sym2", iops=34000)
        for d, slow in ((1, 0.8), (30, 0.1)):
            add(NV, rnd, "asym%d-numa" % d, iops=30000)
            add(K, rnd, "asym%d-numa" % d, iops=30000)
            add(NV, rnd, "asym%d-round-robin" % d, iops=30000 * slow)
            add(K, rnd, "asym%d-round-robin" % d, iops=30000 * slow)
            add(NV, rnd, "asym%d-queue-depth" % d, iops=28000 * f)
            add(K, rnd, "asym%d-queue-depth" % d, iops=15000 if d == 30 else 27000)
            add(NV, rnd, "asym%d-service-time" % d, iops=29000 * f)
        for p, iops in (("numa", 1600), ("round-robin", 200),
                        ("queue-depth", 1000)):
            add(NV, rnd, "lb-" + p, iops=iops * f)
            add(K, rnd, "lb-" + p, iops=iops)
        add(NV, rnd, "lb-service-time", iops=1700 * f)
        for p, ms in (("round-robin", 40), ("service-time", 35)):
            add(NV, rnd, "ana-" + p, stall_ms=ms * f, max_lat_ms=ms * f,
                switch_ms=2.0 * f, react_ms=0.1 * f)
        for p, ms in (("round-robin", 50), ("numa", 30)):
            add(K, rnd, "ana-" + p, stall_ms=ms, max_lat_ms=ms,
                switch_ms=2.0, react_ms=0.1)
        add(NV, rnd, "cut-round-robin", stall_ms=6000 * f, errors=rnd - 1)
        add(K, rnd, "cut-round-robin", stall_ms=5500, errors=0)
    return lines


def write(path, lines, extra=""):
    with open(path, "w") as f:
        for r in lines:
            f.write(json.dumps(r) + "\n")
        f.write(extra)


def run_report(jsonl, out):
    r = subprocess.run([sys.executable, os.path.join(HERE, "report.py"),
                        jsonl, "--out", out], capture_output=True, text=True)
    return r


def rows_by_id(out):
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    return s, {r["id"]: r for r in s["rows"]}


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_full(self):
        j = os.path.join(self.d, "bench.jsonl")
        write(j, synthetic())
        r = run_report(j, self.d)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.d, "table.txt")) as f:
            self.assertEqual(f.read(), r.stdout)
        s, rows = rows_by_id(self.d)
        self.assertEqual(s["rounds"], [1, 2, 3])
        self.assertNotIn("no data", r.stdout)
        self.assertEqual(rows["qd1-mean"]["status"], "met")        # 0.9
        self.assertEqual(rows["qd1-p99"]["status"], "NOT met")     # 1.11
        self.assertAlmostEqual(rows["qd1-p99"]["min"], 190 / 180)
        self.assertAlmostEqual(rows["qd1-p99"]["max"], 210 / 180)
        self.assertEqual(rows["seq128k-bw"]["status"], "NOT met")  # 0.9
        # CPU per I/O: lower is better, in us, with the busy share
        self.assertEqual(rows["qd1-cpu"]["better"], "lower")
        self.assertEqual(rows["qd1-cpu"]["status"], "met")         # 0.75
        self.assertAlmostEqual(rows["qd1-cpu"]["ratio"], 0.75)
        self.assertAlmostEqual(rows["qd1-cpu"]["min"], 28.5 / 40)
        self.assertAlmostEqual(rows["qd1-cpu"]["a_median"], 30)
        self.assertEqual(rows["qd1-cpu"]["cpu_busy_pct"],
                         {"a": 40.0, "b": 45.0})
        self.assertEqual(rows["qd32-cpu"]["goal"], 0.9)
        self.assertEqual(rows["qd32-cpu"]["status"], "NOT met")    # 0.94
        self.assertEqual(rows["seq128k-cpu"]["status"], "NOT met")  # 1.2
        self.assertEqual(rows["qd32j-cpu"]["status"], "info")
        self.assertAlmostEqual(rows["qd32j-cpu"]["ratio"], 1.04)
        # TCP segments per I/O: informational, lower is better, no busy
        # share (they are not CPU rows)
        for rid, ratio in (("qd32-segs-in", 0.5), ("qd32-segs-out", 0.6),
                           ("seq128k-segs-in", 1.1),
                           ("seq128k-segs-out", 1.2)):
            self.assertEqual(rows[rid]["status"], "info", rid)
            self.assertEqual(rows[rid]["better"], "lower", rid)
            self.assertIsNone(rows[rid]["goal"], rid)
            self.assertAlmostEqual(rows[rid]["ratio"], ratio, msg=rid)
            self.assertNotIn("cpu_busy_pct", rows[rid])
        self.assertAlmostEqual(rows["seq128k-segs-in"]["min"], 33 * 0.95 / 30)
        self.assertIn("QD32 TCP segments sent per I/O, nvfab / in-kernel",
                      r.stdout)
        self.assertEqual(rows["qd32j-iops"]["status"], "info")
        self.assertRegex(r.stdout, r"QD1 CPU per I/O \(us\), nvfab / "
                         r"in-kernel +30\.0 +40\.0 +0\.75 +0\.71\.\.0\.79 +3 "
                         r" met \(goal <= 1\.00\)  CPU busy A/B: 40%/45%")
        self.assertIn("NOT met (goal <= 0.90)", r.stdout)
        self.assertIn("CPU per I/O: us of guest CPU time per I/O", r.stdout)
        # rdma set: its own rows, goals 1.00 everywhere (CPU too)
        self.assertEqual(rows["rdma-qd1-mean"]["status"], "met")   # 0.9
        self.assertAlmostEqual(rows["rdma-qd1-mean"]["min"], 171 / 200)
        self.assertAlmostEqual(rows["rdma-qd1-mean"]["max"], 189 / 200)
        self.assertEqual(rows["rdma-qd1-p99"]["status"], "NOT met")  # 1.05
        self.assertEqual(rows["rdma-qd1-cpu"]["status"], "met")    # 0.8
        self.assertEqual(rows["rdma-qd1-cpu"]["cpu_busy_pct"],
                         {"a": 60.0, "b": 62.0})
        self.assertEqual(rows["rdma-qd32-iops"]["status"], "met")  # 1.05
        self.assertEqual(rows["rdma-qd32-cpu"]["goal"], 1.0)
        self.assertEqual(rows["rdma-qd32-cpu"]["status"], "met")   # 0.95
        self.assertEqual(rows["rdma-seq128k-bw"]["status"], "NOT met")
        self.assertEqual(rows["rdma-seq128k-cpu"]["status"], "NOT met")
        for rid in ("rdma-qd1-mean", "rdma-qd1-p99", "rdma-qd1-cpu",
                    "rdma-qd32-iops", "rdma-qd32-cpu", "rdma-seq128k-bw",
                    "rdma-seq128k-cpu"):
            self.assertEqual(rows[rid]["goal"], 1.0, rid)
            self.assertTrue(rows[rid]["title"].startswith("rdma "), rid)
            self.assertEqual(rows[rid]["a"]["job"],
                             rows[rid]["b"]["job"], rid)
            self.assertTrue(rows[rid]["a"]["job"].startswith("rdma-"), rid)
        self.assertRegex(r.stdout, r"rdma QD32 CPU per I/O \(us\), nvfab / "
                         r"in-kernel +95\.0 +100\.0 +0\.95 +0\.90\.\.1\.00 "
                         r"+3  met \(goal <= 1\.00\)  CPU busy A/B: "
                         r"100%/100%")
        self.assertIn("[rdma: 1 controller over soft RoCE (rxe)", r.stdout)
        # tls set: its own rows after rdma's, goals 1.00 everywhere
        tls = ("tls-qd1-mean", "tls-qd1-p99", "tls-qd1-cpu", "tls-qd32-iops",
               "tls-qd32-cpu", "tls-seq128k-bw", "tls-seq128k-cpu")
        ids = [x["id"] for x in s["rows"]]
        self.assertEqual(ids[ids.index("rdma-seq128k-cpu") + 1:
                             ids.index("rdma-seq128k-cpu") + 8], list(tls))
        for rid in tls:
            self.assertEqual(rows[rid]["goal"], 1.0, rid)
            self.assertTrue(rows[rid]["title"].startswith("tls "), rid)
            self.assertEqual(rows[rid]["a"], {"init": NV,
                                              "job": rows[rid]["b"]["job"]})
            self.assertEqual(rows[rid]["b"]["init"], K, rid)
        self.assertEqual(rows["tls-qd1-mean"]["status"], "met")    # 0.875
        self.assertAlmostEqual(rows["tls-qd1-mean"]["ratio"], 0.875)
        self.assertEqual(rows["tls-qd1-p99"]["status"], "met")     # 1.0
        self.assertEqual(rows["tls-qd32-iops"]["status"], "NOT met")  # 0.95
        self.assertEqual(rows["tls-qd32-cpu"]["status"], "NOT met")   # 1.1
        self.assertEqual(rows["tls-seq128k-bw"]["status"], "met")  # 1.0
        self.assertEqual(rows["tls-seq128k-cpu"]["status"], "met")  # 0.875
        self.assertEqual(rows["tls-qd1-cpu"]["cpu_busy_pct"],
                         {"a": 50.0, "b": 52.0})
        self.assertRegex(r.stdout, r"tls QD32 CPU per I/O \(us\), nvfab / "
                         r"in-kernel +110\.0 +100\.0 +1\.10 +1\.04\.\.1\.16 "
                         r"+3  NOT met \(goal <= 1\.00\)  CPU busy A/B: "
                         r"100%/100%")
        self.assertIn("[tls: 1 controller over NVMe/TCP with TLS 1.3",
                      r.stdout)
        self.assertIn("tls rows: NVMe/TCP over TLS 1.3", r.stdout)
        # auth set: a time, lower is better; the connect has a goal, the
        # write is informational
        self.assertEqual(rows["auth-connect"]["better"], "lower")
        self.assertEqual(rows["auth-connect"]["goal"], 1.0)
        self.assertEqual(rows["auth-connect"]["status"], "met")    # 0.8
        self.assertAlmostEqual(rows["auth-connect"]["ratio"], 0.8)
        self.assertAlmostEqual(rows["auth-connect"]["min"], 0.76)
        self.assertAlmostEqual(rows["auth-connect"]["max"], 0.84)
        self.assertAlmostEqual(rows["auth-connect"]["a_median"], 800)
        self.assertAlmostEqual(rows["auth-connect"]["b_median"], 1000)
        self.assertEqual(rows["auth-write"]["status"], "info")
        self.assertAlmostEqual(rows["auth-write"]["ratio"], 0.9)
        self.assertEqual(ids.index("auth-connect"),
                         ids.index("disc-storm-remove") + 1)
        self.assertRegex(r.stdout, r"auth connect -> block device of the "
                         r"namespace, nvfab / in-kernel +800\.0 +1000 +0\.80 "
                         r"+0\.76\.\.0\.84 +3  met \(goal <= 1\.00\)")
        self.assertEqual(rows["asym30-st-qd"]["status"], "met")    # 29/15
        self.assertEqual(rows["asym30-st-qd"]["goal"], 1.5)
        self.assertEqual(rows["asym1-st-qd"]["status"], "info")
        self.assertEqual(rows["asym30-rr"]["status"], "info")
        self.assertAlmostEqual(rows["asym30-ceiling"]["ratio"], 2.0)
        self.assertEqual(rows["asym30-ceiling"]["status"], "info")
        self.assertAlmostEqual(rows["lb-st-qd"]["ratio"], 1.7)
        self.assertAlmostEqual(rows["lb-ceiling"]["ratio"], 1.6)
        self.assertEqual(rows["sym-rr"]["status"], "met")          # 0.97
        self.assertEqual(rows["sym-nvfab-2v1"]["status"], "info")
        self.assertAlmostEqual(rows["sym-nvfab-2v1"]["ratio"], 1.1)
        self.assertEqual(rows["ana-rr-rr"]["status"], "met")       # 0.8
        self.assertEqual(rows["ana-st-numa"]["status"], "NOT met")  # 1.17
        self.assertEqual(rows["ana-react-rr-rr"]["status"], "info")
        self.assertIsNone(rows["ana-react-rr-rr"]["goal"])
        self.assertEqual(rows["ana-move-st-numa"]["status"], "info")
        self.assertEqual(rows["cut-rr"]["status"], "NOT met")      # 1.09
        self.assertEqual(rows["cut-rr"]["errors"], {"a": 3, "b": 0})
        self.assertIn("I/O errors A/B: 3/0", r.stdout)
        self.assertEqual(s["goals"]["no_data"], 0)

    def test_missing_rows(self):
        j = os.path.join(self.d, "bench.jsonl")
        # No single set, no in-kernel service-time pairing partner, one
        # round without the nvfab cut, a bad line and a truncated one.
        lines = synthetic(drop=("qd1", "qd32", "qd32-jobs", "seq128k",
                                (K, "asym30-queue-depth"),
                                (NV, "cut-round-robin")))
        lines.append({"init": NV, "round": 1, "job": "qd1",
                      "lat_mean_us": None})
        write(j, lines, extra='not json\n{"init": "nvfab", "rou')
        r = run_report(j, self.d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("not JSON", r.stderr)
        s, rows = rows_by_id(self.d)
        for rid in ("qd1-mean", "qd1-p99", "qd32-iops", "seq128k-bw",
                    "qd1-cpu", "qd32-cpu", "qd32j-iops", "qd32j-cpu",
                    "seq128k-cpu", "qd32-segs-out", "qd32-segs-in",
                    "seq128k-segs-out", "seq128k-segs-in", "asym30-st-qd",
                    "asym30-qd", "asym30-ceiling", "cut-rr"):
            self.assertEqual(rows[rid]["status"], "no data", rid)
            # the jobs did not run: no reason beyond "no data"
            self.assertNotIn("why", rows[rid], rid)
        self.assertEqual(rows["sym-rr"]["status"], "met")
        self.assertEqual(s["goals"]["no_data"], 17)
        self.assertEqual(r.stdout.count("no data"), 17)

    def test_no_cpu_figures(self):
        """A bench.jsonl from before the CPU figures: those rows say why
        they have no data; every other row is as before."""
        j = os.path.join(self.d, "bench.jsonl")
        write(j, synthetic(cpu=False))
        r = run_report(j, self.d)
        self.assertEqual(r.returncode, 0, r.stderr)
        s, rows = rows_by_id(self.d)
        cpu = ("qd1-cpu", "qd32-cpu", "qd32j-cpu", "seq128k-cpu",
               "rdma-qd1-cpu", "rdma-qd32-cpu", "rdma-seq128k-cpu",
               "tls-qd1-cpu", "tls-qd32-cpu", "tls-seq128k-cpu",
               "peer-read128k-cpu", "peer-write128k-cpu", "peer-rand4k-cpu")
        segs = ("qd32-segs-out", "qd32-segs-in", "seq128k-segs-out",
                "seq128k-segs-in")
        for rid in cpu:
            self.assertEqual(rows[rid]["status"], "no data", rid)
            self.assertIn("without CPU figures", rows[rid]["why"])
            self.assertNotIn("cpu_busy_pct", rows[rid])
        for rid in segs:
            self.assertEqual(rows[rid]["status"], "no data", rid)
            self.assertIn("without TCP segment counts", rows[rid]["why"])
        self.assertEqual(s["goals"]["no_data"], len(cpu) + len(segs))
        self.assertEqual(r.stdout.count(
            "no data (runs without CPU figures: an older bench.jsonl"),
            len(cpu))
        self.assertEqual(rows["qd32-iops"]["status"], "met")
        self.assertEqual(rows["rdma-qd32-iops"]["status"], "met")
        self.assertEqual(rows["tls-qd1-mean"]["status"], "met")
        self.assertEqual(rows["auth-connect"]["status"], "met")
        # CPU figures in one round only: that round alone counts
        lines = synthetic(cpu=False)
        lines = [x for x in lines if x["round"] != 2]
        lines += [x for x in synthetic() if x["round"] == 2]
        write(j, lines)
        r = run_report(j, self.d)
        s, rows = rows_by_id(self.d)
        self.assertEqual(rows["qd1-cpu"]["n"], 1)
        self.assertEqual(rows["qd1-cpu"]["rounds"], [2])
        self.assertEqual(rows["qd1-mean"]["n"], 3)

    def test_disc(self):
        """The disc set's rows: the ratio with its goal 0.5, the rows of
        nvfab alone (removal), the peak against max_inflight."""
        j = os.path.join(self.d, "bench.jsonl")
        write(j, [x for x in synthetic() if x["job"].startswith("disc-")])
        r = run_report(j, self.d)
        self.assertEqual(r.returncode, 0, r.stderr)
        s, rows = rows_by_id(self.d)
        self.assertEqual(rows["disc-ready"]["goal"], 0.5)
        self.assertEqual(rows["disc-ready"]["status"], "met")      # 0.4
        self.assertAlmostEqual(rows["disc-ready"]["ratio"], 0.4)
        self.assertAlmostEqual(rows["disc-ready"]["min"], 0.38)
        self.assertEqual(rows["disc-remove"]["status"], "info")
        self.assertIsNone(rows["disc-remove"]["ratio"])
        self.assertAlmostEqual(rows["disc-remove"]["a_median"], 300)
        self.assertEqual(rows["disc-remove"]["n"], 3)
        self.assertRegex(r.stdout, r"time from the unlink to the controller "
                         r"gone, nvfab \(in-kernel: never removed\) +300\.0 +"
                         r"- +- +285\.0\.\.315\.0 +3  \(info, A alone")
        self.assertAlmostEqual(rows["disc-storm"]["ratio"], 0.5)
        self.assertEqual(rows["disc-storm"]["status"], "info")
        self.assertEqual(rows["disc-peak"]["status"], "met")       # 8 / 8
        self.assertAlmostEqual(rows["disc-peak"]["ratio"], 1.0)
        self.assertAlmostEqual(rows["disc-storm-remove"]["a_median"], 20000)
        self.assertEqual(s["goals"]["no_data"], len(s["rows"]) - 6)
        # a peak above the limit fails its goal
        lines = [x for x in synthetic() if x["job"] == "disc-storm"]
        for x in lines:
            if x["init"] == NV:
                x["inflight_peak"] = 9
        write(j, lines)
        run_report(j, self.d)
        _, rows = rows_by_id(self.d)
        self.assertEqual(rows["disc-peak"]["status"], "NOT met")
        # nvfab did not run: its A-alone rows say no data
        write(j, [x for x in synthetic() if x["job"].startswith("disc-")
                  and x["init"] == K])
        r = run_report(j, self.d)
        _, rows = rows_by_id(self.d)
        self.assertEqual(rows["disc-remove"]["status"], "no data")
        self.assertEqual(rows["disc-ready"]["status"], "no data")

    def test_tls(self):
        """BENCH_SETS=tls: its seven rows have data, nothing else; a
        round without the in-kernel host's runs (its tls connect failed)
        is left out of the ratios."""
        j = os.path.join(self.d, "bench.jsonl")
        write(j, [x for x in synthetic() if x["job"].startswith("tls-")])
        r = run_report(j, self.d)
        self.assertEqual(r.returncode, 0, r.stderr)
        s, rows = rows_by_id(self.d)
        with_data = [x["id"] for x in s["rows"] if x["status"] != "no data"]
        self.assertEqual(with_data, ["tls-qd1-mean", "tls-qd1-p99",
                                     "tls-qd1-cpu", "tls-qd32-iops",
                                     "tls-qd32-cpu", "tls-seq128k-bw",
                                     "tls-seq128k-cpu"])
        self.assertEqual(s["goals"]["no_data"], len(s["rows"]) - 7)
        write(j, [x for x in synthetic() if x["job"].startswith("tls-")
                  and not (x["init"] == K and x["round"] == 2)])
        run_report(j, self.d)
        _, rows = rows_by_id(self.d)
        self.assertEqual(rows["tls-qd32-iops"]["rounds"], [1, 3])
        self.assertEqual(rows["tls-qd32-iops"]["n"], 2)

    def test_auth(self):
        """BENCH_SETS=auth: the connect time with its goal 1.0 (lower is
        better) and the write's time; nvfab alone (no in-kernel
        authentication) gives no ratio."""
        j = os.path.join(self.d, "bench.jsonl")
        write(j, [x for x in synthetic() if x["job"] == "auth-connect"])
        r = run_report(j, self.d)
        self.assertEqual(r.returncode, 0, r.stderr)
        s, rows = rows_by_id(self.d)
        self.assertEqual(rows["auth-connect"]["status"], "met")
        self.assertEqual(rows["auth-write"]["status"], "info")
        self.assertEqual(s["goals"]["no_data"], len(s["rows"]) - 2)
        self.assertIn("[auth: connect with DH-HMAC-CHAP (bidirectional",
                      r.stdout)
        # slower than the in-kernel host: NOT met
        lines = [x for x in synthetic() if x["job"] == "auth-connect"]
        for x in lines:
            if x["init"] == NV:
                x["connect_ms"] = 1300
        write(j, lines)
        run_report(j, self.d)
        _, rows = rows_by_id(self.d)
        self.assertEqual(rows["auth-connect"]["status"], "NOT met")
        self.assertAlmostEqual(rows["auth-connect"]["ratio"], 1.3)
        # nvfab alone
        write(j, [x for x in synthetic() if x["job"] == "auth-connect"
                  and x["init"] == NV])
        run_report(j, self.d)
        _, rows = rows_by_id(self.d)
        self.assertEqual(rows["auth-connect"]["status"], "no data")
        self.assertNotIn("why", rows["auth-connect"])

    def test_peer(self):
        """The peer set: device / host memory ratios (no goals), the
        bounce count and the host runs' peer I/Os (goal: 0 in every
        round), the device runs' peer I/Os (goal: at least 1 in every
        round)."""
        j = os.path.join(self.d, "bench.jsonl")
        write(j, [x for x in synthetic() if x["job"].startswith("peer-")])
        r = run_report(j, self.d)
        self.assertEqual(r.returncode, 0, r.stderr)
        s, rows = rows_by_id(self.d)
        ratio_rows = ("peer-read128k-bw", "peer-read128k-cpu",
                      "peer-write128k-bw", "peer-write128k-cpu",
                      "peer-rand4k-iops", "peer-rand4k-cpu")
        for rid in ratio_rows:
            self.assertEqual(rows[rid]["status"], "info", rid)
            self.assertIsNone(rows[rid]["goal"], rid)
            self.assertEqual(rows[rid]["a"]["init"], NV)
            self.assertEqual(rows[rid]["b"]["init"], NV)
            self.assertTrue(rows[rid]["a"]["job"].startswith("peer-dev-"))
            self.assertEqual(rows[rid]["b"]["job"],
                             rows[rid]["a"]["job"].replace("-dev-", "-host-"))
            self.assertEqual(rows[rid]["n"], 3)
        self.assertAlmostEqual(rows["peer-read128k-bw"]["ratio"], 0.95)
        self.assertAlmostEqual(rows["peer-read128k-cpu"]["ratio"], 1.1)
        self.assertEqual(rows["peer-read128k-cpu"]["cpu_busy_pct"],
                         {"a": 98.0, "b": 97.0})
        self.assertAlmostEqual(rows["peer-write128k-bw"]["ratio"], 1.0)
        self.assertAlmostEqual(rows["peer-rand4k-iops"]["ratio"], 0.9)
        self.assertEqual(rows["peer-bounces"]["status"], "met")
        self.assertEqual(rows["peer-bounces"]["goal"], 0)
        self.assertEqual(rows["peer-bounces"]["a_median"], 0)
        self.assertEqual(rows["peer-host-ios"]["status"], "met")
        self.assertEqual(rows["peer-dev-ios"]["status"], "met")
        self.assertEqual(rows["peer-dev-ios"]["a_median"], 6000)
        self.assertEqual(s["goals"]["met"], 3)
        self.assertEqual(s["goals"]["no_data"], len(s["rows"]) - 9)
        self.assertRegex(r.stdout, r"peer 128 KiB seq read QD8 bandwidth, "
                         r"device / host memory +95000 +100000 +0\.95 "
                         r"+0\.90\.\.1\.00 +3  \(info, higher is better\)")
        self.assertRegex(r.stdout, r"peer bounce copies, controller \+ head "
                         r"\(must be 0\) +0\.00 +- +- +0\.00\.\.0\.00 +3  "
                         r"met \(goal: every round <= 0\) \(A alone")
        self.assertIn("[peer: 1 nvfab-rdma controller over rxe", r.stdout)
        # one bounce in one round, host-memory I/O taken for peer: NOT met
        lines = [x for x in synthetic() if x["job"].startswith("peer-")]
        for x in lines:
            if x["job"] == "peer-counters" and x["round"] == 2:
                x["bounces"] = 1
                x["host_peer_ios"] = 3
                x["dev_peer_ios"] = 0
        write(j, lines)
        r = run_report(j, self.d)
        s, rows = rows_by_id(self.d)
        self.assertEqual(rows["peer-bounces"]["status"], "NOT met")
        self.assertEqual(rows["peer-bounces"]["a_median"], 0)
        self.assertEqual(rows["peer-bounces"]["a_max"], 1)
        self.assertEqual(rows["peer-host-ios"]["status"], "NOT met")
        self.assertEqual(rows["peer-dev-ios"]["status"], "NOT met")
        self.assertEqual(s["goals"]["not_met"], 3)
        self.assertIn("NOT met (goal: every round >= 1)", r.stdout)
        self.assertIn("NOT met (goal: every round <= 0)", r.stdout)
        # the device runs failed (no peer-dev lines): ratio rows no data,
        # the counters still shown
        write(j, [x for x in synthetic() if x["job"].startswith("peer-")
                  and not x["job"].startswith("peer-dev-")])
        run_report(j, self.d)
        _, rows = rows_by_id(self.d)
        for rid in ratio_rows:
            self.assertEqual(rows[rid]["status"], "no data", rid)
        self.assertEqual(rows["peer-bounces"]["status"], "met")

    def test_partial_rounds(self):
        j = os.path.join(self.d, "bench.jsonl")
        lines = [x for x in synthetic() if not (x["round"] == 3 and
                                                x["init"] == K)]
        write(j, lines)
        r = run_report(j, self.d)
        self.assertEqual(r.returncode, 0, r.stderr)
        _, rows = rows_by_id(self.d)
        self.assertEqual(rows["qd32-iops"]["n"], 2)
        self.assertEqual(rows["sym-nvfab-2v1"]["n"], 3)

    def test_empty_and_missing_file(self):
        j = os.path.join(self.d, "bench.jsonl")
        write(j, [])
        for path in (j, os.path.join(self.d, "nope.jsonl")):
            r = run_report(path, self.d)
            self.assertEqual(r.returncode, 0, r.stderr)
            s, rows = rows_by_id(self.d)
            self.assertTrue(all(x["status"] == "no data"
                                for x in rows.values()))
            self.assertIn("rounds: none", r.stdout)

    def test_other_delay(self):
        j = os.path.join(self.d, "bench.jsonl")
        lines = synthetic()
        for rnd in (1, 2, 3):
            lines.append({"init": NV, "round": rnd, "job": "asym5-numa",
                          "iops": 10})
            lines.append({"init": K, "round": rnd, "job": "asym5-numa",
                          "iops": 20})
        write(j, lines)
        r = run_report(j, self.d)
        _, rows = rows_by_id(self.d)
        self.assertAlmostEqual(rows["asym5-numa"]["ratio"], 0.5)
        self.assertIsNone(rows["asym5-st-qd"]["goal"])


class Fio2JsonlTest(unittest.TestCase):
    def test_window(self):
        # (completion ms, latency ms); event at 1500, window 3000.
        s = [(1000, 0.1), (1001, 0.2), (3600, 2500.0), (3601, 1.0),
             (9000, 7000.0), (9500, 10.0)]
        w = fio2jsonl.window(s, 1500, 3000)
        self.assertEqual(w["n_pre"], 2)
        self.assertEqual(w["pre_max_ms"], 0.2)
        self.assertEqual(w["stall_ms"], 7000.0)   # issued at 2000
        self.assertEqual(w["gap_ms"], 5399)
        w = fio2jsonl.window(s, 1500, 400)        # 7000 ms one: too late
        self.assertEqual(w["stall_ms"], 2500.0)
        w = fio2jsonl.window([], 1500, 3000)
        self.assertIsNone(w["stall_ms"])

    def test_windows_several_events(self):
        # events at 1000, 2000, 3000, window 500; 1 ms background.
        s = [(t, 1.0) for t in range(0, 4000, 10)]
        s += [(1004, 9.0),      # event 1: in flight at 1000
              (2300, 40.0),     # event 2: issued at 2260
              (2950, 5.0),      # before event 3: its baseline
              (3700, 600.0)]    # event 3: issued at 3100
        w = fio2jsonl.windows(s, [2000, 1000, 3000], 500)
        self.assertEqual(w["n_events"], 3)
        self.assertEqual(w["stalls_ms"], [9.0, 40.0, 600.0])
        self.assertEqual(w["stall_ms"], 40.0)       # the median event
        self.assertEqual(w["stall_max_ms"], 600.0)
        # baselines: before 1000; 1500..2000; 2500..3000
        self.assertEqual(w["pre_maxes_ms"], [1.0, 1.0, 5.0])
        self.assertEqual(w["pre_max_ms"], 1.0)
        # one event: exactly window()
        self.assertEqual(fio2jsonl.windows(s, [1000], 500),
                         fio2jsonl.window(s, 1000, 500))
        self.assertEqual(fio2jsonl.median([3, None, 1, 2, 10]), 2.5)
        self.assertIsNone(fio2jsonl.median([None]))

    def test_event_list(self):
        self.assertEqual(fio2jsonl.event_list("5"), [5])
        self.assertEqual(fio2jsonl.event_list("3,1, 2,"), [3, 1, 2])
        for bad in ("", ",", "x", "1,x", "1.5", "0x10"):
            with self.assertRaises(argparse.ArgumentTypeError, msg=bad):
                fio2jsonl.event_list(bad)

    def test_trace_flip_both_hosts(self):
        """One parser for nvfab's and the in-kernel host's events."""
        nvfab = """# tracer: nop
 fio-277 [000] ..... 9.990000: nvfab_setup_cmd: nvfab0: qid=1, cmdid=4098, nsid=1, flags=0x0, opcode=0x2, fctype=0x0, mpath=1, cdw10=c2 3d 00 00
 sh-163 [000] ..... 10.000000: tracing_mark_write: bench: event 0 of ana-rr at 1795370378359
 kw-66 [001] ..... 10.001675: nvfab_async_event: nvfab0: status=0x0, result=0xc0302 (type 2, info 0x3, log page 0xc)
 kw-66 [001] ..... 10.002204: nvfab_setup_cmd: nvfab0: qid=0, cmdid=8211, nsid=4294967295, flags=0x0, opcode=0x2, fctype=0x0, mpath=0, cdw10=0c 00 03 08 00
 kw-66 [001] ..... 10.002543: nvfab_complete_rq: nvfab0: qid=2, cmdid=28771, res=0x0, retries=0, flags=0x4, status=0x2302
 kw-66 [001] ..... 10.002674: nvfab_complete_rq: nvfab0: qid=0, cmdid=8211, res=0x0, retries=0, flags=0x0, status=0x0
 fio-277 [000] ..... 10.002902: nvfab_setup_cmd: nvfab1: qid=1, cmdid=4100, nsid=1, flags=0x0, opcode=0x2, fctype=0x0, mpath=1, cdw10=00
 sh-163 [000] ..... 12.000000: tracing_mark_write: bench: event 1 of ana-rr at 1795370380508
 fio-277 [000] ..... 12.005000: nvfab_setup_cmd: nvfab1: qid=1, cmdid=4101, nsid=1, flags=0x0, opcode=0x2, fctype=0x0, mpath=1, cdw10=00
"""
        kernel = """ fio-401 [000] ..... 91.800000: nvme_setup_cmd: nvme0: disk=nvme0c0n1, qid=1, cmdid=33, nsid=1, flags=0x0, meta=0x0, cmd=(nvme_cmd_read slba=15810, len=0, ctrl=0x0, dsmgmt=0, reftag=0)
 guest.sh-163 [000] ..... 91.810000: tracing_mark_write: bench: event 0 of ana-rr at 1795370457772
 kw-51 [001] ..... 91.811928: nvme_complete_rq: nvme0: disk=nvme0c0n1, qid=2, cmdid=61472, res=0x0, retries=0, flags=0x4, status=0x2302
 kw-51 [001] ..... 91.812044: nvme_async_event: nvme0: NVME_AEN=0x0c0302 [NVME_AER_NOTICE]
 kw-51 [001] ..... 91.812054: nvme_setup_cmd: nvme0: qid=0, cmdid=32789, nsid=4294967295, flags=0x0, meta=0x0, cmd=(nvme_admin_get_log_page cdw10=0c 00 03 08 00 00 00 00 00 00 00 00 00 00 00 00)
 fio-401 [000] ..... 91.812236: nvme_setup_cmd: nvme1: disk=nvme0c1n1, qid=1, cmdid=40, nsid=1, flags=0x0, meta=0x0, cmd=(nvme_cmd_read slba=1, len=0, ctrl=0x0, dsmgmt=0, reftag=0)
 kw-51 [001] ..... 91.812768: nvme_complete_rq: nvme0: qid=0, cmdid=32789, res=0x0, retries=0, flags=0x0, status=0x0
"""
        per = trace_flip.follow(trace_flip.parse(nvfab.splitlines()))
        self.assertEqual(len(per), 2)
        self.assertEqual(per[0]["from"], "nvfab0")
        self.assertEqual(per[0]["to"], "nvfab1")
        self.assertEqual(per[0]["path_err_ms"], 2.543)
        self.assertEqual(per[0]["log_ms"], 2.674)
        self.assertEqual(per[0]["switch_ms"], 2.902)
        self.assertEqual(per[0]["react_ms"], 0.359)
        # event 1: the I/O stays on nvfab1, nothing failed
        self.assertEqual(per[1]["from"], "nvfab1")
        self.assertIsNone(per[1]["switch_ms"])
        self.assertIsNone(per[1]["path_err_ms"])
        s = trace_flip.summary(per)
        self.assertEqual(s["switch_ms"], 2.902)
        self.assertEqual(s["n_trace_events"], 2)
        per = trace_flip.follow(trace_flip.parse(kernel.splitlines()))
        self.assertEqual(per, [{"event": 0, "job": "ana-rr", "from": "nvme0",
                                "to": "nvme1", "path_err_ms": 1.928,
                                "log_ms": 2.768, "switch_ms": 2.236,
                                "react_ms": 0.308}])
        # no marker: nothing; garbage lines are skipped
        self.assertEqual(trace_flip.follow(trace_flip.parse(
            ["", "junk", " a-1 [000] ..... x: y: z"])), [])

    def test_fio_json_total_latency(self):
        # With --lat_percentiles=1 the total latency (slat + clat) is used.
        d = tempfile.mkdtemp()
        fj = os.path.join(d, "f.json")
        with open(fj, "w") as f:
            json.dump({"jobs": [{"read": {
                "iops": 2000.0, "bw": 8000,
                "clat_ns": {"mean": 17000.0, "max": 9e5},
                "lat_ns": {"mean": 500000.0, "max": 1e6,
                           "percentile": {"99.000000": 900000}}}}]}, f)
        r = subprocess.run([sys.executable,
                            os.path.join(HERE, "fio2jsonl.py"),
                            "--init", NV, "--round", "1", "--job", "qd1",
                            fj], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        rec = json.loads(r.stdout)
        self.assertEqual(rec["lat_mean_us"], 500.0)
        self.assertEqual(rec["lat_p99_us"], 900.0)
        self.assertEqual(rec["max_lat_ms"], 1.0)

    def test_fio_json(self):
        d = tempfile.mkdtemp()
        fj = os.path.join(d, "f.json")
        with open(fj, "w") as f:
            f.write("fio: a note\n" + json.dumps({"jobs": [{
                "total_err": 2, "read": {
                    "iops": 5.0, "bw": 20, "clat_ns": {
                        "mean": 2000.0, "max": 9e6,
                        "percentile": {"99.000000": 4000}},
                    "lat_ns": {"max": 1e7}}}]}))
        log = os.path.join(d, "l.log")
        with open(log, "w") as f:
            f.write("100, 1000000, 0, 4096, 0\n200, 9000000, 0, 4096, 0\n"
                    "bad line\n")
        r = subprocess.run([sys.executable,
                            os.path.join(HERE, "fio2jsonl.py"),
                            "--init", NV, "--round", "2", "--job", "cut",
                            "--lat-log", log, "--event-ms", "150", fj],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        rec = json.loads(r.stdout)
        self.assertEqual(rec["errors"], 2)
        self.assertEqual(rec["max_lat_ms"], 10.0)
        self.assertEqual(rec["lat_mean_us"], 2.0)
        self.assertEqual(rec["lat_p99_us"], 4.0)
        self.assertEqual(rec["stall_ms"], 9.0)
        self.assertEqual(rec["stall_src"], "log")
        r = subprocess.run([sys.executable,
                            os.path.join(HERE, "fio2jsonl.py"),
                            "--init", NV, "--round", "2", "--job", "x",
                            os.path.join(d, "missing.json")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")


    def test_peerio_write_and_set(self):
        """peerio's JSON of a write run (its read section empty) and the
        peer counters given with --set."""
        d = tempfile.mkdtemp()
        fj = os.path.join(d, "p.json")
        with open(fj, "w") as f:
            json.dump({"peerio": {"mem": "device"}, "timestamp_ms": 5000,
                       "jobs": [{"total_err": 0,
                                 "write": {"io_bytes": 1 << 20, "iops": 2.0,
                                           "bw": 256, "runtime": 4000,
                                           "lat_ns": {"mean": 3e6, "max": 9e6,
                                                      "percentile": {
                                                          "99.000000": 8e6}}},
                                 "read": {"io_bytes": 0, "iops": 0, "bw": 0,
                                          "runtime": 0}}]}, f)

        def run(*extra):
            return subprocess.run(
                [sys.executable, os.path.join(HERE, "fio2jsonl.py"),
                 "--init", NV, "--round", "1", "--job", "peer-dev-write128k"]
                + list(extra) + [fj], capture_output=True, text=True)

        r = run("--set", "peer_ios=8", "--set", "bounces=0")
        self.assertEqual(r.returncode, 0, r.stderr)
        rec = json.loads(r.stdout)
        self.assertEqual(rec["iops"], 2.0)
        self.assertEqual(rec["bw_kib"], 256)
        self.assertEqual(rec["lat_mean_us"], 3000.0)
        self.assertEqual(rec["lat_p99_us"], 8000.0)
        self.assertEqual((rec["peer_ios"], rec["bounces"]), (8, 0))
        r = run("--set", "peer_ios=x")
        self.assertEqual(r.returncode, 2)
        self.assertIn("not KEY=INTEGER", r.stderr)
        # a job that read and wrote: its read section
        self.assertEqual(fio2jsonl.pick_section(
            {"read": {"io_bytes": 4, "iops": 1}, "write": {"io_bytes": 4}}),
            {"io_bytes": 4, "iops": 1})
        self.assertEqual(fio2jsonl.pick_section({"read": {"iops": 3}}),
                         {"iops": 3})


class CpuTest(unittest.TestCase):
    """CPU per I/O from two /proc/stat samples (guest.sh's cpu_sample)."""

    @staticmethod
    def sample(t, user, nice, system, idle, iowait, irq, softirq, steal=0):
        return "%.6f cpu %d %d %d %d %d %d %d %d 0 0\n" % (
            t, user, nice, system, idle, iowait, irq, softirq, steal)

    def test_figures(self):
        with tempfile.TemporaryDirectory() as d:
            c = os.path.join(d, "cpu.txt")
            # 4 s, 2 CPUs = 800 ticks: busy 100+10+200+20+70 = 400
            with open(c, "w") as f:
                f.write(self.sample(1000.5, 1000, 50, 2000, 9000, 30, 5, 400,
                                    7))
                f.write("garbage\n1001 cpu0 1 2 3 4 5 6 7 8\n")
                f.write(self.sample(1004.5, 1100, 60, 2200, 9390, 40, 25,
                                    470, 7))
            s = fio2jsonl.read_cpu_stat(c)
            self.assertEqual(len(s), 2)
            res = fio2jsonl.cpu_figures(s, 2000.0, 100)
            self.assertEqual(res["cpu_us"], 4e6)
            self.assertEqual(res["cpu_win_s"], 4.0)
            self.assertEqual(res["cpu_busy_pct"], 50.0)     # 400 / 800
            # 1e6 us of CPU per second, 2000 I/Os per second
            self.assertEqual(res["cpu_per_io_us"], 500.0)
            # USER_HZ 250: a tick is 4 ms
            self.assertEqual(fio2jsonl.cpu_figures(s, 2000.0, 250)
                             ["cpu_per_io_us"], 200.0)
            # no IOPS: CPU time without a per-I/O figure
            self.assertIsNone(fio2jsonl.cpu_figures(s, None, 100)
                              ["cpu_per_io_us"])
            self.assertIsNone(fio2jsonl.cpu_figures(s, 0, 100)
                              ["cpu_per_io_us"])
            for bad in ([], s[:1], [s[1], s[0]], [s[0], s[0]]):
                with self.assertRaises(ValueError):
                    fio2jsonl.cpu_figures(bad, 2000.0, 100)

    def test_tcp_segments(self):
        """The "tcp INSEGS OUTSEGS" words after the cpu fields: segments
        per I/O over the same window; malformed or missing words, or
        counters that went back (a reset netns), give none."""
        with tempfile.TemporaryDirectory() as d:
            c = os.path.join(d, "cpu.txt")
            base = self.sample(1000.0, 0, 0, 0, 0, 0, 0, 0).rstrip("\n")
            end = self.sample(1004.0, 100, 0, 100, 600, 0, 0, 0).rstrip("\n")
            with open(c, "w") as f:
                f.write(base + " tcp 1000 5000\n")
                f.write(end + " tcp 9000 21000\n")
            s = fio2jsonl.read_cpu_stat(c)
            self.assertEqual((s[0][1]["tcp_in"], s[1][1]["tcp_out"]),
                             (1000, 21000))
            # 8000 in and 16000 out over 4 s at 2000 IOPS
            res = fio2jsonl.cpu_figures(s, 2000.0, 100)
            self.assertEqual(res["tcp_in_per_io"], 1.0)
            self.assertEqual(res["tcp_out_per_io"], 2.0)
            self.assertEqual(res["cpu_per_io_us"], 250.0)
            self.assertNotIn("tcp_in_per_io",
                             fio2jsonl.cpu_figures(s, None, 100))
            for tail in ("", " tcp", " tcp 5", " tcp x 7", " tcp -1 7",
                         " tcp 1 2 3"):
                with open(c, "w") as f:
                    f.write(base + tail + "\n")
                    f.write(end + " tcp 9000 21000\n")
                res = fio2jsonl.cpu_figures(fio2jsonl.read_cpu_stat(c),
                                            2000.0, 100)
                self.assertEqual(res["cpu_per_io_us"], 250.0, tail)
                if tail == " tcp 1 2 3":    # extra words are ignored
                    self.assertEqual(res["tcp_in_per_io"], 1.125, tail)
                    continue
                self.assertNotIn("tcp_in_per_io", res, tail)
                self.assertNotIn("tcp_out_per_io", res, tail)
            with open(c, "w") as f:
                f.write(end + " tcp 9000 21000\n")
                f.write(self.sample(1008.0, 200, 0, 200, 1200, 0, 0, 0)
                        .rstrip("\n") + " tcp 10 20\n")
            res = fio2jsonl.cpu_figures(fio2jsonl.read_cpu_stat(c),
                                        2000.0, 100)
            self.assertNotIn("tcp_in_per_io", res)

    def test_steady_window(self):
        s = [(t / 4.0, {}) for t in range(0, 41)]      # 0..10 s
        w = fio2jsonl.steady_window(s, 9.0, 5.0)        # run 4..9 s
        self.assertEqual((w[0][0], w[-1][0]), (4.5, 8.5))
        w = fio2jsonl.steady_window(s, 9.0, 1.0)        # margin 0.25
        self.assertEqual([x[0] for x in w], [8.25, 8.5, 8.75])
        self.assertEqual(fio2jsonl.steady_window(s, 30.0, 5.0), [])

    def test_cli(self):
        with tempfile.TemporaryDirectory() as d:
            fj = os.path.join(d, "f.json")
            fio = {"timestamp_ms": 20000, "jobs": [{"read": {
                "iops": 1000.0, "bw": 4000, "runtime": 4000,
                "lat_ns": {"mean": 1e5, "max": 1e6,
                           "percentile": {"99.000000": 2e5}}}}]}
            with open(fj, "w") as f:
                json.dump(fio, f)
            c = os.path.join(d, "cpu.txt")
            # steady run 16..20 s; the window 16.5..19.5 takes the
            # samples at 16.5 and 18.5, not fio's start or exit
            with open(c, "w") as f:
                f.write(self.sample(10, 0, 0, 0, 0, 0, 0, 0))
                f.write(self.sample(16.4, 1, 0, 0, 0, 0, 0, 0))
                f.write(self.sample(16.5, 5, 0, 5, 10, 0, 0, 0))
                f.write(self.sample(18.5, 105, 0, 105, 210, 0, 0, 0))
                f.write(self.sample(19.9, 999, 0, 999, 999, 0, 0, 0))

            def run(*extra):
                return subprocess.run(
                    [sys.executable, os.path.join(HERE, "fio2jsonl.py"),
                     "--init", NV, "--round", "1", "--job", "qd32"] +
                    list(extra) + [fj], capture_output=True, text=True)

            r = run("--cpu-stat", c, "--user-hz", "100")
            self.assertEqual(r.returncode, 0, r.stderr)
            rec = json.loads(r.stdout)
            self.assertEqual(rec["cpu_per_io_us"], 1000.0)  # 1 CPU s/s
            self.assertEqual(rec["cpu_busy_pct"], 50.0)
            self.assertEqual(rec["cpu_win_s"], 2.0)
            self.assertEqual(rec["cpu_samples"], 2)
            # no CPU file, an empty one, a bad USER_HZ, samples outside
            # the steady run, a fio JSON without its end time: the line
            # is written without CPU figures, and stderr says why
            empty = os.path.join(d, "empty.txt")
            open(empty, "w").close()
            late = os.path.join(d, "late.txt")
            with open(late, "w") as f:
                f.write(self.sample(10, 0, 0, 0, 0, 0, 0, 0))
                f.write(self.sample(16.5, 5, 0, 5, 10, 0, 0, 0))
                f.write(self.sample(19.9, 105, 0, 105, 210, 0, 0, 0))
            cases = [(["--cpu-stat", os.path.join(d, "none.txt")], None),
                     (["--cpu-stat", empty], "0 of 0 samples inside"),
                     (["--cpu-stat", c, "--user-hz", "0"], "--user-hz 0"),
                     (["--cpu-stat", late], "1 of 3 samples inside")]
            for extra, why in cases:
                r = run(*extra)
                self.assertEqual(r.returncode, 0, r.stderr)
                rec = json.loads(r.stdout)
                self.assertEqual(rec["iops"], 1000.0)
                self.assertNotIn("cpu_per_io_us", rec)
                self.assertIn("no CPU figures for qd32", r.stderr)
                if why:
                    self.assertIn(why, r.stderr)
            del fio["timestamp_ms"]
            with open(fj, "w") as f:
                json.dump(fio, f)
            r = run("--cpu-stat", c)
            self.assertNotIn("cpu_per_io_us", json.loads(r.stdout))
            self.assertIn("no timestamp_ms", r.stderr)
            # without --cpu-stat: no CPU fields, no note
            r = run()
            self.assertNotIn("cpu_per_io_us", json.loads(r.stdout))
            self.assertEqual(r.stderr, "")


def have_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


class PlotRowsTest(unittest.TestCase):
    """Which rows the chart draws (no matplotlib needed)."""

    def summary(self, lines):
        with tempfile.TemporaryDirectory() as d:
            j = os.path.join(d, "bench.jsonl")
            write(j, lines)
            run_report(j, d)
            with open(os.path.join(d, "summary.json")) as f:
                return json.load(f)

    def test_only_rows_with_data(self):
        import plot
        s = self.summary(synthetic())
        # every row but those of A alone (no ratio to draw)
        a_only = [r["id"] for r in s["rows"] if r["b"] is None]
        self.assertEqual(a_only, ["peer-bounces", "peer-dev-ios",
                                  "peer-host-ios", "disc-remove",
                                  "disc-storm-remove"])
        self.assertEqual(len(plot.drawn_rows(s)), len(s["rows"]) - 5)
        # BENCH_SETS=single: the single-path rows only, in table order
        single = ("qd1", "qd32", "qd32-jobs", "seq128k")
        s = self.summary([x for x in synthetic() if x["job"] in single])
        ids = [r["id"] for r in plot.drawn_rows(s)]
        self.assertEqual(ids, ["qd1-mean", "qd1-p99", "qd1-cpu", "qd32-iops",
                               "qd32-cpu", "qd32j-iops", "qd32j-cpu",
                               "seq128k-bw", "seq128k-cpu", "qd32-segs-out",
                               "qd32-segs-in", "seq128k-segs-out",
                               "seq128k-segs-in"])
        self.assertGreater(s["goals"]["no_data"], 20)
        # an older single run: no CPU figures (and no segment counts), so
        # no CPU or segment rows either
        s = self.summary([x for x in synthetic(cpu=False)
                          if x["job"] in single])
        self.assertEqual([r["id"] for r in plot.drawn_rows(s)],
                         ["qd1-mean", "qd1-p99", "qd32-iops", "qd32j-iops",
                          "seq128k-bw"])
        # BENCH_SETS=rdma: the rdma rows only, each with a goal
        s = self.summary([x for x in synthetic()
                          if x["job"].startswith("rdma-")])
        drawn = plot.drawn_rows(s)
        self.assertEqual([r["id"] for r in drawn],
                         ["rdma-qd1-mean", "rdma-qd1-p99", "rdma-qd1-cpu",
                          "rdma-qd32-iops", "rdma-qd32-cpu",
                          "rdma-seq128k-bw", "rdma-seq128k-cpu"])
        self.assertTrue(all(r["goal"] == 1.0 for r in drawn))
        self.assertEqual(s["goals"]["no_data"], len(s["rows"]) - 7)
        # BENCH_SETS="single rdma": both, single's rows first
        s = self.summary([x for x in synthetic()
                          if x["job"] in single or
                          x["job"].startswith("rdma-")])
        ids = [r["id"] for r in plot.drawn_rows(s)]
        self.assertEqual(len(ids), 20)
        self.assertEqual(ids.index("rdma-qd1-mean"), 13)
        # BENCH_SETS="rdma tls": rdma's rows, then tls's
        s = self.summary([x for x in synthetic()
                          if x["job"].startswith(("rdma-", "tls-"))])
        ids = [r["id"] for r in plot.drawn_rows(s)]
        self.assertEqual(len(ids), 14)
        self.assertEqual(ids.index("tls-qd1-mean"), 7)
        # BENCH_SETS=auth: both rows are ratios, drawn
        s = self.summary([x for x in synthetic()
                          if x["job"] == "auth-connect"])
        self.assertEqual([r["id"] for r in plot.drawn_rows(s)],
                         ["auth-connect", "auth-write"])
        # BENCH_SETS=peer: its six ratios; the counters (A alone) not
        s = self.summary([x for x in synthetic()
                          if x["job"].startswith("peer-")])
        self.assertEqual([r["id"] for r in plot.drawn_rows(s)],
                         ["peer-read128k-bw", "peer-read128k-cpu",
                          "peer-write128k-bw", "peer-write128k-cpu",
                          "peer-rand4k-iops", "peer-rand4k-cpu"])
        self.assertEqual(plot.drawn_rows(self.summary([])), [])

    def test_nothing_to_draw(self):
        with tempfile.TemporaryDirectory() as d:
            j = os.path.join(d, "bench.jsonl")
            write(j, [])
            run_report(j, d)
            png = os.path.join(d, "ratios.png")
            r = subprocess.run([sys.executable, os.path.join(HERE, "plot.py"),
                                os.path.join(d, "summary.json"), png],
                               capture_output=True, text=True)
            # before matplotlib is imported: the same with or without it
            self.assertEqual(r.returncode, 1)
            self.assertIn("has data", r.stderr)
            self.assertIn("no chart", r.stderr)
            self.assertFalse(os.path.exists(png))


@unittest.skipUnless(have_matplotlib(), "no matplotlib in this python3")
class PlotTest(unittest.TestCase):
    def test_plot(self):
        import plot
        with tempfile.TemporaryDirectory() as d:
            for name, lines in (("full", synthetic()),
                                ("partial", synthetic(drop=(
                                    "qd1", "sym2", "cut-round-robin"))),
                                ("single", [x for x in synthetic()
                                            if x["job"] in ("qd1", "qd32")]),
                                ("rdma", [x for x in synthetic()
                                          if x["job"].startswith("rdma-")]),
                                ("peer", [x for x in synthetic()
                                          if x["job"].startswith("peer-")]),
                                ("tlsauth", [x for x in synthetic()
                                             if x["job"].startswith(
                                                 ("tls-", "auth-"))]),
                                ("old", synthetic(cpu=False))):
                j = os.path.join(d, name + ".jsonl")
                write(j, lines)
                out = os.path.join(d, name)
                report.main([j, "--out", out])
                png = os.path.join(out, "ratios.png")
                self.assertEqual(plot.main(
                    [os.path.join(out, "summary.json"), png]), 0)
                with open(png, "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            # every row without data: no chart, exit 1
            j = os.path.join(d, "empty.jsonl")
            write(j, [])
            out = os.path.join(d, "empty")
            report.main([j, "--out", out])
            png = os.path.join(out, "ratios.png")
            self.assertEqual(plot.main(
                [os.path.join(out, "summary.json"), png]), 1)
            self.assertFalse(os.path.exists(png))


if __name__ == "__main__":
    unittest.main(verbosity=2)
