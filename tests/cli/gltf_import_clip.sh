#!/usr/bin/env bash
# Issue 45: `animfs import` into a Sims 3 CLIP (examples/clip_tiny, no samples needed; the
# samples are cli/gltf_import_samples'). A preview brought back with no edit gives the identical binary;
# one key of one channel changed changes that frame only (`animfs decode` before and after),
# within one step; a key off the tick grid is resampled at the ticks it spans and reduced;
# a joint named by its hash, or by its rig name where the clip's view shows the hash (a
# preview made on --rig-dir) finds its channel; a value outside a channel's range refits
# that channel and the report says so; what cannot map (a key past the clip's last tick, a
# joint or channel the clip lacks) and hostile glTF are refused, nothing written. A clip in a
# package is brought back into its package (--into PACKAGE/MEMBER).
. "$(dirname "$0")/gltf_import.inc"
export ANIMFS_NAMES= # no user dictionary names the bone 'lid'
ex=$src/examples
B=$tmp/t.animation
prepare "$ex/clip_tiny.animation.yaml"
"$A" gltf "$B" -o "$tmp/w.gltf" || fail "gltf"
unedited "0 channels changed, 2 as they were: the file is unchanged"
"$A" import "$tmp/w.gltf" --into "$B" -o "$tmp/g.animation" > /dev/null && cmp -s "$tmp/g.animation" "$B" ||
	fail "an unedited .gltf does not give the binary"
# one rotation key (tick 2): that frame only, the edit within one step (scale 1: 1/4095)
changed() { diff "$tmp/orig.yaml" "$1" | grep '^[<>]'; }
edit "$tmp/w.glb" "$tmp/e.glb" set b__ROOT_bind__ rotation 2 0.1 0 0 0.995 || fail "glb_edit set"
out=$("$A" import "$tmp/e.glb" --into "$B" -o "$tmp/e.animation") || fail "import of one key"
[[ $out == "changed: a_tool_x: b__ROOT_bind__ rotation: 6 keys in the glTF, 6 before, 6 now; largest error "*" steps"*"1 channel changed, 1 as they were" ]] ||
	fail "the report of one key: $out"
"$E" decode "$tmp/e.animation" > "$tmp/e.yaml" || fail "decode of the import"
d=$(changed "$tmp/e.yaml")
[ "$(echo "$d" | wc -l)" = 2 ] && [[ $d == *"<       2: [0.01953602, 0.0, 0.0, 1.0]"*">       2: [0.1001221, 0.0, 0.0, 0.995116]"* ]] ||
	fail "one key changed more: $d"
python3 - "$tmp/e.yaml" <<'PY' || fail "the new key is not the edit within one step"
import math, sys
line = [l for l in open(sys.argv[1]) if l.strip().startswith("2: [0.1")][0]
q = [float(x) for x in line.split("[")[1].split("]")[0].split(",")]
n = math.hypot(0.1, 0.995)
assert max(abs(a - b) for a, b in zip(q, [0.1 / n, 0, 0, 0.995 / n])) <= 1 / 4095, q
PY
# a joint named by its hash (0x57884BB9 = b__ROOT_bind__) finds the same channel
edit "$tmp/e.glb" "$tmp/h.glb" rename b__ROOT_bind__ 0x57884BB9 || fail "glb_edit rename"
"$A" import "$tmp/h.glb" --into "$B" -o "$tmp/h.animation" > /dev/null && cmp -s "$tmp/h.animation" "$tmp/e.animation" ||
	fail "a joint named by its hash"
# a key off the tick grid (0.05 s, tick 1.5): resampled at every tick, reduced to the line
# through the file's frames, the new one at tick 1
edit "$tmp/w.glb" "$tmp/o.glb" add b__ROOT_bind__ translation 0.05 -2 1.5 0 || fail "glb_edit add"
out=$("$A" import "$tmp/o.glb" --into "$B" -o "$tmp/o.animation") || fail "import off the grid"
[[ $out == "changed: a_tool_x: b__ROOT_bind__ translation: 4 keys in the glTF, 3 before, 4 now; largest error "*"1 channel changed, 1 as they were" ]] ||
	fail "the report off the grid: $out"
"$E" decode "$tmp/o.animation" > "$tmp/o.yaml"
d=$(changed "$tmp/o.yaml")
[ "$(echo "$d" | wc -l)" = 1 ] && [[ $d == ">       1: [-2.0, 1.33"* ]] || fail "off the grid: $d"
# a value outside offset 0 +- 2: refused without --refit (nothing written, the option
# named); with it the channel refitted, said so, its other frames within a step
edit "$tmp/w.glb" "$tmp/r.glb" set b__ROOT_bind__ translation 1 -2 5 0 || fail "glb_edit set 5"
if out=$("$A" import "$tmp/r.glb" --into "$B" -o "$tmp/r.animation" 2>&1); then
	fail "a value out of range was taken without --refit: $out"
fi
[[ $out == *"outside the channel's range"*"--refit"* ]] || fail "the refusal does not name --refit: $out"
[ ! -e "$tmp/r.animation" ] || fail "a refused import wrote $tmp/r.animation"
out=$("$A" import "$tmp/r.glb" --into "$B" -o "$tmp/r.animation" --refit) || fail "import out of range"
[[ $out == *"range refitted to offset 1.5, scale 3.5, every frame re-quantised"* ]] || fail "the refit report: $out"
"$E" decode "$tmp/r.animation" > "$tmp/r.yaml"
grep -q '      2: \[-2.0, 5.0, ' "$tmp/r.yaml" && [ "$(changed "$tmp/r.yaml" | grep -c '^>')" = 5 ] ||
	fail "the refit channel: $(changed "$tmp/r.yaml")"
# a rig's names where the clip's view shows hashes: a clip of the bone 'lid' with no rig
# beside it, previewed on --rig-dir, comes back by the hash of the joint's name
mkdir -p "$tmp/solo" "$tmp/rigs"
sed -e 's/target: b__ROOT_bind__/target: lid/' "$ex/clip_tiny.animation.yaml" > "$tmp/lid.yaml"
C=$tmp/solo/S3_6B20C4F3_00000000_00000000000000C1%%+CLIP.animation
"$E" encode "$tmp/lid.yaml" -o "$C" && "$E" encode "$ex/hand_prop.rig.yaml" -o "$tmp/rigs/S3_8EAF13DE_00000000_000000000000000A%%+_RIG.grannyrig" ||
	fail "encode the clip of lid and its rig"
"$E" decode "$C" | grep -q 'target: 0x' || fail "the solo clip's view names its target"
"$A" gltf "$C" --rig-dir "$tmp/rigs" -o "$tmp/lid.glb" || fail "gltf --rig-dir"
out=$("$A" import "$tmp/lid.glb" --into "$C" -o "$tmp/lid0.animation") && cmp -s "$tmp/lid0.animation" "$C" ||
	fail "the rig-named preview unedited: $out"
edit "$tmp/lid.glb" "$tmp/lid1.glb" set lid rotation 2 0.1 0 0 0.995 || fail "glb_edit lid"
out=$("$A" import "$tmp/lid1.glb" --into "$C" -o "$tmp/lid1.animation") || fail "import of the rig-named edit"
[[ $out == "changed: a_tool_x: lid rotation: 6 keys in the glTF, 6 before, 6 now; "*"1 channel changed, 1 as they were" ]] ||
	fail "the rig-named edit: $out"
# a clip in a package: --into PACKAGE/MEMBER puts the member back through the container (no
# edit: the package untouched); with -o, the member's binary, as the loose file's import
python3 "$src/tests/mount/mkpackage.py" "$tmp/p.package" 6B20C4F3:C2:"$B" || fail "mkpackage"
cp "$tmp/p.package" "$tmp/p0.package"
M=$tmp/p.package/S3_6B20C4F3_00000000_00000000000000C2.clip
"$A" gltf "$M" -o "$tmp/m.glb" || fail "gltf of the member"
out=$("$A" import "$tmp/m.glb" --into "$M") && cmp -s "$tmp/p.package" "$tmp/p0.package" &&
	[[ $out == *"the file is unchanged" ]] || fail "an unedited member preview changed the package: $out"
edit "$tmp/m.glb" "$tmp/me.glb" set b__ROOT_bind__ rotation 2 0.1 0 0 0.995 || fail "glb_edit member"
"$A" import "$tmp/me.glb" --into "$M" -o "$tmp/m.animation" > /dev/null && cmp -s "$tmp/m.animation" "$tmp/e.animation" ||
	fail "the member's -o differs from the loose file's import"
cmp -s "$tmp/p.package" "$tmp/p0.package" || fail "-o wrote the package"
out=$("$A" import "$tmp/me.glb" --into "$M") || fail "import into the member"
[[ $out == "changed: a_tool_x: b__ROOT_bind__ rotation: "*"1 channel changed, 1 as they were" ]] || fail "the member's report: $out"
"$E" decode "$M" > "$tmp/m.yaml" && "$E" decode "$tmp/e.animation" > "$tmp/e2.yaml" &&
	cmp -s <(grep -v '^#' "$tmp/m.yaml") <(grep -v '^#' "$tmp/e2.yaml") || fail "the package's member is not the edit"
"$A" import "$tmp/w.glb" --into "$tmp/p.package/nope.clip" -o "$tmp/n.animation" 2> "$tmp/err" && fail "a member that is not there"
# refused, nothing written
edit "$tmp/w.glb" "$tmp/x.glb" add b__ROOT_bind__ rotation 0.5 0 0 0 1 && refuse "past the last tick" "$tmp/x.glb" "outside the clip's ticks 0..5"
edit "$tmp/w.glb" "$tmp/x.glb" rename b__ROOT_bind__ b__Other__ && refuse "no such bone" "$tmp/x.glb" "node 'b__Other__' has a"
hostile count:"do not fit" nan:"not a finite number" loop:"no tree" buflen:"byteLength 2147483648, but only" \
	nobuf:"no such buffer" noanim:"the file has none of that name" nojoint:"'no such bone' has a" trunc:"does not fit its"
echo "$fails failed"
[ $fails -eq 0 ]
