#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A small, hostile NVMe/RDMA target for testing nvfab-rdma.

The subsystem, its controllers and the admin and NVM command sets are
those of nvfab_hostile_target.py (the NVMe/TCP one, imported from the same
directory); this file is the NVMe/RDMA transport under them, over
librdmacm and libibverbs through pyverbs (python3-pyverbs), so that it
runs on any RDMA device, soft RoCE (rxe) in the tests. Without --scenario
it behaves as a correct target; with --scenario it breaks the protocol in
one chosen way, --count times, and is correct again afterwards.

What it implements, by specification section:

NVMe/RDMA Transport Specification 1.1
  3.3      connection set-up over the RDMA CM: the request's private data
           (RECFMT 0, QID, HRQSIZE, HSQSIZE) is checked; a bad one is
           rejected with the REJECT private data (RECFMT 0, STS); the
           accept carries RECFMT 0 and CRQSIZE
  3.4      capsules: a command capsule is one SEND of the SQE and its
           in-capsule data (up to --inline bytes, IOCCSZ in Identify
           Controller, ICDOFF 0); a response capsule is one SEND of the
           CQE, with Send with Invalidate of the command's rkey when its
           keyed SGL asked for it (subtype Invalidate Key)
  3.5      data: a keyed SGL data block is read with RDMA READ (commands
           that write) and written with RDMA WRITE (commands that read),
           before the response
NVMe over Fabrics 1.1 and NVMe Base 2.0: as nvfab_hostile_target.py; the
Connect's QID must be the QID of the queue's CM request.

One thread per queue polls its CQ and handles one command at a time (the
data transfers and the response of a command are done before the next
capsule is read); the main thread runs the CM events. pyverbs holds the
GIL in its blocking calls, so the CM channel is waited on with select()
and the CQs are polled.

Scenarios (--scenario, see SCENARIOS) strike on Reads or Writes of an I/O
queue that cover --trigger-lba; each misbehaviour is logged on stderr as a
line starting "hostile: ", and --state FILE holds how many were done.
"""
import argparse
import collections
import os
import select
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvfab_hostile_target as ht  # noqa: E402

try:
    import pyverbs.cm_enums as ce
    import pyverbs.enums as e
    from pyverbs.cmid import AddrInfo, CMEvent, CMEventChannel, CMID, \
        ConnParam
    from pyverbs.cq import CQ
    from pyverbs.mr import MR
    from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
    from pyverbs.wr import RecvWR, SendWR, SGE
except ImportError as err:   # the test skips with this message
    sys.stderr.write("target: pyverbs missing (python3-pyverbs): %s\n" % err)
    sys.exit(4)

SCENARIOS = {
    "dup-resp": "answer a Read with two response capsules",
    "unknown-cid": "answer a Read with a response for tag 0xfff first",
    "wrong-rkey": "answer a Read with Send with Invalidate of the rkey "
                  "of another command in flight on the queue (waits up to "
                  "2 s for one)",
    "inv-inline": "answer a Write with in-capsule data (no rkey) with "
                  "Send with Invalidate of an earlier command's rkey",
    "short-resp": "answer a Read with an 8-byte response capsule",
    "stall-first-read": "never answer the first Read on an I/O queue",
    "early-cqe": "right after accepting the admin queue's CM request, "
                 "before any command, send a response capsule for CID 0 "
                 "(--count connections)",
    "foreign-rkey": "before answering a Read, RDMA WRITE a canary with "
                    "its rkey through another queue of the controller (the "
                    "admin queue's QP); the state counts once the device "
                    "answered, and the log says accepted or refused",
    "stall-connect": "never answer the admin Connect (as the NVMe/TCP "
                     "target's scenario: the command is held)",
    "cm-reject": "reject the CM request of the admin queue (REJECT "
                 "private data: RECFMT 0, STS 6, no resources)",
    "cm-reject-recfmt": "reject the CM request of the admin queue with "
                        "REJECT private data of RECFMT 1 (undefined)",
}

SQE_LEN = 64
CQE_LEN = 16
MAX_DATA = 1 << 20               # MDTS 8 (1 MiB) in Identify Controller
SGL_KEYED = 0x4                  # Keyed SGL Data Block (type, bits 7:4)
SGL_DATA = 0x0                   # SGL Data Block
SGL_SUB_OFFSET = 0x1             # subtype Offset: in-capsule data
SGL_SUB_INVALIDATE = 0xF         # subtype Invalidate Key
CM_REQ = struct.Struct("<HHHH")  # RECFMT, QID, HRQSIZE, HSQSIZE
CM_STS_INVALID_RECFMT = 2        # NVMe/RDMA 1.1, 3.3, Figure 5
CM_STS_INVALID_QID = 3
CM_STS_INVALID_HSQSIZE = 4
CM_STS_INVALID_HRQSIZE = 5
CM_STS_NO_RSC = 6
CM_DEV = "/dev/infiniband/rdma_cm"
WR_RECV_BASE = 0
WR_SEND_BASE = 1 << 20
WR_RDMA = 1 << 30
WR_FOREIGN = (1 << 30) + 1
# A queue whose host has gone is never told (the CM's DISCONNECTED event
# does not say which queue it is for, and does not move a QP of our own to
# the error state; a zero-length RDMA WRITE to the gone QP never completed
# on rxe), so its thread polls until the target stops. After IDLE_AFTER s
# without a work completion a queue polls every IDLE_POLL s, and early-cqe
# ends the queues of the earlier connects at each new one: its 50 connects
# had left 50 threads polling at 100 Hz, and each later connect took
# longer, to over 12 s (a CM connect timed out). A live idle queue answers
# its next command up to IDLE_POLL s later.
IDLE_AFTER = 2.0
IDLE_POLL = 0.25
CANARY = b"\xa5" * 4096


class RdmaQueue(ht.Connection):
    """One NVMe/RDMA queue: a CM ID, its own CQ and RC QP, and MRs."""

    def __init__(self, target, cmid, qid, depth):
        super().__init__(target, None, "queue-req-%d" % qid)
        self.cmid = cmid
        self.cm_qid = qid
        self.depth = depth
        self.slot = SQE_LEN + target.inline
        self.pending = collections.deque()   # receive completions
        self.last_rkey = None                # of the last keyed command
        self.alive = True
        self.last_wc = time.monotonic()      # the last work completion
        self.rsp_next = 0
        self.rsp_slots = 2 * depth + 16
        pd = cmid.pd
        self.cq = CQ(cmid.context, 4 * depth + 64, None, None, 0)
        cap = QPCap(max_send_wr=2 * depth + 32, max_recv_wr=depth + 1,
                    max_send_sge=1, max_recv_sge=1)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq,
                                    rcq=self.cq, cap=cap))
        self.recv_mr = MR(pd, self.slot * depth, e.IBV_ACCESS_LOCAL_WRITE)
        self.rsp_mr = MR(pd, CQE_LEN * self.rsp_slots,
                         e.IBV_ACCESS_LOCAL_WRITE)
        self.data_mr = MR(pd, MAX_DATA, e.IBV_ACCESS_LOCAL_WRITE)
        self.canary_mr = MR(pd, len(CANARY), e.IBV_ACCESS_LOCAL_WRITE)
        self.canary_mr.write(CANARY, len(CANARY), 0)
        for state in (e.IBV_QPS_INIT, e.IBV_QPS_RTR, e.IBV_QPS_RTS):
            attr, mask = cmid.init_qp_attr(state)
            self.qp.modify(attr, mask)
        for i in range(depth):
            self.post_recv(i)
        if target.verbose:
            ht.log("target: CM queue %d: depth %d, QP 0x%x" %
                   (qid, depth, self.qp.qp_num))

    # -- work requests --

    def post_recv(self, i):
        sge = SGE(self.recv_mr.buf + i * self.slot, self.slot,
                  self.recv_mr.lkey)
        self.qp.post_recv(RecvWR(wr_id=WR_RECV_BASE + i, num_sge=1,
                                 sg=[sge]))

    def post_rsp(self, cqe, inv_rkey=None):
        """One response capsule (@cqe: its bytes), optionally with Send
        with Invalidate of @inv_rkey."""
        with self.send_lock:
            i = self.rsp_next
            self.rsp_next = (i + 1) % self.rsp_slots
            self.rsp_mr.write(cqe, len(cqe), i * CQE_LEN)
            sge = SGE(self.rsp_mr.buf + i * CQE_LEN, len(cqe),
                      self.rsp_mr.lkey)
            wr = SendWR(wr_id=WR_SEND_BASE + i, opcode=e.IBV_WR_SEND,
                        num_sge=1, sg=[sge],
                        send_flags=e.IBV_SEND_SIGNALED)
            if inv_rkey is not None:
                # invalidate_rkey shares imm_data's place in ibv_send_wr
                wr.opcode = e.IBV_WR_SEND_WITH_INV
                wr.imm_data = inv_rkey
            self.qp.post_send(wr)

    def rdma(self, opcode, length, addr, rkey):
        """RDMA READ or WRITE of @length bytes of data_mr, waited for."""
        sge = SGE(self.data_mr.buf, length, self.data_mr.lkey)
        wr = SendWR(wr_id=WR_RDMA, opcode=opcode, num_sge=1, sg=[sge],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(rkey, addr)
        with self.send_lock:
            self.qp.post_send(wr)
        self.wait_for(WR_RDMA)

    def post_foreign(self, length, addr, rkey):
        """RDMA WRITE of @length canary bytes with another queue's @rkey
        through this queue's QP; its completion is reaped by this
        queue's thread (poll()), which reports it to the target."""
        sge = SGE(self.canary_mr.buf, length, self.canary_mr.lkey)
        wr = SendWR(wr_id=WR_FOREIGN, opcode=e.IBV_WR_RDMA_WRITE,
                    num_sge=1, sg=[sge], send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(rkey, addr)
        with self.send_lock:
            self.qp.post_send(wr)

    def foreign_write(self, cmd):
        """The foreign-rkey scenario: a canary WRITE with @cmd's rkey
        through the admin queue of this controller. Returns the status of
        its work completion, or None when there was no such queue or no
        completion within 5 s."""
        with self.target.lock:
            other = [q for q in self.target.conns
                     if q is not self and q.alive and q.qid == 0 and
                     q.ctrl is self.ctrl]
        if not other:
            return None
        self.target.foreign_done.clear()
        other[0].post_foreign(min(cmd.sgl_len, len(CANARY)), cmd.sgl_addr,
                              cmd.rkey)
        if not self.target.foreign_done.wait(5):
            return None
        return self.target.foreign_status

    def poll(self, wait):
        """Poll the CQ once; sleep up to @wait s if it was empty. Raises
        EOFError when the queue is dead."""
        if not self.alive:
            raise EOFError
        n, wcs = self.cq.poll(16)
        if not n:
            time.sleep(wait)
            return []
        self.last_wc = time.monotonic()
        for wc in wcs:
            if wc.wr_id == WR_FOREIGN:
                self.target.foreign_status = wc.status
                self.target.foreign_done.set()
            if wc.status != e.IBV_WC_SUCCESS:
                if wc.status != e.IBV_WC_WR_FLUSH_ERR:
                    ht.log("target: queue %s: work request 0x%x failed: "
                           "status %d" % (self.qid, wc.wr_id, wc.status))
                raise EOFError
        return wcs

    def wait_for(self, wr_id):
        wait = 0.0002
        while True:
            for wc in self.poll(wait):
                if wc.wr_id == wr_id:
                    return
                if wc.opcode == e.IBV_WC_RECV:
                    self.pending.append(wc)
            wait = min(wait * 2, 0.005)

    # -- the queue's thread --

    def serve(self):
        wait = 0.0002
        try:
            while not self.target.stop.is_set():
                if self.pending:
                    self.on_recv(self.pending.popleft())
                    wait = 0.0002
                    continue
                got = False
                for wc in self.poll(wait):
                    if wc.opcode == e.IBV_WC_RECV:
                        self.pending.append(wc)
                        got = True
                if got:
                    wait = 0.0002
                elif time.monotonic() - self.last_wc > IDLE_AFTER:
                    wait = IDLE_POLL
                else:
                    wait = min(wait * 2, 0.01)
        except EOFError:
            pass
        except ht.ProtocolError as err:
            ht.log("target: queue %s: %s" % (self.qid, err))
        finally:
            self.close()

    def on_recv(self, wc):
        i = wc.wr_id - WR_RECV_BASE
        capsule = self.recv_mr.read(wc.byte_len, i * self.slot)
        self.post_recv(i)
        if len(capsule) < SQE_LEN:
            raise ht.ProtocolError("command capsule of %d bytes"
                                   % len(capsule))
        cmd = ht.Command(capsule[:SQE_LEN], self.qid)
        cmd.inline = len(capsule) > SQE_LEN
        if self.target.verbose:
            ht.log("target: queue %s: opcode 0x%x CID 0x%x, %d bytes, SGL "
                   "type 0x%x length %d" % (self.qid, cmd.opcode, cmd.cid,
                                            len(capsule), cmd.sgl_type,
                                            cmd.sgl_len & 0xFFFFFF))
        if self.qid is None and not (cmd.opcode == ht.FABRICS and
                                     cmd.fctype == ht.FCT_CONNECT):
            self.respond(cmd.cid, ht.Completion.error(ht.SC_CMD_SEQ_ERROR))
            return
        stype = cmd.sgl_type >> 4
        sub = cmd.sgl_type & 0xF
        cmd.rkey = None
        if stype == SGL_KEYED:
            cmd.sgl_len &= 0xFFFFFF
            cmd.rkey, = struct.unpack_from("<I", capsule, 35)
        if cmd.sgl_len > MAX_DATA or (cmd.reads() and cmd.rkey is None):
            self.respond(cmd.cid, ht.Completion.error(ht.SC_INVALID_FIELD))
            return
        if cmd.writes():
            if stype == SGL_DATA and sub == SGL_SUB_OFFSET:
                data = capsule[SQE_LEN + cmd.sgl_addr:]
                if cmd.sgl_addr or len(data) != cmd.sgl_len:
                    self.respond(cmd.cid,
                                 ht.Completion.error(ht.SC_INVALID_FIELD))
                    return
                cmd.data = bytes(data)
            elif stype == SGL_KEYED:
                self.rdma(e.IBV_WR_RDMA_READ, cmd.sgl_len, cmd.sgl_addr,
                          cmd.rkey)
                cmd.data = self.data_mr.read(cmd.sgl_len, 0)
            else:
                self.respond(cmd.cid,
                             ht.Completion.error(ht.SC_INVALID_FIELD))
                return
        self.execute(cmd)

    # -- responses --

    def cqe(self, cid, comp):
        if self.qid is not None and self.sqsize:
            self.sqhd = (self.sqhd + 1) % (self.sqsize + 1)
        return struct.pack("<QHHHH", comp.result, self.sqhd, self.qid or 0,
                           cid, (comp.status << 1) & 0xFFFF)

    def respond(self, cid, comp):
        """A response without data (also AERs, from other threads)."""
        if not self.alive:
            return
        try:
            self.post_rsp(self.cqe(cid, comp))
        except Exception as err:   # pyverbs raises its own errors
            ht.log("target: queue %s: posting a response failed: %s"
                   % (self.qid, err))

    def inv_key(self, cmd):
        if cmd.rkey is not None and cmd.sgl_type & 0xF == SGL_SUB_INVALIDATE:
            return cmd.rkey
        return None

    def complete(self, cmd, comp):
        sc = self.scenario
        where = "CID 0x%x (queue %s, LBA %d+%d)" % (cmd.cid, self.qid,
                                                    cmd.slba, cmd.nlb)
        io = self.qid and cmd.opcode in (ht.IO_READ, ht.IO_WRITE)
        if io and cmd.opcode == ht.IO_READ and not comp.status and \
                sc.take("foreign-rkey", cmd=cmd):
            st = self.foreign_write(cmd)
            sc.record("foreign-rkey %s: RDMA WRITE with its rkey 0x%x "
                      "through the admin queue: %s" %
                      (where, cmd.rkey, "no completion" if st is None else
                       "accepted" if st == e.IBV_WC_SUCCESS else
                       "refused, status %d" % st))
        if not comp.status and cmd.reads():
            data = (comp.data or b"")[:cmd.sgl_len]
            data += bytes(cmd.sgl_len - len(data))
            self.data_mr.write(data, len(data), 0)
            self.rdma(e.IBV_WR_RDMA_WRITE, len(data), cmd.sgl_addr,
                      cmd.rkey)
        cqe = self.cqe(cmd.cid, comp)
        inv = self.inv_key(cmd)
        other = None
        if io and inv is not None and sc.is_("wrong-rkey") and \
                sc.covers(cmd):
            other = self.rkey_in_flight()
        if io and cmd.opcode == ht.IO_READ:
            if sc.take("dup-resp", cmd=cmd):
                sc.record("dup-resp " + where)
                self.post_rsp(cqe, inv)
                self.post_rsp(cqe)
                return
            if sc.take("unknown-cid", cmd=cmd):
                bogus = (cmd.cid & 0xF000) | 0xFFF
                sc.record("unknown-cid %s answered as CID 0x%x"
                          % (where, bogus))
                self.post_rsp(self.cqe(bogus, comp))
            elif other and sc.take("wrong-rkey", cmd=cmd):
                sc.record("wrong-rkey %s: invalidates rkey 0x%x of CID 0x%x "
                          "(in flight), not 0x%x" % (where, other[0],
                                                     other[1], inv))
                inv = other[0]
            elif sc.take("short-resp", cmd=cmd):
                sc.record("short-resp " + where + ": 8 bytes")
                cqe = cqe[:8]
        elif io and cmd.inline and self.last_rkey is not None and \
                sc.take("inv-inline", cmd=cmd):
            inv = self.last_rkey
            sc.record("inv-inline %s: in-capsule data, invalidates rkey 0x%x "
                      "(of a command answered before)" % (where, inv))
        if cmd.rkey is not None:
            self.last_rkey = cmd.rkey
        self.post_rsp(cqe, inv)

    def rkey_in_flight(self):
        """(rkey, CID) of a keyed command received and not yet answered,
        waiting up to 2 s for one; None if there is none.

        An rkey the host's device does not know (or a stale key) is
        refused by the device before the host sees the response, so a
        wrong rkey that reaches the host's own check must be a live one:
        another command's."""
        deadline = time.monotonic() + 2
        while True:
            for wc in self.pending:
                sqe = self.recv_mr.read(SQE_LEN, (wc.wr_id - WR_RECV_BASE) *
                                        self.slot)
                cid, = struct.unpack_from("<H", sqe, 2)
                key, stype = struct.unpack_from("<IB", sqe, 35)
                if stype >> 4 == SGL_KEYED and key:
                    return key, cid
            if time.monotonic() > deadline:
                return None
            for wc in self.poll(0.005):
                if wc.opcode == e.IBV_WC_RECV:
                    self.pending.append(wc)

    # -- the end --

    def close(self):
        if not self.alive:
            return
        self.alive = False
        if self.ctrl is not None and self.qid == 0:
            self.subsys.drop_controller(self.ctrl)
        self.target.forget(self)

    def shutdown(self):
        try:
            self.qp.modify(QPAttr(qp_state=e.IBV_QPS_ERR), e.IBV_QP_STATE)
        except Exception:   # already gone
            pass

    def connect(self, cmd):
        qid, = struct.unpack_from("<H", cmd.sqe, 42)
        if qid != self.cm_qid:
            ht.log("target: Connect for QID %d on the CM queue of QID %d"
                   % (qid, self.cm_qid))
            # Invalid Parameter, IATTR 0 (the SQE), IPO 42 (QID)
            return ht.Completion(status=ht.SC_CONNECT_INVALID_PARAM |
                                 ht.SC_DNR, result=42)
        return super().connect(cmd)


class RdmaTarget(ht.Target):
    """The listener: the CM events on the main thread, a thread a queue.

    close(), forget() and request_stop() are the TCP target's (its
    connections are these queues; there is no listening socket)."""

    def __init__(self, args):
        self.scenario = ht.Scenario(args.scenario, args.count, args.state,
                                    args.trigger_lba, 3.0)
        self.subsys = ht.Subsystem(args.nqn, args.namespaces,
                                   args.ns_size << 20, 0)
        self.subsys.ioccsz = (SQE_LEN + args.inline) // 16
        self.subsys.sgls |= 1 << 2       # Keyed SGL Data Block
        self.admin = ht.AdminCommands(self.scenario)
        self.io = ht.IoCommands(self.scenario)
        # no DH-HMAC-CHAP here: the TCP target's chap-* scenarios only
        self.dhchap_keys = (None, None)
        self.inline = args.inline
        self.addr = args.addr
        self.port = args.port
        self.c2h_success = False
        self.verbose = args.verbose
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.conns = set()               # the queues
        self.listener = None
        self.ids = []                    # CM IDs kept until the end
        self.foreign_done = threading.Event()   # foreign-rkey's WRITE
        self.foreign_status = None

    @staticmethod
    def _cm_fds():
        """The descriptors open on the RDMA CM's character device."""
        fds = set()
        for name in os.listdir("/proc/self/fd"):
            try:
                if os.readlink("/proc/self/fd/" + name) == CM_DEV:
                    fds.add(int(name))
            except OSError:     # closed meanwhile (listdir's own)
                pass
        return fds

    def connect_request(self, event, listen):
        """CONNECT_REQUEST: check the private data; accept or reject."""
        priv = event.private_data
        child = CMID(creator=event, listen_id=listen)
        self.ids.append(child)
        sts = None
        if len(priv) < CM_REQ.size:
            sts = CM_STS_INVALID_RECFMT
        else:
            recfmt, qid, hrqsize, hsqsize = CM_REQ.unpack_from(priv, 0)
            if recfmt != 0:
                sts = CM_STS_INVALID_RECFMT
            elif qid > ht.QUEUES_MAX:
                sts = CM_STS_INVALID_QID
            elif not 1 <= hsqsize < 1024:
                sts = CM_STS_INVALID_HSQSIZE
            elif hrqsize != hsqsize + 1:
                sts = CM_STS_INVALID_HRQSIZE
        recfmt = 0
        if sts is None and qid == 0 and \
                self.scenario.take("cm-reject", "cm-reject-recfmt"):
            sts = CM_STS_NO_RSC
            if self.scenario.is_("cm-reject-recfmt"):
                recfmt = 1
            self.scenario.record("%s admin queue: REJECT RECFMT %d STS %d"
                                 % (self.scenario.name, recfmt, sts))
        elif sts is not None:
            ht.log("target: CM request refused: STS %d" % sts)
        if sts is not None:
            child.reject(struct.pack("<HH", recfmt, sts))
            return
        if qid == 0 and self.scenario.is_("early-cqe"):
            # The test connects one at a time and each connect must have
            # been refused: the queues of the earlier ones are the host's
            # no longer. End them (see IDLE_AFTER), or each later connect
            # is slower than the one before.
            with self.lock:
                earlier = list(self.conns)
            for queue in earlier:
                queue.shutdown()
        queue = RdmaQueue(self, child, qid, hsqsize + 1)
        param = ConnParam(resources=0, depth=1, retry=7, rnr_retry=7,
                          qp_num=queue.qp.qp_num, data_len=32)
        param.set_private_data(struct.pack("<HH", 0, queue.depth) +
                               bytes(28))
        child.accept(param)
        if qid == 0 and self.scenario.take("early-cqe"):
            # Posted at once: RC retries it until the host's QP is ready
            # to receive, i.e. while the host is still bringing the queue
            # up, before it has sent (or allocated) anything to name.
            queue.post_rsp(queue.cqe(0, ht.Completion()))
            self.scenario.record("early-cqe: response for CID 0 right after "
                                 "the accept")
        with self.lock:
            self.conns.add(queue)
        threading.Thread(target=queue.serve, daemon=True,
                         name="queue-%d" % qid).start()

    def run(self):
        before = self._cm_fds()
        channel = CMEventChannel()
        fds = self._cm_fds() - before
        if len(fds) != 1:
            raise OSError("cannot find the CM event channel's descriptor")
        fd = fds.pop()
        # pyverbs holds the GIL while it waits: never let it wait
        os.set_blocking(fd, False)
        listen = CMID(creator=channel)
        listen.bind_addr(AddrInfo(src=self.addr, src_service=str(self.port),
                                  port_space=ce.RDMA_PS_TCP,
                                  flags=ce.RAI_PASSIVE))
        listen.listen()
        ht.log("target: %s listening on %s:%d (RDMA)%s" %
               (self.subsys.nqn, self.addr, self.port,
                ", scenario %s x%d" % (self.scenario.name,
                                       self.scenario.count)
                if self.scenario.name else ""))
        if self.scenario.state_file:
            self.scenario.write_state()
        while not self.stop.is_set():
            try:
                ready, _, _ = select.select([fd], [], [], 0.2)
            except InterruptedError:
                continue
            if not ready:
                continue
            try:
                event = CMEvent(channel)
            except Exception as err:   # EAGAIN, EINTR: pyverbs errors
                if self.verbose:
                    ht.log("target: no CM event: %s" % err)
                continue
            kind = event.event_type
            if kind == ce.RDMA_CM_EVENT_CONNECT_REQUEST:
                try:
                    self.connect_request(event, listen)
                except Exception as err:   # pyverbs errors: refuse, go on
                    ht.log("target: connect request failed: %s" % err)
            elif self.verbose:
                ht.log("target: CM event %s" % event.event_str())
            event.close()
        self.close()


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="scenarios:\n" + "\n".join(
            "  %-20s %s" % kv for kv in SCENARIOS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--addr", required=True,
                   help="local IP address of the RDMA device to listen on")
    p.add_argument("--port", type=int, default=4420)
    p.add_argument("--nqn", default="nqn.2014-08.org.nvmexpress:"
                   "nvfab-hostile-rdma")
    p.add_argument("--namespaces", type=int, default=1)
    p.add_argument("--ns-size", type=int, default=64, metavar="MIB")
    p.add_argument("--inline", type=int, default=8192, metavar="BYTES",
                   help="in-capsule data the I/O queues take (a multiple "
                   "of 16)")
    p.add_argument("--scenario", choices=sorted(SCENARIOS))
    p.add_argument("--count", type=int, default=1,
                   help="misbehave this many times, then behave")
    p.add_argument("--trigger-lba", type=int, metavar="LBA",
                   help="I/O scenarios strike only on commands covering LBA")
    p.add_argument("--state", metavar="FILE",
                   help="keep the number of misbehaviours done in FILE")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args(argv)
    if args.namespaces < 1 or args.ns_size < 1:
        p.error("--namespaces and --ns-size must be positive")
    if args.inline < 0 or args.inline % 16 or args.inline > MAX_DATA:
        p.error("--inline must be a multiple of 16, 0..%d" % MAX_DATA)
    return args


def main(argv):
    # pyverbs raises its own error classes, not OSError
    return ht.run_target(RdmaTarget(parse_args(argv)), Exception)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
