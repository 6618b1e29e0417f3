# SPDX-License-Identifier: GPL-2.0
"""DH-HMAC-CHAP, the controller's side, for the hostile target.

NVMe Base 2.0, 8.13.5 (the messages of TP 8006): one transaction per
queue, driven by the host's Authentication Send and Receive commands.
The target answers right, or breaks one field of one message on purpose
(a "fault"), so that a test sees the host refuse it on arrival.

The keys are nvme-cli's DHHC-1 secrets; a key with a hash ID is
transformed with the NQN of its owner, as the kernel's nvme-auth does.
DH uses ffdhe2048 (RFC 7919) through pow(): the target never needs the
larger groups to test the host's checks.
"""

import base64
import hashlib
import hmac
import os
import struct
import zlib

HASHES = {1: "sha256", 2: "sha384", 3: "sha512"}
HASH_LEN = {1: 32, 2: 48, 3: 64}
DH_NULL, DH_FFDHE2048 = 0, 1

# RFC 7919, appendix A.1; generator 2.
FFDHE2048_P = int(
    "FFFFFFFFFFFFFFFFADF85458A2BB4A9AAFDC5620273D3CF1D8B9C583CE2D3695"
    "A9E13641146433FBCC939DCE249B3EF97D2FE363630C75D8F681B202AEC4617A"
    "D3DF1ED5D5FD65612433F51F5F066ED0856365553DED1AF3B557135E7F57C935"
    "984F0C70E0E68B77E2A689DAF3EFE8721DF158A136ADE73530ACCA4F483A797A"
    "BC0AB182B324FB61D108A94BB2C8E3FBB96ADAB760D7F4681D4F42A3DE394DF4"
    "AE56EDE76372BB190B07A7C8EE0A6D709E02FCE1CDF7E2ECC03404CD28342F61"
    "9172FE9CE98583FF8E4F1232EEF28183C3FE3B1B4C6FAD733BB5FCBC2EC22005"
    "C58EF1837D1683B2C6F34A26C1B2EFFA886B423861285C97FFFFFFFFFFFFFFFF"
    , 16)
FFDHE2048_BYTES = 256

AUTH_COMMON, AUTH_DHCHAP = 0x00, 0x01
MSG_NEGOTIATE, MSG_CHALLENGE, MSG_REPLY = 0x00, 0x01, 0x02
MSG_SUCCESS1, MSG_SUCCESS2 = 0x03, 0x04
MSG_FAILURE2, MSG_FAILURE1 = 0xF0, 0xF1     # include/linux/nvme.h
AUTH_ID_DHCHAP = 0x01
RESCODE_FAILED = 0x01
REXP_FAILED = 0x01            # authentication failed

# What each fault breaks; the scenario of the same name in the target.
FAULTS = {
    "chap-tid": "a Challenge whose T_ID is not the Negotiate's",
    "chap-hash": "a Challenge naming hash 7, which the host did not offer",
    "chap-dhgroup": "a Challenge naming DH group 9, not offered",
    "chap-dh0": "a DH value of 0",
    "chap-dh1": "a DH value of 1",
    "chap-dhp1": "a DH value of p-1",
    "chap-dhp": "a DH value of p, the group's prime itself",
    "chap-dhvlen": "DHVLEN 128 for ffdhe2048 (256 bytes)",
    "chap-hl": "HL 20, not the hash's length",
    "chap-failure1": "a Failure1 instead of the Challenge",
    "chap-bad-r2": "a Success1 whose response (R2) is wrong",
    "chap-no-r2": "a Success1 without R2 although the host sent C2",
    "chap-wrong-host": "the host's response is refused (Failure1)",
}


class AuthError(Exception):
    """The host sent something the controller refuses."""


def parse_secret(secret):
    """A DHHC-1 secret: (hash ID of its transformation, key bytes)."""
    parts = secret.strip().split(":")
    if len(parts) < 3 or parts[0] != "DHHC-1":
        raise ValueError("not a DHHC-1 secret")
    raw = base64.b64decode(parts[2])
    key, crc = raw[:-4], struct.unpack("<I", raw[-4:])[0]
    if zlib.crc32(key) & 0xFFFFFFFF != crc:
        raise ValueError("DHHC-1 secret with a wrong CRC")
    return int(parts[1], 16), key


def transform(secret, nqn):
    """The key as nvme-auth uses it: HMAC(key, NQN || "NVMe-over-Fabrics")
    with the secret's own hash, or the key itself for hash ID 0."""
    hid, key = parse_secret(secret)
    if hid == 0:
        return key
    return hmac.new(key, nqn.encode() + b"NVMe-over-Fabrics",
                    HASHES[hid]).digest()


class Transaction:
    """One queue's DH-HMAC-CHAP, controller side.

    send(data) takes an Authentication Send's data; receive(al) gives an
    Authentication Receive's. Both raise AuthError for what a controller
    refuses (the target answers with an error status). @done is True after
    the host's Success2, or after Success1 without a controller check.
    """

    def __init__(self, host_secret, ctrl_secret, hostnqn, subnqn,
                 hash_id=1, dh_id=DH_FFDHE2048, fault=None):
        self.kh = transform(host_secret, hostnqn) if host_secret else None
        self.kc = transform(ctrl_secret, subnqn) if ctrl_secret else None
        self.hostnqn, self.subnqn = hostnqn, subnqn
        self.hash_id, self.dh_id = hash_id, dh_id
        self.fault = fault
        self.step = "negotiate"
        self.done = False
        self.faulted = None     # what the target broke, once it did
        self.t_id = 0
        self.pending = None     # the next Receive's message

    def _hmac(self, key, data):
        return hmac.new(key, data, HASHES[self.hash_id]).digest()

    def _augment(self, c):
        if self.dh_id == DH_NULL:
            return c
        hashed = hashlib.new(HASHES[self.hash_id], self.sess).digest()
        return self._hmac(hashed, c)

    def _response(self, key, ca, seq, label, nqn_a, nqn_b):
        return self._hmac(key, ca + struct.pack("<IHB", seq, self.t_id, 0) +
                          label + nqn_a.encode() + b"\0" + nqn_b.encode())

    def _failure1(self):
        return struct.pack("<BBHHBB", AUTH_COMMON, MSG_FAILURE1, 0,
                           self.t_id, RESCODE_FAILED, REXP_FAILED)

    # ---- Authentication Send -----------------------------------------------

    def send(self, data):
        data = bytes(data or b"")
        if len(data) < 6:
            raise AuthError("message of %d bytes" % len(data))
        atype, aid = data[0], data[1]
        if aid == MSG_FAILURE2:
            self.step = "over"
            return
        if self.step == "negotiate":
            self._negotiate(data, atype, aid)
        elif self.step == "reply":
            self._reply(data, atype, aid)
        elif self.step == "success2":
            if (atype, aid) != (AUTH_DHCHAP, MSG_SUCCESS2):
                raise AuthError("expected Success2, got %d/%d" % (atype, aid))
            if struct.unpack_from("<H", data, 4)[0] != self.t_id:
                raise AuthError("Success2 T_ID")
            self.step = "over"
            self.done = True
        else:
            raise AuthError("message after the transaction")

    def _negotiate(self, data, atype, aid):
        if (atype, aid) != (AUTH_COMMON, MSG_NEGOTIATE) or len(data) < 8:
            raise AuthError("expected Negotiate, got %d/%d" % (atype, aid))
        self.t_id, _sc_c, napd = struct.unpack_from("<HBB", data, 4)
        hashes, groups = [], []
        for i in range(napd):
            off = 8 + 64 * i
            if off + 64 > len(data):
                raise AuthError("Negotiate shorter than NAPD %d" % napd)
            authid, _, halen, dhlen = struct.unpack_from("<BBBB", data, off)
            if authid == AUTH_ID_DHCHAP:
                hashes = list(data[off + 4:off + 4 + halen])
                groups = list(data[off + 34:off + 34 + dhlen])
        if self.hash_id not in hashes or self.dh_id not in groups:
            raise AuthError("host offers hashes %s, groups %s" %
                            (hashes, groups))
        self.pending = self._challenge()
        self.step = "reply"

    def _challenge(self):
        f = self.fault
        hl = HASH_LEN[self.hash_id]
        self.c1 = os.urandom(hl)
        self.s1 = struct.unpack("<I", os.urandom(4))[0] | 1
        dh = b""
        if self.dh_id == DH_FFDHE2048:
            self.x = int.from_bytes(os.urandom(32), "big") | 1
            pub = pow(2, self.x, FFDHE2048_P)
            if f == "chap-dh0":
                pub = 0
            elif f == "chap-dh1":
                pub = 1
            elif f == "chap-dhp1":
                pub = FFDHE2048_P - 1
            elif f == "chap-dhp":
                pub = FFDHE2048_P
            dh = pub.to_bytes(FFDHE2048_BYTES, "big")
        if f == "chap-failure1":
            self.faulted = FAULTS[f]
            self.step = "over"
            return self._failure1()
        t_id, hl_f, hid, dhg, dhvlen = self.t_id, hl, self.hash_id, \
            self.dh_id, len(dh)
        if f == "chap-tid":
            t_id ^= 0x5A5A
        elif f == "chap-hash":
            hid = 7
        elif f == "chap-dhgroup":
            dhg = 9
        elif f == "chap-dhvlen":
            dhvlen, dh = 128, dh[:128]
        elif f == "chap-hl":
            hl_f = 20
        if f in FAULTS and f not in ("chap-bad-r2", "chap-no-r2",
                                     "chap-wrong-host"):
            self.faulted = FAULTS[f]
        return struct.pack("<BBHHBBBBHI", AUTH_DHCHAP, MSG_CHALLENGE, 0,
                           t_id, hl_f, 0, hid, dhg, dhvlen, self.s1) + \
            self.c1[:hl_f] + dh

    def _reply(self, data, atype, aid):
        if (atype, aid) != (AUTH_DHCHAP, MSG_REPLY) or len(data) < 16:
            raise AuthError("expected Reply, got %d/%d" % (atype, aid))
        t_id, hl, _, cvalid, _, dhvlen, s2 = struct.unpack_from(
            "<HBBBBHI", data, 4)
        hlen = HASH_LEN[self.hash_id]
        if t_id != self.t_id or hl != hlen or \
                len(data) < 16 + 2 * hl + dhvlen:
            raise AuthError("Reply T_ID %d HL %d DHVLEN %d" %
                            (t_id, hl, dhvlen))
        r1 = data[16:16 + hl]
        c2 = data[16 + hl:16 + 2 * hl]
        if self.dh_id == DH_FFDHE2048:
            if dhvlen != FFDHE2048_BYTES:
                raise AuthError("Reply DHVLEN %d" % dhvlen)
            hpub = int.from_bytes(data[16 + 2 * hl:16 + 2 * hl + dhvlen],
                                  "big")
            if hpub <= 1 or hpub >= FFDHE2048_P - 1:
                raise AuthError("host DH value out of range")
            self.sess = pow(hpub, self.x, FFDHE2048_P).to_bytes(
                FFDHE2048_BYTES, "big")
        want = self._response(self.kh, self._augment(self.c1), self.s1,
                              b"HostHost", self.hostnqn, self.subnqn)
        if not hmac.compare_digest(r1, want) or \
                self.fault == "chap-wrong-host":
            self.pending = self._failure1()
            self.step = "over"
            return
        rvalid = bool(cvalid and self.kc)
        r2 = b""
        if rvalid:
            r2 = self._response(self.kc, self._augment(c2), s2,
                                b"Controller", self.subnqn, self.hostnqn)
            if self.fault == "chap-bad-r2":
                r2 = bytes([r2[0] ^ 0xFF]) + r2[1:]
                self.faulted = FAULTS["chap-bad-r2"]
        if cvalid and self.fault == "chap-no-r2":
            rvalid, r2 = False, b""
            self.faulted = FAULTS["chap-no-r2"]
        self.pending = struct.pack("<BBHHBBB7x", AUTH_DHCHAP, MSG_SUCCESS1, 0,
                                   self.t_id, hl, 0, int(rvalid)) + r2
        self.step = "success2" if cvalid else "over"
        self.done = not cvalid

    # ---- Authentication Receive --------------------------------------------

    def receive(self, al):
        if self.pending is None:
            raise AuthError("Receive with no message to give")
        msg, self.pending = self.pending, None
        if len(msg) > al:
            raise AuthError("AL %d below the message's %d bytes" %
                            (al, len(msg)))
        return msg
