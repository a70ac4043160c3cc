#!/usr/bin/env bash
# Issue 45 (items 3, 4): a Diesel, a Sims 3 CLIP, an RE and a Shenmue MOTN preview through a real Blender (Debian's, headless;
# tests/tools/blender_roundtrip.py, the settings of docs/gltf.md "Blender round trip") and
# back with `animfs import`: exported with no edit, the identical binary; one key of one
# bone's rotation changed through bpy, exported, imported: `animfs decode` differs from the
# original in that key alone, and it holds the exported value within one stored step. On
# examples/walk.animation.yaml and clip_tiny and, when the samples are there, a PAYDAY 2 clip
# and a Sims 3 clip (no rig: its targets' nodes at the origin), re3_tiny and an RE3 PLD, the
# MOTN example's baked arm and the samples' MOTN walk (a knee: its three angle curves change,
# the rest of the file not; the new preview's keys of that bone move by at most a step but the
# edited one, which holds the export's rotation within a step). Blender
# absent: skipped on a workstation, a failure in CI (scripts/setup installs it).
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
S=${ANIMFS_SAMPLES:-$src/../shared/samples}
A=${ANIMFS:?set ANIMFS to the animfs binary}
if ! command -v blender >/dev/null 2>&1; then
	[ -n "${CI:-}" ] && { echo "FAIL: no blender in CI (scripts/setup installs it)"; exit 1; }
	echo "SKIP: no blender (scripts/setup installs it)"; exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$A" encode "$src/examples/walk.animation.yaml" -o "$tmp/walk.animation" || fail "encode"
"$A" encode "$src/examples/clip_tiny.animation.yaml" -o "$tmp/tiny.animation" || fail "encode clip"
files=("$tmp/walk.animation:Hips" "$tmp/tiny.animation:b__ROOT_bind__")
d=$S/diesel/phys808__shared_unarmed_neutral_cm_so_croupier_win.animation
if [ -f "$d" ]; then
	cp "$d" "$tmp/clip.animation" && files+=("$tmp/clip.animation:LeftForeArm")
else
	echo "not in the samples: ${d#"$S"/} (examples only)"
fi
"$A" encode "$src/examples/re3_tiny.PLD.yaml" -o "$tmp/tiny.PLD" || fail "encode RE"
files+=("$tmp/tiny.PLD:bone 1")
d=$S/re3/biohazard-utils_re3_pld0_leon_PL00.PLD
if [ -f "$d" ]; then
	cp "$d" "$tmp/leon.PLD" && files+=("$tmp/leon.PLD:bone 1")
else
	echo "not in the samples: ${d#"$S"/} (examples only)"
fi
d=$S/sims3-clip/echoweaver_Breastfeed/S3_6B20C4F3_00000000_4279AA053138D6E4%%+CLIP.animation
if [ -f "$d" ]; then
	cp "$d" "$tmp/feed.animation" && files+=("$tmp/feed.animation:b__ROOT_bind__")
else
	echo "not in the samples: ${d#"$S"/} (examples only)"
fi
"$A" encode "$src/examples/MOTION.BIN.yaml" -o "$tmp/demo.BIN" || fail "encode MOTN"
files+=("$tmp/demo.BIN:bone 32") # the baked block's arm
d=$S/shenmue-containers/syn_A_WALK.MOTN
if [ -f "$d" ]; then
	cp "$d" "$tmp/walk.MOTN" && files+=("$tmp/walk.MOTN:bone 9")
else
	echo "not in the samples: ${d#"$S"/} (examples only)"
fi
for fb in "${files[@]}"; do
	f=${fb%:*} bone=${fb##*:} b=$(basename "${fb%:*}")
	b=${b%.*}
	"$A" gltf "$f" -o "$tmp/$b.glb" || { fail "gltf $b"; continue; }
	PATH="$(dirname "$(command -v blender)"):$PATH" \
	blender -b --factory-startup --python-exit-code 1 --python "$src/tests/tools/blender_roundtrip.py" -- \
		"$tmp/$b.glb" "$tmp/$b.same.glb" "$tmp/$b.edit.glb" "$bone" > "$tmp/out" 2> "$tmp/err" ||
		{ fail "$b: blender: $(tail -3 "$tmp/out") $(tail -3 "$tmp/err")"; continue; }
	grep '^roundtrip:' "$tmp/out"
	anim=$(sed -n 's/^roundtrip: \(.*\) @[0-9]*fps_.*/\1/p' "$tmp/out") # the edited action's animation
	out=$("$A" import "$tmp/$b.same.glb" --into "$f" -o "$tmp/$b.same.${f##*.}") || fail "$b: import of the unedited export"
	cmp -s "$tmp/$b.same.${f##*.}" "$f" || fail "$b: Blender's unedited export does not give the identical binary: $out"
	out=$("$A" import "$tmp/$b.edit.glb" --into "$f" -o "$tmp/$b.edit.${f##*.}") || fail "$b: import of the edit"
	echo "$out"
	[ "$(echo "$out" | grep -c '^changed:')" = 1 ] && [[ $out == *"changed: $anim: $bone rotation: "* ]] ||
		fail "$b: not one channel changed: $out"
	"$A" decode "$f" > "$tmp/a.yaml" && "$A" decode "$tmp/$b.edit.${f##*.}" > "$tmp/b.yaml" || fail "$b: decode"
	"$A" gltf "$tmp/$b.edit.${f##*.}" -o "$tmp/$b.back.glb" || fail "$b: the preview of the edit"
	python3 - "$tmp/a.yaml" "$tmp/b.yaml" "$tmp/$b.edit.glb" "$bone" "$anim" "$tmp/$b.glb" "$tmp/$b.back.glb" <<'PY' || fail "$b: the decoded edit"
import json, struct, sys
import yaml
a, b = (yaml.safe_load(open(p)) for p in sys.argv[1:3])
bone = sys.argv[4]
diff = []
def glb(path):
    g = open(path, "rb").read()
    n = struct.unpack_from("<I", g, 12)[0]
    return json.loads(g[20:20 + n]), g[28 + n:]
def rotation(path, anim, node):  # [(t, q)] of node's rotation in anim
    j, binc = glb(path)
    def acc(i, w):
        x = j["accessors"][i]
        o = j["bufferViews"][x["bufferView"]].get("byteOffset", 0) + x.get("byteOffset", 0)
        return [struct.unpack_from("<%df" % w, binc, o + 4 * w * k) for k in range(x["count"])]
    for an in j["animations"]:
        if an.get("name", "").split(" @")[0] == anim:
            for c in an["channels"]:
                if j["nodes"][c["target"]["node"]]["name"] == node and c["target"]["path"] == "rotation":
                    s = an["samplers"][c["sampler"]]
                    return [(t[0], q) for t, q in zip(acc(s["input"], 1), acc(s["output"], 4))]
    raise SystemExit("no rotation of %s in %s" % (node, anim))
if a["format"] == "shenmue-motn":  # a block's bone: three angle curves; the edit is one key
    import math
    for d in (a, b):
        for x in d["blocks"] + d["entries"]:
            x.pop("block", None)  # ids: offsets, which a block that grew moves
        for bk in d["blocks"]:
            for bn in bk.get("bones") or (bk.get("baked") or {}).get("bones") or []:
                if bn["bone"] == int(bone.split()[-1]) and (bk.get("names") or [""])[0] == sys.argv[5]:
                    for k in ("rx", "ry", "rz"):
                        bn.pop(k, None)
    assert a == b, "more than %s's rotation in %s changed" % (bone, sys.argv[5])
    was, now = rotation(sys.argv[6], sys.argv[5], bone), rotation(sys.argv[7], sys.argv[5], bone)
    assert [t for t, _ in was] == [t for t, _ in now], "the preview's key times moved"
    ang = lambda p, q: 2 * math.acos(min(1, abs(sum(x * y for x, y in zip(p, q)))))
    moved = [(t, p, q) for (t, p), (_, q) in zip(was, now) if ang(p, q) > 2 * math.pi * 2 ** -10]  # past two steps: the edit
    assert len(moved) == 1, "%d keys of the preview moved: %s" % (len(moved), moved)
    step = math.pi * 2 ** -11  # a quaternion's move for a half step of a turn near 0.5..1
    diff = [([moved[0][0]] + list(moved[0][1]), [moved[0][0]] + list(moved[0][2]))]
elif a["format"] == "re-model":  # a frame's pose: every bone; the edit is one frame's bone
    import math
    nb = int(bone.split()[-1])
    bank, seq = (int(x) for x in sys.argv[5].split()[1::2])
    step = math.sin(math.pi / 4096)
    def effective(d, k, q):
        bk = d["banks"][k]
        sq = bk["sequences"][q]
        base = sq.get("pose_start", 0)
        return [{x: y for x, y in bk["keyframes"][base + f[0]].items() if x != "pose"} for f in sq["frames"]]
    for k, (ba, bb) in enumerate(zip(a["banks"], b["banks"])):
        for q in range(len(ba.get("sequences") or [])):
            ea, eb = effective(a, k, q), effective(b, k, q)
            for f, (pa, pb) in enumerate(zip(ea, eb)):
                if pa != pb:
                    assert (k, q) == (bank, seq), "bank %d sequence %d frame %d changed" % (k, q, f)
                    assert [x for i, x in enumerate(pa["angles"]) if i != nb] == [x for i, x in enumerate(pb["angles"]) if i != nb], "another bone moved"
                    assert {x: y for x, y in pa.items() if x != "angles"} == {x: y for x, y in pb.items() if x != "angles"}, "the root moved"
                    def quat(e):
                        r = [math.radians(x) / 2 for x in e]
                        qx, qy, qz = ([math.sin(r[0]), 0, 0, math.cos(r[0])], [0, math.sin(r[1]), 0, math.cos(r[1])], [0, 0, math.sin(r[2]), math.cos(r[2])])
                        def mul(p, q):
                            return [p[3]*q[0]+p[0]*q[3]+p[1]*q[2]-p[2]*q[1], p[3]*q[1]-p[0]*q[2]+p[1]*q[3]+p[2]*q[0],
                                    p[3]*q[2]+p[0]*q[1]-p[1]*q[0]+p[2]*q[3], p[3]*q[3]-p[0]*q[0]-p[1]*q[1]-p[2]*q[2]]
                        return mul(mul(qx, qy), qz)
                    diff.append(([f / 30] + quat(pa["angles"][nb]), [f / 30] + quat(pb["angles"][nb])))
    step = 2 * step  # a quaternion of three quantised angles: within two of one angle's steps
elif a["format"] == "sims3-clip":  # channels: frames {tick: values}, times tick * tick_length
    lists, step = "channels", None
    assert {k: v for k, v in a.items() if k != lists} == {k: v for k, v in b.items() if k != lists}, "the header moved"
    for ca, cb in zip(a[lists], b[lists]):
        if ca != cb:
            assert (ca["target"], ca["sub_target"]) == (bone, "Orientation"), "%s %s changed" % (ca["target"], ca["sub_target"])
            assert {k: v for k, v in ca.items() if k != "frames"} == {k: v for k, v in cb.items() if k != "frames"}, "range moved"
            fa, fb = ca["frames"], cb["frames"]
            assert fa.keys() == fb.keys(), "ticks %s -> %s" % (list(fa), list(fb))
            val = lambda v: v["v"] if isinstance(v, dict) else v
            diff = [([t * a["tick_length"]] + val(fa[t]), [t * a["tick_length"]] + val(fb[t])) for t in fa if fa[t] != fb[t]]
            step = abs(ca["scale"]) / 4095
else:
    lists, step = "objects", 0.75 / 512
    assert {k: v for k, v in a.items() if k != lists} == {k: v for k, v in b.items() if k != lists}, "the header moved"
    for oa, ob in zip(a[lists], b[lists]):
        for tr in ("position", "rotation"):
            ka, kb = oa[tr]["keys"], ob[tr]["keys"]
            if ka != kb or oa[tr]["type"] != ob[tr]["type"]:
                assert (oa["name"], tr) == (bone, "rotation"), "%s %s changed" % (oa["name"], tr)
                assert len(ka) == len(kb), "keys %d -> %d" % (len(ka), len(kb))
                diff = [(x, y) for x, y in zip(ka, kb) if x != y]
assert len(diff) == 1, "%d keys changed" % len(diff)
(old, new), = diff
assert old[0] == new[0], "the key's time moved"
# the exported value at that time, within one stored step (Diesel packed: 0.75/512; a CLIP:
# |scale| / 4095; RE: two angle steps' worth of a component) and the text's
g = open(sys.argv[3], "rb").read()
n = struct.unpack_from("<I", g, 12)[0]
j, binc = json.loads(g[20:20 + n]), g[28 + n:]
def acc(i, w):
    x = j["accessors"][i]
    o = j["bufferViews"][x["bufferView"]].get("byteOffset", 0) + x.get("byteOffset", 0)
    return [struct.unpack_from("<%df" % w, binc, o + 4 * w * k) for k in range(x["count"])]
seen = 0
for an in j["animations"]:
    if not an.get("name", "").startswith(sys.argv[5]):
        continue  # another animation's (sequence's) curves of the bone
    for c in an["channels"]:
        if j["nodes"][c["target"]["node"]]["name"] == bone and c["target"]["path"] == "rotation":
            s = an["samplers"][c["sampler"]]
            ts, qs = acc(s["input"], 1), acc(s["output"], 4)
            k = min(range(len(ts)), key=lambda i: abs(ts[i][0] - new[0]))
            q = qs[k]
            sign = 1 if sum(x * y for x, y in zip(q, new[1:5])) >= 0 else -1
            err = max(abs(sign * x - y) for x, y in zip(q, new[1:5]))
            assert err <= step + 1e-3, "the stored key %s is %g from the export's %s" % (new, err, q)
            print("edited key at %.4f s: %s -> %s (export %s)" % (new[0], old[1:5], new[1:5], [round(x, 4) for x in q]))
            seen += 1
assert seen == 1, "%d exported curves of the bone in the animation" % seen
PY
done
echo "$fails failed"
[ $fails -eq 0 ]
