# Issue 46: --rig-dir names a loose clip's bones in its view, not only in its preview. A
# CLIP with no rig beside it shows the bones of the rig of --rig-dir that fits it (the
# preview's rule: the most of its moved targets, at least half) by name, as `animfs
# decode --rig-dir` does; its plot (made of the view) names them too; a save of the view
# with names stores their hashes (FNV-1 32 of the lower-cased name); the rig is one of
# the sources the view was made of: a changed or removed rig changes the view at the next
# open. With -o allow_other the rigs are read as the caller: a rig another user may not
# read is absent (hashes), and neither user's text reaches the other. Synthetic clip and
# rigs (examples/), no samples needed.
. "$(dirname "$0")/rigdir.inc"
clip=S3_6B20C4F3_00000000_00000000000000C1%%+CLIP.animation
cp "$pk/two.clip" "$GAME/cc/$clip"
cp "$pk/a.rig" "$T/rigs/$rigA"
chmod -R a+rX "$GAME/cc" "$T/rigs"
# the command line: names with --rig-dir, hashes without
exp() { "$EXPECT_ANIMFS" decode --schema-ref ../.animfs/schema "$GAME/cc/$clip" "$@"; }
exp --rig-dir "$T/rigs" > "$T/names.yaml" || fail "decode --rig-dir"
exp > "$T/hashes.yaml" || fail "decode"
grep -q '^  - target: lid$' "$T/names.yaml" && grep -q '^  - target: transformBone$' "$T/names.yaml" ||
	fail "decode --rig-dir names no bone: $(grep target: "$T/names.yaml")"
grep -q "^  - target: $lid" "$T/hashes.yaml" || fail "decode without --rig-dir: $(grep target: "$T/hashes.yaml")"
mount_view_fg -o allow_other --rig-dir "$T/rigs"
v=$VIEW/cc/$clip.yaml
cmp -s "$v" "$T/names.yaml" || fail "the view is not decode --rig-dir's: $(diff "$T/names.yaml" "$v" | head)"
[ "$(stat -c %s "$v")" = "$(stat -c %s "$T/names.yaml")" ] || fail "the view's stat"
svg=$VIEW/.animfs/plot/cc/$clip.yaml.svg
grep -q '>lid' "$svg" && ! grep -q "$lid" "$svg" || fail "the plot shows no bone name: $(grep -o '>[^<]*lid[^<]*<' "$svg" | head -3)"
echo "ok: view and plot name the bones of the --rig-dir rig"
# a save with names: stored as their hashes, the edit landed
save_named "$v" "$GAME/cc/$clip"
echo "ok: a save with names stores their hashes"
# the rig changed (now B: only transformBone fits, half of the targets): the next open
# shows lid's hash; removed: both hashes
cp "$pk/b.rig" "$T/rigs/$rigA"
grep -q '^  - target: transformBone$' "$v" && grep -q "^  - target: $lid" "$v" ||
	fail "the rig changed: the view did not follow: $(grep target: "$v")"
grep -q "$lid" "$svg" || fail "the rig changed: the plot did not follow"
rm "$T/rigs/$rigA"
grep -q '^  - target: transformBone$' "$v" && fail "the rig removed: the view still names it"
"$EXPECT_ANIMFS" decode --schema-ref ../.animfs/schema "$GAME/cc/$clip" | cmp -s - "$v" ||
	fail "the rig removed: the view is not the plain decode"
echo "ok: a changed or removed rig changes the view at the next open"
# another user's rig (0600): hashes for nobody, names for its owner, whoever reads first
cp "$pk/a.rig" "$T/rigs/$rigA" && chmod 600 "$T/rigs/$rigA"
cp "$pk/a.rig" "$T/rigs/$rigB" && chmod 600 "$T/rigs/$rigB"
exp --rig-dir "$T/rigs" > "$T/names.yaml" && exp > "$T/hashes.yaml" || fail "decode"
grep -q "$lid" "$T/names.yaml" && fail "precondition: decode --rig-dir as root names no bone"
for order in "nobody root" "root nobody"; do
	touch "$T/rigs/$rigA" # a new identity: rendered again, first by the first of order
	for who in $order; do
		if [ $who = root ]; then cat "$v" > "$T/r.yaml"; else as_nobody cat "$v" > "$T/r.yaml"; fi ||
			fail "$who cannot read the view"
		want=$T/names.yaml; [ $who = nobody ] && want=$T/hashes.yaml
		cmp -s "$T/r.yaml" "$want" || fail "$order: $who's view: $(diff "$want" "$T/r.yaml" | head -4)"
	done
done
as_nobody cat "$svg" | grep -q "$lid" || fail "nobody's plot names a bone of a rig nobody may not read"
echo "ok: a rig the caller may not read is absent"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "rigdir_names: ok"
