#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one fio JSON output into one bench.jsonl line (stdout).

  fio2jsonl.py --init nvfab --round 1 --job qd1 FIO.json
  fio2jsonl.py ... --lat-log X_lat.1.log --event-ms T --window-ms W FIO.json

Fields: init, round, job, iops, bw_kib, lat_mean_us, lat_p99_us (read
total latency, submission included: fio's lat_ns, whose percentiles need
fio --lat_percentiles=1; completion latency clat_ns where lat_ns lacks
them), max_lat_ms (longest total latency of the run) and errors (fio's
total_err; only counted with --continue_on_error).

With a latency log (fio --write_lat_log --log_avg_msec=0
--log_unix_epoch=1: one line per I/O, "completion time in epoch ms,
latency in ns, ...") and the epoch ms of an event (an ANA flip, a link
cut), also:
  stall_ms    the longest latency of the I/Os that completed at or after
              the event and were issued (completion - latency) no later
              than window-ms after it: those in flight at the event and
              those sent while the host was reacting to it
  pre_max_ms  the longest latency of the I/Os that completed before it
  gap_ms      the longest time without any completion, from the event to
              the last completion
  n_pre       I/Os completed before the event (0: fio had not started)
With several events (--event-ms T1,T2,...) each one is measured on its
own (its baseline since the previous event's window, its gap up to the
next event), and stall_ms, pre_max_ms and gap_ms are the medians over the
events; also n_events, stalls_ms and pre_maxes_ms (per event, in time
order) and stall_max_ms (the worst event).
Without usable log lines stall_ms falls back to max_lat_ms
(stall_src "run" instead of "log").

With --trace (an ftrace of the run, see trace_flip.py): path_err_ms,
log_ms, switch_ms and react_ms (medians over the events), switches_ms
and n_trace_events.

Writes nothing and exits 1 when the fio output is missing or not JSON.
"""
import argparse
import json
import os
import sys

sys.dont_write_bytecode = True     # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_flip  # noqa: E402


def load_fio(path):
    with open(path, errors="replace") as f:
        text = f.read()
    # fio may print notes before the JSON object in the same file.
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON object in %s" % path)
    obj, _ = json.JSONDecoder().raw_decode(text[start:])
    return obj


def read_log(path):
    """[(completion epoch ms, latency ms)] from a fio latency log."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.split(",")
            if len(parts) < 2:
                continue
            try:
                t = int(parts[0].strip())
                ns = int(parts[1].strip())
            except ValueError:
                continue
            out.append((t, ns / 1e6))
    return out


def window(samples, event_ms, window_ms, end_ms=None, since_ms=None):
    """One event: the stall, the baseline before it and the longest gap."""
    pre = [lat for t, lat in samples
           if t < event_ms and (since_ms is None or t >= since_ms)]
    post = [(t, lat) for t, lat in samples
            if t >= event_ms and t - lat <= event_ms + window_ms]
    res = {
        "n_pre": len(pre),
        "pre_max_ms": round(max(pre), 3) if pre else None,
        "stall_ms": round(max(lat for _, lat in post), 3) if post else None,
    }
    done = sorted(t for t, _ in samples
                  if t >= event_ms and (end_ms is None or t < end_ms))
    if done:
        last = event_ms
        gap = 0
        for t in done:
            gap = max(gap, t - last)
            last = t
        res["gap_ms"] = gap
    else:
        res["gap_ms"] = None
    return res


median = trace_flip.median


def windows(samples, events, window_ms):
    """Several events: each one's figures, and their medians."""
    events = sorted(events)
    per = []
    for i, ev in enumerate(events):
        since = events[i - 1] + window_ms if i else None
        end = events[i + 1] if i + 1 < len(events) else None
        per.append(window(samples, ev, window_ms, end, since))
    if len(per) == 1:
        return per[0]
    res = {k: median(w[k] for w in per)
           for k in ("pre_max_ms", "stall_ms", "gap_ms")}
    res["n_pre"] = per[0]["n_pre"]
    res["n_events"] = len(per)
    res["stalls_ms"] = [w["stall_ms"] for w in per]
    res["pre_maxes_ms"] = [w["pre_max_ms"] for w in per]
    stalls = [w["stall_ms"] for w in per if w["stall_ms"] is not None]
    res["stall_max_ms"] = max(stalls) if stalls else None
    return res


def ns_to(v, div):
    return None if v is None else round(v / div, 3)


def event_list(text):
    try:
        vals = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("not a list of epoch ms: %r" % text)
    if not vals:
        raise argparse.ArgumentTypeError("no event time in %r" % text)
    return vals


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--init", required=True)
    ap.add_argument("--round", type=int, required=True)
    ap.add_argument("--job", required=True)
    ap.add_argument("--lat-log")
    ap.add_argument("--event-ms", type=event_list,
                    help="epoch ms of the event, or of several: T1,T2,...")
    ap.add_argument("--window-ms", type=int, default=3000)
    ap.add_argument("--trace", help="ftrace of the run (trace_flip.py)")
    ap.add_argument("fio_json")
    a = ap.parse_args(argv)

    try:
        fio = load_fio(a.fio_json)
        job = fio["jobs"][0]
        rd = job["read"]
    except (OSError, ValueError, KeyError, IndexError) as e:
        print("fio2jsonl: %s: %s" % (a.fio_json, e), file=sys.stderr)
        return 1

    clat = rd.get("clat_ns", {})
    lat = rd.get("lat_ns", {})
    # A host that sends from the submitting syscall moves time from clat
    # to slat: only the total latency compares two hosts fairly.
    tot = lat if lat.get("percentile") else clat
    pct = tot.get("percentile", {})
    rec = {
        "init": a.init, "round": a.round, "job": a.job,
        "iops": rd.get("iops"),
        "bw_kib": rd.get("bw"),
        "lat_mean_us": ns_to(tot.get("mean"), 1e3),
        "lat_p99_us": ns_to(pct.get("99.000000"), 1e3),
        "max_lat_ms": ns_to(lat.get("max", clat.get("max")), 1e6),
        "errors": job.get("total_err", 0),
    }
    if a.lat_log and a.event_ms is not None:
        try:
            samples = read_log(a.lat_log)
        except OSError as e:
            print("fio2jsonl: %s" % e, file=sys.stderr)
            samples = []
        w = windows(samples, a.event_ms, a.window_ms)
        rec.update(w)
        if w["stall_ms"] is None:
            rec["stall_ms"] = rec["max_lat_ms"]
            rec["stall_src"] = "run"
        else:
            rec["stall_src"] = "log"
        rec["n_log"] = len(samples)
    if a.trace:
        try:
            rec.update(trace_flip.summary(trace_flip.follow(
                trace_flip.load(a.trace))))
        except (OSError, EOFError) as e:
            print("fio2jsonl: %s" % e, file=sys.stderr)
    print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
