# Issue 31 in the mount: VIEW/.animfs/gltf/<view path>.glb is the view's glTF preview, made
# when read: the same file as `animfs gltf` of the view, read-only, never listed, absent for a
# format with nothing to preview, new after every save, and readable only by those who may
# read the binary. No samples needed.
. "$(dirname "$0")/common.inc"
. "$(dirname "$0")/multiuser.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
mods=${ANIMFS_NODE:-$src/.tools/node/node_modules}
mkdir -p "$GAME/anims/deep" "$GAME/priv"
"$ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/anims/deep/walk.animation" || fail "encode"
"$ANIMFS" encode "$src/examples/re3_tiny.PLD.yaml" -o "$GAME/anims/tiny.PLD" || fail "encode"
"$ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$GAME/wave.jazz" || fail "encode"
cp "$GAME/anims/deep/walk.animation" "$GAME/priv/walk.animation" && chmod 600 "$GAME/priv/walk.animation"
chmod -R a+rX "$GAME/anims"
mount_view_fg -o allow_other
G=$VIEW/.animfs/gltf
for v in anims/deep/walk.animation.yaml anims/tiny.PLD.yaml; do
	[ -s "$G/$v.glb" ] || fail "no preview of $v"
	[ "$(head -c 4 "$G/$v.glb")" = glTF ] || fail "$v: not a GLB"
	"$ANIMFS" gltf "$VIEW/$v" -o "$T/cli.glb" || fail "animfs gltf $v"
	cmp -s "$G/$v.glb" "$T/cli.glb" || fail "$v: the mount's preview differs from animfs gltf of the view"
done
if [ -d "$mods/gltf-validator" ]; then
	ANIMFS_NODE=$mods node "$src/tests/tools/gltf_check.js" "$G/anims/tiny.PLD.yaml.glb" | grep -q '"errors":0,' ||
		fail "the validator reports errors"
fi
[ -e "$G/wave.jazz.yaml.glb" ] && fail "a Jazz view has a preview"
[ -e "$G/anims/nope.animation.yaml.glb" ] && fail "a preview of no view"
[ -z "$(ls -A "$G")" ] || fail "previews are listed"
ls "$VIEW/.animfs" | grep -qx gltf || fail ".animfs lists no gltf folder"
{ echo x > "$G/anims/tiny.PLD.yaml.glb"; } 2>/dev/null && fail "a preview is writable"
# a save: the preview follows (the Hips position key at 0.5 s)
cp "$G/anims/deep/walk.animation.yaml.glb" "$T/before.glb"
sed -i 's/^        - \[0\.5, 0\.0, 60\.0, 0\.0\]/        - [0.5, 0.0, 62.0, 0.0]/' "$VIEW/anims/deep/walk.animation.yaml" || fail "save"
grep -q '62.0' "$VIEW/anims/deep/walk.animation.yaml" || fail "the edit is not in the view"
cmp -s "$G/anims/deep/walk.animation.yaml.glb" "$T/before.glb" && fail "the preview did not follow the save"
if [ -d "$mods/gltf-validator" ]; then
	d=$(ANIMFS_NODE=$mods node "$src/tests/tools/gltf_check.js" --diff "$T/before.glb" "$G/anims/deep/walk.animation.yaml.glb")
	[ "$(echo "$d" | wc -l)" = 1 ] && [[ $d == *"translation: key 1 at 0.5000 s" ]] || fail "the save changed: $d"
fi
# only for those who may read the binary
as_nobody cat "$G/anims/deep/walk.animation.yaml.glb" > /dev/null || fail "nobody cannot read a public preview"
as_nobody cat "$G/priv/walk.animation.yaml.glb" > /dev/null 2>&1 && fail "nobody reads the preview of a 0600 binary"
cat "$G/priv/walk.animation.yaml.glb" | head -c 4 | grep -q glTF || fail "root cannot read the private preview"
"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: glTF previews in the mount"
