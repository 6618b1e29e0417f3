#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a Discovery Log Page (log 70h) fixture for the nvfabctl tests.

usage: mkdlp.py OUT [--genctr N] [--numrec N] [--recfmt N] [--size BYTES]
                [ENTRY...]

Each ENTRY is KEY=VALUE pairs separated by ';':
  trtype adrfam subtype treq portid cntlid asqsz eflags   numbers
  trsvcid traddr subnqn                                    strings, padded
                                                           with spaces
  pad=nul                   pad the strings with NULs instead
  raw_trsvcid raw_traddr raw_subnqn   the field's bytes, hex (rest padded
                                      with spaces)
  tsas0 tsas1 tsas2 pkey    the first TSAS bytes (sectype for tcp; qptype,
                            prtype, cms and the P_KEY for rdma)
Defaults: a tcp/ipv4 NVM subsystem entry, portid 1, cntlid 0xffff.
--numrec defaults to the number of ENTRYs; --size cuts or pads the file.
"""
import struct
import sys


def field(val, size, pad):
    raw = val if isinstance(val, bytes) else val.encode()
    if len(raw) > size:
        raise SystemExit(f"mkdlp: {raw!r} is longer than {size} bytes")
    return raw + pad * (size - len(raw))


def entry(spec):
    kv = {'trtype': '3', 'adrfam': '1', 'subtype': '2', 'treq': '0',
          'portid': '1', 'cntlid': '65535', 'asqsz': '32', 'eflags': '0',
          'trsvcid': '4420', 'traddr': '192.0.2.2',
          'subnqn': 'nqn.2014-08.org.example:sub1', 'tsas0': '0',
          'tsas1': '0', 'tsas2': '0', 'pkey': '0'}
    for item in filter(None, spec.split(';')):
        k, _, v = item.partition('=')
        kv[k] = v
    pad = b'\0' if kv.get('pad') == 'nul' else b' '
    e = bytearray(1024)
    struct.pack_into('<BBBBHHHH', e, 0, int(kv['trtype'], 0),
                     int(kv['adrfam'], 0), int(kv['subtype'], 0),
                     int(kv['treq'], 0), int(kv['portid'], 0),
                     int(kv['cntlid'], 0), int(kv['asqsz'], 0),
                     int(kv['eflags'], 0))
    for name, off, size in (('trsvcid', 32, 32), ('subnqn', 256, 256),
                            ('traddr', 512, 256)):
        if 'raw_' + name in kv:
            val = bytes.fromhex(kv['raw_' + name])
        else:
            val = kv[name]
        e[off:off + size] = field(val, size, pad)
    e[768] = int(kv['tsas0'], 0)
    e[769] = int(kv['tsas1'], 0)
    e[770] = int(kv['tsas2'], 0)
    struct.pack_into('<H', e, 776, int(kv['pkey'], 0))
    return bytes(e)


def main(argv):
    out, genctr, numrec, recfmt, size, entries = None, 1, None, 0, None, []
    it = iter(argv)
    for a in it:
        if a == '--genctr':
            genctr = int(next(it), 0)
        elif a == '--numrec':
            numrec = int(next(it), 0)
        elif a == '--recfmt':
            recfmt = int(next(it), 0)
        elif a == '--size':
            size = int(next(it), 0)
        elif out is None:
            out = a
        else:
            entries.append(entry(a))
    if out is None:
        raise SystemExit(__doc__)
    hdr = bytearray(1024)
    struct.pack_into('<QQH', hdr, 0, genctr,
                     len(entries) if numrec is None else numrec, recfmt)
    data = bytes(hdr) + b''.join(entries)
    if size is not None:
        data = data[:size] + b'\0' * max(0, size - len(data))
    with open(out, 'wb') as f:
        f.write(data)


if __name__ == '__main__':
    main(sys.argv[1:])
