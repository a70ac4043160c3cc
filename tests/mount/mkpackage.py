#!/usr/bin/env python3
"""Write a small DBPF 2.0 package (The Sims 3), from the layout in
shared/formats/sims3-jazz.md: a 96-byte header, the resources stored raw, then an
index of type 0 (no shared fields), 32 bytes an entry.

    mkpackage.py OUT TYPE:INSTANCE:FILE ...   (TYPE and INSTANCE in hex)

FILE "broken-refpack=PATH" stores a resource marked RefPack-compressed that declares
PATH's length but stops after its first 112 bytes (one literal run): its head reads
(a listing takes it for a member), its body does not unpack.
"""
import struct
import sys


def main(argv):
    out, specs = argv[1], argv[2:]
    body, index = bytearray(), bytearray(struct.pack("<I", 0))
    for spec in specs:
        rtype, inst, path = spec.split(":", 2)
        if path.startswith("broken-refpack="):  # flags, magic, size, 112 literals, stop
            whole = open(path.split("=", 1)[1], "rb").read()
            data = b"\x10\xfb" + len(whole).to_bytes(3, "big") + b"\xfb" + whole[:112] + b"\xfc"
            mem, comp = len(whole), 0xFFFF
        else:
            data = open(path, "rb").read()
            mem, comp = len(data), 0
        inst = int(inst, 16)
        index += struct.pack("<IIIIIIIHH", int(rtype, 16), 0, inst >> 32, inst & 0xFFFFFFFF,
                             96 + len(body), len(data) | 0x80000000, mem, comp, 1)
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
