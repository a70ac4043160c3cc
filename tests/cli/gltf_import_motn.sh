#!/usr/bin/env bash
# Issue 45 (item 3): `animfs import` into a Shenmue MOTN (examples/MOTION.BIN.yaml and a
# rotating bone added to it; the samples, when there, are cli/gltf_import_samples' and the
# walk below). No edit: the identical binary. One rotation key turned (tests/tools/glb_edit.py
# turn): `animfs decode` differs in that bone's rotation axes only, and the new preview shows
# the turned key within one step, every other key of the channel as before; a translation
# key of a standard block, a baked angle and a node block's track sample change only their
# own line. Refused, nothing written: a key past the block's last frame, a joint the file
# lacks, a value past the half-float range, an edit that needs more keys than a channel
# holds, and hostile glTF.
. "$(dirname "$0")/gltf_import.inc"
S=${ANIMFS_SAMPLES:-$src/../shared/samples}
# the example with a bone whose three angles have keys (the example's sequences turn none)
python3 - "$src/examples/MOTION.BIN.yaml" "$tmp/m.yaml" <<'PY' || fail "the test's MOTN"
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
bob = d["blocks"][0]
bob["bones"][1] = {"bone": 1, "rx": [[0, 1, 0.02], [6, 2, 0.05, 0.1], [15, 1, 0.02]],
                   "ry": [[0, 2, 0.1, 0.0], [8, 3, 0.15, 0.2, 0.1], [15, 1, 0.1]],
                   "rz": [[0, 0], [15, 0]]}
yaml.safe_dump(d, open(sys.argv[2], "w"), sort_keys=False)
PY
B=$tmp/M.BIN
prepare "$tmp/m.yaml"
unedited "0 channels changed, 9 as they were: the file is unchanged"
# only: the decoded documents differ in nothing but block BLOCK's bone BONE's KEYS (a
# standard block), or in the lines LINES of the view (baked and node blocks)
only() { # WHAT A.yaml B.yaml BLOCK BONE KEYS...
	python3 - "$@" <<'PY'
import sys, yaml
what, a, b, blk, bone = sys.argv[1:6]
keys = sys.argv[6:]
da, db = (yaml.safe_load(open(p)) for p in (a, b))
for d in (da, db):
    for x in d["blocks"] + d["entries"]:  # ids: the new offsets of blocks that grew
        x.pop("block")
    for bn in d["blocks"][int(blk)]["bones"]:
        if bn["bone"] == int(bone):
            for k in keys:
                bn.pop(k, None)
assert da == db, what + ": more than bone %s %s changed" % (bone, keys)
PY
}
# one rotation key turned 10 degrees about the bone's own x: rx at that frame alone
edit "$tmp/w.glb" "$tmp/e.glb" turn DEMO_BOB "bone 1" 1 x 10 || fail "glb_edit turn"
out=$("$A" import "$tmp/e.glb" --into "$B" -o "$tmp/e.BIN") || fail "import of one turned key: $out"
[[ $out == "changed: DEMO_BOB: bone 1 rotation: 4 keys in the glTF, 4 before, "*" now; largest error "*" steps"*"1 channel changed, 8 as they were" ]] ||
	fail "the report of one key: $out"
"$E" decode "$tmp/e.BIN" > "$tmp/e.yaml" || fail "decode of the edit"
only "one key" "$tmp/orig.yaml" "$tmp/e.yaml" 0 1 rx ry rz || fail "one key: $(diff "$tmp/orig.yaml" "$tmp/e.yaml")"
grep -q -- '- \[6, 2, 0.07776, 0.1\]' "$tmp/e.yaml" || fail "the turned key: $(diff "$tmp/orig.yaml" "$tmp/e.yaml")"
"$A" gltf "$tmp/e.BIN" -o "$tmp/e2.glb" || fail "gltf of the edit"
python3 - "$tmp/e.glb" "$tmp/e2.glb" <<'PY' || fail "the new preview is not the edited glTF"
import json, math, struct, sys
def chan(p):
    b = open(p, "rb").read(); n = struct.unpack_from("<I", b, 12)[0]; j = json.loads(b[20:20 + n]); c = b[20 + n + 8:]
    a = [a for a in j["animations"] if a["name"].startswith("DEMO_BOB")][0]
    for ch in a["channels"]:
        if j["nodes"][ch["target"]["node"]]["name"] == "bone 1" and ch["target"]["path"] == "rotation":
            s = a["samplers"][ch["sampler"]]
            def acc(i, w):
                x = j["accessors"][i]; v = j["bufferViews"][x["bufferView"]]
                o = v.get("byteOffset", 0) + x.get("byteOffset", 0)
                return [struct.unpack_from("<%df" % w, c, o + 4 * w * k) for k in range(x["count"])]
            return acc(s["input"], 1), acc(s["output"], 4)
(ta, qa), (tb, qb) = chan(sys.argv[1]), chan(sys.argv[2])
assert ta == tb, (ta, tb)
for p, q in zip(qa, qb):  # one half step of 0.1 turn: 2^-14 turns, 0.022 degrees
    ang = 2 * math.degrees(math.acos(min(1, abs(sum(x * y for x, y in zip(p, q))))))
    assert ang < 0.03, (p, q, ang)
PY
# a translation key of a standard block: its own line
edit "$tmp/w.glb" "$tmp/t.glb" move DEMO_BOB "bone 0" 2 1 0.25 || fail "glb_edit translation"
"$A" import "$tmp/t.glb" --into "$B" -o "$tmp/t.BIN" > "$tmp/out" || fail "import of a translation key: $(cat "$tmp/out")"
"$E" decode "$tmp/t.BIN" > "$tmp/t.yaml"
d=$(diff "$tmp/orig.yaml" "$tmp/t.yaml" | grep '^[<>] ' | grep -v 'animfs view of')
[[ $d == "< "*"[8, 1, 1.0]"*"> "*"[8, 1, 1.25]" ]] || fail "the translation key: $d"
# a baked angle (DEMO_WAVE_BAKED, bone 32 at frame 1: rz -15000 -> about -6356) and a node
# block's track sample: their lines alone
edit "$tmp/w.glb" "$tmp/b.glb" set "bone 32" rotation 1 0 0 -0.3 0.954 || fail "glb_edit baked"
edit "$tmp/b.glb" "$tmp/bn.glb" set "DEMO_FLAG_NODES node 0" rotation 1 0 0.1 0 0.995 || fail "glb_edit node"
"$A" import "$tmp/bn.glb" --into "$B" -o "$tmp/b.BIN" > "$tmp/out" || fail "import of baked and node: $(cat "$tmp/out")"
"$E" decode "$tmp/b.BIN" > "$tmp/b.yaml"
d=$(diff "$tmp/orig.yaml" "$tmp/b.yaml" | grep '^[<>] ' | grep -v 'animfs view of' | tr -s ' ')
[ "$d" = "$(printf '%s\n' "< rz: [-16384, -15000, -13000, -12000]" "> rz: [-16384, -6356, -13000, -12000]" \
	"< ry: [0, 1000, 2000, 1000]" "> ry: [0, 2090, 2000, 1000]")" ] || fail "baked and node: $d"
grep -q "changed: DEMO_WAVE_BAKED: bone 32 rotation: 4 keys in the glTF, 4 before, 4 now" "$tmp/out" ||
	fail "the baked report: $(cat "$tmp/out")"
# the walk of the samples: a knee's key turned, its rx alone
W=$S/shenmue-containers/syn_A_WALK.MOTN
if [ -e "$W" ]; then
	cp "$W" "$tmp/walk.MOTN" && "$A" gltf "$tmp/walk.MOTN" -o "$tmp/walk.glb" &&
		edit "$tmp/walk.glb" "$tmp/walke.glb" turn A_WALK_L_02 "bone 9" 3 x 10 || fail "the walk's edit"
	"$A" import "$tmp/walke.glb" --into "$tmp/walk.MOTN" -o "$tmp/walke.MOTN" > /dev/null || fail "import into the walk"
	d=$(diff <("$E" decode "$W") <("$E" decode "$tmp/walke.MOTN") | grep '^[<>] ' | grep -v 'animfs view of')
	[[ $d == "< "*"[9, 2, -0.0479, 0.957]"*"> "*"[9, 2, -0.02013, 0.957]" ]] || fail "the walk's knee: $d"
else
	echo "SKIP (part): no ../shared/samples/shenmue-containers/syn_A_WALK.MOTN"
fi
# refused, nothing written
edit "$tmp/w.glb" "$tmp/x.glb" add "bone 23" translation 1.0 0 1.5 0.5 && refuse "past the last frame" "$tmp/x.glb" "outside the block's frames 0..7"
edit "$tmp/w.glb" "$tmp/x.glb" rename "bone 23" "bone 99" && refuse "no such slot" "$tmp/x.glb" "node 'bone 99' moves, but the file has no joint"
edit "$tmp/w.glb" "$tmp/x.glb" set "bone 23" translation 1 70000 1.5 0.5 && refuse "past the half range" "$tmp/x.glb" "outside the half-float range"
edit "$tmp/w.glb" "$tmp/x.glb" move DEMO_WAVE_BAKED "bone 0" 1 0 70000 &&
	refuse "a baked value past the half range" "$tmp/x.glb" "DEMO_WAVE_BAKED': node 'bone 0': value 70000 at frame 1 is outside the half-float range"
python3 - "$tmp/m.yaml" "$tmp/long.yaml" <<'PY' || fail "the long block"
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
b = d["blocks"][0]
b["frames"] = 600
b["bones"][1]["rx"][-1][0] = b["bones"][1]["ry"][-1][0] = b["bones"][1]["rz"][-1][0] = 599
b["bones"][0] = {"bone": 0, "tx": [[0, 1, 0.0], [599, 1, 0.0]]}
yaml.safe_dump(d, open(sys.argv[2], "w"), sort_keys=False)
PY
"$E" encode "$tmp/long.yaml" -o "$tmp/long.BIN" && "$A" gltf "$tmp/long.BIN" --anim DEMO_BOB -o "$tmp/l.glb" &&
	python3 - "$tmp/l.glb" "$tmp/l2.glb" <<'PY' || fail "the zigzag"
import json, struct, sys
b = open(sys.argv[1], "rb").read(); n = struct.unpack_from("<I", b, 12)[0]; j = json.loads(b[20:20 + n])
node = [i for i, x in enumerate(j["nodes"]) if x.get("name") == "bone 0"][0]
a = j["animations"][0]
ch = [c for c in a["channels"] if c["target"]["node"] == node][0]
t = [f / 30 for f in range(600)]
v = [c for f in range(600) for c in ((f % 2) * 0.5, 0.0, 0.0)]  # a zigzag: a key every frame
binc = b[20 + n + 8:] + struct.pack("<%df" % 600, *t) + struct.pack("<%df" % 1800, *v)
base = len(b[20 + n + 8:])
j["bufferViews"] += [{"buffer": 0, "byteOffset": base, "byteLength": 2400}, {"buffer": 0, "byteOffset": base + 2400, "byteLength": 7200}]
j["accessors"] += [{"bufferView": len(j["bufferViews"]) - 2, "componentType": 5126, "count": 600, "type": "SCALAR", "min": [0], "max": [t[-1]]},
                   {"bufferView": len(j["bufferViews"]) - 1, "componentType": 5126, "count": 600, "type": "VEC3"}]
s = a["samplers"][ch["sampler"]]
s["input"], s["output"] = len(j["accessors"]) - 2, len(j["accessors"]) - 1
j["buffers"][0]["byteLength"] = len(binc)
js = json.dumps(j).encode(); js += b" " * (-len(js) % 4); binc += b"\0" * (-len(binc) % 4)
open(sys.argv[2], "wb").write(struct.pack("<4sII", b"glTF", 2, 28 + len(js) + len(binc)) + struct.pack("<I4s", len(js), b"JSON") + js + struct.pack("<I4s", len(binc), b"BIN\0") + binc)
PY
refuse "too many keys" "$tmp/l2.glb" "bone 0 tx: the glTF's curve takes more than the 255 intermediate keys" "$tmp/long.BIN"
hostile count:"do not fit" nan:"not a finite number" buflen:"byteLength 2147483648, but only" \
	nobuf:"no such buffer" noanim:"the file has none of that name" trunc:"does not fit its" loop:"loop"
echo "$fails failed"
[ $fails -eq 0 ]
