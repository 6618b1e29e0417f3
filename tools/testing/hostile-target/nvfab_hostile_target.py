#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A small, hostile NVMe/TCP target for testing nvfab's host.

One subsystem with RAM-backed namespaces, served over NVMe/TCP on
127.0.0.1 (one thread per TCP connection, any number of connections).
Without --scenario it behaves as a correct target; with --scenario it
breaks the protocol in one chosen way, --count times, and is correct again
afterwards, so that the host can recover and reconnect.

What it implements, by specification section:

NVMe/TCP Transport Specification 1.0
  3.3      connection set-up: ICReq / ICResp (PFV 0, no digests: a request
           for digests is answered with the digests off, which the host is
           free to refuse), CPDA 0, MAXH2CDATA 128 KiB
  3.4      Command Capsule, in-capsule data (admin queue: 8 KiB; I/O
           queues: IOCCSZ 4, so no in-capsule data and every write is
           solicited with R2T)
  3.5      data transfer: C2HData (LAST_PDU, optionally SUCCESS), R2T and
           H2CData (MAXR2T is taken from ICReq; one R2T outstanding per
           command here), Response Capsule (CapsuleResp)
  3.6.2    PDU formats: common header, ICReq, ICResp, H2CTermReq,
           CapsuleCmd, CapsuleResp, H2CData, C2HData, R2T
NVMe over Fabrics 1.1
  3.3      Connect (admin queue: dynamic controller, CNTLID returned;
           I/O queues: CNTLID from the Connect data)
  3.4/3.5  Property Get / Property Set: CAP, VS, CC, CSTS (RDY, SHST)
  4.1      Identify Controller fields for fabrics: IOCCSZ, IORCSZ, ICDOFF,
           MSDBD, SGLS
NVMe Base Specification 2.0
  3.5.1    controller enable and shutdown through CC and CSTS
  3.9      Keep Alive (answered; KATO is not enforced)
  5.2      Asynchronous Event Request (held until an event is sent)
  5.16     Get Log Page: 0x01 error, 0x02 SMART / Health, 0x03 firmware
           slot, 0x04 Changed Namespace List, 0x05 Commands Supported and
           Effects, 0x0c ANA (when ANA is on); other pages read as zeros;
           NUMD and LPO are honoured
  5.17     Identify: CNS 00h namespace, 01h controller, 02h active NSID
           list, 03h namespace identification descriptors (NGUID, UUID)
  5.27     Set / Get Features: Number of Queues (07h), Asynchronous Event
           Configuration (0Bh), Keep Alive Timer (0Fh)
NVM Command Set 1.0
  5.14     Format NVM: LBA format 0 (512 bytes) or 1 (4096 bytes), data
           zeroed (a correct target; the host must replace the namespace);
           with --scenario lbaf16, 17 formats, 16 of them 512 bytes
  5.17.2.1 FLBAS with the format index's upper bits in bits 6:5
NVM Command Set 1.0
  3.2      Read, Write, Flush on 512-byte or 4 KiB LBAs

With --discovery the subsystem is a discovery subsystem instead:
NVMe over Fabrics 1.1
  3.1      discovery controller: the well-known NQN
           nqn.2014-08.org.nvmexpress.discovery by default, admin queue
           only (an I/O queue Connect is refused, Invalid Parameter on
           QID), no namespaces
  5.3      Discovery Log Page (LID 70h): a 1024-byte header (GENCTR,
           NUMREC, RECFMT 0) and 1024-byte entries (TRTYPE, ADRFAM,
           SUBTYPE, TREQ, PORTID, CNTLID, ASQSZ, EFLAGS, TRSVCID, SUBNQN,
           TRADDR, TSAS): --disc-entries NVM subsystem entries (SUBTYPE 2,
           TCP, IPv4 127.0.0.1, ports 4500 + i where nothing listens) and
           the current discovery subsystem entry (SUBTYPE 3); LPO and NUMD
           honoured, strings padded with spaces or NULs; disc-inject adds
           NVM subsystem entries for this target's port whose SUBNQN holds
           connect options, and logs each Connect's SUBNQN and HOSTNQN;
           --disc-tls-entry adds NVM subsystem entries of another target
           whose port requires TLS 1.3 (TREQ 1h, TSAS SECTYPE 2h)
NVMe Base Specification 2.0
  5.16.1.23 Discovery Log Page, as above
  5.2      Discovery Log Page Change notice (AEN type 2h, information
           F0h, log page 70h): on SIGUSR1 or --disc-change-after seconds
           after the first AER, the log gains an NVM subsystem entry,
           GENCTR moves and every controller is sent the notice
  5.17.2.1 Identify Controller: CNTRLTYPE 2h (discovery controller), NN 0,
           OAES bit 31 (Discovery Log Page Change notices)

Scenarios (--scenario, see SCENARIOS) and what they break are listed in
the --help text. Each misbehaviour is logged on stderr as a line starting
"hostile: ", and --state FILE always holds the number of misbehaviours done
so far (written atomically), so that a test can wait for it.

Standard library only: the test guest runs this file with the build
machine's python3 over a read-only root.
"""

import argparse
import mmap
import os
import signal
import socket
import struct
import sys
import threading

import dhchap

# ---- protocol constants ----------------------------------------------------

# PDU types (NVMe/TCP 1.0, 3.6.1)
PDU_ICREQ = 0x00
PDU_ICRESP = 0x01
PDU_H2C_TERM = 0x02
PDU_C2H_TERM = 0x03
PDU_CMD = 0x04
PDU_RSP = 0x05
PDU_H2C_DATA = 0x06
PDU_C2H_DATA = 0x07
PDU_R2T = 0x09

# PDU flags
F_HDGST = 0x01
F_DDGST = 0x02
F_DATA_LAST = 0x04
F_DATA_SUCCESS = 0x08

HDR = struct.Struct("<BBBBI")          # type, flags, hlen, pdo, plen
DATA_HDR = struct.Struct("<BBBBIHHIII")  # + cccid, ttag, datao, datal, rsvd
RSP_HLEN = 24
DATA_HLEN = 24
CMD_HLEN = 72
IC_LEN = 128
MAXH2CDATA = 128 * 1024

# Admin opcodes (NVMe Base 2.0, 5)
ADM_GET_LOG = 0x02
ADM_IDENTIFY = 0x06
ADM_ABORT = 0x08
ADM_SET_FEAT = 0x09
ADM_GET_FEAT = 0x0A
ADM_AER = 0x0C
ADM_KEEP_ALIVE = 0x18
ADM_FORMAT_NVM = 0x80
FABRICS = 0x7F

# Fabrics command types (NVMe-oF 1.1, 3)
FCT_PROP_SET = 0x00
FCT_CONNECT = 0x01
FCT_PROP_GET = 0x04

# NVM opcodes
IO_FLUSH = 0x00
IO_WRITE = 0x01
IO_READ = 0x02

# Properties
REG_CAP = 0x00
REG_VS = 0x08
REG_CC = 0x14
REG_CSTS = 0x1C

# Features
FEAT_NUM_QUEUES = 0x07
FEAT_ASYNC_EVENT = 0x0B
FEAT_KATO = 0x0F

# Status codes: (SCT << 8) | SC
SC_SUCCESS = 0x000
SC_INVALID_OPCODE = 0x001
SC_INVALID_FIELD = 0x002
SC_CMD_SEQ_ERROR = 0x00C
SC_INVALID_NS = 0x00B
SC_LBA_RANGE = 0x080
SC_NS_NOT_READY = 0x082
SC_CONNECT_INVALID_PARAM = 0x182
SC_CONTROLLER_BUSY = 0x181      # Connect: Controller Busy (NVMe-oF 1.1, 3.3)
SC_AUTH_REQUIRED = 0x191        # Authentication Required (NVMe Base 2.0)
SC_DNR = 0x4000
CATTR_DISABLE_SQFLOW = 0x04     # Connect CATTR bit 2 (NVMe-oF 1.1, 3.3)
# Connect response Dword 0, AUTHREQ (TP 8006): authentication transaction
# required, secure channel concatenation required.
AUTHREQ_ATR = 1 << 17
AUTHREQ_ASCR = 1 << 18
FCT_AUTH_SEND, FCT_AUTH_RECV = 0x05, 0x06

NSID_ALL = 0xFFFFFFFF
LBA_SHIFT = 9
AEN_NOTICE_NS_CHANGED = 0x2 | (0x00 << 8) | (0x04 << 16)
# Discovery Log Page Change (NVMe Base 2.0, 5.2): asynchronous event type
# 2h (notice), information F0h, log page identifier 70h.
AEN_NOTICE_DISC_CHANGED = 0x2 | (0xF0 << 8) | (0x70 << 16)
QUEUES_MAX = 16

SCENARIOS = {
    "dup-resp": "send a read's CapsuleResp twice",
    "c2h-after-resp": "send a C2HData for a read after its CapsuleResp",
    "resp-after-success": "C2HData with SUCCESS, then a CapsuleResp anyway",
    "r2t-after-resp": "send an R2T for a write after its CapsuleResp",
    "second-r2t": "send two R2Ts for a write back to back",
    "unknown-cid": "answer a read with a CapsuleResp for tag 0xfff",
    "short-identify": "Identify Controller: 1024 of 4096 bytes, success",
    "maxcmd0": "Identify Controller reports MAXCMD 0",
    "bad-sqes": "Identify Controller reports SQES 0x55",
    "early-pdu": "send, in the segment of each ICResp, a PDU for CID 0 "
                 "before any command: a CapsuleResp, a C2HData, an R2T in "
                 "turn, and every other three connections close the "
                 "connection right after it (--count connections)",
    "cpda1": "ICResp with CPDA 1: the host's H2C data aligned to 8 "
             "bytes (a valid field the host does not support)",
    "stale-aer": "after a reconnect, complete, right after the admin "
                 "Connect, the AER the earlier association had outstanding",
    "stall-connect": "never answer the admin Connect",
    "refuse-io-connect": "refuse I/O queue Connects (Controller Busy, no "
                         "DNR) of every controller after the first",
    "refuse-sqflow": "refuse every Connect that asks for SQ flow control "
                     "disabled (Connect Invalid Parameters, DNR, IPO 46: "
                     "CATTR)",
    "auth-required": "answer the admin Connect with AUTHREQ ATR "
                     "(authentication required); any later command on "
                     "that queue but an Authentication Send/Receive is "
                     "logged and refused (Authentication Required)",
    "auth-required-io": "the same on the I/O queue Connects only",
    "auth-ascr": "answer the admin Connect with AUTHREQ ASCR (secure "
                 "channel concatenation required)",
    "auth-required-later": "as auth-required, from the second admin "
                           "Connect on (a reset's, a reconnect's)",
    "chap-ok": "DH-HMAC-CHAP on every queue with --dhchap-key (and "
               "--dhchap-ctrl-key), SHA-256 and ffdhe2048, all right",
    "chap-close": "DH-HMAC-CHAP as chap-ok; the connection closes right "
                  "after the admin queue's first Challenge (the host's "
                  "Reply finds its queue gone)",
    "chap-late": "DH-HMAC-CHAP as chap-ok; once the admin queue's first "
                 "transaction is over, right after its last CapsuleResp, "
                 "its Challenge again in a C2HData for the CID of the "
                 "Authentication Receive that carried it (a controller "
                 "message for a queue that is no longer authenticating)",
    "stall-first-read": "never answer the first Read on an I/O queue",
    "ns-not-ready": "NS-changed AEN, then Identify NS says Not Ready",
    "ana-groups": "ANA on, with --ana-groups groups in the ANA log",
    "ana-chgcnt": "ANA on (--ana-groups): CHGCNT moves once the last piece "
                  "of the first log read was sent; the re-read is counted",
    "format": "none: a correct target whose NSID 1 the test formats",
    "lbaf16": "none: 17 LBA formats, NSID 1 in format 16 (4 KiB): FLBAS "
              "bits 6:5 hold the index's upper bits",
    # --discovery scenarios: a log read is header, entries, header again
    "disc-genctr": "--discovery: GENCTR moves at every Get Log Page; one "
                   "misbehaviour per header read again (the host gives up "
                   "after 3 reads of the whole log: --count 3)",
    "disc-numrec-shift": "--discovery: the header read after the entries "
                         "has the same GENCTR and NUMREC + 1",
    "disc-numrec-huge": "--discovery: NUMREC 1025 in the header (above the "
                        "host's 1024), then 2^64-1, alternately",
    "disc-recfmt": "--discovery: RECFMT 1 in the header",
    "disc-bad-entries": "--discovery: 10 malformed entries among the good "
                        "ones, one misbehaviour per whole read of that log; "
                        "then GENCTR moves and they are gone",
    "disc-short-log": "--discovery: the entries' Get Log Page gets half of "
                      "its data in a C2HData without LAST_PDU, then a "
                      "successful CapsuleResp",
    "disc-inject": "--discovery: NVM subsystem entries whose SUBNQN holds "
                   "connect options (',duplicate_connect', ',hostnqn=...', "
                   "...) and names this target's port; each Connect to "
                   "one is logged with its SUBNQN and HOSTNQN, and refused",
}
SCENARIOS.update({name: "DH-HMAC-CHAP as chap-ok, the admin queue's "
                  "first transaction with " + what
                  for name, what in dhchap.FAULTS.items()})

DISC_NQN = "nqn.2014-08.org.nvmexpress.discovery"
DISC_NVM_NQN = "nqn.2014-08.org.nvmexpress:nvfab-hostile-disc-%d"
DISC_PORT_BASE = 4500
# disc-inject: SUBNQNs that carry connect options after a ','.
DISC_INJECT_NQN = "nqn.2014-08.org.nvmexpress:nvfab-hostile-inject-%d"
DISC_INJECT_EVIL_HOST = "nqn.2014-08.org.example:evil-host"
DISC_INJECT = [
    ",duplicate_connect",
    ",hostnqn=" + DISC_INJECT_EVIL_HOST +
    ",hostid=6f1d2c3b-0a9e-4d8c-b7a6-5e4f3a2b1c0d",
    ",nr_write_queues=4096,ctrl_loss_tmo=-1",
    ",transport=rdma",
]
DISC_HDR = 1024                 # header and entry size (NVMe-oF 1.1, 5.3)
DISC_MAX_RECORDS = 1024         # nvfab's cap on NUMREC
LID_DISC = 0x70
TRTYPE_RDMA, TRTYPE_FC, TRTYPE_TCP = 1, 2, 3
ADRFAM_IPV4, ADRFAM_IPV6, ADRFAM_IB, ADRFAM_FC = 1, 2, 3, 4
SUBTYPE_REFERRAL, SUBTYPE_NVM, SUBTYPE_CURRENT = 1, 2, 3


class ProtocolError(Exception):
    """The host sent something this target cannot go on with."""


def log(msg):
    """One line on stderr, flushed (the test reads the file as it grows)."""
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def put(buf, off, fmt, *vals):
    """Pack little-endian values into @buf at @off."""
    struct.pack_into("<" + fmt, buf, off, *vals)


def put_str(buf, off, width, text):
    """A space-padded ASCII identify string."""
    raw = text.encode("ascii")[:width]
    buf[off:off + width] = raw + b" " * (width - len(raw))


def pad(text, width, fill=b" "):
    """A string field of a log entry: @text, then @fill up to @width."""
    raw = text.encode("ascii") if isinstance(text, str) else bytes(text)
    return raw[:width] + fill * (width - len(raw[:width]))


# ---- the Discovery Log Page (NVMe over Fabrics 1.1, 5.3) --------------------

TREQ_REQUIRED = 0x1                  # secure channel required
SECTYPE_TLS13 = 0x2                  # TSAS for TCP: TLS 1.3


def disc_entry(subnqn, trsvcid, traddr="127.0.0.1", trtype=TRTYPE_TCP,
               adrfam=ADRFAM_IPV4, subtype=SUBTYPE_NVM, portid=1,
               fill=b" ", treq=0, sectype=0):
    """One 1024-byte Discovery Log Page Entry (Figure 38). The strings are
    padded with @fill (spaces, as the spec says, or NULs, as Linux's
    target does); bytes give a field as is, unpadded when full. TREQ 0 and
    SECTYPE 0: no secure channel requirement, none offered."""
    e = bytearray(DISC_HDR)
    # TRTYPE ADRFAM SUBTYPE TREQ PORTID
    # CNTLID (FFFFh: dynamic controller model) ASQSZ EFLAGS
    put(e, 0, "BBBBHHHH", trtype, adrfam, subtype, treq, portid, 0xFFFF, 32,
        0)
    e[32:64] = pad(trsvcid, 32, fill)
    e[256:512] = pad(subnqn, 256, fill)
    e[512:768] = pad(traddr, 256, fill)
    e[768] = sectype                     # TSAS for TCP: SECTYPE
    return bytes(e)


def disc_tls_entry(spec, portid):
    """--disc-tls-entry SUBNQN@TRADDR:TRSVCID: an NVM subsystem entry whose
    port requires TLS 1.3."""
    subnqn, _, where = spec.rpartition("@")
    traddr, _, trsvcid = where.rpartition(":")
    return disc_entry(subnqn, trsvcid, traddr=traddr, portid=portid,
                      treq=TREQ_REQUIRED, sectype=SECTYPE_TLS13)


BAD_NQN = "nqn.2014-08.org.nvmexpress:nvfab-hostile-bad-%s"


def disc_bad_entries():
    """disc-bad-entries: (what is wrong, entry), each unusable for one
    field alone; each has its own SUBNQN so a host that took one lists
    it."""
    port = DISC_PORT_BASE + 100
    full_nqn = (BAD_NQN % "subnqn-full-").encode()
    full_nqn += b"x" * (256 - len(full_nqn))
    return [
        ("TRTYPE FEh (loop: host use only)",
         disc_entry(BAD_NQN % "trtype", str(port), trtype=0xFE)),
        ("ADRFAM FC for TCP",
         disc_entry(BAD_NQN % "adrfam", str(port + 1), adrfam=ADRFAM_FC)),
        ("SUBTYPE 4",
         disc_entry(BAD_NQN % "subtype", str(port + 2), subtype=4)),
        ("TRADDR 'localhost' (not an IPv4 address)",
         disc_entry(BAD_NQN % "traddr-name", str(port + 3),
                    traddr="localhost")),
        ("TRADDR 256 bytes of '1', no padding",
         disc_entry(BAD_NQN % "traddr-full", str(port + 4),
                    traddr=b"1" * 256)),
        ("TRSVCID 'nvme' (not a port)",
         disc_entry(BAD_NQN % "trsvcid-name", "nvme")),
        ("TRSVCID '04420' (leading zero)",
         disc_entry(BAD_NQN % "trsvcid-zero", "04420")),
        ("TRSVCID '65536' (above 65535)",
         disc_entry(BAD_NQN % "trsvcid-big", "65536")),
        ("SUBNQN empty",
         disc_entry("", str(port + 5))),
        ("SUBNQN 256 bytes, no padding",
         disc_entry(full_nqn, str(port + 6))),
    ]


class DiscoveryLog:
    """The log of a discovery subsystem: GENCTR and the entries, the
    current discovery subsystem entry last."""

    def __init__(self, nqn, addr, port, nr_nvm, bad, inject=False,
                 tls=()):
        self.nqn = nqn
        self.addr = addr
        self.port = port
        self.genctr = 1
        self.nvm = [self.nvm_entry(i) for i in range(nr_nvm)]
        self.bad = [e for _, e in disc_bad_entries()] if bad else []
        # disc-inject: entries that name this target, so that the host's
        # connects come here and show what it made of the SUBNQN
        self.inject = [disc_entry(DISC_INJECT_NQN % i + opts, str(port),
                                  traddr=addr, portid=100 + i)
                       for i, opts in enumerate(DISC_INJECT)] \
            if inject else []
        self.tls = [disc_tls_entry(spec, 200 + i)
                    for i, spec in enumerate(tls)]

    @staticmethod
    def nvm_entry(i):
        # Even entries space-padded, odd ones NUL-padded: both are valid.
        return disc_entry(DISC_NVM_NQN % i, str(DISC_PORT_BASE + i),
                          portid=1 + i, fill=b" " if i % 2 == 0 else b"\0")

    def add_nvm(self):
        """The log gains an NVM subsystem entry: GENCTR moves."""
        self.nvm.append(self.nvm_entry(len(self.nvm)))
        self.genctr += 1
        return DISC_NVM_NQN % (len(self.nvm) - 1)

    def drop_bad(self):
        """The malformed entries leave the log: GENCTR moves."""
        self.bad = []
        self.genctr += 1

    def records(self):
        """The entries in log order: good and bad interleaved (a bad one
        must not hide the good ones after it), the current one last."""
        out = []
        for i in range(max(len(self.nvm), len(self.bad))):
            out += self.bad[i:i + 1] + self.nvm[i:i + 1]
        cur = disc_entry(self.nqn, str(self.port), traddr=self.addr,
                         subtype=SUBTYPE_CURRENT, portid=0)
        return out + self.inject + self.tls + [cur]

    def page(self):
        """The whole log: header (Figure 37) and records."""
        recs = self.records()
        hdr = bytearray(DISC_HDR)
        put(hdr, 0, "QQH", self.genctr, len(recs), 0)  # GENCTR NUMREC RECFMT
        return bytes(hdr) + b"".join(recs)


# ---- the command as received -----------------------------------------------

class Command:
    """A Submission Queue Entry (NVMe Base 2.0, 4.2) and its transfer."""

    def __init__(self, sqe, qid):
        self.sqe = bytes(sqe)
        self.qid = qid
        (self.opcode, self.flags, self.cid, self.nsid) = struct.unpack_from(
            "<BBHI", sqe, 0)
        self.sgl_addr, self.sgl_len, self.sgl_type = struct.unpack_from(
            "<QI3xB", sqe, 24)
        self.cdw = struct.unpack_from("<6I", sqe, 40)  # CDW10..CDW15
        self.fctype = sqe[4] if self.opcode == FABRICS else None
        self.data = None                 # data received from the host

    def direction(self):
        """Data transfer direction bits: 1 host to controller, 2 back."""
        if self.opcode == FABRICS:
            return self.fctype & 3
        return self.opcode & 3

    def writes(self):
        return self.direction() & 1 and self.sgl_len > 0

    def reads(self):
        return self.direction() & 2 and self.sgl_len > 0

    @property
    def slba(self):
        return self.cdw[0] | (self.cdw[1] << 32)

    @property
    def nlb(self):
        return (self.cdw[2] & 0xFFFF) + 1


class Completion:
    """What a command handler answers: status, result and read data."""

    HOLD = "hold"

    def __init__(self, status=SC_SUCCESS, result=0, data=None, short=None):
        self.status = status
        self.result = result
        self.data = data
        self.short = short      # send only this many data bytes, no LAST
        self.trailer = ()       # PDUs sent right after the CapsuleResp
        self.close = False      # then close the connection

    @classmethod
    def error(cls, sc, dnr=True):
        return cls(status=sc | (SC_DNR if dnr else 0))


# ---- storage and subsystem --------------------------------------------------

class Namespace:
    """A RAM-backed namespace.

    LBA formats: 0 (512 bytes) and 1 (4 KiB); with @lbaf16, formats 0-15
    of 512 bytes and 16 of 4 KiB, the namespace in format 16.
    """

    def __init__(self, nsid, size, lbaf16=False):
        self.nsid = nsid
        if lbaf16:
            self.lbaf_shifts = (LBA_SHIFT,) * 16 + (12,)
            self.lbaf = 16
        else:
            self.lbaf_shifts = (LBA_SHIFT, 12)
            self.lbaf = 0
        self.shift = self.lbaf_shifts[self.lbaf]
        self.blocks = size >> self.shift
        self.mem = self.zeroed(size)
        self.lock = threading.Lock()
        self.nguid = bytes([0x4E, 0x56, 0x46, 0x42]) + \
            os.getpid().to_bytes(4, "little") + nsid.to_bytes(8, "big")
        self.uuid = bytes(
            [0x6E, 0x76, 0x66, 0x61, 0x62, 0x2D, 0x40, 0x00,
             0x80, 0x00]) + os.getpid().to_bytes(4, "big") + \
            nsid.to_bytes(2, "big")

    @staticmethod
    def zeroed(size):
        """@size bytes of zeroes, as anonymous memory that takes pages
        only where written: a bytearray is zeroed whole at once, which
        took seconds of a short scenario in the test kernel (TCG, KASAN)
        for the 64 MiB default."""
        return mmap.mmap(-1, size)

    def check(self, slba, nlb):
        return slba + nlb <= self.blocks

    def read(self, slba, nlb):
        with self.lock:
            return bytes(self.mem[slba << self.shift:(slba + nlb) << self.shift])

    def write(self, slba, data):
        with self.lock:
            off = slba << self.shift
            self.mem[off:off + len(data)] = data

    def format(self, lbaf):
        """Format NVM: a new LBA format, the data zeroed."""
        with self.lock:
            self.lbaf = lbaf
            self.shift = self.lbaf_shifts[lbaf]
            self.blocks = len(self.mem) >> self.shift
            size = len(self.mem)
            self.mem.close()
            self.mem = self.zeroed(size)


class Subsystem:
    """The NVM subsystem: NQN, namespaces, controllers, ANA layout."""

    def __init__(self, nqn, nr_ns, ns_size, ana_groups, lbaf16=False,
                 disc_log=None):
        self.nqn = nqn
        self.disc_log = disc_log         # a discovery subsystem's log
        if disc_log:
            nr_ns = 0
        self.namespaces = {i: Namespace(i, ns_size, lbaf16)
                           for i in range(1, nr_ns + 1)}
        self.ana_groups = ana_groups     # 0: ANA off
        self.last_aer_cid = None         # stale-aer: of any association
        self.ioccsz = 4                  # I/O queues: no in-capsule data
        self.sgls = 1 | (1 << 20)        # SGLs; Offset in-capsule data
        self.controllers = {}
        self.next_cntlid = 1
        self.admin_connects = 0          # auth-required-later
        self.lock = threading.Lock()

    def disc_changed(self, why):
        """A Discovery Log Page Change notice to every controller."""
        ctrls = self.all_controllers()
        log("target: %s; DLP change AEN to %d controller(s)" %
            (why, len(ctrls)))
        for ctrl in ctrls:
            ctrl.send_event(AEN_NOTICE_DISC_CHANGED)

    def disc_add_entry(self):
        """The log gains an NVM subsystem entry, then the notice."""
        with self.lock:
            nqn = self.disc_log.add_nvm()
            genctr = self.disc_log.genctr
        self.disc_changed("discovery log gained %s (GENCTR %d)" %
                          (nqn, genctr))

    def new_controller(self, hostnqn, kato_ms, scenario):
        with self.lock:
            cntlid = self.next_cntlid
            self.next_cntlid = self.next_cntlid % 0xFFEF + 1
            ctrl = Controller(self, cntlid, hostnqn, kato_ms, scenario)
            self.controllers[cntlid] = ctrl
            return ctrl

    def controller(self, cntlid):
        with self.lock:
            return self.controllers.get(cntlid)

    def drop_controller(self, ctrl):
        with self.lock:
            if self.controllers.get(ctrl.cntlid) is ctrl:
                del self.controllers[ctrl.cntlid]
        ctrl.stop()

    def all_controllers(self):
        with self.lock:
            return list(self.controllers.values())

    def ana_log(self):
        """The ANA log page (NVMe Base 2.0, 5.16.1.12), built whole."""
        n = self.ana_groups
        desc = struct.Struct("<IIQB15x")
        nsids = sorted(self.namespaces)
        out = bytearray(16 + n * desc.size + 4 * len(nsids))
        put(out, 0, "QH", 1, n)
        off = 16
        for grp in range(1, n + 1):
            members = nsids if grp == 1 else []
            desc.pack_into(out, off, grp, len(members), 1, 0x01)
            off += desc.size
            for nsid in members:
                put(out, off, "I", nsid)
                off += 4
        return bytes(out[:off])


# ---- misbehaviour bookkeeping -----------------------------------------------

class Scenario:
    """The chosen misbehaviour: how often, on which LBA, and the tally."""

    def __init__(self, name, count, state_file, trigger_lba, event_after):
        self.name = name
        self.count = count
        self.state_file = state_file
        self.trigger_lba = trigger_lba
        self.event_after = event_after
        self.done = 0
        self.taken = 0
        self.lock = threading.Lock()
        self.ns_changed = False          # ns-not-ready: AEN sent
        self.phase = 0                   # ana-chgcnt: 1 moved, 2 re-read
        self.disc_change_after = None    # --disc-change-after
        self.disc_change_armed = False
        # The state file is first written once the port listens (run()):
        # a test that sees it may connect at once.

    def is_(self, *names):
        return self.name in names

    def covers(self, cmd):
        """The command touches --trigger-lba (any command without it)."""
        if self.trigger_lba is None:
            return True
        return cmd.slba <= self.trigger_lba < cmd.slba + cmd.nlb

    def take(self, *names, cmd=None):
        """Claim one misbehaviour of scenario @names, if any is left."""
        if self.name not in names or (cmd is not None and
                                      not self.covers(cmd)):
            return False
        with self.lock:
            if self.taken >= self.count:
                return False
            self.taken += 1
            return True

    def record(self, what):
        """Log a misbehaviour that was committed and update the tally."""
        with self.lock:
            self.done += 1
        log("hostile: " + what)
        self.write_state()

    def write_state(self):
        if not self.state_file:
            return
        tmp = "%s.%d.tmp" % (self.state_file, os.getpid())
        with open(tmp, "w") as f:
            f.write("%d\n" % self.done)
        os.replace(tmp, self.state_file)


# ---- the controller ---------------------------------------------------------

class Controller:
    """One controller of the subsystem: properties, features, AERs, data."""

    def __init__(self, subsys, cntlid, hostnqn, kato_ms, scenario):
        self.subsys = subsys
        self.cntlid = cntlid
        self.hostnqn = hostnqn
        self.kato_ms = kato_ms
        self.scenario = scenario
        self.cc = 0
        self.csts = 0
        self.aec = 0
        self.nr_queues = 0
        self.lock = threading.Lock()
        self.aers = []                   # (connection, cid) held
        self.events = []                 # results waiting for an AER
        self.changed_ns = []
        self.stopped = False
        self.timer = None
        self.disc_entries_read = False   # a header read next is "again"

    # -- properties (NVMe-oF 1.1, 3.4 and 3.5) --

    @staticmethod
    def cap():
        mqes = 127
        cqr = 1 << 16
        to = 10 << 24                    # 5 s to become ready
        css_nvm = 1 << 37
        return mqes | cqr | to | css_nvm

    def prop_get(self, off, wide):
        if off == REG_CAP:
            val = self.cap()
        elif off == REG_VS:
            val = 0x00020000             # 2.0
        elif off == REG_CC:
            val = self.cc
        elif off == REG_CSTS:
            val = self.csts
        else:
            return Completion.error(SC_INVALID_FIELD)
        return Completion(result=val if wide else val & 0xFFFFFFFF)

    def prop_set(self, off, val):
        if off != REG_CC:
            return Completion.error(SC_INVALID_FIELD)
        self.cc = val & 0xFFFFFFFF
        csts = 1 if self.cc & 1 else 0
        if (self.cc >> 14) & 3:          # shutdown notification
            csts |= 0x2 << 2             # shutdown processing complete
        self.csts = csts
        return Completion()

    # -- identify (NVMe Base 2.0, 5.17) --

    def id_ctrl(self):
        sc = self.scenario
        buf = bytearray(4096)
        put(buf, 0, "HH", 0x1B36, 0x1AF4)
        put_str(buf, 4, 20, "nvfab-hostile-%d" % os.getpid())
        put_str(buf, 24, 40, "nvfab hostile target")
        put_str(buf, 64, 8, "0.1")
        buf[72] = 6                      # RAB
        ana = self.subsys.ana_groups > 0
        buf[76] = 0x08 if ana else 0     # CMIC: ANA reporting
        buf[77] = 8                      # MDTS: 1 MiB
        put(buf, 78, "HI", self.cntlid, 0x00020000)
        oaes = 1 << 8                    # namespace attribute notices
        if ana:
            oaes |= 1 << 11
        if self.subsys.disc_log:
            oaes = 1 << 31               # Discovery Log Page Change
        put(buf, 92, "I", oaes)
        # CNTRLTYPE: 1h I/O controller, 2h discovery controller
        buf[111] = 2 if self.subsys.disc_log else 1
        buf[259] = 3                     # AERL: 4 outstanding
        buf[261] = 0x02                  # LPA: command effects log
        put(buf, 320, "H", 10)           # KAS: 1 s
        if ana:
            n = self.subsys.ana_groups
            buf[342] = 10                # ANATT
            buf[343] = 0x5F              # ANACAP: all states, fixed IDs
            put(buf, 344, "II", n, n)    # ANAGRPMAX, NANAGRPID
        sqes, maxcmd = 0x66, 128
        if sc.take("bad-sqes"):
            sqes = 0x55
            sc.record("bad-sqes Identify Controller SQES 0x55 (cntlid %d)"
                      % self.cntlid)
        if sc.take("maxcmd0"):
            maxcmd = 0
            sc.record("maxcmd0 Identify Controller MAXCMD 0 (cntlid %d)"
                      % self.cntlid)
        buf[512] = sqes
        buf[513] = 0x44
        put(buf, 514, "HI", maxcmd, len(self.subsys.namespaces))  # MAXCMD, NN
        buf[525] = 1                     # VWC present
        put(buf, 536, "II", self.subsys.sgls, len(self.subsys.namespaces))
        nqn = self.subsys.nqn.encode()
        buf[768:768 + len(nqn)] = nqn
        # IOCCSZ IORCSZ ICDOFF - MSDBD
        put(buf, 1792, "IIHBB", self.subsys.ioccsz, 1, 0, 0, 1)
        return bytes(buf)

    def id_ns(self, ns):
        buf = bytearray(4096)
        put(buf, 0, "QQQ", ns.blocks, ns.blocks, ns.blocks)
        buf[25] = len(ns.lbaf_shifts) - 1  # NLBAF, 0's based
        # FLBAS: format index bits 3:0 in bits 3:0, bits 5:4 in bits 6:5
        buf[26] = (ns.lbaf & 0xF) | ((ns.lbaf >> 4) << 5)
        if self.subsys.ana_groups:
            put(buf, 92, "I", 1)         # ANAGRPID
        buf[104:120] = ns.nguid
        for i, shift in enumerate(ns.lbaf_shifts):
            put(buf, 128 + 4 * i, "HBB", 0, shift, 0)  # LBAF i: LBADS
        return bytes(buf)

    def id_active_list(self, after):
        buf = bytearray(4096)
        off = 0
        for nsid in sorted(self.subsys.namespaces):
            if nsid > after and off < 4096:
                put(buf, off, "I", nsid)
                off += 4
        return bytes(buf)

    @staticmethod
    def id_ns_descs(ns):
        buf = bytearray(4096)
        put(buf, 0, "BBH", 0x02, 16, 0)
        buf[4:20] = ns.nguid
        put(buf, 20, "BBH", 0x03, 16, 0)
        buf[24:40] = ns.uuid
        return bytes(buf)

    # -- log pages (NVMe Base 2.0, 5.16) --

    def log_page(self, lid):
        if lid == 0x02:                  # SMART / Health
            buf = bytearray(512)
            put(buf, 1, "H", 300)        # composite temperature, K
            buf[3] = 100                 # available spare
            buf[4] = 10
            return bytes(buf)
        if lid == 0x04:                  # Changed Namespace List
            buf = bytearray(4096)
            with self.lock:
                changed, self.changed_ns = self.changed_ns, []
            for i, nsid in enumerate(sorted(changed)[:1024]):
                put(buf, 4 * i, "I", nsid)
            return bytes(buf)
        if lid == 0x05:                  # Commands Supported and Effects
            buf = bytearray(4096)
            for op in (ADM_GET_LOG, ADM_IDENTIFY, ADM_ABORT, ADM_SET_FEAT,
                       ADM_GET_FEAT, ADM_AER, ADM_KEEP_ALIVE):
                put(buf, 4 * op, "I", 1)
            # Format NVM: CSUPP, LBCC, NCC, NIC, CSE 001b (one namespace)
            put(buf, 4 * ADM_FORMAT_NVM, "I", 1 | 2 | 4 | 8 | (1 << 16))
            put(buf, 1024 + 4 * IO_FLUSH, "I", 1)
            put(buf, 1024 + 4 * IO_WRITE, "I", 1 | 2)  # CSUPP, LBCC
            put(buf, 1024 + 4 * IO_READ, "I", 1)
            return bytes(buf)
        if lid == 0x0C and self.subsys.ana_groups:
            return self.subsys.ana_log()
        return b""

    # -- features (NVMe Base 2.0, 5.27) --

    def set_features(self, fid, dw11):
        if fid == FEAT_NUM_QUEUES:
            nsqr = min(dw11 & 0xFFFF, QUEUES_MAX - 1)
            ncqr = min(dw11 >> 16, QUEUES_MAX - 1)
            self.nr_queues = min(nsqr, ncqr) + 1
            return Completion(result=nsqr | (ncqr << 16))
        if fid == FEAT_ASYNC_EVENT:
            self.aec = dw11
            return Completion()
        if fid == FEAT_KATO:
            self.kato_ms = dw11
            return Completion()
        return Completion.error(SC_INVALID_FIELD)

    def get_features(self, fid):
        if fid == FEAT_NUM_QUEUES:
            n = max(self.nr_queues, 1) - 1
            return Completion(result=n | (n << 16))
        if fid == FEAT_ASYNC_EVENT:
            return Completion(result=self.aec)
        if fid == FEAT_KATO:
            return Completion(result=self.kato_ms)
        return Completion(result=0)

    # -- asynchronous events (NVMe Base 2.0, 5.2) --

    def hold_aer(self, conn, cid):
        with self.lock:
            self.aers.append((conn, cid))
        self.flush_events()
        if self.scenario.is_("ns-not-ready"):
            self.arm_ns_change()
        if self.subsys.disc_log and self.scenario.disc_change_after \
                is not None:
            self.arm_disc_change()

    def arm_disc_change(self):
        """--disc-change-after: once per target, S seconds after the
        first AER, the log gains an entry and the notice goes out."""
        sc = self.scenario
        with sc.lock:
            if sc.disc_change_armed:
                return
            sc.disc_change_armed = True
        t = threading.Timer(sc.disc_change_after, self.subsys.disc_add_entry)
        t.daemon = True
        t.start()

    def arm_ns_change(self):
        """ns-not-ready: one NS Attribute Changed event, after a delay."""
        with self.lock:
            if self.timer or self.scenario.ns_changed:
                return
            self.timer = threading.Timer(self.scenario.event_after,
                                         self.ns_change)
            self.timer.daemon = True
            self.timer.start()

    def ns_change(self):
        sc = self.scenario
        with sc.lock:
            if sc.ns_changed:
                return
            sc.ns_changed = True
        with self.lock:
            self.changed_ns.append(1)
        log("hostile: ns-not-ready sending the Namespace Attribute Changed "
            "event (cntlid %d)" % self.cntlid)
        self.send_event(AEN_NOTICE_NS_CHANGED)

    def send_event(self, result):
        with self.lock:
            self.events.append(result)
        self.flush_events()

    def flush_events(self):
        while True:
            with self.lock:
                if not self.aers or not self.events or self.stopped:
                    return
                conn, cid = self.aers.pop(0)
                result = self.events.pop(0)
            conn.respond(cid, Completion(result=result))

    def stop(self):
        with self.lock:
            self.stopped = True
            if self.timer:
                self.timer.cancel()


# ---- one NVMe/TCP connection ------------------------------------------------

class PendingWrite:
    """A command whose data is being solicited with R2Ts."""

    def __init__(self, cmd, ttag):
        self.cmd = cmd
        self.ttag = ttag
        self.buf = bytearray(cmd.sgl_len)
        self.got = 0                     # bytes received
        self.r2t_end = 0                 # end of the current R2T


class Connection:
    """One TCP connection: a queue of one controller (NVMe/TCP 1.0, 3)."""

    R2T_MAX = 128 * 1024

    def __init__(self, target, sock, peer):
        self.target = target
        self.subsys = target.subsys
        self.scenario = target.scenario
        self.sock = sock
        self.peer = peer
        self.send_lock = threading.Lock()
        self.qid = None
        self.ctrl = None
        self.sqsize = 0
        self.sqhd = 0
        self.writes = {}                 # ttag -> PendingWrite
        self.authreq = 0                 # AUTHREQ of this queue's Connect
        self.auth = None                 # its dhchap.Transaction
        self.auth_first_recv = None      # (CID, data) of its first Receive
        self.next_ttag = 0
        self.held = []                   # commands never answered

    # -- socket I/O --

    def recv_exact(self, n):
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            k = self.sock.recv_into(view[got:], n - got)
            if not k:
                raise EOFError
            got += k
        return buf

    def send(self, *parts):
        data = b"".join(parts)
        with self.send_lock:
            self.sock.sendall(data)

    # -- PDUs the target sends --

    def icresp(self):
        pdu = bytearray(IC_LEN)
        HDR.pack_into(pdu, 0, PDU_ICRESP, 0, IC_LEN, 0, IC_LEN)
        cpda = 1 if self.scenario.is_("cpda1") else 0
        put(pdu, 8, "HBBI", 0, cpda, 0, MAXH2CDATA)
        if cpda:
            self.scenario.record("ICResp with CPDA %d" % cpda)
        return bytes(pdu)

    def rsp_pdu(self, cid, comp):
        if self.qid is not None and self.sqsize:
            self.sqhd = (self.sqhd + 1) % (self.sqsize + 1)
        pdu = bytearray(RSP_HLEN)
        HDR.pack_into(pdu, 0, PDU_RSP, 0, RSP_HLEN, 0, RSP_HLEN)
        put(pdu, 8, "QHHHH", comp.result, self.sqhd, self.qid or 0, cid,
            (comp.status << 1) & 0xFFFF)
        return bytes(pdu)

    @staticmethod
    def c2h_pdu(cid, offset, data, flags=F_DATA_LAST):
        hdr = DATA_HDR.pack(PDU_C2H_DATA, flags, DATA_HLEN, DATA_HLEN,
                            DATA_HLEN + len(data), cid, 0, offset, len(data),
                            0)
        return hdr + data

    @staticmethod
    def r2t_pdu(cid, ttag, offset, length):
        return DATA_HDR.pack(PDU_R2T, 0, DATA_HLEN, 0, DATA_HLEN, cid, ttag,
                             offset, length, 0)

    def stale_aer(self):
        """stale-aer: right after the admin Connect of a new association,
        complete the AER that an earlier association of the host had
        outstanding (its CID), which this association never sent."""
        cid = self.subsys.last_aer_cid
        if cid is None or not self.scenario.take("stale-aer"):
            return
        # An AEN of type Notice, Namespace Attribute Changed.
        self.send(self.rsp_pdu(cid, Completion(result=0x000002)))
        self.scenario.record("stale-aer: completion for AER CID 0x%x of an "
                             "earlier association, right after the admin "
                             "Connect" % cid)

    def respond(self, cid, comp):
        """Send a completion without data (also used for AERs)."""
        try:
            self.send(self.rsp_pdu(cid, comp))
        except OSError:
            pass

    # -- the receive loop --

    def serve(self):
        try:
            self.handshake()
            while True:
                hdr = self.recv_exact(HDR.size)
                ptype, flags, hlen, pdo, plen = HDR.unpack(hdr)
                if plen < HDR.size or plen > 16 * 1024 * 1024:
                    raise ProtocolError("PDU type 0x%x PLEN %d" % (ptype, plen))
                rest = self.recv_exact(plen - HDR.size)
                pdu = hdr + rest
                if flags & (F_HDGST | F_DDGST):
                    raise ProtocolError("digest flags 0x%x not negotiated"
                                        % flags)
                if ptype == PDU_CMD:
                    self.on_capsule(pdu, hlen, pdo, plen)
                elif ptype == PDU_H2C_DATA:
                    self.on_h2c_data(pdu, pdo, plen)
                elif ptype == PDU_H2C_TERM:
                    raise ProtocolError("H2CTermReq from the host")
                else:
                    raise ProtocolError("unexpected PDU type 0x%x" % ptype)
        except (EOFError, ConnectionError, OSError):
            pass
        except ProtocolError as e:
            log("target: queue %s from %s: %s" % (self.qid, self.peer, e))
        finally:
            self.close()

    def handshake(self):
        """ICReq / ICResp (NVMe/TCP 1.0, 3.6.2.2 and 3.6.2.3)."""
        pdu = self.recv_exact(IC_LEN)
        ptype, _, hlen, _, plen = HDR.unpack_from(pdu, 0)
        if ptype != PDU_ICREQ or hlen != IC_LEN or plen != IC_LEN:
            raise ProtocolError("expected ICReq, got type 0x%x" % ptype)
        pfv, _, dgst = struct.unpack_from("<HBB", pdu, 8)
        if pfv != 0:
            raise ProtocolError("ICReq PFV %d" % pfv)
        if dgst:
            log("target: digests 0x%x requested; answering without "
                "digests" % dgst)
        if self.scenario.take("early-pdu"):
            # One send, so that the host finds the PDU right behind the
            # ICResp, before it has sent (or allocated) anything to name.
            kind = ("CapsuleResp", "C2HData", "R2T")[
                (self.scenario.taken - 1) % 3]
            if kind == "CapsuleResp":
                early = self.rsp_pdu(0, Completion())
            elif kind == "C2HData":
                early = self.c2h_pdu(0, 0, bytes(512))
            else:
                early = self.r2t_pdu(0, 0, 0, 512)
            self.send(self.icresp(), early)
            # Rounds 4-6, 10-12, ...: the connection closes too, so that
            # the host fails the queue twice (the PDU, the close) while
            # its admin Connect is being sent or cancelled.
            close = (self.scenario.taken - 1) // 3 % 2 == 1
            self.scenario.record("%s for CID 0 in the segment of the ICResp%s"
                                 % (kind, ", then closed" if close else ""))
            if close:
                raise EOFError
            return
        self.send(self.icresp())

    def close(self):
        if self.ctrl is not None and self.qid == 0:
            self.subsys.drop_controller(self.ctrl)
        self.target.forget(self)
        try:
            self.sock.close()
        except OSError:
            pass

    def shutdown(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # -- capsules and data --

    def on_capsule(self, pdu, hlen, pdo, plen):
        if hlen != CMD_HLEN:
            raise ProtocolError("CapsuleCmd HLEN %d" % hlen)
        cmd = Command(pdu[8:CMD_HLEN], self.qid)
        inline = pdu[pdo:plen] if pdo and plen > pdo else b""
        if self.qid is None and not (cmd.opcode == FABRICS and
                                     cmd.fctype == FCT_CONNECT):
            self.respond(cmd.cid, Completion.error(SC_CMD_SEQ_ERROR))
            return
        if cmd.writes():
            if inline:
                if len(inline) != cmd.sgl_len:
                    self.respond(cmd.cid, Completion.error(SC_INVALID_FIELD))
                    return
                cmd.data = bytes(inline)
            else:
                self.start_r2t(cmd)
                return
        self.execute(cmd)

    def start_r2t(self, cmd):
        ttag = self.next_ttag
        self.next_ttag = (self.next_ttag + 1) & 0xFFFF
        pw = PendingWrite(cmd, ttag)
        self.writes[ttag] = pw
        first = self.next_r2t(pw)
        if self.qid and cmd.opcode == IO_WRITE and \
                self.scenario.take("second-r2t", cmd=cmd):
            self.scenario.record("second-r2t CID 0x%x R2T sent twice "
                                 "(queue %d)" % (cmd.cid, self.qid))
            self.send(first, first)
        else:
            self.send(first)

    def next_r2t(self, pw):
        length = min(self.R2T_MAX, pw.cmd.sgl_len - pw.got)
        pw.r2t_end = pw.got + length
        return self.r2t_pdu(pw.cmd.cid, pw.ttag, pw.got, length)

    def on_h2c_data(self, pdu, pdo, plen):
        (_, _, _, _, _, cid, ttag, datao, datal, _) = \
            DATA_HDR.unpack_from(pdu, 0)
        pw = self.writes.get(ttag)
        if pw is None or pw.cmd.cid != cid:
            raise ProtocolError("H2CData CID 0x%x TTAG %d unknown" %
                                (cid, ttag))
        if datao != pw.got or datao + datal > pw.r2t_end or \
                plen - pdo != datal:
            raise ProtocolError("H2CData CID 0x%x offset %d length %d, "
                                "expected offset %d" %
                                (cid, datao, datal, pw.got))
        pw.buf[datao:datao + datal] = pdu[pdo:plen]
        pw.got += datal
        if pw.got < pw.r2t_end:
            return
        if pw.got < pw.cmd.sgl_len:
            self.send(self.next_r2t(pw))
            return
        del self.writes[ttag]
        pw.cmd.data = bytes(pw.buf)
        self.execute(pw.cmd)

    def execute(self, cmd):
        if self.auth and cmd.opcode == FABRICS and \
                cmd.fctype in (FCT_AUTH_SEND, FCT_AUTH_RECV):
            self.complete(cmd, self.authenticate(cmd))
            return
        if self.authreq and not (cmd.opcode == FABRICS and cmd.fctype in
                                 (FCT_AUTH_SEND, FCT_AUTH_RECV)):
            # The test greps this line: the host must send nothing on a
            # queue whose Connect required authentication it cannot do.
            log("target: %s: command after the Connect that required "
                "authentication: opcode 0x%x%s, queue %d" %
                (self.scenario.name, cmd.opcode,
                 " fctype 0x%x" % cmd.fctype if cmd.opcode == FABRICS
                 else "", self.qid))
            self.complete(cmd, Completion.error(SC_AUTH_REQUIRED))
            return
        if cmd.opcode == FABRICS:
            comp = self.fabrics(cmd)
        elif self.qid == 0:
            comp = self.target.admin.handle(self, cmd)
        else:
            comp = self.target.io.handle(self, cmd)
        if comp is Completion.HOLD:
            return
        self.complete(cmd, comp)

    def complete(self, cmd, comp):
        """Send the data of @cmd, if any, then its CapsuleResp."""
        sc = self.scenario
        cid = cmd.cid
        if comp.status or not cmd.reads():
            self.send(self.rsp_pdu(cid, comp), *comp.trailer)
            self.after_write(cmd)
            if self.qid == 0 and cmd.opcode == FABRICS and \
                    cmd.fctype == FCT_CONNECT and not comp.status:
                self.stale_aer()
            return
        data = (comp.data or b"")[:cmd.sgl_len]
        data += bytes(cmd.sgl_len - len(data))
        if comp.short is not None:
            self.send(self.c2h_pdu(cid, 0, data[:comp.short], 0),
                      self.rsp_pdu(cid, comp))
            return
        if self.qid == 0 and cmd.opcode == ADM_IDENTIFY and \
                cmd.cdw[0] & 0xFF == 0x01 and sc.take("short-identify"):
            sc.record("short-identify CID 0x%x: 1024 of %d bytes, then "
                      "success" % (cid, len(data)))
            self.send(self.c2h_pdu(cid, 0, data[:1024], 0),
                      self.rsp_pdu(cid, comp))
            return
        if not self.qid or cmd.opcode != IO_READ:
            self.send(self.c2h_pdu(cid, 0, data), self.rsp_pdu(cid, comp),
                      *comp.trailer)
            if comp.close:
                raise EOFError
            return
        self.complete_read(cmd, comp, data)

    def complete_read(self, cmd, comp, data):
        """A Read on an I/O queue: where most scenarios strike."""
        sc = self.scenario
        cid = cmd.cid
        where = "CID 0x%x (queue %d, LBA %d+%d)" % (cid, self.qid, cmd.slba,
                                                    cmd.nlb)
        c2h = self.c2h_pdu(cid, 0, data)
        rsp = self.rsp_pdu(cid, comp)
        if sc.take("dup-resp", cmd=cmd):
            sc.record("dup-resp " + where)
            self.send(c2h, rsp, rsp)
        elif sc.take("c2h-after-resp", cmd=cmd):
            sc.record("c2h-after-resp " + where)
            self.send(c2h, rsp, self.c2h_pdu(cid, 0, data[:512]))
        elif sc.take("resp-after-success", cmd=cmd):
            sc.record("resp-after-success " + where)
            self.send(self.c2h_pdu(cid, 0, data,
                                   F_DATA_LAST | F_DATA_SUCCESS), rsp)
        elif sc.take("unknown-cid", cmd=cmd):
            bogus = (cid & 0xF000) | 0xFFF
            sc.record("unknown-cid %s answered as CID 0x%x" % (where, bogus))
            self.send(c2h, self.rsp_pdu(bogus, comp), rsp)
        elif self.target.c2h_success:
            self.send(self.c2h_pdu(cid, 0, data,
                                   F_DATA_LAST | F_DATA_SUCCESS))
        else:
            self.send(c2h, rsp)

    def after_write(self, cmd):
        if self.qid and cmd.opcode == IO_WRITE and \
                self.scenario.take("r2t-after-resp", cmd=cmd):
            self.scenario.record("r2t-after-resp CID 0x%x (queue %d)" %
                                 (cmd.cid, self.qid))
            self.send(self.r2t_pdu(cmd.cid, 0xFFFF, 0, cmd.sgl_len))

    # -- fabrics commands (NVMe-oF 1.1, 3) --

    def fabrics(self, cmd):
        if cmd.fctype == FCT_CONNECT:
            return self.connect(cmd)
        if self.qid != 0 or self.ctrl is None:
            return Completion.error(SC_CMD_SEQ_ERROR)
        attrib, off = struct.unpack_from("<B3xI", cmd.sqe, 40)
        if cmd.fctype == FCT_PROP_GET:
            return self.ctrl.prop_get(off, attrib & 1)
        if cmd.fctype == FCT_PROP_SET:
            val, = struct.unpack_from("<Q", cmd.sqe, 48)
            return self.ctrl.prop_set(off, val)
        return Completion.error(SC_INVALID_OPCODE)

    def authenticate(self, cmd):
        """An Authentication Send or Receive of this queue's DH-HMAC-CHAP
        transaction (dhchap.py); the queue is authenticated once it is
        done (AUTHREQ cleared: other commands are served)."""
        tx = self.auth
        try:
            if cmd.fctype == FCT_AUTH_SEND:
                tx.send(cmd.data)
                comp = Completion()
            else:
                al, = struct.unpack_from("<I", cmd.sqe, 44)
                comp = Completion(data=tx.receive(al))
                if self.auth_first_recv is None:
                    self.auth_first_recv = (cmd.cid, comp.data)
                    if self.qid == 0 and \
                            self.scenario.take("chap-close"):
                        comp.close = True
                        self.scenario.record(
                            "chap-close queue 0: closed after the "
                            "Challenge (CID 0x%x)" % cmd.cid)
        except dhchap.AuthError as e:
            log("target: %s: queue %d: authentication: %s" %
                (self.scenario.name, self.qid, e))
            return Completion.error(SC_AUTH_REQUIRED)
        if tx.faulted:
            self.scenario.record("%s queue %d: %s" % (self.scenario.name,
                                                      self.qid, tx.faulted))
            tx.faulted = None
        if tx.done:
            log("target: %s: queue %d authenticated" % (self.scenario.name,
                                                        self.qid))
            self.authreq = 0
            self.auth = None
            if self.qid == 0 and self.scenario.take("chap-late"):
                cid, data = self.auth_first_recv
                comp.trailer = (self.c2h_pdu(cid, 0, data),)
                self.scenario.record(
                    "chap-late queue 0: the Challenge again, in a C2HData "
                    "for CID 0x%x (its Authentication Receive), after the "
                    "transaction's last CapsuleResp (CID 0x%x)" %
                    (cid, cmd.cid))
        return comp

    def connect(self, cmd):
        recfmt, qid, sqsize, cattr, kato = struct.unpack_from("<HHHB1xI",
                                                              cmd.sqe, 40)
        data = cmd.data or b""
        if self.qid is not None or recfmt != 0 or len(data) < 1024:
            return Completion.error(SC_CONNECT_INVALID_PARAM)
        cntlid, = struct.unpack_from("<H", data, 16)
        subnqn = bytes(data[256:512]).split(b"\0")[0].decode(errors="replace")
        hostnqn = bytes(data[512:768]).split(b"\0")[0].decode(
            errors="replace")
        if subnqn != self.subsys.nqn:
            if subnqn.startswith(DISC_INJECT_NQN.split("%")[0]):
                self.scenario.record("disc-inject Connect for SUBNQN %r "
                                     "from HOSTNQN %r" % (subnqn, hostnqn))
            log("target: Connect to unknown NQN %r from %r" % (subnqn,
                                                               hostnqn))
            return Completion(status=SC_CONNECT_INVALID_PARAM | SC_DNR,
                              result=(256 << 16) | 1)
        if cattr & CATTR_DISABLE_SQFLOW and self.scenario.take("refuse-sqflow"):
            # Invalid Parameter: IPO 46 (CATTR) in bits 15:0, IATTR 0
            # (the SQE) in bit 16 (NVMe-oF 1.1, 3.3, as nvmet encodes it).
            self.scenario.record("refuse-sqflow queue %d: Connect with SQ "
                                 "flow control disabled refused" % qid)
            return Completion(status=SC_CONNECT_INVALID_PARAM | SC_DNR,
                              result=46)
        if qid == 0:
            if self.scenario.take("stall-connect"):
                self.scenario.record("stall-connect CID 0x%x never answered"
                                     % cmd.cid)
                self.held.append(cmd)
                return Completion.HOLD
            self.ctrl = self.subsys.new_controller(hostnqn, kato,
                                                   self.scenario)
        elif self.subsys.disc_log:
            # A discovery controller has the admin queue only: Invalid
            # Parameter, IATTR 0 (the SQE), IPO 42 (QID).
            log("target: %s: I/O queue %d Connect to a discovery "
                "controller refused" % (self.peer, qid))
            return Completion(status=SC_CONNECT_INVALID_PARAM | SC_DNR,
                              result=42 << 16)
        else:
            ctrl = self.subsys.controller(cntlid)
            if ctrl is None or ctrl.hostnqn != hostnqn or \
                    qid > ctrl.nr_queues:
                return Completion(status=SC_CONNECT_INVALID_PARAM | SC_DNR,
                                  result=(16 << 16) | 1)
            if cntlid > 1 and self.scenario.take("refuse-io-connect"):
                self.scenario.record("refuse-io-connect queue %d of "
                                     "controller %d: Controller Busy" %
                                     (qid, cntlid))
                return Completion.error(SC_CONTROLLER_BUSY, dnr=False)
            self.ctrl = ctrl
        self.qid = qid
        self.sqsize = sqsize
        self.sqhd = 0
        if self.target.verbose:
            log("target: %s queue %d connected, cntlid %d" %
                (self.peer, qid, self.ctrl.cntlid))
        sc = self.scenario
        if qid == 0:
            with self.subsys.lock:
                self.subsys.admin_connects += 1
                later = self.subsys.admin_connects > 1
        if qid == 0 and (sc.take("auth-required") or
                         (later and sc.take("auth-required-later"))):
            self.authreq = AUTHREQ_ATR
        elif qid == 0 and sc.take("auth-ascr"):
            self.authreq = AUTHREQ_ASCR
        elif qid > 0 and sc.take("auth-required-io"):
            self.authreq = AUTHREQ_ATR
        keys = self.target.dhchap_keys
        if keys[0] and (sc.name in ("chap-ok", "chap-late", "chap-close") or
                        sc.name in dhchap.FAULTS):
            fault = sc.name if qid == 0 and sc.take(*dhchap.FAULTS) \
                else None
            self.authreq = AUTHREQ_ATR
            self.auth = dhchap.Transaction(keys[0], keys[1], hostnqn,
                                           self.subsys.nqn, fault=fault)
        if self.authreq:
            sc.record("%s queue %d: Connect answered with AUTHREQ %s" %
                      (sc.name, qid,
                       "ATR" if self.authreq == AUTHREQ_ATR else "ASCR"))
        return Completion(result=self.ctrl.cntlid | self.authreq)


# ---- admin and I/O command sets ---------------------------------------------

class AdminCommands:
    """Admin queue commands (NVMe Base 2.0, 5)."""

    def __init__(self, scenario):
        self.scenario = scenario

    def handle(self, conn, cmd):
        ctrl = conn.ctrl
        op = cmd.opcode
        if op == ADM_IDENTIFY:
            return self.identify(ctrl, cmd)
        if op == ADM_GET_LOG:
            return self.get_log(ctrl, cmd)
        if op == ADM_SET_FEAT:
            return ctrl.set_features(cmd.cdw[0] & 0xFF, cmd.cdw[1])
        if op == ADM_GET_FEAT:
            return ctrl.get_features(cmd.cdw[0] & 0xFF)
        if op == ADM_AER:
            conn.subsys.last_aer_cid = cmd.cid
            ctrl.hold_aer(conn, cmd.cid)
            return Completion.HOLD
        if op == ADM_KEEP_ALIVE:
            return Completion()
        if op == ADM_ABORT:
            return Completion(result=1)  # not aborted
        if op == ADM_FORMAT_NVM:
            return self.format_nvm(ctrl, cmd)
        return Completion.error(SC_INVALID_OPCODE)

    @staticmethod
    def format_nvm(ctrl, cmd):
        """Format NVM (NVMe Base 2.0, 5.14): LBAF in CDW10 bits 3:0 and,
        upper bits, 13:12."""
        ns = ctrl.subsys.namespaces.get(cmd.nsid)
        lbaf = (cmd.cdw[0] & 0xF) | ((cmd.cdw[0] >> 8) & 0x30)
        if ns is None:
            return Completion.error(SC_INVALID_NS)
        if lbaf >= len(ns.lbaf_shifts) or cmd.cdw[0] & ~0x300F:
            return Completion.error(SC_INVALID_FIELD)
        ns.format(lbaf)
        log("target: NSID %d formatted with LBA format %d (%d bytes)" %
            (ns.nsid, lbaf, 1 << ns.shift))
        return Completion()

    def identify(self, ctrl, cmd):
        cns = cmd.cdw[0] & 0xFF
        subsys = ctrl.subsys
        if cns == 0x01:
            return Completion(data=ctrl.id_ctrl())
        if cns == 0x02:
            return Completion(data=ctrl.id_active_list(cmd.nsid))
        if cns not in (0x00, 0x03):
            return Completion.error(SC_INVALID_FIELD)
        ns = subsys.namespaces.get(cmd.nsid)
        if ns is None:
            return Completion.error(SC_INVALID_NS)
        sc = self.scenario
        if sc.ns_changed and ns.nsid == 1 and sc.take("ns-not-ready"):
            sc.record("ns-not-ready Identify CNS %d NSID 1 CID 0x%x: "
                      "Namespace Not Ready" % (cns, cmd.cid))
            return Completion.error(SC_NS_NOT_READY, dnr=False)
        if cns == 0x00:
            return Completion(data=ctrl.id_ns(ns))
        return Completion(data=ctrl.id_ns_descs(ns))

    def get_log(self, ctrl, cmd):
        lid = cmd.cdw[0] & 0xFF
        numd = ((cmd.cdw[0] >> 16) | ((cmd.cdw[1] & 0xFFFF) << 16)) + 1
        lpo = cmd.cdw[2] | (cmd.cdw[3] << 32)
        if lpo % 4:
            return Completion.error(SC_INVALID_FIELD)
        if lid == LID_DISC and ctrl.subsys.disc_log:
            return self.disc_log(ctrl, cmd, lpo, 4 * numd)
        page = ctrl.log_page(lid)
        sc = self.scenario
        if lid == 0x0C and page and lpo == 0 and sc.take("ana-groups"):
            sc.record("ana-groups ANA log of %d groups, %d bytes"
                      % (ctrl.subsys.ana_groups, len(page)))
        if lid == 0x0C and page and sc.name == "ana-chgcnt":
            page = self.chgcnt_log(page, lpo, 4 * numd)
        return Completion(data=page[lpo:lpo + 4 * numd])

    def disc_log(self, ctrl, cmd, lpo, length):
        """Get Log Page, Discovery Log Page, LPO @lpo, @length bytes.

        The host reads the header, the entries, then the header again;
        that last one is told from the first by the entries read in
        between (one admin queue: the reads of a controller come one by
        one). The scenarios strike there."""
        sc = self.scenario
        dlog = ctrl.subsys.disc_log
        again = lpo < DISC_HDR and ctrl.disc_entries_read
        if lpo < DISC_HDR:
            ctrl.disc_entries_read = False
        if lpo + length > DISC_HDR:
            ctrl.disc_entries_read = True
        with ctrl.subsys.lock:
            if sc.is_("disc-genctr") and sc.taken < sc.count:
                dlog.genctr += 1
            page = bytearray(dlog.page())
            genctr = dlog.genctr
        numrec, = struct.unpack_from("<Q", page, 8)
        hdr = lpo < 24
        where = "CID 0x%x (cntlid %d, LPO %d, %d bytes)" % (
            cmd.cid, ctrl.cntlid, lpo, length)
        if again and sc.take("disc-genctr"):
            sc.record("disc-genctr header read again with GENCTR %d: it "
                      "moved at every read %s" % (genctr, where))
        elif again and sc.take("disc-numrec-shift"):
            put(page, 8, "Q", numrec + 1)
            sc.record("disc-numrec-shift header read again: GENCTR %d, "
                      "NUMREC %d -> %d %s" % (genctr, numrec, numrec + 1,
                                              where))
        elif hdr and not again and sc.take("disc-numrec-huge"):
            huge = (DISC_MAX_RECORDS + 1, (1 << 64) - 1)[
                (sc.taken - 1) % 2]
            put(page, 8, "Q", huge)
            sc.record("disc-numrec-huge NUMREC %d %s" % (huge, where))
        elif hdr and not again and sc.take("disc-recfmt"):
            put(page, 16, "H", 1)
            sc.record("disc-recfmt RECFMT 1 %s" % where)
        elif again and dlog.bad and sc.take("disc-bad-entries"):
            sc.record("disc-bad-entries log of %d records, %d malformed, "
                      "read whole (GENCTR %d) %s" %
                      (numrec, len(dlog.bad), genctr, where))
            if sc.taken >= sc.count:
                with ctrl.subsys.lock:
                    dlog.drop_bad()
                log("target: malformed entries gone: GENCTR %d" %
                    dlog.genctr)
        elif lpo >= DISC_HDR and sc.take("disc-short-log"):
            short = length // 2
            sc.record("disc-short-log %s: %d of %d bytes in a C2HData "
                      "without LAST_PDU, then success" %
                      (where, short, length))
            return Completion(data=bytes(page[lpo:lpo + length]),
                              short=short)
        return Completion(data=bytes(page[lpo:lpo + length]))

    def chgcnt_log(self, page, lpo, length):
        """ana-chgcnt: the log as of its CHGCNT, which moves from 1 to 2
        when the last piece of the first read has been sent. A later read
        from offset 0 of more than the header is the host reading it again
        (recorded as a second event)."""
        sc = self.scenario
        phase = sc.phase        # one admin queue: reads come one by one
        if phase == 1 and lpo == 0 and length > 16:
            sc.phase = 2
            sc.record("ana-chgcnt whole log read again (CHGCNT 2)")
        if phase:
            page = struct.pack("<Q", 2) + page[8:]
        if phase == 0 and lpo > 0 and lpo + length >= len(page) and \
                sc.take("ana-chgcnt"):
            sc.phase = 1
            sc.record("ana-chgcnt CHGCNT 1 -> 2 after the last piece "
                      "(offset %d)" % lpo)
        return page


class IoCommands:
    """NVM command set I/O commands (NVM Command Set 1.0, 3)."""

    def __init__(self, scenario):
        self.scenario = scenario

    def handle(self, conn, cmd):
        ns = conn.subsys.namespaces.get(cmd.nsid)
        if cmd.opcode == IO_FLUSH:
            return Completion() if ns or cmd.nsid == NSID_ALL else \
                Completion.error(SC_INVALID_NS)
        if cmd.opcode not in (IO_READ, IO_WRITE):
            return Completion.error(SC_INVALID_OPCODE)
        if ns is None:
            return Completion.error(SC_INVALID_NS)
        if not ns.check(cmd.slba, cmd.nlb):
            return Completion.error(SC_LBA_RANGE)
        if cmd.sgl_len != cmd.nlb << ns.shift:
            return Completion.error(SC_INVALID_FIELD)
        if cmd.opcode == IO_WRITE:
            ns.write(cmd.slba, cmd.data)
            return Completion()
        if self.scenario.take("stall-first-read", cmd=cmd):
            self.scenario.record("stall-first-read CID 0x%x (queue %d, LBA "
                                 "%d+%d) never answered" %
                                 (cmd.cid, conn.qid, cmd.slba, cmd.nlb))
            conn.held.append(cmd)
            return Completion.HOLD
        return Completion(data=ns.read(cmd.slba, cmd.nlb))


# ---- the listener -----------------------------------------------------------

class Target:
    """Listens, runs one thread per connection, stops on SIGTERM."""

    def __init__(self, args):
        self.scenario = Scenario(args.scenario, args.count, args.state,
                                 args.trigger_lba, args.event_after)
        self.scenario.disc_change_after = args.disc_change_after
        ana = args.ana_groups if args.scenario in ("ana-groups",
                                                   "ana-chgcnt") else 0
        disc_log = None
        if args.discovery:
            disc_log = DiscoveryLog(args.nqn, args.addr, args.port,
                                    args.disc_entries,
                                    bad=args.scenario == "disc-bad-entries",
                                    inject=args.scenario == "disc-inject",
                                    tls=args.disc_tls_entry or ())
        self.subsys = Subsystem(args.nqn, args.namespaces,
                                args.ns_size << 20, ana,
                                lbaf16=args.scenario == "lbaf16",
                                disc_log=disc_log)
        self.disc_change = threading.Event()    # SIGUSR1
        self.admin = AdminCommands(self.scenario)
        self.io = IoCommands(self.scenario)
        self.addr = (args.addr, args.port)
        self.c2h_success = args.c2h_success
        self.dhchap_keys = (args.dhchap_key, args.dhchap_ctrl_key)
        self.verbose = args.verbose
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.conns = set()
        self.listener = None

    def forget(self, conn):
        with self.lock:
            self.conns.discard(conn)

    def run(self):
        self.listener = socket.create_server(self.addr, reuse_port=False)
        self.listener.settimeout(0.2)
        log("target: %s listening on %s:%d%s" %
            (self.subsys.nqn, self.addr[0], self.addr[1],
             ", scenario %s x%d" % (self.scenario.name, self.scenario.count)
             if self.scenario.name else ""))
        if self.scenario.state_file:
            self.scenario.write_state()
        while not self.stop.is_set():
            if self.disc_change.is_set():
                self.disc_change.clear()
                self.subsys.disc_add_entry()
            try:
                sock, peer = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            sock.setblocking(True)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = Connection(self, sock, "%s:%d" % peer)
            with self.lock:
                self.conns.add(conn)
            threading.Thread(target=conn.serve, daemon=True,
                             name="conn-%s" % conn.peer).start()
        self.close()

    def close(self):
        if self.listener:
            self.listener.close()
        for ctrl in self.subsys.all_controllers():
            ctrl.stop()
        with self.lock:
            conns = list(self.conns)
        for conn in conns:
            conn.shutdown()

    def request_stop(self, *_):
        self.stop.set()

    def request_disc_change(self, *_):
        """SIGUSR1: the log gains an entry (done by the accept loop, not
        in the handler, which may interrupt a thread holding a lock)."""
        if self.subsys.disc_log:
            self.disc_change.set()


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="scenarios:\n" + "\n".join(
            "  %-20s %s" % kv for kv in SCENARIOS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--addr", default="127.0.0.1")
    p.add_argument("--port", type=int, default=4420)
    p.add_argument("--nqn", help="subsystem NQN (default: "
                   "nqn.2014-08.org.nvmexpress:nvfab-hostile, or with "
                   "--discovery the well-known discovery NQN)")
    p.add_argument("--discovery", action="store_true",
                   help="a discovery subsystem: no namespaces, the "
                   "Discovery Log Page; SIGUSR1 adds an entry to the log "
                   "and sends a DLP change AEN")
    p.add_argument("--disc-entries", type=int, default=3, metavar="N",
                   help="--discovery: NVM subsystem entries in the log")
    p.add_argument("--disc-tls-entry", action="append",
                   metavar="SUBNQN@TRADDR:TRSVCID",
                   help="--discovery: an NVM subsystem entry whose port "
                   "requires TLS 1.3 (repeatable)")
    p.add_argument("--disc-change-after", type=float, metavar="S",
                   help="--discovery: S seconds after the first AER, add "
                   "an entry and send a DLP change AEN (once)")
    p.add_argument("--namespaces", type=int, default=1)
    p.add_argument("--ns-size", type=int, default=64, metavar="MIB")
    p.add_argument("--scenario", choices=sorted(SCENARIOS))
    p.add_argument("--count", type=int, default=1,
                   help="misbehave this many times, then behave")
    p.add_argument("--trigger-lba", type=int, metavar="LBA",
                   help="I/O scenarios strike only on commands covering LBA")
    p.add_argument("--event-after", type=float, default=3.0, metavar="S",
                   help="ns-not-ready: seconds from the first AER to the AEN")
    p.add_argument("--ana-groups", type=int, default=65535, metavar="N")
    p.add_argument("--state", metavar="FILE",
                   help="keep the number of misbehaviours done in FILE")
    p.add_argument("--c2h-success", action="store_true",
                   help="complete reads with the C2HData SUCCESS flag")
    p.add_argument("--dhchap-key", metavar="DHHC-1",
                   help="the host's DH-HMAC-CHAP secret (chap-* scenarios)")
    p.add_argument("--dhchap-ctrl-key", metavar="DHHC-1",
                   help="the controller's secret: answer a host that "
                        "authenticates the controller")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args(argv)
    if not 1 <= args.ana_groups <= 65535:
        p.error("--ana-groups must be 1..65535")
    if args.namespaces < 1 or args.ns_size < 1:
        p.error("--namespaces and --ns-size must be positive")
    if args.scenario and args.scenario.startswith("disc-") and \
            not args.discovery:
        p.error("--scenario %s needs --discovery" % args.scenario)
    if not 0 <= args.disc_entries <= DISC_MAX_RECORDS - 64:
        p.error("--disc-entries must be 0..%d" % (DISC_MAX_RECORDS - 64))
    if args.nqn is None:
        args.nqn = DISC_NQN if args.discovery else \
            "nqn.2014-08.org.nvmexpress:nvfab-hostile"
    return args


def run_target(target, errors=OSError):
    """Run @target until SIGTERM or SIGINT; @errors end it with status 1.
    Used by the NVMe/RDMA target too."""
    signal.signal(signal.SIGTERM, target.request_stop)
    signal.signal(signal.SIGINT, target.request_stop)
    try:
        target.run()
    except errors as e:
        log("target: %s" % e)
        return 1
    log("target: stopped after %d misbehaviour(s)" % target.scenario.done)
    sys.stderr.flush()
    # Connection threads are daemons blocked in recv on closed sockets
    # (or polling their CQs): leave without waiting for them.
    os._exit(0)


def main(argv):
    target = Target(parse_args(argv))
    signal.signal(signal.SIGUSR1, target.request_disc_change)
    return run_target(target)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
