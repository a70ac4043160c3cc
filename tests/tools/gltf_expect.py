#!/usr/bin/env python3
"""What a glTF preview of a view must hold, counted from the YAML alone, independently of
animfs's C code (tests/cli/gltf*.sh): nodes, animations and keyframes (sampler inputs) per
format, as docs/gltf.md describes each conversion. Prints one JSON line."""
import json
import os
import sys

import yaml

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def diesel(d):
    objs = d.get("objects") or []
    keys = sum(len((o.get(k) or {}).get("keys") or []) for o in objs for k in ("position", "rotation"))
    return len(objs), 1 if keys else 0, keys


def rig(d):
    return len(d.get("bones") or []), 0, 0


def clip(d):
    targets, keys = [], 0
    for c in d.get("channels") or []:
        fr = c.get("frames")
        if not isinstance(fr, dict) or not fr or c.get("sub_target") not in ("Orientation", "Translation", "Scale"):
            continue
        if c["target"] not in targets:
            targets.append(c["target"])
        keys += len(fr)
    return len(targets), 1 if keys else 0, keys


def motn(d):
    bones, anims, keys, own = set(), 0, 0, 0
    for b in d.get("blocks") or []:
        k0 = keys
        if "baked" in b:  # one key a frame: the root's translation, each 3-angle bone's rotation
            bk = b["baked"]
            for bn in bk.get("bones") or []:
                if "hinge" in bn:
                    continue
                bones.add(bn["bone"])
                for trio in (("tx", "ty", "tz"), ("rx", "ry", "rz")):
                    if any(c in bn for c in trio):
                        keys += bk["frames"]
            anims += keys > k0
            continue
        if "nodes" in b:  # nodes of its own; frames + 1 keys a track
            nb = b["nodes"]
            for nd in nb.get("list") or []:
                own += 1
                if any(isinstance(nd.get(c), list) for c in ("rx", "ry", "rz")):
                    keys += nb["frames"] + 1
                sc = nd.get("scale")
                if isinstance(sc, list) and sc and isinstance(sc[0], list):
                    keys += nb["frames"] + 1
            anims += keys > k0
            continue
        if "bones" not in b or "frames" not in b:
            continue
        for bn in b["bones"]:
            bones.add(bn["bone"])
            for trio in (("tx", "ty", "tz"), ("rx", "ry", "rz")):
                frames = {k[0] for c in trio for k in (bn.get(c) or []) if k[1] >= 1 and k[0] < b["frames"]}
                keys += len(frames)
        anims += keys > k0
    return len(bones) + own, anims, keys


def re_model(d):
    nodes, anims, keys, skels = 0, 0, 0, []
    for bk in d.get("banks") or []:
        sk, seqs, pool = bk.get("skeleton"), bk.get("sequences"), bk.get("keyframes")
        seqs = seqs if isinstance(seqs, list) else []
        sk = sk if isinstance(sk, list) else []
        if not seqs and not sk:
            continue
        if sk:
            n = len(sk)
            nodes += n
        else:
            n = bk.get("bone_count")
            if n not in skels:
                nodes += n
        skels.append(n)
        if isinstance(pool, list) and pool and "angles" not in pool[0]:
            continue
        for q in seqs:
            f = len(q.get("frames") or [])
            if f:
                anims += 1
                keys += f * (n + 1)
    return nodes, anims, keys


def motn_lines(path):
    """motn() over the view's lines (one key a line, a baked or node list on one line, as
    animfs writes them): a 14 MB view loads in PyYAML in over half a minute, a line scan in
    a second. Same counts as motn()."""
    bones, anims, keys, own = set(), 0, 0, 0
    block = bone = chan = None

    def close_bone():
        nonlocal keys
        if bone is None:
            return
        if block["kind"] == "baked":
            if "hinge" not in bone:
                bones.add(bone["id"])
                keys += block["frames"] * sum(any(c in bone for c in trio) for trio in (("tx", "ty", "tz"), ("rx", "ry", "rz")))
        elif block["kind"] == "nodes":
            keys += (block["frames"] + 1) * (bone.get("rtrack", False) + bone.get("strack", False))
        else:
            for trio in ("t", "r"):
                keys += len(set().union(*(v for c, v in bone.items() if c[0] == trio)))

    def close_block():
        nonlocal anims
        close_bone()
        if block is not None and block["decoded"] and keys > block["k0"]:
            anims += 1

    with open(path, encoding="utf-8") as f:
        for line in f:
            s = line.split("#", 1)[0].rstrip()
            if s.startswith("  - block:"):
                close_block()
                block, bone = {"frames": None, "decoded": False, "k0": keys, "kind": "seq"}, None
            elif block is None:
                continue
            elif s in ("    baked:", "    nodes:"):
                block["kind"], block["decoded"] = s.strip()[:-1], True
            elif block["kind"] != "seq":
                if s.startswith("      frames:"):
                    block["frames"] = int(s.split(":", 1)[1])
                elif block["kind"] == "baked" and s.startswith("        - bone:"):
                    close_bone()
                    bone = {"id": int(s.split(":", 1)[1])}
                elif block["kind"] == "nodes" and s.startswith("        - scale:"):
                    close_bone()
                    own += 1
                    bone = {"strack": s.split(":", 1)[1].strip().startswith("[[")}
                elif bone is not None and s.startswith("          ") and ":" in s:
                    c, v = (x.strip() for x in s.split(":", 1))
                    bone[c] = True
                    if c in ("rx", "ry", "rz") and v.startswith("["):
                        bone["rtrack"] = True
                elif not s.startswith("    ") and s:
                    close_block()
                    block = bone = None
            elif s.startswith("    frames:"):
                block["frames"] = int(s.split(":", 1)[1])
            elif s.startswith("    bones:"):
                block["decoded"] = block["frames"] is not None
            elif s.startswith("      - bone:"):
                close_bone()
                bone = {}
                bones.add(int(s.split(":", 1)[1]))
            elif bone is not None and s.startswith("        ") and s.strip()[:3] in ("tx:", "ty:", "tz:", "rx:", "ry:", "rz:"):
                chan = s.strip()[:2]
                bone[chan] = set()
            elif bone is not None and s.startswith("          - ["):
                k = [x.strip() for x in s.strip()[3:-1].split(",")]
                if int(k[1]) >= 1 and int(k[0]) < block["frames"]:
                    bone[chan].add(int(k[0]))
            elif not s.startswith("    ") and s:
                close_block()
                block = bone = None
        close_block()
    return len(bones) + own, anims, keys


def clip_lines(path):
    """clip() over the view's lines (one frame a line, as animfs writes it): PyYAML reads a
    3 MB clip in 4 s, this scan in a tenth of that. Same counts as clip()."""
    targets, keys = [], 0
    target = sub = None
    frames = -1  # frames of the channel being read; -1: not in its frames mapping

    def close():
        nonlocal keys
        if frames > 0 and sub in ("Orientation", "Translation", "Scale"):
            if target not in targets:
                targets.append(target)
            keys += frames

    with open(path, encoding="utf-8") as f:
        for line in f:
            s = line.split("#", 1)[0].rstrip()
            if s.startswith("  - target:"):
                close()
                target, sub, frames = s.split(":", 1)[1].strip(), None, -1
            elif target is None:
                continue
            elif s.startswith("    sub_target:"):
                sub = s.split(":", 1)[1].strip()
            elif s.startswith("    frames:"):
                rest = s.split(":", 1)[1].strip()
                if rest not in ("", "{}"):
                    raise ValueError(f"{path}: frames written inline; use --yaml")
                frames = 0
            elif frames >= 0 and s.startswith("      ") and s.strip().split(":", 1)[0].isdigit():
                frames += 1
            elif s and not s.startswith("  "):
                close()
                target, frames = None, -1
        close()
    return len(targets), 1 if keys else 0, keys


FORMATS = {"diesel-animation": diesel, "sims3-rig": rig, "sims3-clip": clip, "shenmue-motn": motn,
           "re-model": re_model}

def load_fast(path):
    """The document through $ANIMFS_YAML2JSON (the tests' tests/tools/yaml2json, which
    cli/schema checks against the YAML loader), 10x faster than yaml.load on the big RE
    models; None when there is none or it leaves the file to a YAML loader."""
    import subprocess
    prog = os.environ.get("ANIMFS_YAML2JSON")
    if not prog or not os.access(prog, os.X_OK):
        return None
    out = subprocess.run([prog, path], stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)[1] if out.startswith("[") else None


def expect(path, full_yaml=False):
    """The nodes, animations and keys a preview of the view at path must hold."""
    with open(path, "rb") as f:
        head = "\n" + f.read(4096).decode("utf-8", "replace")
    if "\nformat: shenmue-motn" in head and not full_yaml:
        nodes, anims, keys = motn_lines(path)
    elif "\nformat: sims3-clip" in head and not full_yaml:
        nodes, anims, keys = clip_lines(path)
    else:
        doc = load_fast(path) if not full_yaml else None
        if doc is None:
            with open(path, "rb") as f:
                doc = yaml.load(f, Loader=Loader)
        nodes, anims, keys = FORMATS[doc["format"]](doc)
    return {"nodes": nodes, "animations": anims, "keys": keys}


if __name__ == "__main__":
    # one line of JSON per view named (one process for many: the suite's cost)
    full = "--yaml" in sys.argv
    for path in [a for a in sys.argv[1:] if a != "--yaml"]:
        print(json.dumps(expect(path, full)))
