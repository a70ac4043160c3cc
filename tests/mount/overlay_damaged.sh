# --overlay over packages with damaged members on either side (issue 47): the merged
# folder lists every member (not only index.yaml, as it did); a member whose Jazz does
# not decode is its raw resource, read-only; one whose body does not unpack (a RefPack
# stream that stops) its stored bytes, read-only; .animfs/errors says why for each; a
# save of a good member lands in MODDIR's override with the damaged resources carried
# byte for byte. A GAME package no reader takes under MODDIR's: MODDIR's alone, with
# the reason, and a save keeps it whole. The packages are made here (mkpackage.py) from
# the Jazz example and a stored fuzz regression.
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
here=$(dirname "$0")
src=${ANIMFS_SOURCE_DIR:-$here/../..}
mk() { python3 "$here/mkpackage.py" "$@" || fail "mkpackage $1"; }
rd() { python3 "$here/pkgread.py" "$@"; }
"$EXPECT_ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$T/good.jazz" || fail "encode the example"
bad=$src/tests/fuzz/regressions/sims3-jazz/bin/nonzero-gap-after-odd-chunk.jazz
J=02D5DF13
name() { echo "S3_${J}_00000000_000000000000$1.jazz"; }
MOD=$T/mod
mkdir -p "$MOD"
# GAME's side damaged: g.package's 2222 does not decode, 3333 does not unpack; MODDIR's
# override holds 1111 and a new 4444
mk "$GAME/g.package" "$J:1111:$T/good.jazz" "$J:2222:$bad" "$J:3333:broken-refpack=$T/good.jazz"
mk "$MOD/g.package" "$J:1111:$T/good.jazz" "$J:4444:$T/good.jazz"
# MODDIR's side damaged: m.package's override replaces 2222 with one that does not
# decode and adds 3333, which does not unpack
mk "$GAME/m.package" "$J:1111:$T/good.jazz" "$J:2222:$T/good.jazz"
mk "$MOD/m.package" "$J:2222:$bad" "$J:3333:broken-refpack=$T/good.jazz"
cp "$MOD/m.package" "$T/m.orig"
# GAME's whole copy damaged (a header no reader takes): x.package is MODDIR's alone
{ printf 'DBPFjunkjunk'; head -c 200 /dev/zero; } > "$GAME/x.package"
mk "$MOD/x.package" "$J:1111:$T/good.jazz"
chmod -R a-w "$GAME"
sums() { (cd "$GAME" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
sums > "$T/game.sums"
mount_view_fg --overlay "$MOD"
listing() { LC_ALL=C ls "$VIEW/$1" | tr '\n' ' '; }
errs() { cat "$VIEW/.animfs/errors"; }
for p in g m; do
  for i in 1 2; do
    out=$(ls -l "$VIEW/$p.package" 2>&1) || fail "ls -l of $p.package failed ($i): $out"
    [ "$(stat -c %F "$VIEW/$p.package/index.yaml")" = "regular file" ] || fail "$p.package's index.yaml"
  done
done
want="$(name 1111).yaml $(name 2222) $(name 3333) $(name 4444).yaml index.yaml "
[ "$(listing g.package)" = "$want" ] || fail "g.package lists: $(listing g.package)"
want="$(name 1111).yaml $(name 2222) $(name 3333) index.yaml "
[ "$(listing m.package)" = "$want" ] || fail "m.package lists: $(listing m.package)"
python3 -c 'import sys; w = open(sys.argv[1], "rb").read()
sys.stdout.buffer.write(b"\x10\xfb" + len(w).to_bytes(3, "big") + b"\xfb" + w[:112] + b"\xfc")' \
  "$T/good.jazz" > "$T/3333.stored" || fail "the stored bytes of 3333"
for p in g m; do
  cmp -s "$VIEW/$p.package/$(name 2222)" "$bad" || fail "$p.package's 2222 is not its raw resource"
  cmp -s "$VIEW/$p.package/$(name 3333)" "$T/3333.stored" || fail "$p.package's 3333 is not its stored bytes"
  [ "$(stat -c %s "$VIEW/$p.package/$(name 3333)")" = "$(stat -c %s "$T/3333.stored")" ] ||
    fail "$p.package's 3333 st_size"
  { echo x > "$VIEW/$p.package/$(name 2222)"; } 2>/dev/null && fail "$p.package's raw 2222 is writable"
  grep -q "$p.package/$(name 2222): byte 0x2aa: non-zero padding" "$VIEW/.animfs/errors" ||
    fail "no reason for $p.package's 2222: $(errs)"
  grep -q "$p.package/$(name 3333): .*RefPack stream stops after 112 of the declared" \
    "$VIEW/.animfs/errors" || fail "no reason for $p.package's 3333: $(errs)"
  view_decode "$GAME/$p.package/$(name 1111)" |
    cmp -s - "$VIEW/$p.package/$(name 1111).yaml" || fail "$p.package's 1111 view"
done
[ "$(listing x.package)" = "$(name 1111).yaml index.yaml " ] || fail "x.package lists: $(listing x.package)"
grep -q "x.package: GAME's copy does not merge under MODDIR's (DBPF version .*): MODDIR's is shown alone" \
  "$VIEW/.animfs/errors" || fail "no reason for x.package: $(errs)"
echo "ok: damaged members on either side: every member listed, the reasons said"

# a save of a good member: MODDIR's override gains it and keeps its damaged ones
V=$VIEW/m.package/$(name 1111).yaml
sed 's/^\( *speed:\) 1.0$/\1 1.5/' "$V" > "$T/edit.yaml"
grep -q 'speed: 1.5' "$T/edit.yaml" || fail "no speed to edit"
cat "$T/edit.yaml" > "$V" || fail "the save failed: $(errs)"
grep -q 'speed: 1.5' "$V" || fail "the view does not show the edit"
# against MODDIR's package before the save: 1111 added, the damaged ones stored as they were
rd diff "$T/m.orig" "$MOD/m.package" | sort > "$T/diff"
printf '%s\n' "added $J 00000000 0000000000001111" "order ok" "same $J 00000000 0000000000002222" \
  "same $J 00000000 0000000000003333" > "$T/want"
cmp -s "$T/diff" "$T/want" || fail "the override holds: $(cat "$T/diff")"
rd body "$MOD/m.package" $J 1111 > "$T/saved.jazz" || fail "read the saved 1111"
"$EXPECT_ANIMFS" decode "$T/saved.jazz" | grep -q 'speed: 1.5' || fail "the saved 1111 lacks the edit"
# a save into MODDIR's package alone: kept whole there (nothing to reduce against)
V=$VIEW/x.package/$(name 1111).yaml
cat "$T/edit.yaml" > "$V" || fail "the save into x.package failed: $(errs)"
rd body "$MOD/x.package" $J 1111 > "$T/saved-x.jazz" || fail "read x.package's 1111"
"$EXPECT_ANIMFS" decode "$T/saved-x.jazz" | grep -q 'speed: 1.5' || fail "x.package's 1111 lacks the edit"
"$EXPECT_ANIMFS" umount "$VIEW" >/dev/null || fail "umount"
check_daemon
sums | cmp -s - "$T/game.sums" || fail "GAME changed"
echo "ok: a save beside damaged members keeps them in the override"
