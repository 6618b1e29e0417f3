#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sum a fio JSON result for the walkthrough's lines.

  fio_sum.py FIO_JSON

Prints "IOS IOPS MIBS MEAN_MS MAX_MS ERROR": I/Os, IOPS and MiB/s summed
over jobs and directions, the mean latency over all I/Os (each
direction's mean weighted by its I/O count) and the longest latency, in
ms, and the first job error (0 for none).

The latency is fio's lat_ns: from submission to completion. Its clat_ns
starts when the submission call returned; at QD1 over a fabric an I/O
often completes before io_submit() returns (the target answers while the
host is still in the call), which leaves clat a few microseconds and puts
the I/O's time in slat: the walkthrough once printed "mean 0.02 ms" for
I/Os of 0.4 ms that way. An older fio without lat_ns falls back to
slat + clat.
"""
import json
import sys


def direction_lat(s):
    """(mean, max) latency of one direction, in ns."""
    lat = s.get("lat_ns")
    if lat and "mean" in lat:
        return lat.get("mean", 0), lat.get("max", 0)
    sl, cl = s.get("slat_ns", {}), s.get("clat_ns", {})
    return (sl.get("mean", 0) + cl.get("mean", 0),
            sl.get("max", 0) + cl.get("max", 0))


def summarize(doc):
    ios = 0
    iops = 0.0
    kib = 0.0
    lat = 0.0
    top = 0
    err = 0
    for job in doc.get("jobs", []):
        err = err or job.get("error", 0)
        for way in ("read", "write"):
            s = job.get(way, {})
            n = s.get("total_ios", 0)
            ios += n
            iops += s.get("iops", 0)
            kib += s.get("bw", 0)
            if n:
                mean, mx = direction_lat(s)
                lat += mean * n
                top = max(top, mx)
    mean = lat / ios / 1e6 if ios else 0
    return "%d %.0f %.2f %.2f %.1f %d" % (ios, iops, kib / 1024, mean,
                                         top / 1e6, err)


def main():
    text = open(sys.argv[1], errors="replace").read()
    # fio may print notes before the JSON document.
    doc, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])
    print(summarize(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
