#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write connect-option strings to /dev/nvfab-fabrics, one write(2) each.

  fabrics_write.py [--dev DEV] write STRING   -> prints OK or the errno name
  fabrics_write.py [--dev DEV] read           -> prints what a fresh open reads
  fabrics_write.py [--dev DEV] cases FILE     -> for each line "ERRNO|TEXT|STRING"
        of FILE, write STRING and print "ERRNO_GOT<TAB>SEEN<TAB>STRING" where
        SEEN is 1 if the kernel log lines this write produced contain TEXT.
  fabrics_write.py [--dev DEV] fuzz N SEED    -> N random and mutated strings;
        prints one line per errno name with its count, and exits 1 if any
        write succeeded or failed with an unexpected errno.

Each write uses a fresh open, as a connect does.
"""
import argparse
import errno
import os
import random
import sys

# Until a transport is registered every request must fail, with one of these.
# (ENOKEY, EKEYREVOKED: keyring= or tls_key= naming no key, or a revoked one)
EXPECTED = {errno.EINVAL, errno.EOPNOTSUPP, errno.EPROTONOSUPPORT,
            errno.ENOKEY, errno.EKEYREVOKED}

SEEDS = [
    b"transport=fuzztcp,traddr=192.0.2.2,trsvcid=4420,nqn=nqn.2014-08.org.example:s1",
    b"transport=fuzztcp,traddr=192.0.2.2,nqn=nqn.2014-08.org.nvmexpress.discovery",
    b"transport=fuzzrdma,traddr=198.51.100.2,trsvcid=4420,nqn=nqn.x:y,"
    b"queue_size=64,nr_io_queues=2,keep_alive_tmo=10,ctrl_loss_tmo=30",
    b"transport=fuzztcp,traddr=192.0.2.2,nqn=nqn.x:y,hdr_digest,data_digest,"
    b"tos=8,host_traddr=192.0.2.1,host_iface=veth1,fast_io_fail_tmo=2",
    b"transport=fuzztcp,traddr=192.0.2.2,nqn=nqn.x:y,"
    b"hostnqn=nqn.2014-08.org.nvmexpress:uuid:8c3d1d2e-9f0a-4b5c-8d6e-7f8091a2b3c4,"
    b"hostid=8c3d1d2e-9f0a-4b5c-8d6e-7f8091a2b3c4,duplicate_connect,disable_sqflow",
]

KEYS = [b"transport", b"traddr", b"trsvcid", b"nqn", b"queue_size",
        b"nr_io_queues", b"reconnect_delay", b"ctrl_loss_tmo",
        b"keep_alive_tmo", b"hostnqn", b"host_traddr", b"host_iface",
        b"hostid", b"duplicate_connect", b"disable_sqflow", b"hdr_digest",
        b"data_digest", b"nr_write_queues", b"nr_poll_queues", b"tos",
        b"fast_io_fail_tmo", b"discovery", b"dhchap_secret", b"tls", b"keyring",
        b"tls_key", b"bogus"]

VALUES = [b"", b"0", b"-1", b"1", b"15", b"1025", b"2147483647",
          b"2147483648", b"-2147483649", b"99999999999999999999", b"0x10",
          b"abc", b"1e3", b" 5", b"%s", b"%d", b"\xff\xfe", b"\x01\x02",
          b"a" * 300, b"nqn." + b"b" * 230, b"=", b",", b"TCP", b"../tcp"]


def mutate(rng, s):
    s = bytearray(s)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        pos = rng.randrange(len(s) + 1)
        if op == 0 and s:  # flip a byte
            s[rng.randrange(len(s))] = rng.randrange(256)
        elif op == 1:  # truncate
            s = s[:pos]
        elif op == 2:  # insert a separator or special byte
            s[pos:pos] = rng.choice([b",", b"=", b"\n", b"\0", b",,", b"%"])
        elif op == 3:  # append an option with a hostile value
            s += b"," + rng.choice(KEYS) + b"=" + rng.choice(VALUES)
        elif op == 4:  # duplicate a segment
            parts = bytes(s).split(b",")
            s = bytearray(b",".join(parts + [rng.choice(parts)]))
        elif op == 5:  # random garbage
            s[pos:pos] = bytes(rng.randrange(256)
                               for _ in range(rng.randint(1, 40)))
        elif op == 6:  # bare key
            s += b"," + rng.choice(KEYS)
        else:  # replace a value
            parts = bytes(s).split(b",")
            i = rng.randrange(len(parts))
            k = parts[i].split(b"=")[0]
            parts[i] = k + b"=" + rng.choice(VALUES)
            s = bytearray(b",".join(parts))
    return bytes(s)


def errname(num):
    # errno.errorcode calls 95 ENOTSUP; the kernel's name is EOPNOTSUPP.
    if num == errno.EOPNOTSUPP:
        return "EOPNOTSUPP"
    return errno.errorcode.get(num, str(num))


def one_write(dev, data):
    fd = os.open(dev, os.O_RDWR)
    try:
        os.write(fd, data)
        return "OK"
    except OSError as e:
        return errname(e.errno)
    finally:
        os.close(fd)


def kmsg_drain(fd):
    """Return the text of every kernel log record not read yet."""
    out = []
    while True:
        try:
            rec = os.read(fd, 8192)
        except BlockingIOError:
            break
        except OSError as e:
            if e.errno == errno.EPIPE:  # records overwritten: skip them
                continue
            raise
        if not rec:
            break
        out.append(rec.decode("utf-8", "replace").split(";", 1)[-1])
    return "".join(out)


def run_cases(dev, path):
    kmsg = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    os.lseek(kmsg, 0, os.SEEK_END)
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if not line:
                continue
            _, text, string = line.split("|", 2)
            kmsg_drain(kmsg)
            got = one_write(dev, string.encode())
            seen = 1 if text in kmsg_drain(kmsg) else 0
            print("%s\t%d\t%s" % (got, seen, string))
    os.close(kmsg)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", default="/dev/nvfab-fabrics")
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("string")
    sub.add_parser("read")
    c = sub.add_parser("cases")
    c.add_argument("file")
    f = sub.add_parser("fuzz")
    f.add_argument("count", type=int)
    f.add_argument("seed", type=int)
    a = ap.parse_args()

    if a.cmd == "write":
        print(one_write(a.dev, a.string.encode("utf-8", "surrogateescape")))
        return 0
    if a.cmd == "read":
        with open(a.dev, "rb") as fh:
            sys.stdout.write(fh.read().decode("utf-8", "replace"))
        return 0

    if a.cmd == "cases":
        run_cases(a.dev, a.file)
        return 0

    rng = random.Random(a.seed)
    counts = {}
    bad = 0
    for i in range(a.count):
        if i % 10 == 0:
            data = bytes(rng.randrange(1, 256)
                         for _ in range(rng.randint(0, 200)))
        elif i % 50 == 1:
            data = rng.choice(SEEDS) + b"," + b"x" * rng.randint(4000, 5000)
        else:
            data = mutate(rng, rng.choice(SEEDS))
        res = one_write(a.dev, data)
        counts[res] = counts.get(res, 0) + 1
        if res == "OK" or getattr(errno, res, None) not in EXPECTED:
            bad += 1
            print("# unexpected %s for %r" % (res, data[:120]))
    for k in sorted(counts):
        print("%s %d" % (k, counts[k]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
