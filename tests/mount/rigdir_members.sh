# Issue 46: a clip inside a .package shows bone names in the mount as a loose one does
# (rigdir_names.sh): a rig in the same package that fits wins (the rule of a rig beside a
# loose clip), else the rig of --rig-dir that fits, as `animfs decode --rig-dir` shows the
# member; its plot names them too. A save of the named view stores the hashes, and one
# unedited leaves the package byte for byte. The rigs of --rig-dir the member's view read
# are among what it was made of: a changed or removed rig changes it at the next open.
# With -o allow_other they are read as the caller: a rig another user may not read is
# absent (hashes), and neither user's text reaches the other, whoever reads first.
# Synthetic clip, rigs and packages (tests/cli/clip_rigs.inc, mkpackage.py), no samples.
. "$(dirname "$0")/rigdir.inc"
m=S3_6B20C4F3_00000000_00000000000000C1.clip
# one package holds the clip alone, the other the clip and rig B (which fits: half)
python3 "$src/tests/mount/mkpackage.py" "$GAME/cc/solo.package" 6B20C4F3:C1:"$pk/two.clip" &&
	python3 "$src/tests/mount/mkpackage.py" "$GAME/cc/withrig.package" 6B20C4F3:C1:"$pk/two.clip" \
		8EAF13DE:B:"$pk/b.rig" || fail "making the packages"
cp "$pk/a.rig" "$T/rigs/$rigA"
chmod -R a+rX "$GAME/cc" "$T/rigs"
exp() { "$EXPECT_ANIMFS" decode --schema-ref ../../.animfs/schema "$GAME/cc/$1/$m" "${@:2}"; }
exp solo.package --rig-dir "$T/rigs" > "$T/names.yaml" && exp solo.package > "$T/hashes.yaml" &&
	exp withrig.package --rig-dir "$T/rigs" > "$T/withrig.yaml" || fail "decode the members"
grep -q '^  - target: lid$' "$T/names.yaml" && grep -q '^  - target: transformBone$' "$T/names.yaml" ||
	fail "decode --rig-dir names no bone: $(grep target: "$T/names.yaml")"
grep -q "^  - target: $lid" "$T/hashes.yaml" || fail "decode without --rig-dir: $(grep target: "$T/hashes.yaml")"
grep -q '^  - target: transformBone$' "$T/withrig.yaml" && grep -q "^  - target: $lid" "$T/withrig.yaml" ||
	fail "the package's rig did not win over --rig-dir's: $(grep target: "$T/withrig.yaml")"
cp "$GAME/cc/solo.package" "$T/solo.orig"
mount_view_fg -o allow_other --rig-dir "$T/rigs"
v=$VIEW/cc/solo.package/$m.yaml
w=$VIEW/cc/withrig.package/$m.yaml
cmp -s "$v" "$T/names.yaml" || fail "the member's view is not decode --rig-dir's: $(diff "$T/names.yaml" "$v" | head)"
[ "$(stat -c %s "$v")" = "$(stat -c %s "$T/names.yaml")" ] || fail "the member view's stat"
cmp -s "$w" "$T/withrig.yaml" || fail "the package's own rig: $(diff "$T/withrig.yaml" "$w" | head)"
svg=$VIEW/.animfs/plot/cc/solo.package/$m.yaml.svg
grep -q '>lid' "$svg" && ! grep -q "$lid" "$svg" || fail "the member's plot shows no bone name"
glb=$VIEW/.animfs/gltf/cc/solo.package/$m.yaml.glb
grep -aq '"lid"' "$glb" || fail "the member's preview has no bone lid"
echo "ok: a member's view, plot and preview name the bones of its package's rig, else of --rig-dir's"
# saved unedited: the package byte for byte; edited: the names stored as their hashes
cat "$T/names.yaml" > "$v" || fail "saving the view unedited"
cmp -s "$GAME/cc/solo.package" "$T/solo.orig" || fail "an unedited save changed the package"
save_named "$v" "$GAME/cc/solo.package/$m"
echo "ok: a save with names stores their hashes; an unedited one leaves the package"
# the rig changed (now B: only transformBone fits): the next open shows lid's hash;
# removed: the plain decode
exp solo.package > "$T/hashes.yaml" || fail "decode"
cp "$pk/b.rig" "$T/rigs/$rigA"
grep -q '^  - target: transformBone$' "$v" && grep -q "^  - target: $lid" "$v" ||
	fail "the rig changed: the member's view did not follow: $(grep target: "$v")"
grep -q "$lid" "$svg" || fail "the rig changed: the plot did not follow"
rm "$T/rigs/$rigA"
cmp -s "$v" "$T/hashes.yaml" || fail "the rig removed: the view is not the plain decode: $(grep target: "$v")"
echo "ok: a changed or removed rig changes the member's view at the next open"
# another user's rig (0600): hashes for nobody, names for its owner, whoever reads first
cp "$pk/a.rig" "$T/rigs/$rigA" && chmod 600 "$T/rigs/$rigA"
exp solo.package --rig-dir "$T/rigs" > "$T/names.yaml" || fail "decode"
grep -q "$lid" "$T/names.yaml" && fail "precondition: decode --rig-dir as root names no bone"
for order in "nobody root" "root nobody" "nobody root"; do
	touch "$T/rigs/$rigA" # a new identity: rendered again, first by the first of order
	for who in $order; do
		for f in "$v" "$v"; do # twice: a text kept is served as rendered
			if [ $who = root ]; then cat "$f" > "$T/r.yaml"; else as_nobody cat "$f" > "$T/r.yaml"; fi ||
				fail "$who cannot read the member's view"
			want=$T/names.yaml; [ $who = nobody ] && want=$T/hashes.yaml
			cmp -s "$T/r.yaml" "$want" || fail "$order: $who's view: $(diff "$want" "$T/r.yaml" | head -4)"
			sz=$(if [ $who = root ]; then stat -c %s "$f"; else as_nobody stat -c %s "$f"; fi)
			[ "$sz" = "$(stat -c %s "$want")" ] || fail "$order: $who's stat says $sz"
		done
	done
done
as_nobody cat "$svg" | grep -q "$lid" || fail "nobody's plot names a bone of a rig nobody may not read"
grep -q '>lid' "$svg" || fail "root's plot names no bone"
as_nobody cat "$glb" | grep -aq '"lid"' && fail "nobody's preview has a bone of a rig nobody may not read"
grep -aq '"lid"' "$glb" || fail "root's preview has no bone lid"
ls -l "$VIEW/cc/solo.package/" > /dev/null && as_nobody cat "$v" | cmp -s - "$T/hashes.yaml" ||
	fail "after root's listing, nobody's view"
echo "ok: a rig the caller may not read is absent from a member's view"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "rigdir_members: ok"
