#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Start hostile targets by forking one warm Python instead of a new one.

The selftests start a target per scenario (hostile.sh, hostile_disc.sh,
hostile_rdma.sh: over 60 in the stock guest). In the test kernel (TCG,
KASAN) a new interpreter's NVMe/TCP target listened 2.4-4.4 s after it
started, and importing the NVMe/RDMA target (pyverbs) took about 5 s;
forked from here, a target listens about 0.6 s after the request. This
process imports SCRIPT once and then, for each request, forks a child that
runs SCRIPT's main() with the request's arguments: the child is the target
process the test knows (its PID, its signals, its stderr), started in a
fraction of a second.

A request is one line on FIFO naming a file whose contents are
NUL-separated fields: the child's stderr log, the file to write the
child's PID into (written whole, by rename), then the target's arguments.
READY is created once SCRIPT is imported. Children are reaped as they
exit (SIGCHLD); this process ends on SIGTERM or SIGINT, or when its parent (the
test's shell) is gone, and leaves running children alone (the test stops
its targets itself).

Usage: nvfab_hostile_spawn.py FIFO READY SCRIPT
"""
import importlib.util
import os
import select
import signal
import sys
import traceback

stop = False


def on_signal(*_):
    global stop
    stop = True


def reap(*_):
    """SIGCHLD: reap every child that has exited (a zombie would still
    answer the test's kill -0)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def child(mod, script, fd, fields):
    """In the forked child: become the target of @fields (log, pid file,
    arguments...); never returns."""
    rc = 1
    try:
        os.close(fd)
        log, args = fields[0], fields[2:]
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 2)
        os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        sys.argv = [script] + args
        try:
            ret = mod.main(args)
        except SystemExit as err:
            ret = err.code
        rc = ret if isinstance(ret, int) else (0 if ret is None else 1)
    except BaseException:   # the target's own error: to its log
        traceback.print_exc()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(rc)


def spawn(mod, script, fd, req):
    """Fork the target of request file @req; its PID goes to the
    request's pid file."""
    with open(req, "rb") as f:
        fields = [x.decode() for x in f.read().split(b"\0")]
    if fields and fields[-1] == "":
        fields.pop()
    if len(fields) < 2:
        sys.stderr.write("spawn: bad request %s\n" % req)
        return
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        child(mod, script, fd, fields)
    tmp = fields[1] + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % pid)
    os.rename(tmp, fields[1])


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__.rsplit("\n\n", 1)[-1])
        return 2
    fifo, ready, script = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    spec = importlib.util.spec_from_file_location("hostile_target_main",
                                                  script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGCHLD, reap)
    parent = os.getppid()
    # read-write: the FIFO never reads as closed between two writers
    fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    open(ready, "w").close()
    buf = b""
    # a wakeup a second, to notice a parent that is gone: nothing polls
    while not stop and os.getppid() == parent:
        r, _, _ = select.select([fd], [], [], 1.0)
        if not r:
            continue
        try:
            buf += os.read(fd, 4096)
        except BlockingIOError:
            continue
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if line:
                try:
                    spawn(mod, script, fd, line.decode())
                except OSError as err:
                    sys.stderr.write("spawn: %s\n" % err)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
