# Issue 31 in the mount: VIEW/.animfs/gltf/<view path>.glb is the view's glTF preview, made
# when read: the same file as `animfs gltf` of the view, read-only, absent for a format with
# nothing to preview, new after every save, and readable only by those who may read the
# binary; a clip in a package moves the rig beside it, and follows that rig's saves. Issue
# 45: each folder of .animfs/gltf lists its folders and the previews of its views (with the
# sizes a read gives), none of a format with nothing to preview; --rig-dir gives a loose
# clip its rig. No samples needed.
. "$(dirname "$0")/common.inc"
. "$(dirname "$0")/multiuser.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
mods=${ANIMFS_NODE:-$src/.tools/node/node_modules}
mkdir -p "$GAME/anims/deep" "$GAME/priv"
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/anims/deep/walk.animation" || fail "encode"
"$EXPECT_ANIMFS" encode "$src/examples/re3_tiny.PLD.yaml" -o "$GAME/anims/tiny.PLD" || fail "encode"
"$EXPECT_ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$GAME/wave.jazz" || fail "encode"
cp "$GAME/anims/deep/walk.animation" "$GAME/priv/walk.animation" && chmod 600 "$GAME/priv/walk.animation"
echo "not an animation" > "$GAME/anims/notes.txt"
chmod -R a+rX "$GAME/anims"
# a package with two rigs and a clip that moves bones of the second (tests/cli/gltf.sh)
pk=$T/pk; mkdir -p "$pk" "$GAME/pkg"
sed -e '0,/target: b__ROOT_bind__/s//target: lid/' -e 's/target: b__ROOT_bind__/target: transformBone/' \
	"$src/examples/clip_tiny.animation.yaml" > "$pk/two.yaml"
sed 's/\blid\b/lidB/g' "$src/examples/hand_prop.rig.yaml" > "$pk/b.rig.yaml"
"$ANIMFS" encode "$pk/two.yaml" -o "$pk/two.clip" && "$EXPECT_ANIMFS" encode "$src/examples/hand_prop.rig.yaml" -o "$pk/a.rig" &&
	"$ANIMFS" encode "$pk/b.rig.yaml" -o "$pk/b.rig" &&
	python3 "$src/tests/mount/mkpackage.py" "$GAME/pkg/p.package" 8EAF13DE:B:"$pk/b.rig" 6B20C4F3:C1:"$pk/two.clip" \
		8EAF13DE:A:"$pk/a.rig" || fail "making the package"
# --rig-dir: a loose clip with no rig beside it (tests/cli/gltf.sh)
mkdir -p "$GAME/cc" "$T/rigs"
cp "$pk/two.clip" "$GAME/cc/S3_6B20C4F3_00000000_00000000000000C1%%+CLIP.animation"
cp "$pk/a.rig" "$T/rigs/S3_8EAF13DE_00000000_000000000000000A%%+_RIG.grannyrig"
chmod -R a+rX "$T/rigs" "$GAME/cc"
mount_view_fg -o allow_other --rig-dir "$T/rigs"
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
# the listings: folders and previews, nothing else (no Jazz preview, no plain file)
[ "$(ls "$G" | tr '\n' ' ')" = "anims cc pkg priv " ] || fail "the root's previews: $(ls "$G")"
[ "$(ls "$G/anims" | tr '\n' ' ')" = "deep tiny.PLD.yaml.glb " ] || fail "anims' previews: $(ls "$G/anims")"
[ "$(ls "$G/anims/deep")" = walk.animation.yaml.glb ] || fail "deep's previews: $(ls "$G/anims/deep")"
[ "$(ls "$G/pkg/p.package" | wc -l)" = 3 ] && ls "$G/pkg/p.package" | grep -qx 'S3_6B20C4F3_00000000_00000000000000C1.clip.yaml.glb' ||
	fail "the package's previews: $(ls "$G/pkg/p.package")"
[ "$(ls -A "$G/pkg/p.package" | grep -c yaml.glb)" = 3 ] || fail "ls -A of the package"
ls "$G/nope" > /dev/null 2>&1 && fail "a preview folder of no folder"
ls "$G/anims/tiny.PLD.yaml.glb/" > /dev/null 2>&1 && fail "a preview listed as a folder"
# each listed preview's size is the one a read gives
find "$G" -name '*.glb' ! -path '*/priv/*' | while read -r f; do
	[ "$(stat -c %s "$f")" = "$(wc -c < "$f")" ] || echo "$f"
done | grep -q . && fail "a listed preview's size is not its read's"
[ "$(find "$G" -name '*.glb' | wc -l)" = 7 ] || fail "find in the previews: $(find "$G" -name '*.glb')"
as_nobody ls "$G/anims" | grep -qx tiny.PLD.yaml.glb || fail "nobody cannot list public previews"
# --rig-dir: the loose clip's preview moves the rig of that folder
cv=cc/S3_6B20C4F3_00000000_00000000000000C1%%+CLIP.animation.yaml
[ "$(ls "$G/cc")" = "S3_6B20C4F3_00000000_00000000000000C1%%+CLIP.animation.yaml.glb" ] || fail "cc's previews: $(ls "$G/cc")"
"$ANIMFS" gltf "$VIEW/$cv" --rig-dir "$T/rigs" -o "$T/rigdir.glb" ||
	fail "animfs gltf --rig-dir"
cmp -s "$G/$cv.glb" "$T/rigdir.glb" || fail "the mount's --rig-dir preview differs from animfs gltf --rig-dir"
grep -q 'skeleton_in' "$G/$cv.glb" || fail "the mount's preview took no rig of --rig-dir"
ls "$VIEW/.animfs" | grep -qx gltf || fail ".animfs lists no gltf folder"
# a member's preview takes a glTF back into its package (mount/gltf_member_save), but
# not what is no glTF: refused, the package as it was
cp "$GAME/pkg/p.package" "$T/p.package"
echo x > "$T/x.glb" # (cp: a shell's redirection reports no error of the close, where a save fails)
cp "$T/x.glb" "$G/pkg/p.package/S3_6B20C4F3_00000000_00000000000000C1.clip.yaml.glb" 2>/dev/null &&
	fail "a member's preview took what is no glTF"
cmp -s "$GAME/pkg/p.package" "$T/p.package" || fail "a refused member preview's save changed the package"
grep -q "pkg/p.package/S3_6B20C4F3_00000000_00000000000000C1.clip.yaml.glb: " "$VIEW/.animfs/errors" ||
	fail "a refused member preview's save says nothing: $(cat "$VIEW/.animfs/errors")"
# a save: the preview follows (the Hips position key at 0.5 s)
cp "$G/anims/deep/walk.animation.yaml.glb" "$T/before.glb"
sed -i 's/^        - \[0\.5, 0\.0, 60\.0, 0\.0\]/        - [0.5, 0.0, 62.0, 0.0]/' "$VIEW/anims/deep/walk.animation.yaml" || fail "save"
grep -q '62.0' "$VIEW/anims/deep/walk.animation.yaml" || fail "the edit is not in the view"
cmp -s "$G/anims/deep/walk.animation.yaml.glb" "$T/before.glb" && fail "the preview did not follow the save"
if [ -d "$mods/gltf-validator" ]; then
	d=$(ANIMFS_NODE=$mods node "$src/tests/tools/gltf_check.js" --diff "$T/before.glb" "$G/anims/deep/walk.animation.yaml.glb")
	[ "$(echo "$d" | wc -l)" = 1 ] && [[ $d == *"translation: key 1 at 0.5000 s" ]] || fail "the save changed: $d"
fi
# the clip's preview in the package moves the rig found beside it; a save of that rig shows
clipv=pkg/p.package/S3_6B20C4F3_00000000_00000000000000C1.clip.yaml
rigv=$VIEW/pkg/p.package/S3_8EAF13DE_00000000_000000000000000A.rig.yaml
skel() { python3 -c 'import json, struct, sys
b = open(sys.argv[1], "rb").read(); n = struct.unpack_from("<I", b, 12)[0]; j = json.loads(b[20:20 + n])
print(j["asset"]["extras"]["animfs"].get("skeleton_from", "-"), ",".join(d["name"] for d in j["nodes"]),
      [d.get("translation") for d in j["nodes"] if d["name"] == "lid"])' "$1"; }
s1=$(skel "$G/$clipv.glb")
[ "$s1" = "S3_8EAF13DE_00000000_000000000000000A%%+_RIG.grannyrig b__ROOT__,offsetBone,transformBone,lid,_handle_L_,_handle_R_ [[0, 0.25, -0.1]]" ] ||
	fail "the clip's preview in the package: $s1"
"$ANIMFS" gltf "$GAME/pkg/p.package/S3_6B20C4F3_00000000_00000000000000C1.clip" -o "$T/pkgcli.glb" || fail "gltf of the member"
[ "$(skel "$T/pkgcli.glb")" = "$s1" ] || fail "the command line finds another rig: $(skel "$T/pkgcli.glb")"
r1=$(stat -c %s "$G/$clipv.glb")
sed -i 's/^    position: \[0.0, 0.25, -0.1\]/    position: [0.0, 0.2578125, -0.1]/' "$rigv" || fail "save of the rig"
grep -q 'position: \[0.0, 0.2578125, -0.1\]' "$rigv" || fail "the rig edit is not in the view"
r2=$(stat -c %s "$G/$clipv.glb") # the stat first: no read has made it anew
s2=$(skel "$G/$clipv.glb")
[[ $s2 == *"[[0, 0.2578125, -0.1]]" ]] || fail "the clip's preview did not follow the rig's save: $s2"
[ "$r2" != "$r1" ] && [ "$r2" = "$(wc -c < "$G/$clipv.glb")" ] ||
	fail "the preview's size after the rig's save: $r1 -> $r2, read $(wc -c < "$G/$clipv.glb")"
# ls -l keeps the size it made (keyed by the binary's identity); a save that shortens the
# preview (one key fewer) shows at once in the next stat, and the plot's size too
cv=$VIEW/$clipv
b1=$(stat -c %s "$G/$clipv.glb"); p1=$(stat -c %s "$VIEW/.animfs/plot/$clipv.svg")
[ "$b1" = "$(stat -c %s "$G/$clipv.glb")" ] && [ "$b1" = "$(wc -c < "$G/$clipv.glb")" ] || fail "a second stat of the preview"
sed -i '/^      5: \[0.04884005, 0.0, 0.0, 1.0\]/d' "$cv" || fail "save of the clip"
grep -q '0.04884005' "$cv" && fail "the clip edit is not in the view"
b2=$(stat -c %s "$G/$clipv.glb"); p2=$(stat -c %s "$VIEW/.animfs/plot/$clipv.svg")
[ "$b2" != "$b1" ] && [ "$b2" = "$(wc -c < "$G/$clipv.glb")" ] && [ "$p2" != "$p1" ] &&
	[ "$p2" = "$(wc -c < "$VIEW/.animfs/plot/$clipv.svg")" ] ||
	fail "sizes after the save: preview $b1 -> $b2 (read $(wc -c < "$G/$clipv.glb")), plot $p1 -> $p2"
# only for those who may read the binary
as_nobody cat "$G/anims/deep/walk.animation.yaml.glb" > /dev/null || fail "nobody cannot read a public preview"
as_nobody cat "$G/priv/walk.animation.yaml.glb" > /dev/null 2>&1 && fail "nobody reads the preview of a 0600 binary"
cat "$G/priv/walk.animation.yaml.glb" | head -c 4 | grep -q glTF || fail "root cannot read the private preview"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: glTF previews in the mount"
