#!/usr/bin/env python3
"""Large synthetic archives around one real member, for the save benchmarks
(scripts/bench-save) and the memory tests of saves (tests/mount/crash.sh): the member
first, then 2 MiB members of noise (each a rotation of one random block) up to MIB MiB.

  big_archive.py afs MIB MEMBER OUT      CRI AFS, name table after the TOC (spec 7),
                                         MEMBER named MOTION.BIN, 2048-byte sectors
  big_archive.py pks MIB MEMBER OUT      PAKS > IPAC, canonical-32 (spec 4, 5), MEMBER
                                         as MOTION.MOTN, the noise as Nnnnnnnn.BIN
  big_archive.py package MIB JAZZ OUT    a Sims 3 package (DBPF 2.0, index type 0):
                                         JAZZ (a Jazz state machine; its instance from its
                                         first chunk key) stored RefPack-compressed, then
                                         the noise as raw _IMG resources

The package's Jazz is packed as RefPack literal runs only (spec 6.3: a valid stream,
larger than the body): what an edit recompresses is then a compressed member, as in
the game's packages.
"""
import os
import random
import struct
import sys

NOISE = 2 << 20


def noise_members(mib):
    # ANIMFS_NOISE_SEED: the same noise every run (a test that must not meet, by chance,
    # noise whose first bytes a codec's bid takes for its own header)
    seed = os.environ.get("ANIMFS_NOISE_SEED")
    block = random.Random(int(seed)).randbytes(NOISE) if seed else os.urandom(NOISE)
    return [block[i:] + block[:i] for i in range(int(mib) // 2)]


def afs(mib, member, out):
    members = [(b'MOTION.BIN', member)] + [(b'N%05d.BIN' % i, b) for i, b in enumerate(noise_members(mib))]
    first = -(-(8 + 8 * len(members) + 8) // 2048) * 2048
    toc, recs, pos = b'', b'', first
    with open(out, 'wb') as f:
        f.seek(first)
        for name, body in members:
            toc += struct.pack('<II', pos, len(body))
            recs += struct.pack('<32s6HI', name, 2000, 1, 1, 0, 0, 0, len(body))
            pad = (-len(body)) % 2048
            f.write(body + bytes(pad))
            pos += len(body) + pad
        f.write(recs + bytes((-len(recs)) % 2048))
        head = b'AFS\0' + struct.pack('<I', len(members)) + toc + struct.pack('<II', pos, len(recs))
        f.seek(0)
        f.write(head)


def pks(mib, member, out):
    members = [(b'MOTION', b'MOTN', member)] + [(b'N%07d' % i, b'BIN ', b) for i, b in enumerate(noise_members(mib))]
    base = 16
    with open(out, 'wb') as f:
        f.seek(base + 16)
        pos, dirbytes = 16, b''
        for name, kind, body in members:
            dirbytes += struct.pack('<8s4sII', name, kind, pos, len(body))
            pad = (-len(body)) % 32
            f.write(body + bytes(pad))
            pos += len(body) + pad
        f.write(dirbytes)
        f.seek(base)
        f.write(b'IPAC' + struct.pack('<III', pos, len(members), pos))
        f.seek(0)
        f.write(b'PAKS' + struct.pack('<III', base, 0x75BC0268, len(members)))


def refpack_literal(body):
    """A RefPack stream of literal runs only (spec 6.3), with its 3- or 4-byte size."""
    n = len(body)
    out = bytearray(b'\x10\xFB' + n.to_bytes(3, 'big') if n < 1 << 24 else b'\x90\xFB' + n.to_bytes(4, 'big'))
    pos = 0
    while n - pos > 3:
        run = min(112, (n - pos) // 4 * 4)
        out.append(0xE0 + run // 4 - 1)
        out += body[pos:pos + run]
        pos += run
    out.append(0xFC + (n - pos))
    out += body[pos:]
    return bytes(out)


def package(mib, jazz, out):
    inst = struct.unpack_from('<Q', jazz, 20)[0] if len(jazz) >= 28 else 1
    stored = refpack_literal(jazz)
    records = [(0x02D5DF13, inst, stored, len(jazz))]
    records += [(0x00B2D882, 0x1000 + i, b, len(b)) for i, b in enumerate(noise_members(mib))]
    index = bytearray(struct.pack('<I', 0))
    with open(out, 'wb') as f:
        f.seek(96)
        pos = 96
        for rtype, rinst, data, mem in records:
            comp = 0xFFFF if len(data) != mem else 0
            index += struct.pack('<IIIIIIIHH', rtype, 0, rinst >> 32, rinst & 0xFFFFFFFF, pos,
                                 len(data) | 0x80000000, mem, comp, 1)
            f.write(data)
            pos += len(data)
        f.write(index)
        head = bytearray(96)
        head[0:12] = b'DBPF' + struct.pack('<II', 2, 0)
        struct.pack_into('<I', head, 36, len(records))
        struct.pack_into('<II', head, 40, 0, len(index))
        struct.pack_into('<I', head, 60, 3)
        struct.pack_into('<I', head, 64, pos)
        f.seek(0)
        f.write(head)


def main(argv):
    if len(argv) != 5 or argv[1] not in ('afs', 'pks', 'package'):
        sys.exit(__doc__)
    member = open(argv[3], 'rb').read()
    {'afs': afs, 'pks': pks, 'package': package}[argv[1]](argv[2], member, argv[4])


if __name__ == '__main__':
    main(sys.argv)
