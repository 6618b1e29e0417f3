#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one fio JSON output into one bench.jsonl line (stdout).

  fio2jsonl.py --init nvfab --round 1 --job qd1 FIO.json
  fio2jsonl.py ... --lat-log X_lat.1.log --event-ms T --window-ms W FIO.json

Fields: init, round, job, iops, bw_kib, lat_mean_us, lat_p99_us (read
total latency; of the write section instead when the job only wrote:
its read io_bytes 0 and its write io_bytes not, submission included: fio's lat_ns, whose percentiles need
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

With --cpu-stat (lines "EPOCH-SECONDS cpu USER NICE SYSTEM IDLE IOWAIT
IRQ SOFTIRQ STEAL ...": the all-CPU line of the guest's /proc/stat,
sampled by guest.sh every 0.25 s while fio ran; ticks of --user-hz,
default 100) the guest's CPU time over the part of fio's steady run that
the samples cover: fio's JSON gives the run's end (timestamp_ms, when
fio wrote it) and its steady length (read runtime, without the ramp);
the window runs from the first sample at least CPU_MARGIN_S after the
steady run's start to the last one at least CPU_MARGIN_S before its end,
so that neither fio's start nor its exit counts:
  cpu_us         busy CPU time, all CPUs: user+nice+system+irq+softirq
                 (guest time is part of user), in microseconds
  cpu_win_s      the window's length in seconds (cpu_samples: samples
                 in it)
  cpu_busy_pct   busy share of all CPUs' time in the window (idle, iowait
                 and steal are not busy)
  cpu_per_io_us  CPU microseconds per completed I/O: the busy CPU time per
                 second of the window divided by fio's IOPS (its completed
                 I/Os per second of the steady run)
When the samples also carry "tcp INSEGS OUTSEGS" (the Tcp counters of
the guest's /proc/net/snmp in the hosts' netns: every segment the hosts
received and sent, pure ACKs and retransmissions included), over the same
window:
  tcp_in_per_io   TCP segments received per completed I/O
  tcp_out_per_io  TCP segments sent per completed I/O
A missing or unusable file, or fewer than 2 samples in the window,
leaves these out (with a note on stderr); the line is still written.

With --set KEY=INTEGER (repeated) the line also has KEY (the peer set's
counters of the run, from guest.sh). The input may be peerio's output
(tools/bench/peerio.c), a fio-like JSON of the same fields.

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


# /proc/stat "cpu" fields after the name, and the ones that count as busy.
CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq",
              "steal")
BUSY = ("user", "nice", "system", "irq", "softirq")
# The optional "tcp INSEGS OUTSEGS" after a sample's cpu fields.
TCP_FIELDS = ("tcp_in", "tcp_out")


def read_tcp_segs(parts):
    """{tcp_in, tcp_out} from a sample's "tcp IN OUT" words, or {}."""
    try:
        k = parts.index("tcp", 2 + len(CPU_FIELDS))
        vals = [int(v) for v in parts[k + 1:k + 3]]
    except ValueError:
        return {}
    if len(vals) != len(TCP_FIELDS) or min(vals) < 0:
        return {}
    return dict(zip(TCP_FIELDS, vals))


def read_cpu_stat(path):
    """[(epoch s, {field: ticks})] from cpu_sample lines; bad lines skipped."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 2 + len(CPU_FIELDS) or parts[1] != "cpu":
                continue
            try:
                t = float(parts[0])
                vals = [int(v) for v in parts[2:2 + len(CPU_FIELDS)]]
            except ValueError:
                continue
            fields = dict(zip(CPU_FIELDS, vals))
            fields.update(read_tcp_segs(parts))
            out.append((t, fields))
    return out


CPU_MARGIN_S = 0.5


def steady_window(samples, end_s, runtime_s, margin=CPU_MARGIN_S):
    """The samples inside fio's steady run (end_s - runtime_s .. end_s),
    margin seconds in from both ends (less for a short run)."""
    margin = min(margin, runtime_s / 4.0)
    lo, hi = end_s - runtime_s + margin, end_s - margin
    return [x for x in samples if lo <= x[0] <= hi]


def cpu_figures(samples, iops, user_hz):
    """CPU time between the first and the last sample, and per I/O."""
    if len(samples) < 2:
        raise ValueError("%d usable sample(s), need 2" % len(samples))
    (t0, a), (t1, b) = samples[0], samples[-1]
    win = t1 - t0
    if win <= 0:
        raise ValueError("window of %.3f s" % win)
    d = {k: b[k] - a[k] for k in CPU_FIELDS}
    if any(v < 0 for v in d.values()):
        raise ValueError("counters went backwards")
    busy = sum(d[k] for k in BUSY)
    total = busy + d["idle"] + d["iowait"] + d["steal"]
    cpu_us = busy * 1e6 / user_hz
    res = {"cpu_us": round(cpu_us, 1), "cpu_win_s": round(win, 3),
           "cpu_samples": len(samples),
           "cpu_busy_pct": round(100.0 * busy / total, 1) if total else None,
           "cpu_per_io_us": None}
    if num(iops) and iops > 0:
        res["cpu_per_io_us"] = round(cpu_us / win / iops, 3)
        for k in TCP_FIELDS:
            if k in a and k in b and b[k] >= a[k]:
                res[k + "_per_io"] = round((b[k] - a[k]) / win / iops, 3)
    return res


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def ns_to(v, div):
    return None if v is None else round(v / div, 3)


def pick_section(job):
    """The read section, or the write one of a job that only wrote."""
    rd = job["read"]
    wr = job.get("write")
    if isinstance(wr, dict) and not rd.get("io_bytes") and wr.get("io_bytes"):
        return wr
    return rd


def set_arg(text):
    key, sep, val = text.partition("=")
    try:
        if not sep or not key:
            raise ValueError
        return key, int(val)
    except ValueError:
        raise argparse.ArgumentTypeError("not KEY=INTEGER: %r" % text)


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
    ap.add_argument("--cpu-stat",
                    help="/proc/stat cpu samples of the run (cpu_sample)")
    ap.add_argument("--user-hz", type=int, default=100,
                    help="ticks per second of /proc/stat (getconf CLK_TCK)")
    ap.add_argument("--set", action="append", default=[], type=set_arg,
                    metavar="KEY=INTEGER", help="one more field of the line")
    ap.add_argument("fio_json")
    a = ap.parse_args(argv)

    try:
        fio = load_fio(a.fio_json)
        job = fio["jobs"][0]
        rd = pick_section(job)
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
    if a.cpu_stat:
        try:
            if a.user_hz <= 0:
                raise ValueError("--user-hz %d" % a.user_hz)
            samples = read_cpu_stat(a.cpu_stat)
            end, runtime = fio.get("timestamp_ms"), rd.get("runtime")
            if not num(end) or not num(runtime) or runtime <= 0:
                raise ValueError("no timestamp_ms or read runtime in %s" %
                                 a.fio_json)
            inside = steady_window(samples, end / 1e3, runtime / 1e3)
            if len(inside) < 2:
                raise ValueError("%d of %d samples inside fio's steady run"
                                 % (len(inside), len(samples)))
            rec.update(cpu_figures(inside, rec["iops"], a.user_hz))
        except (OSError, ValueError) as e:
            print("fio2jsonl: no CPU figures for %s: %s: %s" %
                  (a.job, a.cpu_stat, e), file=sys.stderr)
    for key, val in a.set:
        rec[key] = val
    print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
