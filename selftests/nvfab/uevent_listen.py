#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Record the kernel's nvfab uevents of one kind, one line per event.

  uevent_listen.py READY_FILE OUT_FILE SECONDS [EVENT]

Binds a NETLINK_KOBJECT_UEVENT socket to the kernel's multicast group,
touches READY_FILE once bound (so that a test changes nothing before the
listener can see it), then for SECONDS (or until SIGTERM) writes every
uevent carrying NVFAB_EVENT=<value> to OUT_FILE as its KEY=value fields
separated by spaces, flushed line by line. EVENT (default ana_change) is
the value, or a prefix of it when it ends with "*" (discovery_*: every
discovery event).
"""
import os
import signal
import socket
import sys
import time


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    ready, out_path, secs = argv[1], argv[2], float(argv[3])
    event = argv[4] if len(argv) == 5 else "ana_change"
    key = "NVFAB_EVENT=" + event.rstrip("*")

    def wanted(field):
        if event.endswith("*"):
            return field.startswith(key)
        return field == key

    # NETLINK_KOBJECT_UEVENT (15): Python's socket module has no name for it.
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    sock.bind((os.getpid(), 1))     # group 1: events from the kernel
    sock.settimeout(0.2)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(out_path, "w") as out:
        open(ready, "w").close()
        end = time.monotonic() + secs
        while time.monotonic() < end:
            try:
                data = sock.recv(1 << 16)
            except socket.timeout:
                continue
            # "ACTION@DEVPATH\0KEY=value\0..."
            fields = [f.decode(errors="replace") for f in data.split(b"\0")]
            if not any(wanted(f) for f in fields):
                continue
            out.write(" ".join(f for f in fields[1:] if f) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
