#!/usr/bin/env python3
"""An independent reader of The Sims 3 packages (DBPF 2.0), written from
shared/formats/sims3-jazz.md 5.1, 5.5 and 6.1-6.3 (the header, every index type,
RefPack, the _KEY map, FNV-1), for the mount tests of packages that gain and lose
resources.

    pkgread.py diff ORIG NEW   one line per record of NEW against ORIG, by key:
                               "same T G I" (stored bytes identical), "body T G I"
                               (stored bytes differ, unpacked body identical),
                               "changed T G I", "added T G I"; "removed T G I" for
                               records of ORIG that NEW lacks; then "order ok" when
                               the records both have keep their index order
    pkgread.py keys P          the _KEY entries: "KEY TEXT", in map order
    pkgread.py body P T I      the unpacked body of the record of type T, instance I (hex)
    pkgread.py fnv64 NAME      FNV-1 64 of the lower-cased name
"""
import struct
import sys


def fnv64(name):
    h = 0xCBF29CE484222325
    for c in name.lower().encode("ascii"):
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        h ^= c
    return h


def records(data):
    assert data[:4] == b"DBPF" and struct.unpack_from("<II", data, 4) == (2, 0)
    count, = struct.unpack_from("<I", data, 36)
    size, = struct.unpack_from("<I", data, 44)
    off, = struct.unpack_from("<I", data, 64)
    if count == 0:
        return []
    ix = data[off:off + size]
    itype, = struct.unpack_from("<I", ix, 0)
    pos, shared = 4, [None, None, None]
    for k in range(3):
        if itype >> k & 1:
            shared[k], = struct.unpack_from("<I", ix, pos)
            pos += 4
    out = []
    for _ in range(count):
        key = []
        for k in range(3):
            if itype >> k & 1:
                key.append(shared[k])
            else:
                key.append(struct.unpack_from("<I", ix, pos)[0])
                pos += 4
        lo, doff, fsize, msize, comp, _committed = struct.unpack_from("<IIIIHH", ix, pos)
        pos += 20
        stored = fsize & 0x7FFFFFFF
        out.append({"type": key[0], "group": key[1], "inst": key[2] << 32 | lo,
                    "stored": data[doff:doff + stored], "mem": msize,
                    "deleted": stored == 1 and msize == 0xFFFFFFFF})
    return out


def refpack(src, size):
    flags = src[0]
    assert src[1] == 0xFB
    width = 4 if flags & 0x80 else 3
    pos = 2 + (width if flags & 1 else 0) + width
    out = bytearray()
    while True:
        b0 = src[pos]
        if b0 < 0x80:
            b1 = src[pos + 1]
            lit, n, dist, pos = b0 & 3, ((b0 >> 2) & 7) + 3, ((b0 & 0x60) << 3 | b1) + 1, pos + 2
        elif b0 < 0xC0:
            b1, b2 = src[pos + 1], src[pos + 2]
            lit, n, dist, pos = b1 >> 6, (b0 & 0x3F) + 4, ((b1 & 0x3F) << 8 | b2) + 1, pos + 3
        elif b0 < 0xE0:
            b1, b2, b3 = src[pos + 1:pos + 4]
            lit, n = b0 & 3, ((b0 & 0x0C) << 6 | b3) + 5
            dist, pos = ((b0 & 0x10) << 12 | b1 << 8 | b2) + 1, pos + 4
        elif b0 < 0xFC:
            lit, n, dist, pos = ((b0 & 0x1F) + 1) * 4, 0, 0, pos + 1
        else:
            out += src[pos + 1:pos + 1 + (b0 & 3)]
            break
        out += src[pos:pos + lit]
        pos += lit
        for _ in range(n):
            out.append(out[-dist])
    assert len(out) == size
    return bytes(out)


def body(r):
    if len(r["stored"]) == r["mem"]:
        return r["stored"]
    return refpack(r["stored"], r["mem"])


def keymap(b):
    version, count = struct.unpack_from("<Ii", b, 0)
    assert version == 1
    pos, out = 8, []
    for _ in range(count):
        key, n = struct.unpack_from("<QI", b, pos)
        out.append((key, b[pos + 12:pos + 12 + n].decode("ascii")))
        pos += 12 + n
    assert pos == len(b), "the _KEY map does not end where its entries do"
    return out


def tag(r):
    return "%08X %08X %016X" % (r["type"], r["group"], r["inst"])


def diff(a, b):
    old = {tag(r): r for r in a if not r["deleted"]}
    new = {tag(r): r for r in b if not r["deleted"]}
    for r in b:
        t = tag(r)
        if t not in old:
            print("added", t)
        elif r["stored"] == old[t]["stored"]:
            print("same", t)
        elif body(r) == body(old[t]):
            print("body", t)
        else:
            print("changed", t)
    for r in a:
        if tag(r) not in new:
            print("removed", tag(r))
    both = [tag(r) for r in a if tag(r) in new]
    print("order ok" if both == [tag(r) for r in b if tag(r) in old] else "order changed")


def main(argv):
    read = lambda p: records(open(p, "rb").read())
    if argv[1] == "diff":
        diff(read(argv[2]), read(argv[3]))
    elif argv[1] == "keys":
        for r in read(argv[2]):
            if r["type"] == 0x0166038C and not r["deleted"]:
                for key, text in keymap(body(r)):
                    print("%016X %s" % (key, text))
    elif argv[1] == "body":
        t, i = int(argv[3], 16), int(argv[4], 16)
        r = [r for r in read(argv[2]) if r["type"] == t and r["inst"] == i][0]
        sys.stdout.buffer.write(body(r))
    elif argv[1] == "fnv64":
        print("%016X" % fnv64(argv[2]))


if __name__ == "__main__":
    main(sys.argv)
