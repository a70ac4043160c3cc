#!/usr/bin/env python3
"""glb_tree.py FILE.glb [ANIM]: the skeleton of a glTF preview as a tree: of the joints
the animation ANIM (the first when none) moves, how many hang under another joint, and
the deepest chain of joints. Exit 1 when the skeleton is not connected: fewer than half
of the moved joints have a joint parent, or no chain is 3 joints deep (a point cloud, or
a star of joints all hung from one root)."""
import json
import struct
import sys


def main():
    data = open(sys.argv[1], "rb").read()
    assert data[:4] == b"glTF", "not a GLB"
    n = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + n])
    nodes, skins = doc.get("nodes", []), doc.get("skins", [])
    if not skins:
        print(f"{sys.argv[1]}: no skin")
        return 1
    parent = {c: i for i, nd in enumerate(nodes) for c in nd.get("children", [])}
    joints = {j for s in skins for j in s["joints"]}
    anims = doc.get("animations", [])
    want = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
    anim = next((a for a in anims if a.get("name") == want), None) if want else (anims[0] if anims else None)
    if anim is None:
        print(f"{sys.argv[1]}: no animation {want or ''}")
        return 1
    moved = {c["target"]["node"] for c in anim["channels"] if c["target"].get("node") in joints}

    def depth(i):
        d, seen = 0, set()
        while i in parent and parent[i] in joints and i not in seen:
            seen.add(i)
            i, d = parent[i], d + 1
        return d

    hung = sum(1 for j in moved if j in parent and parent[j] in joints)
    deepest = max((depth(j) for j in joints), default=0)
    print(f"{len(joints)} joints; {hung} of the {len(moved)} moved hang under a joint; "
          f"chains {deepest + 1} joints deep")
    return 0 if moved and 2 * hung >= len(moved) and deepest >= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
