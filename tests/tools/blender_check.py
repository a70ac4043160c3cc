"""Imports glTF previews into a real Blender, headless, and checks what an animator gets
(issue 45): exactly one armature; one action per glTF animation, each named after it; each
action's frame range the animation's length at its frame rate (the scene's rate set to the
one the preview's extras give, as docs/gltf.md says to import). Run as

    blender -b --factory-startup --python tests/tools/blender_check.py -- A.glb [B.glb ...]

A file given as A.glb::UPPER:LOWER:METRES also wants bone UPPER's head at least METRES above
bone LOWER's at frame 0 (a standing figure stands: its tree is connected the right way up).

One JSON line per file on stdout ({"file", "armatures", "bones", "actions", "animations",
"bad": [...]}), then "blender_check: N files, M bad"; exit status 1 when any is bad."""
import json
import struct
import sys

import bpy
import numpy

# Debian's Blender 3.4 importer still says numpy.bool, which numpy 1.24 removed: a mesh
# import (the RE models) fails without it. The test's business, not animfs's.
if "bool" not in vars(numpy):  # (hasattr would warn)
    numpy.bool = bool


def gltf_json(path):
    with open(path, "rb") as f:
        b = f.read()
    if b[:4] == b"glTF":
        n = struct.unpack_from("<I", b, 12)[0]
        return json.loads(b[20:20 + n])
    return json.loads(b)


def expected(j):
    """Per animation: its name, rate, and the first and last key time over its samplers."""
    out = []
    for an in j.get("animations") or []:
        x = (an.get("extras") or {}).get("animfs") or {}
        t0 = min(j["accessors"][s["input"]]["min"][0] for s in an["samplers"])
        t1 = max(j["accessors"][s["input"]]["max"][0] for s in an["samplers"])
        out.append({"name": an["name"], "rate": x.get("frame_rate"), "frames": x.get("frames"),
                    "duration": x.get("duration"), "t0": t0, "t1": t1})
    return out


def check(arg):
    path, _, stands = arg.partition("::")
    j = gltf_json(path)
    want = expected(j)
    bad = []
    rates = {w["rate"] for w in want}
    if want and (None in rates or len(rates) != 1):  # a skeleton alone has no animation
        bad.append(f"frame rates in extras: {sorted(map(str, rates))} (want one)")
    rate = want[0]["rate"] if want and want[0]["rate"] else 30
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = max(1, round(rate))
    scene.render.fps_base = scene.render.fps / rate
    bpy.ops.import_scene.gltf(filepath=path)
    arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    actions = list(bpy.data.actions)
    if len(arms) != 1:
        bad.append(f"{len(arms)} armatures")
    if len(actions) != len(want):
        bad.append(f"{len(actions)} actions for {len(want)} animations")
    joints = sum(len(s["joints"]) for s in j.get("skins") or [])
    if arms and len(arms[0].data.bones) != joints:
        bad.append(f"{len(arms[0].data.bones)} bones for {joints} joints")
    animated = {o.name for o in bpy.data.objects if o.animation_data and o.animation_data.action}
    if arms and animated - {arms[0].name}:
        bad.append(f"objects other than the armature animated: {sorted(animated)[:5]}")
    for w in want:
        # Blender names an action "<animation>_<object>", cut to 63 characters
        key = (w["name"] + "_")[:60]
        acts = [a for a in actions if a.name.startswith(key)]
        if len(acts) != 1:
            bad.append(f"{w['name']}: {len(acts)} actions")
            continue
        f0, f1 = acts[0].frame_range
        # the keys' span at the rate, and the sequence's own length (its first frame to its last)
        k0, k1 = w["t0"] * rate, w["t1"] * rate
        if abs(f0 - k0) > 0.01 or (abs(f1 - k1) > 0.01 and not (k1 == k0 and f1 == f0 + 1)):
            bad.append(f"{w['name']}: frames {f0:g}..{f1:g}, its keys {k0:g}..{k1:g}")
        span = 0 if f1 == f0 + 1 and k1 == k0 else f1 - f0  # Blender shows one frame as f..f+1
        if w["duration"] is not None and abs(span - w["duration"] * rate) > 0.01:
            bad.append(f"{w['name']}: {span:g} frames long, the sequence {w['duration'] * rate:g} "
                       f"({w['frames']:g} frames at {rate:g} a second)")
    if stands and arms:
        upper, lower, metres = stands.split(":")
        scene.frame_set(0)
        arm = arms[0]
        z = {b: (arm.matrix_world @ arm.pose.bones[b].head).z for b in (upper, lower) if b in arm.pose.bones}
        if len(z) != 2 or z[upper] - z[lower] < float(metres):
            bad.append(f"{upper} not {metres} m above {lower} at frame 0: {z}")
        else:
            stands = f"{upper} {z[upper] - z[lower]:.2f} m above {lower}"
    return {"file": path, "stands": stands or None, "armatures": len(arms), "bones": len(arms[0].data.bones) if arms else 0,
            "actions": len(actions), "animations": len(want), "bad": bad}


def main():
    files = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    nbad = 0
    for f in files:
        try:
            r = check(f)
        except Exception as e:  # an import that fails is a finding, not a crash of the test
            r = {"file": f, "bad": [f"import failed: {e!r}"]}
        nbad += bool(r["bad"])
        print(json.dumps(r), flush=True)
    print(f"blender_check: {len(files)} files, {nbad} bad", flush=True)
    sys.exit(1 if nbad or not files else 0)


main()
