# Issue 45 (item 3) in the mount: a glTF written to a preview's own path
# (VIEW/.animfs/gltf/<view>.glb, where Blender's export can save it) is brought back into the
# view's binary as `animfs import` does, through the same atomic save as a YAML save; each
# changed channel a note in .animfs/errors. No edit: the binary unchanged. A hostile glTF
# or one that cannot map: the save fails, the binary as it was, the reason in
# .animfs/errors. A Sims 3 CLIP and a Shenmue MOTN take one as Diesel does (a MOTN preview
# 0644 like the others); a format that cannot take a glTF back (a Sims 3 rig): its preview
# read-only (0444), a write refused. No samples needed.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
edit() { python3 "$src/tests/tools/glb_edit.py" "$@"; }
mkdir -p "$GAME/anims"
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/anims/walk.animation" || fail "encode"
"$EXPECT_ANIMFS" encode "$src/examples/MOTION.BIN.yaml" -o "$GAME/anims/MOTION.BIN" || fail "encode"
cp "$GAME/anims/MOTION.BIN" "$T/orig.BIN"
"$EXPECT_ANIMFS" encode "$src/examples/hand_prop.rig.yaml" -o "$GAME/anims/S3_8EAF13DE_00000000_0000000000000002%%+_RIG.grannyrig" || fail "encode rig"
cp "$GAME/anims/walk.animation" "$T/orig.animation"
"$EXPECT_ANIMFS" encode "$src/examples/clip_tiny.animation.yaml" -o "$T/orig.clip" || fail "encode clip"
cp "$T/orig.clip" "$GAME/anims/S3_6B20C4F3_00000000_0000000000000001%%+CLIP.animation"
mount_view_fg
P=$VIEW/.animfs/gltf/anims/walk.animation.yaml.glb
[ "$(stat -c %a "$P")" = 644 ] || fail "a Diesel preview is not writable: $(stat -c %a "$P")"
chmod 660 "$GAME/anims/walk.animation" # the binary's owner and write bits (allow_other's check)
[ "$(stat -c %a:%u "$P")" = "664:$(stat -c %u "$GAME/anims/walk.animation")" ] || fail "the preview's mode: $(stat -c %a:%u "$P")"
chmod 644 "$GAME/anims/walk.animation"
M=$VIEW/.animfs/gltf/anims/MOTION.BIN.yaml.glb
R=$VIEW/.animfs/gltf/anims/S3_8EAF13DE_00000000_0000000000000002%%+_RIG.grannyrig.yaml.glb
[ "$(stat -c %a "$M")" = 644 ] || fail "a MOTN preview is not writable: $(stat -c %a "$M")"
[ "$(stat -c %a "$R")" = 444 ] || fail "a rig's preview is shown writable: $(stat -c %a "$R")"
cp "$P" "$T/w.glb" || fail "read the preview"
# no edit: the binary stays as it was
cp "$T/w.glb" "$P" || fail "save of the unedited preview"
cmp -s "$GAME/anims/walk.animation" "$T/orig.animation" || fail "an unedited preview changed the binary"
grep -q 'walk.animation.yaml.glb: note: 0 channels changed, 8 as they were' "$VIEW/.animfs/errors" ||
	fail "no note of no change: $(cat "$VIEW/.animfs/errors")"
# one key: the binary is what animfs import makes of it, a note per changed channel
edit "$T/w.glb" "$T/e.glb" set Hips rotation 1 0 0 -0.2 0.98 || fail "glb_edit"
"$ANIMFS" import "$T/e.glb" --into "$T/orig.animation" -o "$T/cli.animation" > /dev/null || fail "animfs import"
cp "$T/e.glb" "$P" || fail "save of the edited preview"
cmp -s "$GAME/anims/walk.animation" "$T/cli.animation" || fail "the mount's save differs from animfs import"
grep -q 'note: changed: animation: Hips rotation: 3 keys in the glTF, 3 before, 3 now' "$VIEW/.animfs/errors" ||
	fail "no note of the changed channel: $(cat "$VIEW/.animfs/errors")"
grep -q -- '-0.201, 0.980\]' "$VIEW/anims/walk.animation.yaml" || fail "the view does not show the edit"
cmp -s "$P" "$T/e.glb" && fail "the preview is the file written, not made anew from the binary"
# refused: nothing changes, the reason in the errors
cp "$GAME/anims/walk.animation" "$T/before.animation"
for k in nan:"not a finite number" nojoint:"no joint of that name"; do
	edit "$T/w.glb" "$T/h.glb" "${k%%:*}" || fail "glb_edit ${k%%:*}"
	cp "$T/h.glb" "$P" 2> /dev/null && fail "${k%%:*}: the save succeeded"
	cmp -s "$GAME/anims/walk.animation" "$T/before.animation" || fail "${k%%:*}: the binary changed"
	grep -q "walk.animation.yaml.glb: .*${k#*:}" "$VIEW/.animfs/errors" || fail "${k%%:*}: not in the errors: $(cat "$VIEW/.animfs/errors")"
done
{ cat "$R" > "$T/r.glb" && cat "$T/r.glb" > "$R"; } 2> /dev/null && fail "a rig's preview took a write"
# a Shenmue MOTN: no edit, the binary as it was; a baked angle, what animfs import makes of it
cp "$M" "$T/m.glb" && cp "$T/m.glb" "$M" || fail "save of the unedited MOTN preview"
cmp -s "$GAME/anims/MOTION.BIN" "$T/orig.BIN" || fail "an unedited MOTN preview changed the binary"
edit "$T/m.glb" "$T/me.glb" set "bone 32" rotation 1 0 0 -0.3 0.954 || fail "glb_edit motn"
"$ANIMFS" import "$T/me.glb" --into "$T/orig.BIN" -o "$T/cli.BIN" > /dev/null || fail "animfs import of the MOTN"
cp "$T/me.glb" "$M" || fail "save of the edited MOTN preview"
cmp -s "$GAME/anims/MOTION.BIN" "$T/cli.BIN" || fail "the mount's save of a MOTN differs from animfs import"
grep -q 'MOTION.BIN.yaml.glb: note: changed: DEMO_WAVE_BAKED: bone 32 rotation' "$VIEW/.animfs/errors" ||
	fail "no note of the MOTN's changed channel: $(cat "$VIEW/.animfs/errors")"
# a Sims 3 CLIP takes one too: the binary is what animfs import makes of it
C=$VIEW/.animfs/gltf/anims/S3_6B20C4F3_00000000_0000000000000001%%+CLIP.animation.yaml.glb
[ "$(stat -c %a "$C")" = 644 ] || fail "a CLIP preview is not writable: $(stat -c %a "$C")"
cp "$C" "$T/c.glb" && edit "$T/c.glb" "$T/ce.glb" set b__ROOT_bind__ rotation 2 0.1 0 0 0.995 || fail "glb_edit clip"
"$ANIMFS" import "$T/ce.glb" --into "$T/orig.clip" -o "$T/cli.clip" > /dev/null || fail "animfs import of the clip"
cp "$T/ce.glb" "$C" || fail "save of the edited clip preview"
cmp -s "$GAME/anims/S3_6B20C4F3_00000000_0000000000000001%%+CLIP.animation" "$T/cli.clip" ||
	fail "the mount's save of a clip differs from animfs import"
grep -q 'CLIP.animation.yaml.glb: note: changed: a_tool_x: b__ROOT_bind__ rotation' "$VIEW/.animfs/errors" ||
	fail "no note of the clip's changed channel: $(cat "$VIEW/.animfs/errors")"
cat "$VIEW/.animfs/errors"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: glTF saved to a preview's path in the mount"
