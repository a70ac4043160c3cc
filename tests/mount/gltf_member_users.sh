# Issue 45 (item 3), a container member's preview under -o allow_other: only a caller who
# may write the container saves through it. A (the package's owner, 0644) saves an edit:
# the package rebuilt, its owner, group and mode kept, and what `animfs import --into`
# makes of it. B, and A once the package is 0444: refused, the package as it was. The preview shows the container's owner and write bits. No
# samples needed (a package made here of the examples' clip).
. "$(dirname "$0")/common.inc"
. "$(dirname "$0")/users.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
edit() { "$PY" "$src/tests/tools/glb_edit.py" "$@"; }
"$EXPECT_ANIMFS" encode "$src/examples/clip_tiny.animation.yaml" -o "$T/tiny.clip" || fail "encode the clip"
"$PY" "$src/tests/mount/mkpackage.py" "$GAME/p.package" 6B20C4F3:C1:"$T/tiny.clip" || fail "making the package"
chown "$UA":users "$GAME/p.package" && chmod 644 "$GAME/p.package"
cp "$GAME/p.package" "$T/orig.package"
mount_view_fg -o allow_other
view=$(cd "$VIEW/p.package" && ls | grep 'clip\.yaml$' | head -1)
[ -n "$view" ] || fail "no clip view in the package: $(ls "$VIEW/p.package")"
M=${view%.yaml}
P=$VIEW/.animfs/gltf/p.package/$view.glb
[ "$(stat -c %a:%U:%G "$P")" = "644:$UA:users" ] || fail "the member preview's mode and owner: $(stat -c %a:%U:%G "$P")"
as_a cat "$P" > "$T/w.glb" || fail "A cannot read the member's preview"
chmod 644 "$T/w.glb"
edit "$T/w.glb" "$T/e.glb" set b__ROOT_bind__ rotation 2 0.1 0 0 0.995 || fail "glb_edit"
chmod 644 "$T/e.glb"
# B may not write the package: refused, nothing written
as_b sh -c "cat '$T/e.glb' > '$P'" 2> /dev/null && fail "B saved through the preview of A's package"
cmp -s "$GAME/p.package" "$T/orig.package" || fail "B's refused save changed the package"
# A may: the package is what animfs import --into makes, still A's, 0644
cp "$T/orig.package" "$T/cli.package"
"$ANIMFS" import "$T/e.glb" --into "$T/cli.package/$M" > /dev/null || fail "animfs import --into"
as_a sh -c "cat '$T/e.glb' > '$P'" || fail "A cannot save through the member's preview"
cmp -s "$GAME/p.package" "$T/cli.package" || fail "A's save differs from animfs import --into"
cmp -s "$GAME/p.package" "$T/orig.package" && fail "A's save changed nothing"
[ "$(stat -c %a:%U:%G "$GAME/p.package")" = "644:$UA:users" ] ||
	fail "the package's owner or mode after A's save: $(stat -c %a:%U:%G "$GAME/p.package")"
as_a grep -q "$view.glb: note: changed: " "$VIEW/.animfs/errors" || fail "A's errors have no note of the change"
# the owner's write taken away: A refused too
chmod 444 "$GAME/p.package"
cp "$GAME/p.package" "$T/now.package"
as_a cat "$P" > /dev/null || fail "A cannot read the preview of a 0444 package"
as_a sh -c "cat '$T/w.glb' > '$P'" 2> /dev/null && fail "A saved into a 0444 package"
cmp -s "$GAME/p.package" "$T/now.package" || fail "A's refused save changed the package"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: a member's preview saves only for those who may write its container"
