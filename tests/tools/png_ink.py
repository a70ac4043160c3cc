#!/usr/bin/env python3
"""png_ink.py FILE.png: prints the share of pixels that are not the background colour
(the top-left pixel) and the number of distinct colours; exit 1 when the picture is blank
(under 1% ink or a single colour). 8-bit RGB/RGBA/grey PNGs, no external modules."""
import struct
import sys
import zlib


def size(path):
    """(width, height) from the IHDR."""
    data = open(path, "rb").read(24)
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    return struct.unpack(">II", data[16:24])


def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (0, 2, 4, 6), "unsupported PNG kind"
            bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return [r[i:i + bpp] for r in rows for i in range(0, stride, bpp)]


if __name__ == "__main__":
    px = pixels(sys.argv[1])
    bg = px[0]
    ink = sum(1 for p in px if p != bg) / len(px)
    colours = len(set(px))
    print(f"{sys.argv[1]}: {ink * 100:.1f}% ink, {colours} colours")
    sys.exit(0 if ink >= 0.01 and colours > 1 else 1)
