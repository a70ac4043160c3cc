#!/usr/bin/env bash
# Issue 31: `animfs gltf` on the examples of every format with a skeleton or animation: the
# Khronos glTF-Validator reports 0 errors (GLB and .gltf), the counts are those the YAML holds,
# an edit of one keyframe changes that node's sampler output at that time and nothing else
# (MOTN blocks with rig bit 15 too: a baked angle and a node block's track sample),
# --anim keeps one animation, and hostile input (a bone list that loops, absurd counts, an
# unknown animation, a format with no skeleton) is a clear error with no output file; a CLIP
# in a package (or a folder) previews on the rig beside it that fits it best, or on none;
# MOTN baked and node blocks (rig bit 15) are animations too.
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
mods=${ANIMFS_NODE:-$src/.tools/node/node_modules}
[ -d "$mods/gltf-validator" ] || { echo "SKIP: gltf-validator missing (scripts/setup installs it)"; exit 77; }
export ANIMFS_NODE=$mods
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; n=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ex=$src/examples
# the binaries the previews are made of, and a view of one, by $PLAIN (tests/samples.inc);
# what is under test, gltf, runs as $ANIMFS
. "$src/tests/samples.inc"
# check FILE.glb YAML: 0 validator errors, the counts of the YAML; queued, and judged by
# check_all in one validator run and one count (a node and a Python start each)
: > "$tmp/checks"
check() { printf '%s\t%s\n' "$1" "$2" >> "$tmp/checks"; }
check_all() {
	cut -f1 "$tmp/checks" | xargs -d '\n' node "$src/tests/tools/gltf_check.js" > "$tmp/got" ||
		fail "the checker failed"
	cut -f2 "$tmp/checks" | xargs -d '\n' python3 "$src/tests/tools/gltf_expect.py" > "$tmp/want" ||
		fail "the counting failed"
	python3 - "$tmp/got" "$tmp/want" "$tmp/checks" > "$tmp/verdicts" <<'PY' || fail "the comparison failed"
import json, os, sys
got, want, checks = (open(p).read().splitlines() for p in sys.argv[1:])
if not len(got) == len(want) == len(checks):
    sys.exit(f"{len(checks)} previews, {len(got)} checked, {len(want)} counted")
for g, w, c in zip(got, want, checks):
    g, w = json.loads(g), json.loads(w)
    ok = g["errors"] == 0 and all(g[k] == w[k] for k in w)
    print("ok" if ok else f"FAIL: {os.path.basename(c.split(chr(9))[1])}: {g}, want {w}")
PY
	n=$((n + $(grep -c '^ok$' "$tmp/verdicts")))
	grep '^FAIL' "$tmp/verdicts" && fails=$((fails + $(grep -c '^FAIL' "$tmp/verdicts")))
}
refused() { # refused WHAT PATTERN ARGS...: exit 1, the message, no output file
	local what=$1 pat=$2 out; shift 2
	rm -f "$tmp/x.glb"
	out=$("$ANIMFS" gltf "$@" -o "$tmp/x.glb" 2>&1); local rc=$?
	[ $rc = 1 ] && [[ $out == *$pat* ]] && [ ! -e "$tmp/x.glb" ] && n=$((n + 1)) ||
		fail "$what: exit $rc, '$out', file: $(ls "$tmp/x.glb" 2>/dev/null)"
}
for y in walk.animation.yaml re3_tiny.PLD.yaml MOTION.BIN.yaml clip_tiny.animation.yaml hand_prop.rig.yaml; do
	"$ANIMFS" gltf "$ex/$y" -o "$tmp/$y.glb" || { fail "gltf $y"; continue; }
	check "$tmp/$y.glb" "$ex/$y"
	"$ANIMFS" gltf "$ex/$y" -o "$tmp/$y.gltf" || { fail "gltf $y as .gltf"; continue; }
	check "$tmp/$y.gltf" "$ex/$y"
done
check_all
# the line scans cli/gltf_samples counts big views with (MOTN, CLIP) agree with the full YAML
a=$(python3 "$src/tests/tools/gltf_expect.py" "$ex/MOTION.BIN.yaml" "$ex/clip_tiny.animation.yaml")
b=$(python3 "$src/tests/tools/gltf_expect.py" --yaml "$ex/MOTION.BIN.yaml" "$ex/clip_tiny.animation.yaml")
[ "$(echo "$a" | wc -l)" = 2 ] && [ "$a" = "$b" ] && n=$((n + 1)) || fail "line scans $a, YAML $b"
# the binary previews as its view does
"$PLAIN" encode "$ex/walk.animation.yaml" -o "$tmp/walk.animation" >/dev/null 2>&1
"$PLAIN" decode "$tmp/walk.animation" > "$tmp/walk-dec.yaml" && "$ANIMFS" gltf "$tmp/walk-dec.yaml" -o "$tmp/walk-dec.glb" &&
	"$ANIMFS" gltf "$tmp/walk.animation" -o "$tmp/walk-bin.glb" &&
	cmp -s <(node "$src/tests/tools/gltf_check.js" --diff "$tmp/walk-bin.glb" "$tmp/walk-dec.glb") /dev/null &&
	n=$((n + 1)) || fail "the binary and its view preview differently"
# an edit of one keyframe: that node, that time, nothing else (Diesel: Hips position key 1; CLIP)
edit() { # edit IN OUT LINE_PATTERN OLD NEW: replace OLD by NEW on the first line matching
	python3 - "$@" <<'PY'
import re, sys
src, dst, pat, old, new = sys.argv[1:]
lines = open(src).read().split("\n")
for i, l in enumerate(lines):
    if re.search(pat, l) and old in l:
        lines[i] = l.replace(old, new, 1)
        break
else:
    sys.exit("no line")
open(dst, "w").write("\n".join(lines))
PY
}
edit "$ex/walk.animation.yaml" "$tmp/walk2.yaml" '^        - \[0\.5, 0\.0, 60\.0' "60.0" "61.5" || fail "edit walk"
"$ANIMFS" gltf "$tmp/walk2.yaml" -o "$tmp/walk2.glb" || fail "gltf of the edit"
d=$(node "$src/tests/tools/gltf_check.js" --diff "$tmp/walk.animation.yaml.glb" "$tmp/walk2.glb")
obj=$(python3 -c 'import yaml,sys; d=yaml.safe_load(open(sys.argv[1])); print([o["name"] for o in d["objects"] if [0.5,0.0,60.0,0.0] in (o.get("position") or {}).get("keys",[])][0])' "$ex/walk.animation.yaml")
[ "$d" = "animation @30fps: $obj translation: key 1 at 0.5000 s" ] && n=$((n + 1)) || fail "a Diesel key edit changed: '$d'"
edit "$ex/clip_tiny.animation.yaml" "$tmp/clip2.yaml" '^      2: \[0\.01953602' "0.01953602" "0.25" || fail "edit clip"
"$ANIMFS" gltf "$tmp/clip2.yaml" -o "$tmp/clip2.glb" || fail "gltf of the clip edit"
d=$(node "$src/tests/tools/gltf_check.js" --diff "$tmp/clip_tiny.animation.yaml.glb" "$tmp/clip2.glb")
[[ $d == *": "*" rotation: key 2 at 0.0667 s" ]] && [ "$(echo "$d" | wc -l)" = 1 ] && n=$((n + 1)) ||
	fail "a CLIP key edit changed: '$d'"
edit "$ex/MOTION.BIN.yaml" "$tmp/baked2.yaml" '^          rz: \[-16384, -15000, -13000' "-13000" "-12500" || fail "edit baked"
"$ANIMFS" gltf "$tmp/baked2.yaml" -o "$tmp/baked2.glb" || fail "gltf of the baked edit"
d=$(node "$src/tests/tools/gltf_check.js" --diff "$tmp/MOTION.BIN.yaml.glb" "$tmp/baked2.glb")
[ "$d" = "DEMO_WAVE_BAKED @30fps: bone 32 rotation: key 2 at 0.0667 s" ] && n=$((n + 1)) || fail "a baked angle edit changed: '$d'"
edit "$ex/MOTION.BIN.yaml" "$tmp/nodes2.yaml" '^          ry: \[0, 1000, 2000, 1000\]' "2000" "2500" || fail "edit nodes"
"$ANIMFS" gltf "$tmp/nodes2.yaml" -o "$tmp/nodes2.glb" || fail "gltf of the node edit"
d=$(node "$src/tests/tools/gltf_check.js" --diff "$tmp/MOTION.BIN.yaml.glb" "$tmp/nodes2.glb")
[ "$d" = "DEMO_FLAG_NODES @30fps: DEMO_FLAG_NODES node 0 rotation: key 2 at 0.0667 s" ] && n=$((n + 1)) ||
	fail "a node track edit changed: '$d'"
edit "$ex/MOTION.BIN.yaml" "$tmp/short.yaml" '^          rz: \[-16384, -15000, -13000, -12000\]' ", -12000]" "]" || fail "edit short"
refused "a baked list shorter than its frames" "rz has 3 values, one a frame wants 4" "$tmp/short.yaml"
# --anim keeps one animation
"$ANIMFS" gltf "$ex/MOTION.BIN.yaml" --anim "$(python3 -c 'import yaml,sys; d=yaml.safe_load(open(sys.argv[1])); print([b for b in d["blocks"] if "bones" in b][0]["names"][0])' "$ex/MOTION.BIN.yaml")" -o "$tmp/one.glb" &&
	[ "$(node "$src/tests/tools/gltf_check.js" "$tmp/one.glb" | python3 -c 'import json,sys; print(json.load(sys.stdin)["animations"])')" = 1 ] &&
	n=$((n + 1)) || fail "--anim"
# hostile input: a clear error naming the place, and no file
edit "$ex/re3_tiny.PLD.yaml" "$tmp/loop.PLD.yaml" '^      - \{bone: 0, parent: -1' "parent: -1" "parent: 2" || fail "edit loop"
refused "an RE bone list that loops" "loop" "$tmp/loop.PLD.yaml"
edit "$ex/hand_prop.rig.yaml" "$tmp/loop.rig.yaml" '^    parent: null' "null" "lid" || fail "edit rig loop"
refused "a rig whose parents loop" "loop" "$tmp/loop.rig.yaml"
edit "$ex/re3_tiny.PLD.yaml" "$tmp/far.PLD.yaml" '^      - \{bone: 1, parent: 0' "parent: 0" "parent: 7" || fail "edit far"
refused "an RE parent past the bones" "parent is no bone" "$tmp/far.PLD.yaml"
edit "$ex/MOTION.BIN.yaml" "$tmp/big.yaml" '^    frames: 16' "16" "4000000000" || fail "edit frames"
refused "absurd MOTN frame count" "4e+09 frames" "$tmp/big.yaml"
# an MD2 whose object 0 has 1 vertex and a triangle pointing at vertex 5 (and one with 5)
mesh_hex() { # mesh_hex I2: the tiny PLD's mesh section with one triangle (0, 0, I2)
	python3 -c 'import struct,sys
i2 = int(sys.argv[1])
d = [(72, 72, 1, 80, 92, 1, 0)] + [(92, 92, 0, 92, 92, 0, 0)] * 2
b = struct.pack("<II", 100, 3) + b"".join(struct.pack("<IIIIIHH", *e) for e in d)
b += struct.pack("<hhhh", 10, 20, 30, 0) + bytes([0, 0, 0, 0x78, 4, 0, 0x80, 0, 8, 8, 0, i2])
print(b.hex())' "$1"
}
edit "$ex/re3_tiny.PLD.yaml" "$tmp/past.PLD.yaml" '^    hex: "50000000' "$(sed -n 's/^    hex: "\(50000000[0-9a-f]*\)".*/\1/p' "$ex/re3_tiny.PLD.yaml")" "$(mesh_hex 5)" || fail "edit mesh"
refused "a mesh index past the vertices" "triangle 0 points at vertex 5 past its 1 vertices" "$tmp/past.PLD.yaml"
edit "$ex/re3_tiny.PLD.yaml" "$tmp/one.PLD.yaml" '^    hex: "50000000' "$(sed -n 's/^    hex: "\(50000000[0-9a-f]*\)".*/\1/p' "$ex/re3_tiny.PLD.yaml")" "$(mesh_hex 0)" || fail "edit mesh 2"
"$ANIMFS" gltf "$tmp/one.PLD.yaml" -o "$tmp/one.glb" &&
	node "$src/tests/tools/gltf_check.js" "$tmp/one.glb" | grep -q '"errors":0,.*"meshes":1,"images":1' && n=$((n + 1)) ||
	fail "a one-triangle textured mesh: $(node "$src/tests/tools/gltf_check.js" "$tmp/one.glb")"
refused "an unknown animation" "no animation called 'nope'" "$ex/walk.animation.yaml" --anim nope
refused "a state machine" "no skeleton or animation" "$ex/wave_hello.jazz.yaml"
"$ANIMFS" gltf >/dev/null 2>&1; [ $? = 2 ] && n=$((n + 1)) || fail "gltf without FILE is not a usage error"
# a CLIP in a package previews on the rig beside it: of two rigs, the one whose bones are
# the most of its moved targets (lid and transformBone: rig A both, rig B, listed first,
# only transformBone); a clip whose targets no rig holds has none (one node per target)
pk=$tmp/pk; mkdir -p "$pk"
sed -e '0,/target: b__ROOT_bind__/s//target: lid/' -e 's/target: b__ROOT_bind__/target: transformBone/' \
	"$ex/clip_tiny.animation.yaml" > "$pk/two.yaml"
sed 's/\blid\b/lidB/g' "$ex/hand_prop.rig.yaml" > "$pk/b.rig.yaml"
"$PLAIN" encode "$pk/two.yaml" -o "$pk/two.clip" && "$PLAIN" encode "$ex/clip_tiny.animation.yaml" -o "$pk/tiny.clip" &&
	"$PLAIN" encode "$ex/hand_prop.rig.yaml" -o "$pk/a.rig" && "$PLAIN" encode "$pk/b.rig.yaml" -o "$pk/b.rig" &&
	python3 "$src/tests/mount/mkpackage.py" "$pk/p.package" 8EAF13DE:B:"$pk/b.rig" 6B20C4F3:C1:"$pk/two.clip" \
		8EAF13DE:A:"$pk/a.rig" 6B20C4F3:C2:"$pk/tiny.clip" || fail "making the package"
glb_json() { python3 -c 'import json, struct, sys
b = open(sys.argv[1], "rb").read(); n = struct.unpack_from("<I", b, 12)[0]; j = json.loads(b[20:20 + n])
x = j["asset"]["extras"]["animfs"]
print(x.get("skeleton_from", "-"), ",".join(d["name"] for d in j["nodes"]),
      ",".join(j["nodes"][c["target"]["node"]]["name"] for c in j["animations"][0]["channels"]))' "$1"; }
m1=S3_6B20C4F3_00000000_00000000000000C1.clip
"$ANIMFS" gltf "$pk/p.package/$m1" -o "$tmp/auto.glb" &&
	[ "$(glb_json "$tmp/auto.glb")" = "S3_8EAF13DE_00000000_000000000000000A%%+_RIG.grannyrig b__ROOT__,offsetBone,transformBone,lid,_handle_L_,_handle_R_ lid,transformBone" ] &&
	n=$((n + 1)) || fail "the rig found beside a clip: $(glb_json "$tmp/auto.glb")"
node "$src/tests/tools/gltf_check.js" "$tmp/auto.glb" | grep -q '"errors":0,.*"nodes":6,"added":0,"animations":1,"keys":9,' &&
	n=$((n + 1)) || fail "validator on the clip with its rig: $(node "$src/tests/tools/gltf_check.js" "$tmp/auto.glb")"
"$ANIMFS" gltf "$pk/p.package/$m1" --rig "$pk/p.package/S3_8EAF13DE_00000000_000000000000000B.rig" -o "$tmp/rigb.glb" &&
	[ "$(glb_json "$tmp/rigb.glb")" = "- b__ROOT__,offsetBone,transformBone,lidB,_handle_L_,_handle_R_,lid,skeleton root lid,transformBone" ] &&
	n=$((n + 1)) || fail "--rig over the rig beside: $(glb_json "$tmp/rigb.glb")"
"$ANIMFS" gltf "$pk/p.package/S3_6B20C4F3_00000000_00000000000000C2.clip" -o "$tmp/norig.glb" &&
	[ "$(glb_json "$tmp/norig.glb")" = "- b__ROOT_bind__ b__ROOT_bind__,b__ROOT_bind__" ] &&
	n=$((n + 1)) || fail "a clip no rig fits: $(glb_json "$tmp/norig.glb")"
# loose files: the rig beside the clip in its folder, by its s3pe export name
cp "$pk/two.clip" "$pk/S3_6B20C4F3_00000000_00000000000000C1%%+CLIP.animation"
cp "$pk/a.rig" "$pk/S3_8EAF13DE_00000000_000000000000000A%%+_RIG.grannyrig"
"$ANIMFS" gltf "$pk/S3_6B20C4F3_00000000_00000000000000C1%%+CLIP.animation" -o "$tmp/loose.glb" &&
	[ "$(glb_json "$tmp/loose.glb")" = "S3_8EAF13DE_00000000_000000000000000A%%+_RIG.grannyrig b__ROOT__,offsetBone,transformBone,lid,_handle_L_,_handle_R_ lid,transformBone" ] &&
	n=$((n + 1)) || fail "a loose clip's rig beside it: $(glb_json "$tmp/loose.glb")"
# --rig-dir: a loose clip with no rig beside it previews on the best rig of a folder of rigs
mkdir -p "$pk/solo" "$pk/rigs"
cp "$pk/two.clip" "$pk/solo/S3_6B20C4F3_00000000_00000000000000C1%%+CLIP.animation"
cp "$pk/a.rig" "$pk/rigs/S3_8EAF13DE_00000000_000000000000000A%%+_RIG.grannyrig"
cp "$pk/b.rig" "$pk/rigs/S3_8EAF13DE_00000000_000000000000000B%%+_RIG.grannyrig"
"$ANIMFS" gltf "$pk/solo/S3_6B20C4F3_00000000_00000000000000C1%%+CLIP.animation" --rig-dir "$pk/rigs" -o "$tmp/rigdir.glb" &&
	[ "$(glb_json "$tmp/rigdir.glb")" = "S3_8EAF13DE_00000000_000000000000000A%%+_RIG.grannyrig b__ROOT__,offsetBone,transformBone,lid,_handle_L_,_handle_R_ lid,transformBone" ] &&
	n=$((n + 1)) || fail "--rig-dir: $(glb_json "$tmp/rigdir.glb")"
"$ANIMFS" gltf "$ex/walk.animation.yaml" --rig-dir "$pk/absent" -o "$tmp/x.glb" 2>/dev/null && fail "--rig-dir of no folder"
# issue 45: one skin whose joints are every node but the added root, whose roots are one
# node; each animation named with its frame rate, its timing and source in its extras.
# --skeleton FILE: "CHILD -> PARENT [@ X Y Z]" lines over the codec's parents (and rest
# offsets); a line whose child the preview lacks passed over; an unknown parent, a loop, a
# line of no arrow, an offset not of three numbers refused
printf '# lid on offsetBone\nlid -> offsetBone\n  absent -> lid  \n\n' > "$tmp/sk.txt"
printf 'bone 1 -> bone 0 @ 0 0.1 0\n' > "$tmp/sk4.txt"
"$ANIMFS" gltf "$ex/hand_prop.rig.yaml" --skeleton "$tmp/sk.txt" -o "$tmp/sk.gltf" &&
	"$ANIMFS" gltf "$ex/MOTION.BIN.yaml" --skeleton "$tmp/sk4.txt" -o "$tmp/sk4.gltf" || fail "--skeleton"
python3 - "$tmp" > "$tmp/facts" <<'PY' || fail "reading the previews"
import json, struct, sys
def load(p):
    b = open(p, "rb").read()
    if b[:4] != b"glTF":
        return json.loads(b)
    return json.loads(b[20:20 + struct.unpack_from("<I", b, 12)[0]])
for f in ("re3_tiny.PLD.yaml.glb", "walk.animation.yaml.glb"):
    j = load(sys.argv[1] + "/" + f)
    nodes = len(j["nodes"]) - j["asset"]["extras"]["animfs"]["added_nodes"]
    a = j["animations"][0]; x = a["extras"]["animfs"]
    print(len(j["skins"]), j["skins"][0]["joints"] == list(range(nodes)), len(j["scenes"][0]["nodes"]),
          a["name"], x["frame_rate"], x["frames"], x["duration"], x["source"])
j = load(sys.argv[1] + "/sk.gltf")
print(j["asset"]["extras"]["animfs"]["skeleton_text"], j["nodes"][1]["children"])
j = load(sys.argv[1] + "/sk4.gltf")
k = [i for i, x in enumerate(j["nodes"]) if x["name"] == "bone 1"][0]
print(j["nodes"][k]["translation"], [x["name"] for x in j["nodes"] if k in x.get("children", [])])
PY
want=("1 True 1 bank 0 sequence 0 @30fps 30 4 0.1 re3_tiny.PLD.yaml: bank 0 sequence 0"
	"1 True 1 animation @30fps 30 30 1 walk.animation.yaml: the clip"
	"1 of its 2 lines name a node of this preview [2, 3]"
	"[0, 0.1, 0] ['bone 0']")
what=("the RE skin and timing" "the Diesel skin and timing" "--skeleton" "--skeleton with an offset")
for i in 0 1 2 3; do
	got=$(sed -n "$((i + 1))p" "$tmp/facts")
	[ "$got" = "${want[$i]}" ] && n=$((n + 1)) || fail "${what[$i]}: '$got'"
done
printf 'lid -> nope\n' > "$tmp/sk1.txt"; printf 'b__ROOT__ -> lid\n' > "$tmp/sk2.txt"; printf 'lid offsetBone\n' > "$tmp/sk3.txt"
printf 'bone 1 -> bone 0 @ 0 nan 0\n' > "$tmp/sk5.txt"; printf 'bone 1 -> bone 0 @ 0 1 0 9\n' > "$tmp/sk6.txt"
refused "a skeleton's unknown parent" "skeleton line 1: parent 'nope' of 'lid' is no node" "$ex/hand_prop.rig.yaml" --skeleton "$tmp/sk1.txt"
refused "a skeleton's loop" "its parents loop back" "$ex/hand_prop.rig.yaml" --skeleton "$tmp/sk2.txt"
refused "a skeleton line of no arrow" "skeleton line 1: want 'CHILD -> PARENT'" "$ex/hand_prop.rig.yaml" --skeleton "$tmp/sk3.txt"
refused "a skeleton offset not a number" "skeleton line 1: want '@ X Y Z', three numbers" "$ex/hand_prop.rig.yaml" --skeleton "$tmp/sk5.txt"
refused "a skeleton offset of four numbers" "skeleton line 1: '9' after '@ X Y Z'" "$ex/hand_prop.rig.yaml" --skeleton "$tmp/sk6.txt"
echo "$n passed, $fails failed"
[ $fails -eq 0 ]
