#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Device buffers of nvfab-peermem-test, for peermem.sh.

  peermem_buf.py coherence GPUBAR BDF
  peermem_buf.py buffer GPUBAR
  peermem_buf.py refused
  peermem_buf.py pin MODULE
  peermem_buf.py p2pmem GPUBAR BDF
  peermem_buf.py io GPUBAR DISK SIZE
  peermem_buf.py merge GPUBAR DISK
  peermem_buf.py unreachable GPUBAR DISK RDMADEV
  peermem_buf.py revoke GPUBAR DISK
  peermem_buf.py p2pio GPUBAR BDF DISK SIZE [refused]
  peermem_buf.py revoke_busy GPUBAR DISK
  peermem_buf.py revoke_stalled GPUBAR DISK
  peermem_buf.py pin_busy MODULE DISK

GPUBAR is the file behind the ivshmem BAR 2 ($NVFAB_GPUBAR_FILE): byte i of
the file is byte i of the BAR. A device buffer is an mmap of
/dev/nvfab-peermem-test at offset OFF: stand-in host pages for the device
memory at BAR byte window_offset + OFF (window_offset and window_size are
the module's parameters). Each command prints "# " diagnostics and exits 0
when its checks hold, 1 otherwise.

  coherence    before the module binds: what the guest writes into BAR 2
               (the sysfs resource2 mapping) is in GPUBAR, and what it
               writes into GPUBAR is in the BAR
  buffer       a buffer takes a pattern through its mapping, which reaches
               the stand-ins, not the device memory
  refused      lengths over 4 MiB, offsets past the window, private
               mappings: EINVAL; the largest buffer and the window's last
               page work
  pin          rmmod MODULE fails while a buffer is mapped (its file
               closed), works once it is unmapped
  p2pmem       p2pmem/allocate of BDF mmaps, and what is written there is in
               the first half of the BAR
  io           O_DIRECT write of SIZE bytes from a device buffer to DISK
               writes the device memory's bytes, not the stand-ins'; a
               read into another device buffer fills its device memory
               and leaves its stand-ins alone; host buffers do as usual
  merge        O_DIRECT writes of 64 KiB at adjacent disk offsets, from a
               device buffer, a host buffer, another device buffer and
               another host buffer, submitted in one io_submit (plugged:
               the block layer merges adjacent writes into one request)
               ten times: every write works and the disk holds each one's
               bytes (a request mixing device and host memory cannot be
               mapped, and would fail both)
  unreachable  with RDMADEV in the module's "unreachable" parameter, I/O on
               a device buffer fails at once with EREMOTEIO; without it,
               it works again
  revoke       after the revoke ioctl, I/O on the buffer fails with
               EREMOTEIO; another buffer still works
  p2pio        route 1: O_DIRECT write of SIZE bytes to DISK from a
               p2pmem/allocate mapping of BDF (P2PDMA pages) writes its
               bytes; a read into another allocation lands in the BAR
               (found in GPUBAR). With "refused": both fail at once with
               EREMOTEIO (a path of the disk cannot take P2PDMA pages)
  revoke_busy  four threads loop I/O on a device buffer; the revoke ioctl
               returns while they run. Classified by what a revoke
               promises (it fences every I/O not yet DMA-mapped when it
               starts, and waits for the mapped ones): every I/O that
               ended before the ioctl started worked, every I/O issued
               after it returned fails with EREMOTEIO, and one that
               overlapped the ioctl either worked or failed with
               EREMOTEIO (even if issued before it: it may not have been
               mapped yet); none fails otherwise. Another buffer still
               works
  revoke_stalled  a read into a device buffer that the target holds for
               several seconds (DISK is a namespace whose null_blk device
               completes after that long); the revoke ioctl, 1.5 s into
               the read, returns at once (it fences the mapping: the RDMA
               queue stops and its MRs go) instead of waiting for the
               target, and the read fails with EREMOTEIO
  pin_busy     rmmod MODULE is refused while I/O on one of its buffers
               runs, and the I/O goes on without an error
"""
import ctypes
import errno
import mmap
import os
import subprocess
import sys
import threading
import time

DEV = "/dev/nvfab-peermem-test"
PARAMS = "/sys/module/nvfab_peermem_test/parameters"
MAX_LEN = 4 << 20
# NVFAB_PEERMEM_TEST_REVOKE, _IO('N', 0xe0) in
# tools/testing/peermem-test/nvfab_peermem_test.h
REVOKE = 0x4ee0
PAGE = mmap.PAGESIZE
# disk offsets of the I/O checks, apart from what other tests use
LBA_DEV = 8 << 20
LBA_HOST = 12 << 20
LBA_MERGE = 16 << 20


def diag(msg):
    print(f"# {msg}", flush=True)


def param(name):
    with open(os.path.join(PARAMS, name)) as f:
        return f.read().strip()


def pattern(tag, size):
    """size bytes, distinct per tag and per page."""
    pages = (size + PAGE - 1) // PAGE
    return b"".join(f"{tag}{p:06x}-".encode().ljust(16, b".") * (PAGE // 16)
                    for p in range(pages))[:size]


def file_read(path, off, size):
    with open(path, "rb", buffering=0) as f:
        f.seek(off)
        data = b""
        while len(data) < size:
            chunk = f.read(size - len(data))
            if not chunk:
                break
            data += chunk
        return data


def file_find(path, needle, limit):
    """The offset of needle in the first limit bytes of path, or -1. Reads
    1 MiB at a time and stops at the first hit: the guest reads the file
    over 9p, slowly, and allocations sit at the start of the BAR."""
    chunk, off, tail = 1 << 20, 0, b""
    while off < limit:
        data = tail + file_read(path, off, min(chunk, limit - off))
        where = data.find(needle)
        if where >= 0:
            return off - len(tail) + where
        tail = data[-(len(needle) - 1):] if len(needle) > 1 else b""
        off += chunk
    return -1


def file_write(path, off, data):
    with open(path, "r+b", buffering=0) as f:
        f.seek(off)
        f.write(data)


def open_dev():
    return os.open(DEV, os.O_RDWR)


def buf_map(fd, size, off, flags=mmap.MAP_SHARED):
    return mmap.mmap(fd, size, flags=flags, offset=off)


def buf_addr(m):
    """The user address of a mapping (the revoke ioctl's argument)."""
    c = ctypes.c_char.from_buffer(m)
    addr = ctypes.addressof(c)
    del c
    return addr


def revoke(fd, addr):
    """The revoke ioctl; fcntl.ioctl() takes no argument above INT_MAX."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong]
    if libc.ioctl(fd, REVOKE, addr) < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


def refused(what, fd, size, off, flags=mmap.MAP_SHARED):
    try:
        m = buf_map(fd, size, off, flags)
    except OSError as e:
        ok = e.errno == errno.EINVAL
        diag(f"{what}: {errno.errorcode.get(e.errno, e.errno)}"
             f"{'' if ok else ' (want EINVAL)'}")
        return ok
    m.close()
    diag(f"{what}: mapped (want EINVAL)")
    return False


def accepted(what, fd, size, off):
    try:
        m = buf_map(fd, size, off)
    except OSError as e:
        diag(f"{what}: {e}")
        return False
    m[:] = pattern("acc", size)
    ok = m[:] == pattern("acc", size)
    m.close()
    diag(f"{what}: mapped{'' if ok else ', pattern not read back'}")
    return ok


def find_bdf():
    for d in sorted(os.listdir("/sys/bus/pci/devices")):
        p = os.path.join("/sys/bus/pci/devices", d)
        with open(os.path.join(p, "vendor")) as f:
            v = f.read().strip()
        with open(os.path.join(p, "device")) as f:
            dv = f.read().strip()
        if v == "0x1af4" and dv == "0x1110":
            return d
    return None


def cmd_bdf():
    bdf = find_bdf()
    if not bdf:
        return 1
    print(bdf)
    return 0


def cmd_coherence(gpubar, bdf):
    res = f"/sys/bus/pci/devices/{bdf}/resource2"
    size = os.path.getsize(res)
    fsize = os.path.getsize(gpubar)
    diag(f"{res}: {size} bytes, {gpubar}: {fsize} bytes")
    if size != fsize or size == 0:
        return 1
    # memory decoding on while no driver has the device
    enable = f"/sys/bus/pci/devices/{bdf}/enable"
    with open(enable) as f:
        enabled = f.read().strip() != "0"
    if not enabled:
        with open(enable, "w") as f:
            f.write("1")
    fd = os.open(res, os.O_RDWR | os.O_SYNC)
    bar = mmap.mmap(fd, size, mmap.MAP_SHARED)
    os.close(fd)
    ok = True
    # guest -> BAR -> file, at both ends and in the middle
    for off in (0, size // 2 + 3 * PAGE, size - PAGE):
        data = pattern(f"b{off % 97}", PAGE)
        bar[off:off + PAGE] = data
        got = file_read(gpubar, off, PAGE)
        if got != data:
            diag(f"BAR write at {off:#x} not in {gpubar}")
            ok = False
    # file -> BAR
    off = size // 4
    data = pattern("fil", PAGE)
    file_write(gpubar, off, data)
    if bar[off:off + PAGE] != data:
        diag(f"{gpubar} write at {off:#x} not in the BAR")
        ok = False
    for off in (0, size // 2 + 3 * PAGE, size - PAGE, size // 4):
        bar[off:off + PAGE] = bytes(PAGE)
    bar.close()
    if not enabled:
        with open(enable, "w") as f:
            f.write("0")
    return 0 if ok else 1


def cmd_buffer(gpubar):
    win = int(param("window_offset"))
    size, off = 1 << 20, 0
    file_write(gpubar, win + off, bytes(size))
    fd = open_dev()
    m = buf_map(fd, size, off)
    os.close(fd)
    data = pattern("stn", size)
    m[:] = data
    ok = m[:] == data
    if not ok:
        diag("pattern not read back through the mapping")
    n = int(param("buffers"))
    if n != 1:
        diag(f"buffers = {n}, want 1")
        ok = False
    dev = file_read(gpubar, win + off, size)
    if dev != bytes(size):
        diag("the device memory changed: the write did not stay in the stand-ins")
        ok = False
    m.close()
    n = int(param("buffers"))
    if n != 0:
        diag(f"buffers = {n} after the unmap, want 0")
        ok = False
    diag(f"1 MiB buffer at window offset 0 (BAR offset {win:#x}): "
         f"{'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


def cmd_refused():
    win = int(param("window_size"))
    fd = open_dev()
    ok = all([
        refused("4 MiB + 4 KiB", fd, MAX_LEN + PAGE, 0),
        refused("4 MiB + 1 byte (4 MiB + 4 KiB once the kernel rounds it)",
                fd, MAX_LEN + 1, 0),
        refused("offset = window size", fd, PAGE, win),
        refused("offset past the window", fd, PAGE, win + (1 << 20)),
        refused("last page + 1 page beyond the window", fd, 2 * PAGE,
                win - PAGE),
        refused("MAP_PRIVATE", fd, PAGE, 0, mmap.MAP_PRIVATE),
        accepted("4 MiB at offset 0", fd, MAX_LEN, 0),
        accepted("the window's last page", fd, PAGE, win - PAGE),
    ])
    # not page aligned: refused by mmap itself
    try:
        mmap.mmap(fd, PAGE, offset=PAGE // 2)
        diag("offset 2048: mapped (want EINVAL)")
        ok = False
    except (OSError, ValueError) as e:
        diag(f"offset 2048: {e}")
    os.close(fd)
    return 0 if ok else 1


def rmmod(module):
    r = subprocess.run(["rmmod", module], capture_output=True, text=True,
                       check=False)
    return r.returncode, (r.stdout + r.stderr).strip()


def cmd_pin(module):
    fd = open_dev()
    m = buf_map(fd, 64 << 10, 0)
    os.close(fd)
    m[:] = pattern("pin", len(m))
    rc, out = rmmod(module)
    diag(f"rmmod with a buffer mapped: exit {rc}: {out}")
    ok = rc != 0 and os.path.isdir(f"/sys/module/{module.replace('-', '_')}")
    m.close()
    rc, out = rmmod(module)
    diag(f"rmmod after the unmap: exit {rc} {out}")
    return 0 if ok and rc == 0 else 1


def cmd_p2pmem(gpubar, bdf):
    d = f"/sys/bus/pci/devices/{bdf}/p2pmem"
    if not os.path.isdir(d):
        diag(f"{d} missing")
        return 1
    for a in ("size", "available", "published"):
        with open(os.path.join(d, a)) as f:
            diag(f"p2pmem/{a}: {f.read().strip()}")
    size = 64 << 10
    fd = os.open(os.path.join(d, "allocate"), os.O_RDWR)
    try:
        m = mmap.mmap(fd, size, mmap.MAP_SHARED)
    finally:
        os.close(fd)
    data = os.urandom(PAGE) + pattern("p2p", size - PAGE)
    m[:] = data
    ok = m[:] == data
    half = int(param("window_offset"))
    where = file_find(gpubar, data[:PAGE], half)
    m.close()
    if where < 0:
        diag("the allocation's bytes are not in the first half of the BAR")
        return 1
    diag(f"64 KiB allocation at BAR offset {where:#x}")
    return 0 if ok else 1


class Bufs:
    """Two device buffers A (window offset 0) and B (1 MiB), and the disk."""

    def __init__(self, gpubar, disk, size):
        self.gpubar, self.size = gpubar, size
        self.win = int(param("window_offset"))
        self.off_a, self.off_b = 0, 1 << 20
        self.fd = open_dev()
        self.a = buf_map(self.fd, size, self.off_a)
        self.b = buf_map(self.fd, size, self.off_b)
        self.disk = os.open(disk, os.O_RDWR | os.O_DIRECT)
        self.host = mmap.mmap(-1, size)

    def dev(self, off):
        return file_read(self.gpubar, self.win + off, self.size)

    def set_dev(self, off, data):
        file_write(self.gpubar, self.win + off, data)

    def close(self):
        for m in (self.a, self.b, self.host):
            m.close()
        os.close(self.disk)
        os.close(self.fd)


def try_io(fn, *args):
    """(result or None, errno or 0, seconds)."""
    t0 = time.monotonic()
    try:
        r = fn(*args)
        return r, 0, time.monotonic() - t0
    except OSError as e:
        return None, e.errno, time.monotonic() - t0


def cmd_io(gpubar, disk, size):
    size = int(size)
    b = Bufs(gpubar, disk, size)
    dev_a, old_b = os.urandom(size), pattern("dvB", size)
    st_a, st_b = pattern("stA", size), pattern("stB", size)
    b.set_dev(b.off_a, dev_a)
    b.set_dev(b.off_b, old_b)
    b.a[:] = st_a
    b.b[:] = st_b
    ok = True

    def check(what, cond):
        nonlocal ok
        diag(f"{what}: {'ok' if cond else 'FAILED'}")
        ok = ok and cond

    n = os.pwritev(b.disk, [b.a], LBA_DEV)
    check(f"O_DIRECT write of {size} bytes from device buffer A", n == size)
    n = os.preadv(b.disk, [b.host], LBA_DEV)
    got = b.host[:]
    check("the disk holds A's device memory",
          n == size and got == dev_a)
    if got == st_a:
        diag("the disk holds A's stand-in pattern: the write bypassed the provider")
    check("A's stand-ins keep their pattern", b.a[:] == st_a)

    n = os.preadv(b.disk, [b.b], LBA_DEV)
    check(f"O_DIRECT read of {size} bytes into device buffer B", n == size)
    got = b.dev(b.off_b)
    check("B's device memory (read from the gpubar file) holds what was read",
          got == dev_a)
    if got == old_b:
        diag("B's device memory is unchanged")
    check("B's stand-ins keep their pattern (the read did not land there)",
          b.b[:] == st_b)
    if b.b[:] == dev_a:
        diag("B's stand-ins hold the data: the read bypassed the provider")

    # the same I/O through an ordinary host buffer
    host_data = pattern("hst", size)
    b.host[:] = host_data
    n = os.pwritev(b.disk, [b.host], LBA_HOST)
    b.host[:] = bytes(size)
    m = os.preadv(b.disk, [b.host], LBA_HOST)
    check("host buffer: written and read back as usual",
          n == size and m == size and b.host[:] == host_data)
    b.close()
    return 0 if ok else 1


class Aio:
    """Linux native AIO (io_setup, io_submit, io_getevents) through
    syscall(2): one io_submit of several writes is plugged by the kernel
    (fs/aio.c plugs more than two), so adjacent ones can merge."""

    SYS_SETUP, SYS_DESTROY, SYS_GETEVENTS, SYS_SUBMIT = 206, 207, 208, 209
    CMD_PWRITE = 1

    class Iocb(ctypes.Structure):
        _fields_ = [("data", ctypes.c_uint64), ("key", ctypes.c_uint32),
                    ("rw_flags", ctypes.c_int32),
                    ("opcode", ctypes.c_uint16), ("reqprio", ctypes.c_int16),
                    ("fildes", ctypes.c_uint32), ("buf", ctypes.c_uint64),
                    ("nbytes", ctypes.c_uint64), ("offset", ctypes.c_int64),
                    ("reserved2", ctypes.c_uint64), ("flags", ctypes.c_uint32),
                    ("resfd", ctypes.c_uint32)]

    class Event(ctypes.Structure):
        _fields_ = [("data", ctypes.c_uint64), ("obj", ctypes.c_uint64),
                    ("res", ctypes.c_int64), ("res2", ctypes.c_int64)]

    def __init__(self, nr):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long
        self.ctx = ctypes.c_ulong(0)
        self.call(self.SYS_SETUP, ctypes.c_long(nr), ctypes.byref(self.ctx))

    def call(self, nr, *args):
        r = self.libc.syscall(ctypes.c_long(nr), *args)
        if r < 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
        return r

    def pwrite_all(self, fd, writes):
        """writes: [(address, length, offset)]; returns each one's res
        (bytes written, or -errno)."""
        n = len(writes)
        iocbs = (self.Iocb * n)()
        ptrs = (ctypes.POINTER(self.Iocb) * n)()
        for i, (addr, length, off) in enumerate(writes):
            iocbs[i].data = i
            iocbs[i].opcode = self.CMD_PWRITE
            iocbs[i].fildes = fd
            iocbs[i].buf = addr
            iocbs[i].nbytes = length
            iocbs[i].offset = off
            ptrs[i] = ctypes.pointer(iocbs[i])
        got = self.call(self.SYS_SUBMIT, self.ctx, ctypes.c_long(n), ptrs)
        if got != n:
            raise OSError(errno.EIO, f"io_submit took {got} of {n}")
        events = (self.Event * n)()
        done = 0
        while done < n:
            done += self.call(self.SYS_GETEVENTS, self.ctx,
                              ctypes.c_long(n - done), ctypes.c_long(n - done),
                              ctypes.byref(events, done * ctypes.sizeof(self.Event)),
                              None)
        res = [0] * n
        for ev in events:
            res[ev.data] = ev.res
        return res

    def close(self):
        self.call(self.SYS_DESTROY, self.ctx)


def cmd_merge(gpubar, disk):
    size = 64 << 10
    b = Bufs(gpubar, disk, size)
    host2 = mmap.mmap(-1, size)
    aio = Aio(4)
    ok = True
    try:
        for rnd in range(10):
            data = [os.urandom(size) for _ in range(4)]
            b.set_dev(b.off_a, data[0])     # what a write from A sends
            b.host[:] = data[1]
            b.set_dev(b.off_b, data[2])
            host2[:] = data[3]
            b.a[:] = pattern("stA", size)   # stand-ins, never sent
            b.b[:] = pattern("stB", size)
            bufs = [b.a, b.host, b.b, host2]
            writes = [(buf_addr(m), size, LBA_MERGE + i * size)
                      for i, m in enumerate(bufs)]
            res = aio.pwrite_all(b.disk, writes)
            if res != [size] * 4:
                names = ["device A", "host", "device B", "host"]
                diag(f"round {rnd}: results " + ", ".join(
                    f"{n} {os.strerror(-r) if r < 0 else r}"
                    for n, r in zip(names, res)))
                ok = False
                break
            back = mmap.mmap(-1, 4 * size)
            n = os.preadv(b.disk, [back], LBA_MERGE)
            if n != 4 * size or any(back[i * size:(i + 1) * size] != data[i]
                                    for i in range(4)):
                diag(f"round {rnd}: the disk does not hold what was written")
                ok = False
                back.close()
                break
            back.close()
        if ok:
            diag("10 rounds of 4 adjacent writes (device, host, device, host): all worked")
    finally:
        aio.close()
        host2.close()
        b.close()
    return 0 if ok else 1


def set_unreachable(val):
    # a newline at least: writing "" makes no write(2) at all
    with open(os.path.join(PARAMS, "unreachable"), "w") as f:
        f.write(val + "\n")


def cmd_unreachable(gpubar, disk, rdmadev):
    size = 64 << 10
    b = Bufs(gpubar, disk, size)
    old_b = pattern("unB", size)
    b.set_dev(b.off_b, old_b)
    b.a[:] = pattern("unA", size)
    ok = True
    set_unreachable(rdmadev)
    try:
        diag(f"unreachable = {param('unreachable')}")
        _, err, secs = try_io(os.pwritev, b.disk, [b.a], LBA_DEV)
        diag(f"write from A: {errno.errorcode.get(err, err)} after {secs:.2f} s")
        ok = err == errno.EREMOTEIO and secs < 10
        _, err, secs = try_io(os.preadv, b.disk, [b.b], LBA_DEV)
        diag(f"read into B: {errno.errorcode.get(err, err)} after {secs:.2f} s")
        ok = ok and err == errno.EREMOTEIO and secs < 10
        if b.dev(b.off_b) != old_b:
            diag("B's device memory changed")
            ok = False
    finally:
        set_unreachable("")
    n, err, _ = try_io(os.preadv, b.disk, [b.b], LBA_DEV)
    diag(f"unreachable cleared: read into B: "
         f"{n if n is not None else errno.errorcode.get(err, err)}")
    ok = ok and n == size
    b.close()
    return 0 if ok else 1


def cmd_revoke(gpubar, disk):
    size = 64 << 10
    b = Bufs(gpubar, disk, size)
    ok = True
    revoke(b.fd, buf_addr(b.a))
    for what, fn, buf in (("write from", os.pwritev, b.a),
                          ("read into", os.preadv, b.a)):
        _, err, secs = try_io(fn, b.disk, [buf], LBA_DEV)
        diag(f"revoked: {what} A: {errno.errorcode.get(err, err)} "
             f"after {secs:.2f} s")
        ok = ok and err == errno.EREMOTEIO
    n, err, _ = try_io(os.preadv, b.disk, [b.b], LBA_DEV)
    diag(f"B, not revoked: read: "
         f"{n if n is not None else errno.errorcode.get(err, err)}")
    ok = ok and n == size
    # an address outside any buffer of this file
    try:
        revoke(b.fd, buf_addr(b.host))
        diag("revoke of a host buffer: accepted (want EINVAL)")
        ok = False
    except OSError as e:
        diag(f"revoke of a host buffer: {errno.errorcode.get(e.errno, e.errno)}")
        ok = ok and e.errno == errno.EINVAL
    b.close()
    return 0 if ok else 1


def p2p_alloc(bdf, size):
    fd = os.open(f"/sys/bus/pci/devices/{bdf}/p2pmem/allocate", os.O_RDWR)
    try:
        return mmap.mmap(fd, size, mmap.MAP_SHARED)
    finally:
        os.close(fd)


def cmd_p2pio(gpubar, bdf, disk, size, mode="ok"):
    size = int(size)
    half = int(param("window_offset"))
    a, b = p2p_alloc(bdf, size), p2p_alloc(bdf, size)
    data, mark = os.urandom(size), os.urandom(size)
    a[:] = data
    b[:] = mark
    off_b = file_find(gpubar, mark[:PAGE], half)
    diag(f"P2PDMA allocations at BAR offsets "
         f"{file_find(gpubar, data[:PAGE], half):#x}, {off_b:#x}")
    fd = os.open(disk, os.O_RDWR | os.O_DIRECT)
    host = mmap.mmap(-1, size)
    ok = off_b >= 0
    if mode == "refused":
        for what, fn, buf in (("write from", os.pwritev, a),
                              ("read into", os.preadv, b)):
            _, err, secs = try_io(fn, fd, [buf], LBA_DEV)
            diag(f"{what} P2PDMA pages: {errno.errorcode.get(err, err)} "
                 f"after {secs:.2f} s")
            ok = ok and err == errno.EREMOTEIO and secs < 10
        ok = ok and file_read(gpubar, off_b, size) == mark
    else:
        n, err, _ = try_io(os.pwritev, fd, [a], LBA_DEV)
        diag(f"O_DIRECT write of {size} bytes from P2PDMA pages: "
             f"{n if n is not None else errno.errorcode.get(err, err)}")
        ok = ok and n == size
        m = os.preadv(fd, [host], LBA_DEV)
        ok = ok and m == size and host[:] == data
        diag(f"the disk holds the P2PDMA pages' bytes: {host[:] == data}")
        n, err, _ = try_io(os.preadv, fd, [b], LBA_DEV)
        diag(f"O_DIRECT read of {size} bytes into P2PDMA pages: "
             f"{n if n is not None else errno.errorcode.get(err, err)}")
        got = file_read(gpubar, off_b, size)
        diag(f"the BAR (gpubar file) holds what was read: {got == data}")
        ok = ok and n == size and got == data
    host.close()
    os.close(fd)
    a.close()
    b.close()
    return 0 if ok else 1


class Loop:
    """THREADS threads doing O_DIRECT I/O on BUF until stopped or failed."""

    def __init__(self, disk, buf, threads=4):
        self.buf, self.stop = buf, threading.Event()
        self.fds = [os.open(disk, os.O_RDWR | os.O_DIRECT)
                    for _ in range(threads)]
        self.lock = threading.Lock()
        self.log = []           # (start, end, errno)
        self.threads = [threading.Thread(target=self.run, args=(i,))
                        for i in range(threads)]
        for t in self.threads:
            t.start()

    def run(self, i):
        fn = os.pwritev if i % 2 else os.preadv
        while not self.stop.is_set():
            t0 = time.monotonic()
            _, err, _ = try_io(fn, self.fds[i], [self.buf],
                               LBA_DEV + i * len(self.buf))
            with self.lock:
                self.log.append((t0, time.monotonic(), err))
            if err:
                time.sleep(0.05)

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(60)
        alive = sum(t.is_alive() for t in self.threads)
        for fd in self.fds:
            os.close(fd)
        return alive


def timed_revoke(b):
    """The revoke ioctl on B's buffer A: (errno or 0, start, end)."""
    t0 = time.monotonic()
    err = 0
    try:
        revoke(b.fd, buf_addr(b.a))
    except OSError as e:
        err = e.errno
    return err, t0, time.monotonic()


def cmd_revoke_busy(gpubar, disk):
    size = 256 << 10
    b = Bufs(gpubar, disk, size)
    loop = Loop(disk, b.a)
    time.sleep(1.5)
    err, t0, t1 = timed_revoke(b)
    time.sleep(1.5)
    alive = loop.finish()
    # the revoke fences what is not mapped when it starts: an I/O issued
    # before it but still queued may fail, one that had ended may not
    before = [e for _, end, e in loop.log if end < t0]
    after = [e for s, _, e in loop.log if s > t1]
    overlap = [e for s, end, e in loop.log if end >= t0 and s <= t1]
    name = errno.errorcode.get

    def results(errs):
        return sorted({name(e, e) if e else 'ok' for e in errs})
    diag(f"revoke ioctl: {name(err, err) if err else 'ok'} in {t1 - t0:.3f} s "
         f"with I/O running")
    diag(f"I/O ended before it started: {len(before)}, results "
         f"{results(before)}")
    diag(f"I/O overlapping it: {len(overlap)}, results {results(overlap)}")
    diag(f"I/O issued after it returned: {len(after)}, results "
         f"{results(after)}")
    ok = (not err and not alive and t1 - t0 < 10 and before and
          not any(before) and after and
          all(e == errno.EREMOTEIO for e in after) and
          all(e in (0, errno.EREMOTEIO) for e in overlap))
    if alive:
        diag(f"{alive} I/O threads still blocked")
    n, err, _ = try_io(os.preadv, b.disk, [b.b], LBA_DEV)
    diag(f"B, not revoked: read: {n if n is not None else name(err, err)}")
    ok = ok and n == size
    b.close()
    return 0 if ok else 1


def cmd_revoke_stalled(gpubar, disk):
    size = 64 << 10
    b = Bufs(gpubar, disk, size)
    res = {}

    def read():
        res["r"] = try_io(os.preadv, b.disk, [b.a], LBA_DEV)

    t = threading.Thread(target=read)
    t.start()
    time.sleep(1.5)
    err, t0, t1 = timed_revoke(b)
    t.join(120)
    name = errno.errorcode.get
    n, rerr, secs = res.get("r", (None, -1, 0))
    diag(f"revoke ioctl 1.5 s into a stalled read: "
         f"{name(err, err) if err else 'ok'} in {t1 - t0:.3f} s")
    diag(f"the read: {n if n is not None else name(rerr, rerr)} after "
         f"{secs:.2f} s")
    # the target answers 4 s after the read's start: a revoke that waits
    # for the I/O instead of fencing it takes 2.5 s and the read succeeds
    # (or fails with EIO) at 4 s
    ok = (not err and not t.is_alive() and t1 - t0 < 1.5 and
          rerr == errno.EREMOTEIO and secs < 3.5)
    b.close()
    return 0 if ok else 1


def cmd_pin_busy(module, disk):
    fd = open_dev()
    m = buf_map(fd, 256 << 10, 2 << 20)
    os.close(fd)
    loop = Loop(disk, m)
    time.sleep(1)
    rc, out = rmmod(module)
    diag(f"rmmod {module} with I/O running: exit {rc}: {out}")
    time.sleep(1)
    alive = loop.finish()
    errs = sorted({errno.errorcode.get(e, e) for _, _, e in loop.log if e})
    diag(f"I/O: {len(loop.log)}, errors {errs}")
    ok = (rc != 0 and not alive and loop.log and not errs and
          os.path.isdir(f"/sys/module/{module.replace('-', '_')}"))
    m.close()
    return 0 if ok else 1


COMMANDS = {
    "bdf": cmd_bdf,
    "coherence": cmd_coherence,
    "buffer": cmd_buffer,
    "refused": cmd_refused,
    "pin": cmd_pin,
    "p2pmem": cmd_p2pmem,
    "io": cmd_io,
    "unreachable": cmd_unreachable,
    "revoke": cmd_revoke,
    "p2pio": cmd_p2pio,
    "revoke_busy": cmd_revoke_busy,
    "revoke_stalled": cmd_revoke_stalled,
    "pin_busy": cmd_pin_busy,
    "merge": cmd_merge,
}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        return 2
    return COMMANDS[sys.argv[1]](*sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
