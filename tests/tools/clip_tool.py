#!/usr/bin/env python3
"""An independent CLIP reader/writer for the tests (formats/sims3-clip.md), not sharing
code with the codec:
  clip_tool.py build OUT            a small synthetic clip (2 channels, IK, 1 event)
  clip_tool.py frame FILE CH I      "OFFSET LENGTH" of frame I of channel CH
  clip_tool.py diff A B             the offsets where A and B differ, one a line"""
import struct
import sys

FRAME_BYTES = {5: 2, 18: 4, 20: 8, 11: 0}


def build(out):
    name, src = b"a_tool_x\0", b"tool.blend\0"
    chans = [  # type, sub, offset, scale, frames [(tick, flags, value bytes)]
        (20, 2, 0.0, 1.0, [(t, 0, struct.pack("<4H", 40 * t, 0, 0, 4095)) for t in range(6)]),
        (18, 1, 0.0, 2.0, [(t, 1, struct.pack("<I", 1023 | (512 + t) << 10)) for t in (0, 2, 5)]),
    ]
    head = 48 + 20 * len(chans)
    pal = head + len(name) + len(src)
    data = pal
    table = b""
    frames = b""
    for typ, sub, off, sc, fr in chans:
        table += struct.pack("<IIffHBB", data, 0x57884BB9, off, sc, len(fr), typ, sub)
        blob = b"".join(struct.pack("<HH", t, f) + v for t, f, v in fr)
        frames += blob
        data += len(blob)
    body = b"_pilC3S_" + struct.pack("<IIfHHIIIIII", 2, 0, 1 / 30, 6, 0, len(chans), 0, 48,
                                     pal, head, head + len(name))
    body += table + name + src + frames
    pad = b"\x7e" * (-len(body) % 4)
    ik = struct.pack("<iI", 1, 4) + b"\x7e" * 4 + struct.pack("<iI", 1, 4) + struct.pack("<I", 0)
    ik += (b"x\0").ljust(512, b"#") + (b"rootWorld\0").ljust(512, b"#")
    actor = b"x\0\x7e\x7e"
    ev_name = b"snd\0"
    ev = struct.pack("<HHIfffII", 3, 0xC1E4, 1, 0.1, -1.0, -1.0, 3, 3) + ev_name + b"snd".ljust(128, b"\0")
    events = b"=CE=" + struct.pack("<IiII", 0x103, 1, len(ev), 4) + ev
    ik_pos = 56 + len(body) + len(pad)
    actor_pos = ik_pos + len(ik)
    ev_pos = actor_pos + len(actor)
    end_pos = ev_pos + len(events)
    hdr = struct.pack("<IIIIIIIIII", 0x6B20C4F3, 0, len(body), 0x2C, ik_pos - 16, actor_pos - 20,
                      ev_pos - 24, 0, 0, end_pos - 36) + bytes(16)
    with open(out, "wb") as f:
        f.write(hdr + body + pad + ik + actor + events + struct.pack("<4f", 0, 0, 0, 1))


def frame(path, ch, i):
    b = open(path, "rb").read()
    body = 12 + struct.unpack_from("<I", b, 12)[0]
    h = body + 48 + 20 * ch
    data, _, _, _, count, typ, _ = struct.unpack_from("<IIffHBB", b, h)
    size = 4 + FRAME_BYTES[typ]
    assert i < count, "no such frame"
    print(body + data + size * i, size)


def diff(a, b):
    x, y = open(a, "rb").read(), open(b, "rb").read()
    if len(x) != len(y):
        print("length", len(x), len(y))
    for k in range(min(len(x), len(y))):
        if x[k] != y[k]:
            print(k)


if __name__ == "__main__":
    cmd = sys.argv[1:]
    if cmd[:1] == ["build"]:
        build(cmd[1])
    elif cmd[:1] == ["frame"]:
        frame(cmd[1], int(cmd[2]), int(cmd[3]))
    elif cmd[:1] == ["diff"]:
        diff(cmd[1], cmd[2])
    else:
        sys.exit(__doc__)
