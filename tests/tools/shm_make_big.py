#!/usr/bin/env python3
"""Synthetic Shenmue archives with many entries, for the "nothing quadratic" tests and
scripts/bench-archive (../shared/formats/shenmue-containers.md: PAKS 4, IPAC 5, AFS 7).
Most entries are empty (20 directory bytes each in a PKS), every 97th holds 4 bytes, and
names repeat on purpose so that the dedup rule (spec 10.1, `~N`) runs on every kind:

  - every 10th entry is the one before it in lower case (equal but for case);
  - every 1000th is DUP.BIN, and every 5000th is DUP~1.BIN: a name that the suffix of
    an earlier DUP.BIN also gives (suffixed names count as written);
  - the rest are E0000000, E0000001, ... (type CHRM).

  shm_make_big.py pks N OUT     PAKS > IPAC, canonical-32 (spec 5.3)
  shm_make_big.py afs N OUT     AFS with a name table after the TOC (pointer (a))
  shm_make_big.py bomb MIB OUT  a gzip member (spec 3) of MIB MiB of zeros, FNAME BOMB.PKS
                                (1024: a 1 GiB bomb in 1 MB)
  shm_make_big.py nest N OUT    an AFS of two members: SMALL.BIN (4 bytes) and BIG.PKS, the
                                PKS of N entries above (an archive nested in an archive)
  shm_make_big.py tad MIB OUT   OUT.tad and OUT.tac (Shenmue HD, spec 8): a TAC of MIB MiB
                                (sparse: zeros but for three 16-byte members at 0, 1 and 2
                                MiB) and the index naming them
"""
import struct
import sys
import zlib


def names(n):
    out = []
    for i in range(n):
        if i % 5000 == 4999:
            out.append((b'DUP~1', b'BIN '))
        elif i % 1000 == 999:
            out.append((b'DUP', b'BIN '))
        elif i % 10 == 9:
            out.append((out[-1][0].lower(), out[-1][1].lower()))
        else:
            out.append((b'E%07d' % i, b'CHRM'))
    return out


def body(i):
    return struct.pack('<I', i) if i % 97 == 0 else b''


def pks(n):
    data, dirs, pos = bytearray(), bytearray(), 16
    for i, (name, typ) in enumerate(names(n)):
        b = body(i)
        dirs += struct.pack('<8s4sII', name, typ, pos, len(b))
        data += b + bytes((-len(b)) % 32)
        pos += len(b) + (-len(b)) % 32
    ipac = b'IPAC' + struct.pack('<III', pos, n, pos) + bytes(data) + bytes(dirs)
    return b'PAKS' + struct.pack('<III', 16, 0, n) + ipac


def afs_of(members):
    """An AFS of (name, bytes) members, its name table after the TOC (pointer (a))."""
    n = len(members)
    first = -(-(8 + 8 * n + 8) // 2048) * 2048
    data, toc, recs, pos = bytearray(), bytearray(), bytearray(), first
    for name, b in members:
        toc += struct.pack('<II', pos, len(b))
        recs += struct.pack('<32s6HI', name, 2000, 1, 1, 0, 0, 0, len(b))
        pad = (-len(b)) % 2048
        data += b + bytes(pad)
        pos += len(b) + pad
    head = b'AFS\0' + struct.pack('<I', n) + bytes(toc) + struct.pack('<II', pos, len(recs))
    head += bytes(first - len(head))
    return head + bytes(data) + bytes(recs) + bytes((-len(recs)) % 2048)


def afs(n):
    members = []
    for i, (name, typ) in enumerate(names(n)):
        members.append((name + b'.' + typ.rstrip(b' ') if typ.strip() else name, body(i)))
    return afs_of(members)


def nest(n):
    return afs_of([(b'SMALL.BIN', b'\1\2\3\4'), (b'BIG.PKS', pks(n))])


def tad(mib, out):
    size, at = mib << 20, [0, 1 << 20, 2 << 20]
    head = bytearray(0x3C)
    struct.pack_into('<II', head, 0, 1, 5)
    struct.pack_into('<QQ', head, 0x28, size, len(at))
    entries = b''.join(struct.pack('<I12xQQ', 0x1000 + i, o, 16) for i, o in enumerate(at))
    with open(out + '.tad', 'wb') as f:
        f.write(bytes(head) + entries)
    with open(out + '.tac', 'wb') as f:
        for o in at:
            f.seek(o)
            f.write(bytes(range(1, 17)))
        f.truncate(size)


def bomb(mib):
    # each MiB of zeros compressed once and ended by a full flush, which resets the
    # compressor: every further MiB compresses to the same bytes, so they are repeated
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk, crc = bytes(1 << 20), 0
    one = z.compress(chunk) + z.flush(zlib.Z_FULL_FLUSH)
    for _ in range(mib):
        crc = zlib.crc32(chunk, crc)
    parts = [one * mib, z.flush()]
    head = b'\x1f\x8b\x08\x08' + struct.pack('<I', 0) + b'\x02\x03' + b'BOMB.PKS\0'
    return head + b''.join(parts) + struct.pack('<II', crc, (mib << 20) & 0xFFFFFFFF)


def main():
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if kind == 'tad':
        tad(n, out)
        return
    with open(out, 'wb') as f:
        f.write({'pks': pks, 'afs': afs, 'bomb': bomb, 'nest': nest}[kind](n))


if __name__ == '__main__':
    main()
