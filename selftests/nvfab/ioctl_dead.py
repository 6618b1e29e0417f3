#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Passthrough on a /dev/nvfabN that stays open across its deletion.

  ioctl_dead.py /dev/nvfabN /sys/class/nvfab/nvfabN

Opens the controller's character device, sends one Identify Controller
through NVME_IOCTL_ADMIN_CMD (must succeed), deletes the controller
through sysfs while the file stays open, waits for its sysfs directory
to go, and sends the Identify again: it must fail with ENODEV, not touch
a freed admin queue. Exit 0 when both hold.
"""
import ctypes
import errno
import fcntl
import os
import struct
import sys
import time

# struct nvme_passthru_cmd (linux/nvme_ioctl.h), 72 bytes
CMD = struct.Struct("=BBHIIIQQII6III")
NVME_IOCTL_ADMIN_CMD = (3 << 30) | (CMD.size << 16) | (ord("N") << 8) | 0x41
IDENTIFY, CNS_CTRL = 0x06, 1


def identify(fd):
    """Identify Controller through the passthrough ioctl; returns status."""
    buf = bytearray(4096)
    ptr = ctypes.addressof((ctypes.c_char * len(buf)).from_buffer(buf))
    cmd = bytearray(CMD.pack(IDENTIFY, 0, 0, 0, 0, 0, 0, ptr, 0, len(buf),
                             CNS_CTRL, 0, 0, 0, 0, 0, 0, 0))
    return fcntl.ioctl(fd, NVME_IOCTL_ADMIN_CMD, cmd)


def main():
    dev, sysdir = sys.argv[1], sys.argv[2]
    fd = os.open(dev, os.O_RDWR)
    status = identify(fd)
    if status != 0:
        print(f"Identify before the delete: status {status}")
        return 1
    with open(os.path.join(sysdir, "delete_controller"), "w") as f:
        f.write("1")
    deadline = time.monotonic() + 30
    while os.path.exists(sysdir):
        if time.monotonic() > deadline:
            print(f"{sysdir} still there after 30 s")
            return 1
        time.sleep(0.1)
    try:
        status = identify(fd)
    except OSError as e:
        print(f"Identify after the delete: {errno.errorcode.get(e.errno, e.errno)}")
        return 0 if e.errno == errno.ENODEV else 1
    finally:
        os.close(fd)
    print(f"Identify after the delete returned status {status}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
