#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of tools/demo/fio_sum.py (host only): python3 tools/demo/test_fio_sum.py -v"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fio_sum  # noqa: E402


def direction(n, slat, clat, lat=None):
    d = {"total_ios": n, "iops": n / 10.0, "bw": 4 * n / 10.0,
         "slat_ns": {"mean": slat, "max": slat * 2},
         "clat_ns": {"mean": clat, "max": clat * 2}}
    if lat is not None:
        d["lat_ns"] = {"mean": lat, "max": lat * 2}
    return d


class FioSum(unittest.TestCase):
    def test_qd1_completed_in_submit(self):
        # QD1: the I/O's 0.4 ms is in slat, clat is 20 us (the demo's
        # "mean 0.02 ms")
        doc = {"jobs": [{"error": 0,
                         "read": direction(1000, 380000, 20000, 400000),
                         "write": direction(1000, 380000, 20000, 400000)}]}
        ios, _, _, mean, mx, err = fio_sum.summarize(doc).split()
        self.assertEqual((ios, mean, mx, err), ("2000", "0.40", "0.8", "0"))

    def test_weighted_by_direction(self):
        doc = {"jobs": [{"read": direction(300, 0, 0, 1000000),
                         "write": direction(100, 0, 0, 5000000)}]}
        self.assertEqual(fio_sum.summarize(doc).split()[3], "2.00")

    def test_no_lat_ns_falls_back_to_slat_plus_clat(self):
        doc = {"jobs": [{"read": direction(10, 100000, 300000)}]}
        _, _, _, mean, mx, _ = fio_sum.summarize(doc).split()
        self.assertEqual((mean, mx), ("0.40", "0.8"))

    def test_jobs_summed_first_error(self):
        doc = {"jobs": [{"error": 0, "read": direction(10, 0, 0, 1e6)},
                        {"error": 5, "write": direction(30, 0, 0, 1e6)},
                        {"error": 7}]}
        ios, iops, mibs, _, _, err = fio_sum.summarize(doc).split()
        self.assertEqual((ios, iops, err), ("40", "4", "5"))

    def test_no_io(self):
        self.assertEqual(fio_sum.summarize({"jobs": []}), "0 0 0.00 0.00 0.0 0")

    def test_notes_before_the_json(self):
        doc = {"jobs": [{"read": direction(4, 0, 0, 2e6)}]}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write("note: both iodepth >= 1 and synchronous I/O engine\n")
            f.write(json.dumps(doc))
        try:
            sys.argv = ["fio_sum.py", f.name]
            from io import StringIO
            out, sys.stdout = sys.stdout, StringIO()
            try:
                fio_sum.main()
                got = sys.stdout.getvalue()
            finally:
                sys.stdout = out
        finally:
            os.unlink(f.name)
        self.assertEqual(got.split()[0], "4")


if __name__ == "__main__":
    unittest.main()
