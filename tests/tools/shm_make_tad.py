#!/usr/bin/env python3
"""Write a TAD/TAC pair (spec 8.1, 8.2) holding the given files, for the tests: the
header checksum is MurmurHash2 (seed 0x066EE5D0) of bytes 0x00-0x37 with 0x20 zeroed.
  shm_make_tad.py OUT.tad OUT.tac FILE..."""
import struct
import sys


def murmur2(data, seed):
    m, h = 0x5BD1E995, (seed ^ len(data)) & 0xFFFFFFFF
    i = 0
    while len(data) - i >= 4:
        k = struct.unpack_from('<I', data, i)[0]
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
        i += 4
    rest = data[i:]
    if rest:
        for j in range(len(rest) - 1, -1, -1):
            h ^= rest[j] << (8 * j)
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    return h ^ (h >> 15)


tad_path, tac_path, files = sys.argv[1], sys.argv[2], sys.argv[3:]
tac, entries = b'', b''
for i, f in enumerate(files):
    body = open(f, 'rb').read()
    entries += struct.pack('<IIIIQQ', 0x1000 + i, 0x2000 + i, 0, 0, len(tac), len(body))
    tac += body
head = bytearray(struct.pack('<IIIIII4sIIIQQI', 1, 5, 2, 0, 0x5B8DB6AC, 0, b'dx11', 0, 0, 0,
                             len(tac), len(files), len(files)))
struct.pack_into('<I', head, 0x20, murmur2(bytes(head[:0x38]), 0x066EE5D0))
open(tad_path, 'wb').write(bytes(head) + entries)
open(tac_path, 'wb').write(tac)
