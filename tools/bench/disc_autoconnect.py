#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The in-kernel route of the bench's disc set: what nvme-cli's udev rule
(70-nvmf-autoconnect.rules) and its nvmf-connect@.service do, without
udev and systemd.

  disc_autoconnect.py READY_FILE LOG_FILE [NVME]

Binds a NETLINK_KOBJECT_UEVENT socket, touches READY_FILE once bound,
then for every KOBJ_CHANGE of an nvme controller that carries a
Discovery Log Page change notice (NVME_AEN=0x70f002: notice 0xf0, log
page 0x70) or NVME_EVENT=rediscover (a discovery controller reconnected),
runs what the rule's service runs:

  nvme connect-all --quiet --device=nvmeN --transport=T --traddr=A
       --trsvcid=S --host-traddr=H --host-iface=I

(NVME_TRTYPE, NVME_TRADDR, ... of the event; "none" for an empty one, as
the rule does). One connect-all at a time: events that arrive while one
runs make one more run after it (the rule's "systemctl start" of a unit
that is already running does nothing, so this is, if anything, kinder to
the in-kernel route). Each run is logged to LOG_FILE with its start and
end (epoch seconds) and exit status. Runs until SIGTERM.
"""
import os
import signal
import socket
import subprocess
import sys
import time


def args_of(ev, nvme):
    def val(key):
        return ev.get(key) or "none"
    return [nvme, "connect-all", "--quiet",
            "--device=" + ev.get("DEVPATH", "none").rsplit("/", 1)[-1],
            "--transport=" + val("NVME_TRTYPE"),
            "--traddr=" + val("NVME_TRADDR"),
            "--trsvcid=" + val("NVME_TRSVCID"),
            "--host-traddr=" + val("NVME_HOST_TRADDR"),
            "--host-iface=" + val("NVME_HOST_IFACE")]


def wanted(ev):
    if ev.get("ACTION") != "change" or ev.get("SUBSYSTEM") != "nvme":
        return False
    return (ev.get("NVME_AEN") == "0x70f002" or
            ev.get("NVME_EVENT") == "rediscover")


def parse(data):
    """ "ACTION@DEVPATH\\0KEY=value\\0..." -> dict of the KEY=value pairs
    (ACTION, DEVPATH and SUBSYSTEM among them)."""
    ev = {}
    for f in data.split(b"\0")[1:]:
        k, sep, v = f.decode(errors="replace").partition("=")
        if sep:
            ev[k] = v
    return ev


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    ready, log_path = argv[1], argv[2]
    nvme = argv[3] if len(argv) == 4 else "nvme"
    # NETLINK_KOBJECT_UEVENT (15): Python's socket module has no name for it.
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    sock.bind((os.getpid(), 1))     # group 1: events from the kernel
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(log_path, "a") as log:
        open(ready, "w").close()
        while True:
            ev = parse(sock.recv(1 << 16))
            if not wanted(ev):
                continue
            # what came in while nothing ran: coalesced into this run
            sock.setblocking(False)
            try:
                while True:
                    more = parse(sock.recv(1 << 16))
                    if wanted(more):
                        ev = more
            except BlockingIOError:
                pass
            sock.setblocking(True)
            cmd = args_of(ev, nvme)
            t0 = time.time()
            rc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL).returncode
            log.write("%.3f %.3f rc=%d %s\n" % (t0, time.time(), rc,
                                                " ".join(cmd)))
            log.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
