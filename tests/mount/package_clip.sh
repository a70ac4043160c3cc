# A clip (CLIP) in a real package through the mount (issue 17): the sample package's clip
# is `<name>.clip.yaml` beside the Jazz views, identical to the command line's decode; an
# edit of one frame value (frame 2 of the first channel takes frame 0's value, which
# quantises exactly) saves through the package rebuild: an independent reader,
# pkgread.py, finds every other resource byte-identical, and the clip's body is the
# encode of the edited text and decodes with the edit.
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
src="$ANIMFS_SAMPLES/sims3-clip/echoweaver_SeasonsSymptoms/SeasonsSymptoms.package"
[ -f "$src" ] || { echo "SKIP: ../shared/samples not found"; exit 77; }
grep -q '^sims3-clip' <<<"$ANIMFS_FORMATS_OUT" || { echo "SKIP: built without sims3-clip"; exit 77; }
here=$(dirname "$0")
rd() { python3 "$here/pkgread.py" "$@"; }
cp "$src" "$GAME/s.package" && chmod u+w "$GAME/s.package"
cp "$src" "$T/orig.package"
pkg=$GAME/s.package
inst=D660C6DA61573420
mount_view_fg
P=$VIEW/s.package
V=$P/c_buff_dazed_x.clip.yaml
[ -f "$V" ] || fail "no clip view: $(ls "$P")"
view_decode "$pkg/c_buff_dazed_x.clip" | cmp -s - "$V" || fail "the clip view differs from decode"

# frame 2 of the first channel takes the value of its frame 0
v0=$(grep -m1 -E '^      0: \[[^]]*\]' "$V" | sed -E 's/^      0: (\[[^]]*\]).*/\1/')
v2=$(grep -m1 -E '^      2: \[[^]]*\]' "$V" | sed -E 's/^      2: (\[[^]]*\]).*/\1/')
[ -n "$v0" ] && [ -n "$v2" ] && [ "$v0" != "$v2" ] || fail "no frames 0 and 2 to edit: '$v0' '$v2'"
sed "0,/^      2: \[[^]]*\]/s//      2: $v0/" "$V" > "$T/edited.yaml"
cmp -s "$T/edited.yaml" "$V" && fail "the edit changed nothing"
cp "$T/edited.yaml" "$V" || fail "write the clip view"
rd diff "$T/orig.package" "$pkg" > "$T/diff"
[ "$(grep -c '^same ' "$T/diff")" = 51 ] && grep -q "^changed 6B20C4F3 70000000 $inst\$" "$T/diff" &&
  grep -q '^order ok$' "$T/diff" || fail "after the clip edit: $(grep -v '^same' "$T/diff")"
"$ANIMFS" encode "$T/edited.yaml" -o "$T/edited.clip" 2>/dev/null || fail "encode the edited text"
rd body "$pkg" 6B20C4F3 "$inst" > "$T/body"
cmp -s "$T/body" "$T/edited.clip" || fail "the clip in the package is not the edited text"
# the body decodes with the edit, loose (no package around it): frame 2 shows frame 0's value
cp "$T/body" "$T/loose.animation"
"$ANIMFS" decode "$T/loose.animation" > "$T/loose.yaml" || fail "decode the clip's new body"
[ "$(grep -m1 -E '^      2: ' "$T/loose.yaml" | sed -E 's/^      2: (\[[^]]*\]).*/\1/')" = "$v0" ] ||
  fail "the new body's frame 2: $(grep -m1 -E '^      2: ' "$T/loose.yaml")"
grep -qF "      0: $v0" "$T/loose.yaml" || fail "frame 0 changed"
grep -q '^      2: ' "$V" && [ "$(grep -m1 -E '^      2: ' "$V" | sed -E 's/^      2: (\[[^]]*\]).*/\1/')" = "$v0" ] ||
  fail "the view does not show the edit"

"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: a clip in a package through the mount"
