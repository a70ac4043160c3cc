# Issue 45 (item 4) in the mount: Debian's Blender (headless; tests/tools/blender_roundtrip.py,
# the settings of docs/gltf.md "Blender round trip") imports a Diesel, a Sims 3 CLIP, an RE
# and a Shenmue MOTN preview from VIEW/.animfs/gltf and exports each with no edit straight to that path: the binary is
# byte-identical; its export with one key changed, saved to the path, gives the bytes
# `animfs import` gives. The same for the CLIP as a member of a Sims 3 package (its preview
# at VIEW/.animfs/gltf/p.package/...): the package byte-identical, then what `animfs import
# --into p.package/<member>` makes of it. Blender absent: skipped on a workstation, a failure in CI.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
if ! command -v blender >/dev/null 2>&1; then
	[ -n "${CI:-}" ] && fail "no blender in CI (scripts/setup installs it)"
	echo "SKIP: no blender (scripts/setup installs it)"; exit 77
fi
mkdir -p "$GAME/anims"
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/anims/walk.animation" || fail "encode"
"$EXPECT_ANIMFS" encode "$src/examples/clip_tiny.animation.yaml" -o "$GAME/anims/S3_6B20C4F3_00000000_0000000000000001%%+CLIP.animation" ||
	fail "encode clip"
"$EXPECT_ANIMFS" encode "$src/examples/re3_tiny.PLD.yaml" -o "$GAME/anims/tiny.PLD" || fail "encode RE"
"$EXPECT_ANIMFS" encode "$src/examples/MOTION.BIN.yaml" -o "$GAME/anims/MOTION.BIN" || fail "encode MOTN"
python3 "$src/tests/mount/mkpackage.py" "$GAME/p.package" \
	6B20C4F3:C1:"$GAME/anims/S3_6B20C4F3_00000000_0000000000000001%%+CLIP.animation" || fail "making the package"
cp "$GAME/p.package" "$T/orig.package"
mount_view_fg
blender_roundtrip() { # IN OUT EDIT BONE: Blender imports IN, exports it to OUT, and with one key changed to EDIT
	PATH="$(dirname "$(command -v blender)"):$PATH" \
	blender -b --factory-startup --python-exit-code 1 --python "$src/tests/tools/blender_roundtrip.py" -- \
		"$@" > "$T/out" 2> "$T/err" || fail "$1: blender: $(tail -3 "$T/out") $(tail -3 "$T/err")"
}
for fb in walk.animation:Hips:8 "S3_6B20C4F3_00000000_0000000000000001%%+CLIP.animation:b__ROOT_bind__:2" \
	"tiny.PLD:bone 1:4" "MOTION.BIN:bone 32:8"; do
	f=${fb%%:*} rest=${fb#*:}
	bone=${rest%:*} nch=${rest##*:}
	B=$GAME/anims/$f
	cp "$B" "$T/orig.${f##*.}"
	P=$VIEW/.animfs/gltf/anims/$f.yaml.glb
	ls "$VIEW/.animfs/gltf/anims" | grep -qxF "$f.yaml.glb" || fail "$f: the preview is not listed"
	blender_roundtrip "$P" "$P" "$T/edit.glb" "$bone"
	cmp -s "$B" "$T/orig.${f##*.}" || fail "$f: Blender's unedited export to the preview changed the binary"
	grep -qF "$f.yaml.glb: note: 0 channels changed, $nch as they were" "$VIEW/.animfs/errors" ||
		fail "$f: no note of the save: $(cat "$VIEW/.animfs/errors")"
	"$ANIMFS" import "$T/edit.glb" --into "$T/orig.${f##*.}" -o "$T/cli.${f##*.}" > /dev/null || fail "$f: animfs import"
	cmp -s "$T/cli.${f##*.}" "$T/orig.${f##*.}" && fail "$f: the edit changed nothing"
	cp "$T/edit.glb" "$P" || fail "$f: save of Blender's edited export"
	cmp -s "$B" "$T/cli.${f##*.}" || fail "$f: the mount's save differs from animfs import"
done
# a member of a container: saved through the container's rebuild
view=$(cd "$VIEW/p.package" && ls | grep 'clip\.yaml$' | head -1)
[ -n "$view" ] || fail "no clip view in the package: $(ls "$VIEW/p.package")"
P=$VIEW/.animfs/gltf/p.package/$view.glb
ls "$VIEW/.animfs/gltf/p.package" | grep -qxF "$view.glb" || fail "the member's preview is not listed"
blender_roundtrip "$P" "$P" "$T/edit.glb" b__ROOT_bind__
cmp -s "$GAME/p.package" "$T/orig.package" || fail "Blender's unedited export to a member's preview changed the package"
grep -qF "p.package/$view.glb: note: 0 channels changed, 2 as they were" "$VIEW/.animfs/errors" ||
	fail "member: no note of the save: $(cat "$VIEW/.animfs/errors")"
cp "$T/orig.package" "$T/cli.package"
"$ANIMFS" import "$T/edit.glb" --into "$T/cli.package/${view%.yaml}" > /dev/null || fail "member: animfs import --into"
cmp -s "$T/cli.package" "$T/orig.package" && fail "member: the edit changed nothing"
cp "$T/edit.glb" "$P" || fail "member: save of Blender's edited export"
cmp -s "$GAME/p.package" "$T/cli.package" || fail "member: the mount's save differs from animfs import --into"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: Blender's export saved to the preview's path"
