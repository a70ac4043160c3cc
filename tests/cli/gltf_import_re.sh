#!/usr/bin/env bash
# Issue 45: `animfs import` into an RE model (examples/re3_tiny, no samples needed; the
# samples are cli/gltf_import_samples'). Frames name poses of a shared pool (RE3: pose_start
# + a u8), so: no edit gives the identical binary; an edited bone at a frame whose pose other
# frames share gets a new pose at the pool's end (that frame alone now names it); at a frame
# whose pose it alone names, the pose changes in place; new values that a pose of the pool
# already holds take that pose; a new pose the frame cannot name (past pose_start + 255) is
# refused naming the sequence and the frame; so are a key past the sequence's last frame, a
# translation of a bone other than the root, and hostile glTF; nothing written.
. "$(dirname "$0")/gltf_import.inc"
B=$tmp/t.PLD
prepare "$src/examples/re3_tiny.PLD.yaml"
unedited "0 channels changed, 4 as they were: the file is unchanged"
# frames 0..3 name poses 0 1 0 1. Bone 1 at frame 1 (pose 1, shared with frame 3): a new pose 2
# for frame 1 alone, bone 1 turned 23.07 degrees about X
edit "$tmp/w.glb" "$tmp/e.glb" set "bone 1" rotation 1 0.2 0 0 0.98 || fail "glb_edit set"
out=$("$A" import "$tmp/e.glb" --into "$B" -o "$tmp/e.PLD") || fail "import of one key"
[[ $out == "changed: bank 0 sequence 0: bone 1 rotation: 4 keys in the glTF, 4 before, 4 now; largest error "*"1 channel changed, 3 as they were" ]] ||
	fail "the report of one key: $out"
"$E" decode "$tmp/e.PLD" > "$tmp/e.yaml" || fail "decode"
python3 - "$tmp/orig.yaml" "$tmp/e.yaml" <<'PY' || fail "the new pose"
import sys, yaml
a, b = (yaml.safe_load(open(p)) for p in sys.argv[1:3])
ka, kb = a["banks"][0], b["banks"][0]
fa, fb = ka["sequences"][0]["frames"], kb["sequences"][0]["frames"]
assert [f[0] for f in fb] == [0, 2, 0, 1], fb
assert ka["keyframes"] == kb["keyframes"][:2], "an old pose changed"
new = kb["keyframes"][2]
old = ka["keyframes"][1]
assert new["angles"][0] == old["angles"][0] and new["angles"][2] == old["angles"][2], new
assert abs(new["angles"][1][0] - 23.07) <= 360 / 4096 and new["angles"][1][1:] == [0, 0], new
assert {k: v for k, v in new.items() if k not in ("angles", "pose")} == {k: v for k, v in old.items() if k not in ("angles", "pose")}
PY
# the same edit at frames 1 and 3 (both of pose 1's frames): pose 1 changed in place
edit "$tmp/e.glb" "$tmp/e2.glb" set "bone 1" rotation 3 0.2 0 0 0.98 || fail "glb_edit set 3"
"$A" import "$tmp/e2.glb" --into "$B" -o "$tmp/e2.PLD" > /dev/null || fail "import of two keys"
"$E" decode "$tmp/e2.PLD" > "$tmp/e2.yaml"
d=$(diff "$tmp/orig.yaml" "$tmp/e2.yaml" | grep '^[<>]')
[ "$(echo "$d" | wc -l)" = 2 ] && [[ $d == "<"*"- [-10, 0, 0]"*"bone_1"*">"*"- [23, 0, 0]"*"bone_1" ]] || fail "in place: $d"
# frame 1 given pose 0's values: it takes pose 0
edit "$tmp/w.glb" "$tmp/z.glb" set "bone 1" rotation 1 0.08715574 0 0 0.9961947 || fail "glb_edit z1"
edit "$tmp/z.glb" "$tmp/z2.glb" set "bone 2" rotation 1 -0.08715574 0 0 0.9961947 || fail "glb_edit z2"
edit "$tmp/z2.glb" "$tmp/z3.glb" set "bone 0" rotation 1 0 0 0 1 || fail "glb_edit z3"
edit "$tmp/z3.glb" "$tmp/z4.glb" set "bone 0" translation 1 0 -900 0 || fail "glb_edit z4"
"$A" import "$tmp/z4.glb" --into "$B" -o "$tmp/z.PLD" > /dev/null || fail "import of pose 0's values"
"$E" decode "$tmp/z.PLD" | sed -n '/frames:/,/keyframes:/p' | grep -c '\[0, ' | grep -qx 3 || fail "pose 0 not taken: $("$E" decode "$tmp/z.PLD" | sed -n '/frames:/,/keyframes:/p')"
# refused, nothing written
# a pool of 257 poses: a new one would be entry 257, past pose_start 0 + 255
python3 - "$tmp/orig.yaml" "$tmp/big.yaml" <<'PY' || fail "the big pool"
import copy, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
kf = d["banks"][0]["keyframes"]
for i in range(255):
    k = copy.deepcopy(kf[0]); k["pose"] = len(kf); k["motion"] = [i, 0, 0]; kf.append(k)
yaml.safe_dump(d, open(sys.argv[2], "w"), sort_keys=False)
PY
"$E" encode "$tmp/big.yaml" -o "$tmp/big.PLD" || fail "encode the big pool"
refuse "a pose past the u8" "$tmp/e.glb" "bank 0 sequence 0 frame 1: .*pool entry 257, which the frame cannot name" "$tmp/big.PLD"
edit "$tmp/w.glb" "$tmp/x.glb" add "bone 1" rotation 0.5 0 0 0 1 && refuse "past the last frame" "$tmp/x.glb" "past its last frame"
edit "$tmp/w.glb" "$tmp/x.glb" rename "bone 0" "bone 9" && refuse "no such bone" "$tmp/x.glb" "node 'bone 9' moves, but the file has no joint"
hostile count:"do not fit" nan:"not a finite number" buflen:"byteLength 2147483648, but only" \
	nobuf:"no such buffer" noanim:"the file has none of that name" trunc:"does not fit its"
echo "$fails failed"
[ $fails -eq 0 ]
