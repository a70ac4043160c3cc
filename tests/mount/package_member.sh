# A package whose Jazz member does not decode lists cleanly (every `ls -l`, the
# first one too): that member is its raw resource, read-only, with the reason in
# .animfs/errors; the good member beside it is a view as usual. The package is made
# here (mkpackage.py) from the Jazz example and a stored fuzz regression.
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
"$EXPECT_ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$T/good.jazz" || fail "encode the example"
bad=$src/tests/fuzz/regressions/sims3-jazz/bin/nonzero-gap-after-odd-chunk.jazz
python3 "$(dirname "$0")/mkpackage.py" "$GAME/mix.package" "02D5DF13:1111:$T/good.jazz" \
  "02D5DF13:2222:$bad" || fail "mkpackage"
cp "$GAME/mix.package" "$T/orig.package"
mount_view_fg
P="$VIEW/mix.package"
good=S3_02D5DF13_00000000_0000000000001111.jazz
broken=S3_02D5DF13_00000000_0000000000002222.jazz
for i in 1 2; do
  out=$(ls -l "$P" 2>&1) || fail "ls -l of the package folder failed ($i): $out"
  case "$out" in *'?'*) fail "ls -l shows unknown entries ($i): $out";; esac
done
[ "$(LC_ALL=C ls "$P" | tr "\n" " ")" = "$good.yaml $broken index.yaml " ] || fail "listing: $(ls "$P")"
cmp -s "$P/$broken" "$bad" || fail "the broken member is not its raw resource"
[ "$(stat -c %s "$P/$broken")" = "$(stat -c %s "$bad")" ] || fail "raw member st_size"
{ echo x > "$P/$broken"; } 2>/dev/null && fail "the raw member is writable"
grep -q "mix.package/$broken: byte 0x2aa: non-zero padding" "$VIEW/.animfs/errors" ||
  fail "the reason is not in .animfs/errors: $(cat "$VIEW/.animfs/errors")"
[ "$(grep -c "$broken" "$VIEW/.animfs/errors")" = 1 ] || fail "the reason is said more than once"
view_decode "$GAME/mix.package/$good" | cmp -s - "$P/$good.yaml" || fail "the good member's view"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
cmp -s "$GAME/mix.package" "$T/orig.package" || fail "the package changed"
echo "ok: a package with a member that does not decode"
