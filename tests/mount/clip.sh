# A Diesel `.animation` and a Sims 3 CLIP `.animation` in one GAME folder: each view shows
# its own format (the bid is on content), and a frame value changed in the CLIP's view is
# saved to exactly that frame's code bytes (the independent reader of
# tests/tools/clip_tool.py says which bytes differ) while the Diesel file stays as it was.
# No samples needed: both files are built here.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
tool="python3 $src/tests/tools/clip_tool.py"
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/walk.animation" || fail "encode Diesel"
$tool build "$GAME/cough.animation" || fail "build the CLIP"
cp "$GAME/cough.animation" "$T/cough.orig"
cp "$GAME/walk.animation" "$T/walk.orig"
mount_view_fg
grep -q '^format: diesel-animation$' "$VIEW/walk.animation.yaml" || fail "the Diesel view: $(head -3 "$VIEW/walk.animation.yaml")"
grep -q '^format: sims3-clip$' "$VIEW/cough.animation.yaml" || fail "the CLIP view: $(head -3 "$VIEW/cough.animation.yaml")"
cmp -s "$VIEW/cough.animation.yaml" <(view_decode "$GAME/cough.animation") || fail "the CLIP view differs from a decode"
sed 's/^      3: \[0.02930403,/      3: [0.2,/' "$VIEW/cough.animation.yaml" > "$T/edit.yaml"
cmp -s "$T/edit.yaml" "$VIEW/cough.animation.yaml" && fail "the edit changed nothing"
cp "$T/edit.yaml" "$VIEW/cough.animation.yaml" || fail "the save was refused: $(cat "$VIEW/.animfs/errors")"
grep -q '^      3: \[0.2, 0.0, 0.0, 1.0\]' "$VIEW/cough.animation.yaml" || fail "the view does not show the new value"
read -r off len < <($tool frame "$T/cough.orig" 0 3)
changed=$($tool diff "$T/cough.orig" "$GAME/cough.animation")
[ -n "$changed" ] || fail "the save changed no byte"
for b in $changed; do
  [ "$b" != length ] && [ "$b" -ge $((off + 4)) ] && [ "$b" -lt $((off + 6)) ] ||
    fail "byte $b changed; only frame 3's x code (bytes $((off + 4))-$((off + 5))) should"
done
cmp -s "$T/walk.orig" "$GAME/walk.animation" || fail "the Diesel file changed"
# a value outside the channel's range is refused, and the file is left alone
cp "$GAME/cough.animation" "$T/cough.saved"
sed 's/^      3: \[0.2,/      3: [1.5,/' "$VIEW/cough.animation.yaml" > "$T/bad.yaml"
cp "$T/bad.yaml" "$VIEW/cough.animation.yaml" 2>/dev/null && fail "an out-of-range value was saved"
grep -q "1.5 is outside 0.0 +- 1.0" "$VIEW/.animfs/errors" || fail "errors lack the range: $(cat "$VIEW/.animfs/errors")"
cmp -s "$T/cough.saved" "$GAME/cough.animation" || fail "a refused save changed the CLIP"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "clip: ok"
