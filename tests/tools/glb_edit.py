#!/usr/bin/env python3
"""Edits of a GLB for the import tests (tests/cli/gltf_import.sh), made as a glTF editor
would make them, or as a hostile file would be:
  glb_edit.py IN OUT set NODE PATH KEY V...   key KEY of NODE's PATH channel (every
                                              animation) gets the values V...
  glb_edit.py IN OUT add NODE PATH T V...     a key at time T (seconds) inserted
  glb_edit.py IN OUT turn ANIM NODE KEY AXIS DEG   key KEY of NODE's rotation in the
                                              animation ANIM (its name before " @") turned
                                              DEG degrees more about its own AXIS (x, y, z)
  glb_edit.py IN OUT move ANIM NODE KEY J DV   key KEY of NODE's translation in ANIM:
                                              component J (0, 1, 2) moved by DV
  glb_edit.py IN OUT rename NODE NEW           a node renamed
  glb_edit.py IN OUT KIND                      a hostile file: count (an output accessor one
      value longer than its times), nan (a NaN value), loop (two joints each the other's
      child), buflen (a buffer said to be 2 GiB), nobuf (no buffers), noanim (an
      animation renamed to one the file lacks), nojoint (a joint renamed), trunc (the
      file cut in its JSON).
  glb_edit.py --hostile IN DIR KIND...         each hostile KIND of IN as DIR/KIND.glb, in
                                              one Python start (~50 ms each)"""
import json
import math
import struct
import sys


def read(path):
    b = open(path, "rb").read()
    n = struct.unpack_from("<I", b, 12)[0]
    j = json.loads(b[20:20 + n])
    binc = b[20 + n + 8:] if len(b) > 20 + n else b""
    return j, bytearray(binc)


def write(path, j, binc):
    js = json.dumps(j, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    binc = bytes(binc) + b"\0" * (-len(binc) % 4)
    out = struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(js) + (8 + len(binc) if binc else 0))
    out += struct.pack("<I4s", len(js), b"JSON") + js
    if binc:
        out += struct.pack("<I4s", len(binc), b"BIN\0") + binc
    open(path, "wb").write(out)


def channels(j, node, path, anim=None):
    idx = [i for i, n in enumerate(j["nodes"]) if n.get("name") == node]
    for a in j.get("animations", []):
        if anim is not None and a.get("name", "").split(" @")[0] != anim:
            continue
        for c in a["channels"]:
            if c["target"]["node"] in idx and c["target"]["path"] == path:
                yield a["samplers"][c["sampler"]]


def where(j, acc):
    a = j["accessors"][acc]
    v = j["bufferViews"][a["bufferView"]]
    return v.get("byteOffset", 0) + a.get("byteOffset", 0), a["count"]


def main():
    if sys.argv[1] == "--hostile":  # glb_edit.py --hostile IN DIR KIND...: DIR/KIND.glb each
        src, out = sys.argv[2:4]
        for kind in sys.argv[4:]:
            edit([src, "%s/%s.glb" % (out, kind), kind])
    else:
        edit(sys.argv[1:])


def edit(argv):
    src, dst, kind = argv[:3]
    argv = [None] + argv  # argv[4] is the first argument after KIND, as in sys.argv
    j, binc = read(src)
    if kind == "set":
        node, path, key = argv[4], argv[5], int(argv[6])
        vals = [float(x) for x in argv[7:]]
        for s in channels(j, node, path):
            off, _ = where(j, s["output"])
            struct.pack_into("<%df" % len(vals), binc, off + key * 4 * len(vals), *vals)
    elif kind == "turn":
        anim, node, key, axis, deg = argv[4], argv[5], int(argv[6]), argv[7], float(argv[8])
        h = math.radians(deg) / 2
        r = [0.0, 0.0, 0.0, math.cos(h)]
        r["xyz".index(axis)] = math.sin(h)
        for s in channels(j, node, "rotation", anim):
            off, _ = where(j, s["output"])
            x, y, z, w = struct.unpack_from("<4f", binc, off + key * 16)
            a, b, c, d = r  # q * r: turned about the node's own axis
            q = (w * a + x * d + y * c - z * b, w * b - x * c + y * d + z * a,
                 w * c + x * b - y * a + z * d, w * d - x * a - y * b - z * c)
            struct.pack_into("<4f", binc, off + key * 16, *q)
    elif kind == "move":
        anim, node, key, comp, dv = argv[4], argv[5], int(argv[6]), int(argv[7]), float(argv[8])
        for s in channels(j, node, "translation", anim):
            off, _ = where(j, s["output"])
            at = off + (key * 3 + comp) * 4
            struct.pack_into("<f", binc, at, struct.unpack_from("<f", binc, at)[0] + dv)
    elif kind == "add":  # new accessors at the buffer's end
        node, path, t = argv[4], argv[5], float(argv[6])
        vals = [float(x) for x in argv[7:]]
        w = len(vals)
        for s in channels(j, node, path):
            (toff, n), (voff, _) = where(j, s["input"]), where(j, s["output"])
            ts = list(struct.unpack_from("<%df" % n, binc, toff))
            vs = list(struct.unpack_from("<%df" % (n * w), binc, voff))
            k = sum(1 for x in ts if x < t)
            ts.insert(k, t)
            vs[k * w:k * w] = vals
            for data, acc, typ in ((ts, "input", "SCALAR"), (vs, "output", "VEC%d" % w)):
                start = len(binc)
                binc += struct.pack("<%df" % len(data), *data)
                j["bufferViews"].append({"buffer": 0, "byteOffset": start, "byteLength": 4 * len(data)})
                a = {"bufferView": len(j["bufferViews"]) - 1, "componentType": 5126, "count": n + 1, "type": typ}
                if acc == "input":
                    a["min"], a["max"] = [min(ts)], [max(ts)]
                j["accessors"].append(a)
                s[acc] = len(j["accessors"]) - 1
        j["buffers"][0]["byteLength"] = len(binc)
    elif kind == "rename":  # a node's name, as another tool (or a rig) names it
        for n in j["nodes"]:
            if n.get("name") == argv[4]:
                n["name"] = argv[5]
    elif kind == "count":
        s = j["animations"][0]["samplers"][0]
        j["accessors"][s["output"]]["count"] += 1
    elif kind == "nan":
        s = j["animations"][0]["samplers"][0]
        off, _ = where(j, s["output"])
        struct.pack_into("<f", binc, off, math.nan)
    elif kind == "loop":
        a, b = j["animations"][0]["channels"][0]["target"]["node"], j["animations"][0]["channels"][-1]["target"]["node"]
        for n in j["nodes"]:
            n["children"] = [c for c in n.get("children", []) if c not in (a, b)]
        j["nodes"][a]["children"] = j["nodes"][a].get("children", []) + [b]
        j["nodes"][b]["children"] = j["nodes"][b].get("children", []) + [a]
    elif kind == "buflen":
        j["buffers"][0]["byteLength"] = 2 ** 31
    elif kind == "nobuf":
        del j["buffers"]
        binc = bytearray()
    elif kind == "noanim":
        j["animations"][0]["name"] = "nothing of the file"
    elif kind == "nojoint":
        j["nodes"][j["animations"][0]["channels"][0]["target"]["node"]]["name"] = "no such bone"
    elif kind == "trunc":
        write(dst, j, binc)
        b = open(dst, "rb").read()
        n = struct.unpack_from("<I", b, 12)[0]
        open(dst, "wb").write(b[:20 + n // 2])
        return
    else:
        sys.exit("unknown edit " + kind)
    write(dst, j, binc)


main()
