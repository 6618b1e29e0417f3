#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the hostile target's DH-HMAC-CHAP controller (dhchap.py).

A host written here from NVMe Base 2.0, 8.13.5 runs transactions against
it: a right one (host only and bidirectional) completes, each fault breaks
the field it names, and the target refuses a wrong host response. The
kernel side (nvfab's core/auth.c, nvmet, the in-kernel host) is tested in
the guests; this keeps the target honest, so that a refusal seen there is
the host's check and not a broken target.
"""

import base64
import hashlib
import hmac
import os
import struct
import sys
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dhchap  # noqa: E402

HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:0f9e8d7c-6b5a-4938-8271-605f4e3d2c1b"
SUBNQN = "nqn.2014-08.org.nvmexpress:nvfab-hostile-chap"
HDR = "<BBHHBBBBHI"


def secret(hid, key=None):
    key = key or os.urandom(32)
    return "DHHC-1:%02x:%s:" % (hid, base64.b64encode(
        key + struct.pack("<I", zlib.crc32(key))).decode())


def negotiate(t_id, hashes=(1, 2, 3), groups=(0, 1, 2, 3, 4, 5)):
    idlist = bytes(hashes) + bytes(30 - len(hashes)) + bytes(groups) + \
        bytes(30 - len(groups))
    return struct.pack("<BBHHBB", 0, 0, 0, t_id, 0, 1) + \
        struct.pack("<BBBB", 1, 0, len(hashes), len(groups)) + idlist


class Host:
    """The host's side of one transaction, enough to drive the target."""

    t_id = 0x4321

    def __init__(self, hkey, ckey=None, wrong_r1=False):
        self.hkey, self.ckey, self.wrong_r1 = hkey, ckey, wrong_r1

    def run(self, tx):
        """Return (challenge fields or None, Success1 or Failure1 bytes)."""
        tx.send(negotiate(self.t_id))
        ch = tx.receive(4096)
        if ch[1] == dhchap.MSG_FAILURE1:
            return None, ch
        f = struct.unpack_from(HDR, ch)
        _, _, _, t_id, hl, _, hid, dhg, dhvlen, s1 = f
        c1 = ch[16:16 + hl]
        name = dhchap.HASHES[hid]
        y = int.from_bytes(os.urandom(32), "big") | 1
        cpub = int.from_bytes(ch[16 + hl:16 + hl + dhvlen], "big")
        sess = pow(cpub, y, dhchap.FFDHE2048_P).to_bytes(256, "big")

        def aug(c):
            return hmac.new(hashlib.new(name, sess).digest(), c,
                            name).digest()

        kh = dhchap.transform(self.hkey, HOSTNQN)
        r1 = hmac.new(kh, aug(c1) + struct.pack("<IHB", s1, t_id, 0) +
                      b"HostHost" + HOSTNQN.encode() + b"\0" +
                      SUBNQN.encode(), name).digest()
        if self.wrong_r1:
            r1 = bytes(hl)
        self.c2 = os.urandom(hl)
        self.s2 = 9 if self.ckey else 0
        self.aug, self.name = aug, name
        tx.send(struct.pack(HDR, 1, 2, 0, t_id, hl, 0, int(bool(self.ckey)),
                            0, 256, self.s2) + r1 + self.c2 +
                pow(2, y, dhchap.FFDHE2048_P).to_bytes(256, "big"))
        return f, tx.receive(4096)

    def want_r2(self):
        kc = dhchap.transform(self.ckey, SUBNQN)
        return hmac.new(kc, self.aug(self.c2) +
                        struct.pack("<IHB", self.s2, self.t_id, 0) +
                        b"Controller" + SUBNQN.encode() + b"\0" +
                        HOSTNQN.encode(), self.name).digest()


class DhchapTest(unittest.TestCase):
    def setUp(self):
        self.hk, self.ck = secret(1), secret(2)

    def tx(self, fault=None, ctrl=True):
        return dhchap.Transaction(self.hk, self.ck if ctrl else None,
                                  HOSTNQN, SUBNQN, fault=fault)

    def test_secret_crc(self):
        key = os.urandom(48)
        self.assertEqual(dhchap.parse_secret(secret(3, key)), (3, key))
        bad = secret(0)[:-6] + "AAAA=:"
        with self.assertRaises(ValueError):
            dhchap.parse_secret(bad)

    def test_ffdhe2048_is_the_rfc_prime(self):
        p = dhchap.FFDHE2048_P
        self.assertEqual(p.bit_length(), 2048)
        self.assertEqual(p >> 1984, (1 << 64) - 1)     # 64 ones, RFC 7919
        self.assertEqual(p & ((1 << 64) - 1), (1 << 64) - 1)

    def test_host_only(self):
        tx = self.tx(ctrl=False)
        _, s1 = Host(self.hk).run(tx)
        self.assertEqual(s1[1], dhchap.MSG_SUCCESS1)
        self.assertEqual(s1[8], 0)                     # RVALID
        self.assertTrue(tx.done)

    def test_bidirectional(self):
        tx, host = self.tx(), Host(self.hk, self.ck)
        _, s1 = host.run(tx)
        self.assertEqual((s1[1], s1[8]), (dhchap.MSG_SUCCESS1, 1))
        self.assertEqual(s1[16:], host.want_r2())
        self.assertFalse(tx.done)
        tx.send(struct.pack("<BBHH10x", 1, 4, 0, host.t_id))
        self.assertTrue(tx.done)

    def test_wrong_host_key(self):
        _, msg = Host(secret(1), self.ck).run(self.tx())
        self.assertEqual(msg[1], dhchap.MSG_FAILURE1)

    def challenge(self, fault):
        tx = self.tx(fault)
        tx.send(negotiate(Host.t_id))
        msg = tx.receive(4096)
        return tx, msg, struct.unpack_from(HDR, msg) if len(msg) >= 16 \
            else None

    def test_challenge_faults(self):
        for fault, check in (
                ("chap-tid", lambda f: f[3] != Host.t_id),
                ("chap-hash", lambda f: f[6] == 7),
                ("chap-dhgroup", lambda f: f[7] == 9),
                ("chap-hl", lambda f: f[4] == 20),
                ("chap-dhvlen", lambda f: f[8] == 128),
        ):
            with self.subTest(fault=fault):
                tx, _, f = self.challenge(fault)
                self.assertTrue(check(f), fault)
                self.assertEqual(tx.faulted, dhchap.FAULTS[fault])
        tx, msg, _ = self.challenge("chap-failure1")
        self.assertEqual(msg[1], dhchap.MSG_FAILURE1)
        # the host's Failure2 after a refused Challenge ends it
        tx, _, _ = self.challenge("chap-hash")
        tx.send(struct.pack("<BBHHBB", 0, dhchap.MSG_FAILURE2, 0,
                            Host.t_id, 1, 1))
        self.assertEqual(tx.step, "over")

    def test_reply_faults(self):
        _, m = Host(self.hk, self.ck).run(self.tx("chap-wrong-host"))
        self.assertEqual(m[1], dhchap.MSG_FAILURE1)
        _, m = Host(self.hk, self.ck).run(self.tx("chap-no-r2"))
        self.assertEqual((m[1], m[8]), (dhchap.MSG_SUCCESS1, 0))

    def test_bad_r2(self):
        host = Host(self.hk, self.ck)
        _, s1 = host.run(self.tx("chap-bad-r2"))
        self.assertEqual(s1[8], 1)
        self.assertNotEqual(s1[16:], host.want_r2())

    def test_dh_values(self):
        for fault, want in (("chap-dh0", 0), ("chap-dh1", 1),
                            ("chap-dhp1", dhchap.FFDHE2048_P - 1),
                            ("chap-dhp", dhchap.FFDHE2048_P)):
            with self.subTest(fault=fault):
                tx = self.tx(fault)
                tx.send(negotiate(5))
                ch = tx.receive(4096)
                hl = ch[6]
                self.assertEqual(int.from_bytes(ch[16 + hl:], "big"), want)

    def test_message_out_of_order(self):
        tx = self.tx()
        with self.assertRaises(dhchap.AuthError):
            tx.send(struct.pack("<BBHH10x", 1, 4, 0, 1))  # Success2 first
        with self.assertRaises(dhchap.AuthError):
            tx.receive(4096)                              # nothing to give


if __name__ == "__main__":
    unittest.main()
