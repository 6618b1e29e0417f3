#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""O_DIRECT reads into a buffer that another thread keeps writing.

  scribble_read.py DEV SECONDS

For SECONDS, one thread reads 128 KiB from DEV (O_DIRECT, offset 0) into
an anonymous mapping, again and again, while a second thread keeps
overwriting that mapping. What the buffer holds afterwards is undefined
(the application races the kernel), but the transfer itself is not: a
data digest must be computed from the data that arrived, not read back
from the buffer. Exits 0 when every read returned 128 KiB; the caller
checks the kernel log for digest errors. Prints the counts.
"""
import mmap
import os
import sys
import threading
import time

SIZE = 128 << 10


def main():
    dev, secs = sys.argv[1], float(sys.argv[2])
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, SIZE)
    stop = threading.Event()
    writes = [0]

    def scribble():
        junk = [bytes([i]) * SIZE for i in (0x5a, 0xa5)]
        while not stop.is_set():
            buf[:] = junk[writes[0] & 1]
            writes[0] += 1

    t = threading.Thread(target=scribble, daemon=True)
    t.start()
    reads = bad = 0
    end = time.monotonic() + secs
    while time.monotonic() < end:
        try:
            n = os.preadv(fd, [buf], 0)
        except OSError as err:
            print("# read failed: %s" % err)
            bad += 1
            break
        reads += 1
        if n != SIZE:
            bad += 1
    stop.set()
    t.join()
    os.close(fd)
    print("# %d reads of %d bytes (%d short or failed), %d overwrites of "
          "the buffer meanwhile" % (reads, SIZE, bad, writes[0]))
    return 0 if reads and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
