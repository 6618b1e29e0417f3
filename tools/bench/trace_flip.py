#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How a host followed each bench event, from an ftrace of its commands.

  trace_flip.py TRACE[.gz]            one line per event, then the medians
  trace_flip.py --json TRACE[.gz]     the same as one JSON object

The trace is what guest.sh keeps with NVFAB_BENCH_TRACE=1: the nvfab
events (nvfab_setup_cmd, nvfab_complete_rq, ...) or the in-kernel host's
(nvme_setup_cmd, nvme_complete_rq, ...), and a trace_marker line
"bench: event K of JOB at EPOCH-MS" written just before each event. Both
hosts print "CTRL: ... qid=Q, cmdid=C, ... status=S", so one parser reads
both. For each event, in ms after its marker:

  path_err_ms  the first command that completed with a path error
               (status code type 3: an ANA status, a host path error)
  log_ms       the first ANA log (Get Log Page, LID 0Ch) that completed
  switch_ms    the first I/O command sent on a controller other than the
               one that carried the I/O just before the event: when the
               I/O had moved
  react_ms     switch_ms - path_err_ms: the host's own part, from the
               path error it received to the I/O sent elsewhere (the
               time to the first path error is the target's)

An event with no such line has None there. The medians are over the
events that have a value.
"""
import argparse
import gzip
import json
import re
import sys

LINE = re.compile(r"^\s*\S.*?\s+\[\d+\]\s+\S+\s+([\d.]+):\s+(\w+):\s+(.*)$")
MARK = re.compile(r"bench: event (\d+) of (\S+)")
FIELD = re.compile(r"(\w+)=([^,\s)]+)")
FIELDS = ("path_err_ms", "log_ms", "switch_ms", "react_ms")


def parse(lines):
    """[(seconds, event name, ctrl, fields dict, text)]"""
    out = []
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        text = m.group(3)
        ctrl = text.split(":", 1)[0] if ":" in text else ""
        out.append((float(m.group(1)), m.group(2), ctrl,
                    dict(FIELD.findall(text)), text))
    return out


def is_get_ana_log(ev, fields, text):
    """An admin Get Log Page of the ANA log (CDW10 byte 0: LID 0Ch)."""
    if fields.get("qid") != "0":
        return False
    if ev == "nvfab_setup_cmd":
        return (fields.get("opcode") == "0x2" and
                fields.get("cdw10", "").lower() == "0c")
    return "nvme_admin_get_log_page" in text and "cdw10=0c" in text.lower()


def status_sct(fields):
    try:
        return (int(fields.get("status", "0"), 0) >> 8) & 0x7
    except ValueError:
        return 0


def follow(events):
    """One dict per marker, in trace order."""
    marks = [i for i, e in enumerate(events)
             if e[1] == "tracing_mark_write" and MARK.search(e[4])]
    res = []
    for n, i in enumerate(marks):
        t0 = events[i][0]
        end = marks[n + 1] if n + 1 < len(marks) else len(events)
        carrier = None
        for e in reversed(events[:i]):
            if e[1].endswith("_setup_cmd") and e[3].get("qid") not in (None, "0"):
                carrier = e[2]
                break
        m = MARK.search(events[i][4])
        r = {"event": int(m.group(1)), "job": m.group(2), "from": carrier}
        r.update({k: None for k in FIELDS})
        logs = set()
        for t, ev, ctrl, f, text in events[i + 1:end]:
            ms = round((t - t0) * 1e3, 3)
            if ev.endswith("_setup_cmd"):
                if is_get_ana_log(ev, f, text):
                    logs.add((ctrl, f.get("cmdid")))
                elif (r["switch_ms"] is None and carrier is not None and
                      ctrl != carrier and f.get("qid") != "0"):
                    r["switch_ms"] = ms
                    r["to"] = ctrl
            elif ev.endswith("_complete_rq"):
                if r["path_err_ms"] is None and status_sct(f) == 3:
                    r["path_err_ms"] = ms
                if r["log_ms"] is None and (ctrl, f.get("cmdid")) in logs:
                    r["log_ms"] = ms
        if r["switch_ms"] is not None and r["path_err_ms"] is not None:
            r["react_ms"] = round(r["switch_ms"] - r["path_err_ms"], 3)
        res.append(r)
    return res


def median(vals):
    vals = sorted(v for v in vals if v is not None)
    if not vals:
        return None
    mid = len(vals) // 2
    if len(vals) % 2:
        return vals[mid]
    return round((vals[mid - 1] + vals[mid]) / 2, 3)


def summary(per):
    out = {k: median(r[k] for r in per) for k in FIELDS}
    out["n_trace_events"] = len(per)
    out["switches_ms"] = [r["switch_ms"] for r in per]
    return out


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", errors="replace") as f:
        return parse(f)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("trace")
    a = ap.parse_args(argv)
    try:
        per = follow(load(a.trace))
    except OSError as e:
        print("trace_flip: %s" % e, file=sys.stderr)
        return 1
    if a.json:
        print(json.dumps(summary(per)))
        return 0
    for r in per:
        print("event %d of %s: from %s to %s; path error %s ms, ANA log %s ms,"
              " I/O moved %s ms (host %s ms)"
              % (r["event"], r["job"], r["from"], r.get("to"),
                 r["path_err_ms"], r["log_ms"], r["switch_ms"],
                 r["react_ms"]))
    s = summary(per)
    print("median: path error %s ms, ANA log %s ms, I/O moved %s ms (host %s"
          " ms)" % (s["path_err_ms"], s["log_ms"], s["switch_ms"],
                    s["react_ms"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
