# A skeleton (_RIG) in a real package through the mount (issue 17): the sample package's
# rig is `<name>.rig.yaml` beside the Jazz views, identical to the command line's decode;
# an edit of one bone position saves through the package rebuild (an independent reader,
# pkgread.py, finds every other resource byte-identical and the rig's body equal to the
# encode of the edited text); a copy of the rig under a new name adds a resource (FNV-1
# 64 of the name, a _KEY entry) and rm takes it out again.
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
src="$ANIMFS_SAMPLES/sims3-clip/echoweaver_SeasonsSymptoms/SeasonsSymptoms.package"
[ -f "$src" ] || { echo "SKIP: ../shared/samples not found"; exit 77; }
here=$(dirname "$0")
rd() { python3 "$here/pkgread.py" "$@"; }
cp "$src" "$GAME/s.package" && chmod u+w "$GAME/s.package"
cp "$src" "$T/orig.package"
pkg=$GAME/s.package
rig=0x8EAF13DE
inst=6EE886E80C45C5F0
mount_view_fg
P=$VIEW/s.package
V=$P/accessorySponge.rig.yaml
[ -f "$V" ] || fail "no rig view: $(ls "$P")"
ls "$P" | grep -q '^ewsneeze.jazz.yaml$' || fail "the Jazz views are gone: $(ls "$P")"
view_decode "$pkg/accessorySponge.rig" | cmp -s - "$V" || fail "the rig view differs from decode"
if ! grep -q '^sims3-clip' <<<"$ANIMFS_FORMATS_OUT"; then
  # a type whose codec this build lacks: its members are there, raw and read-only
  c=$P/c_buff_dazed_x.clip
  [ -f "$c" ] || fail "the CLIP member is not listed raw: $(ls "$P")"
  rd body "$pkg" 6B20C4F3 D660C6DA61573420 | cmp -s - "$c" || fail "the raw CLIP member is not its body"
  { echo x > "$c"; } 2>/dev/null && fail "the raw CLIP member is writable"
fi
[ "$(stat -c %s "$V")" = "$(view_decode "$pkg/accessorySponge.rig" | wc -c)" ] || fail "st_size of the rig view"

# an edit of one position: only the rig record changes
grep -q '^    position: \[0.0, 0.0, 0.0\]$' "$V" || fail "no zero position to edit"
sed -i '0,/^    position: \[0.0, 0.0, 0.0\]$/s//    position: [0.0, 0.25, 0.0]/' "$V" || fail "sed -i on the rig view"
grep -q 'position: \[0.0, 0.25, 0.0\]' "$V" || fail "the view does not show the edit"
rd diff "$T/orig.package" "$pkg" > "$T/diff"
[ "$(grep -c '^same ' "$T/diff")" = 51 ] && grep -q "^changed 8EAF13DE 00000000 $inst\$" "$T/diff" &&
  grep -q '^order ok$' "$T/diff" || fail "after the rig edit: $(grep -v '^same' "$T/diff")"
cp "$V" "$T/edited.yaml"
"$ANIMFS" encode "$T/edited.yaml" -o "$T/edited.rig" 2>/dev/null || fail "encode the edited text"
rd body "$pkg" 8EAF13DE "$inst" | cmp -s - "$T/edited.rig" || fail "the rig in the package is not the edited text"
cp "$pkg" "$T/edited.package"

# a copy under a new name is a new resource; rm takes it out
cp "$V" "$P/myrig.rig.yaml" || fail "cp of the rig under a new name"
new=$(rd fnv64 myrig)
rd diff "$T/edited.package" "$pkg" > "$T/diff"
grep -q "^added 8EAF13DE 00000000 $new\$" "$T/diff" && [ "$(grep -c '^same ' "$T/diff")" = 51 ] &&
  grep -q '^changed 0166038C' "$T/diff" || fail "after the add: $(grep -v '^same' "$T/diff")"
rd keys "$pkg" | grep -q "^$new myrig\$" || fail "no _KEY entry for myrig"
rd body "$pkg" 8EAF13DE "$new" | cmp -s - "$T/edited.rig" || fail "the new rig's body"
cmp -s "$P/myrig.rig.yaml" "$V" || fail "the new rig's view differs from the one it was copied from"
rm "$P/myrig.rig.yaml" || fail "rm of the new rig"
rd diff "$T/edited.package" "$pkg" > "$T/diff"
[ "$(grep -c '^same ' "$T/diff")" = 51 ] && grep -q '^body 0166038C' "$T/diff" && grep -q '^order ok$' "$T/diff" ||
  fail "after the rm: $(grep -v '^same' "$T/diff")"

"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: a skeleton in a package through the mount"
