#!/usr/bin/env bash
# Issue 45 (item 3): `animfs import FILE.glb|.gltf --into GAMEFILE` merges a glTF back into
# the game file. Diesel, from examples/ (no samples needed) and, when there, every Diesel
# sample: a preview brought back with no edit gives the identical binary (GLB and .gltf);
# one key of one bone changed (tests/tools/glb_edit.py) changes that channel only, within
# one step, and says so on stdout; a key added where the line through its neighbours
# passes is reduced away; what cannot map (an animation, a joint the file lacks, a value
# past pos_u16's range, a key past the clip's length) and hostile glTF (wrong counts, NaN,
# a joint loop, a 2 GiB buffer length, no buffers, a cut file) are refused with a clear
# error and nothing written; a format that cannot take a glTF back says so.
. "$(dirname "$0")/gltf_import.inc"
ex=$src/examples
B=$tmp/walk.animation
prepare "$ex/walk.animation.yaml"
# no edit: the same bytes, from a GLB and from a .gltf; the file replaced in place
"$A" gltf "$B" -o "$tmp/w.gltf" || fail "gltf"
unedited "0 channels changed, 8 as they were: the file is unchanged"
"$A" import "$tmp/w.gltf" --into "$B" -o "$tmp/g.animation" > /dev/null && cmp -s "$tmp/g.animation" "$B" ||
	fail "an unedited .gltf does not give the binary"
# one key of one bone: that channel only, within one step (packed: 0.75/512)
edit "$tmp/w.glb" "$tmp/e.glb" set Hips rotation 1 0 0 -0.2 0.98 || fail "glb_edit set"
out=$("$A" import "$tmp/e.glb" --into "$B" -o "$tmp/e.animation") || fail "import of one key"
[[ $out == "changed: animation: Hips rotation: 3 keys in the glTF, 3 before, 3 now; largest error "*" steps"*"1 channel changed, 7 as they were" ]] ||
	fail "the report of one key: $out"
"$E" decode "$tmp/e.animation" > "$tmp/e.yaml" || fail "decode of the import"
d=$(diff "$tmp/orig.yaml" "$tmp/e.yaml" | grep '^[<>]')
[ "$(echo "$d" | wc -l)" = 2 ] && [[ $d == *"< "*"- [0.5, 0.000, 0.000, -0.086, 0.996]"*"> "*"- [0.5, 0.000, 0.000, -0.201, 0.980]" ]] ||
	fail "one key changed more: $d"
python3 - "$tmp/e.yaml" <<'PY' || fail "the new key is not the edit within one step"
import math, sys
line = [l for l in open(sys.argv[1]) if "[0.5, 0.000, 0.000, -0.2" in l][0]
q = [float(x) for x in line.split("[")[1].split("]")[0].split(",")[1:]]
n = math.sqrt(0.2 ** 2 + 0.98 ** 2)
want = [0, 0, -0.2 / n, 0.98 / n]
assert max(abs(a - b) for a, b in zip(q, want)) <= 0.75 / 512 + 5e-4, (q, want)
PY
# a position key (pos_u16, 1000/32767 cm a step), and a key added on the line through its
# neighbours: reduced away, so the file is as before but for the edit
edit "$tmp/w.glb" "$tmp/p.glb" set Hips translation 1 0 0 96.25 || fail "glb_edit set position"
edit "$tmp/p.glb" "$tmp/p2.glb" add Hips translation 0.375 0 0 95.625 || fail "glb_edit add"
out=$("$A" import "$tmp/p2.glb" --into "$B" -o "$tmp/p.animation") || fail "import of a position"
[[ $out == "changed: animation: Hips translation: 6 keys in the glTF, 5 before, 5 now; largest error "*"1 channel changed, 7 as they were" ]] ||
	fail "the report of a position edit: $out"
"$E" decode "$tmp/p.animation" > "$tmp/p.yaml"
d=$(diff "$tmp/orig.yaml" "$tmp/p.yaml" | grep '^[<>]')
[ "$(echo "$d" | wc -l)" = 2 ] && [[ $d == *"> "*"- [0.25, 0.0, 0.0, 96.2"* ]] || fail "the position edit: $d"
# --anim names the file's animation; one the file lacks is refused
"$A" import "$tmp/e.glb" --into "$B" -o "$tmp/x.animation" --anim animation > /dev/null && cmp -s "$tmp/x.animation" "$tmp/e.animation" ||
	fail "--anim animation"
"$A" import "$tmp/e.glb" --into "$B" -o "$tmp/y.animation" --anim nope 2> "$tmp/err" && fail "--anim of no animation"
# refused, nothing written: what cannot map, hostile files
edit "$tmp/w.glb" "$tmp/h.glb" set Hips translation 1 0 0 2000 && refuse "past pos_u16" "$tmp/h.glb" "outside pos_u16"
edit "$tmp/w.glb" "$tmp/h.glb" add Hips translation 1.5 0 0 99 && refuse "past the length" "$tmp/h.glb" "past the clip's length"
hostile count:"do not fit" nan:"not a finite number" loop:"parents loops" buflen:"byteLength 2147483648, but only" \
	nobuf:"no such buffer" noanim:"the file has none of that name" nojoint:"no joint of that name" \
	trunc:"does not fit its"
# keys 2^-20 s apart (closer than the 1e-5 s a file's key time is matched within): the
# import keeps their times increasing and each key's own (it wrote times that did not
# increase: a file that did not decode)
python3 - "$tmp/k.yaml" <<'PY'
import sys
lines = ["format: diesel-animation", "length: 10.0", "binary:", "  layout: 32-bit", "  container: zlib",
         "  zlib_level: 6", "objects:", "  - name: root_point", "    position:", "      type: pos_f32", "      keys:"]
lines += ["        - [%r, 0.5, %r, 0.0]" % (i / 2**20, (i % 512) / 4) for i in range(1200)]
lines += ["    rotation:", "      type: rot_packed", "      keys:", "        - [0.0, 0.000, 0.000, 0.000, 1.000]"]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
"$E" encode "$tmp/k.yaml" -o "$tmp/k.animation" 2>/dev/null && "$A" gltf "$tmp/k.animation" -o "$tmp/k.glb" &&
	edit "$tmp/k.glb" "$tmp/k2.glb" set root_point translation 1 0.75 0.25 0.0 || fail "the close keys' file"
out=$("$A" import "$tmp/k2.glb" --into "$tmp/k.animation" -o "$tmp/k2.animation") || fail "import of close keys: $out"
"$E" decode "$tmp/k2.animation" > "$tmp/k2.yaml" || fail "the close keys' import does not decode"
grep -q -- '- \[9.536743e-07, 0.75, 0.25, 0.0\]' "$tmp/k2.yaml" || fail "the edited close key: $(grep -m4 -- '- \[' "$tmp/k2.yaml")"
# a key added 2^-20 s before a file's key (and one after): the file's time stays its key's,
# the new key keeps its own (both once matched the file's key: times that did not increase)
for t in "0.49999904632568359375:[0.49999905, 0.0, 5.0, 61.0] - [0.5, 0.0, 0.0, 95.0]" \
	"0.50000095367431640625:[0.5, 0.0, 0.0, 95.0] - [0.50000095, 0.0, 5.0, 61.0]"; do
	rm -f "$tmp/c.animation"
	edit "$tmp/w.glb" "$tmp/c.glb" add Hips translation "${t%%:*}" 0 5 61 || fail "glb_edit add ${t%%:*}"
	"$A" import "$tmp/c.glb" --into "$B" -o "$tmp/c.animation" > "$tmp/out" 2>&1 || fail "a key 2^-20 s from a file's: $(cat "$tmp/out")"
	d=$("$E" decode "$tmp/c.animation" | sed -n '/name: Hips/,/rotation:/p' | tr -s '\n ' ' ') || fail "the import does not decode"
	[[ $d == *"${t#*:}"* ]] || fail "a key 2^-20 s from a file's (${t%%:*}): $d"
done
"$E" encode "$ex/hand_prop.rig.yaml" -o "$tmp/h.rig" && "$A" gltf "$tmp/h.rig" -o "$tmp/t.glb" &&
	! "$A" import "$tmp/t.glb" --into "$tmp/h.rig" -o "$tmp/t2.rig" 2> "$tmp/err" &&
	grep -q "cannot take a glTF back" "$tmp/err" || fail "a format without import: $(cat "$tmp/err")"
echo "$fails failed"
[ $fails -eq 0 ]
