#!/usr/bin/env python3
"""Write a small DBPF 2.0 package (The Sims 3), from the layout in
shared/formats/sims3-jazz.md: a 96-byte header, the resources stored raw, then an
index of type 0 (no shared fields), 32 bytes an entry.

    mkpackage.py OUT TYPE:INSTANCE:FILE ...   (TYPE and INSTANCE in hex)
"""
import struct
import sys


def main(argv):
    out, specs = argv[1], argv[2:]
    body, index = bytearray(), bytearray(struct.pack("<I", 0))
    for spec in specs:
        rtype, inst, path = spec.split(":", 2)
        data = open(path, "rb").read()
        inst = int(inst, 16)
        index += struct.pack("<IIIIIIIHH", int(rtype, 16), 0, inst >> 32, inst & 0xFFFFFFFF,
                             96 + len(body), len(data) | 0x80000000, len(data), 0, 1)
        body += data
    ioff = 96 + len(body)
    head = bytearray(96)
    head[0:12] = b"DBPF" + struct.pack("<II", 2, 0)
    struct.pack_into("<I", head, 36, len(specs))
    struct.pack_into("<II", head, 40, ioff, len(index))
    struct.pack_into("<I", head, 60, 3)
    struct.pack_into("<I", head, 64, ioff)
    open(out, "wb").write(bytes(head + body + index))


if __name__ == "__main__":
    main(sys.argv)
