# Issue 45 (item 4) in the mount: Debian's Blender (headless; tests/tools/blender_roundtrip.py,
# the settings of docs/gltf.md "Blender round trip") imports a Diesel preview from
# VIEW/.animfs/gltf and exports it with no edit straight to that path: the binary is
# byte-identical; its export with one key changed, saved to the path, gives the bytes
# `animfs import` gives. Blender absent: skipped on a workstation, a failure in CI.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
if ! command -v blender >/dev/null 2>&1; then
	[ -n "${CI:-}" ] && fail "no blender in CI (scripts/setup installs it)"
	echo "SKIP: no blender (scripts/setup installs it)"; exit 77
fi
mkdir -p "$GAME/anims"
"$ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/anims/walk.animation" || fail "encode"
cp "$GAME/anims/walk.animation" "$T/orig.animation"
mount_view_fg
P=$VIEW/.animfs/gltf/anims/walk.animation.yaml.glb
ls "$VIEW/.animfs/gltf/anims" | grep -qx walk.animation.yaml.glb || fail "the preview is not listed"
cp "$P" "$T/in.glb" || fail "read the preview"
PATH="$(dirname "$(command -v blender)"):$PATH" \
blender -b --factory-startup --python-exit-code 1 --python "$src/tests/tools/blender_roundtrip.py" -- \
	"$P" "$P" "$T/edit.glb" Hips > "$T/out" 2> "$T/err" || fail "blender: $(tail -3 "$T/out") $(tail -3 "$T/err")"
cmp -s "$GAME/anims/walk.animation" "$T/orig.animation" || fail "Blender's unedited export to the preview changed the binary"
grep -q 'note: 0 channels changed, 8 as they were' "$VIEW/.animfs/errors" || fail "no note of the save: $(cat "$VIEW/.animfs/errors")"
"$ANIMFS" import "$T/edit.glb" --into "$T/orig.animation" -o "$T/cli.animation" > /dev/null || fail "animfs import"
cmp -s "$T/cli.animation" "$T/orig.animation" && fail "the edit changed nothing"
cp "$T/edit.glb" "$P" || fail "save of Blender's edited export"
cmp -s "$GAME/anims/walk.animation" "$T/cli.animation" || fail "the mount's save differs from animfs import"
"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: Blender's export saved to the preview's path"
