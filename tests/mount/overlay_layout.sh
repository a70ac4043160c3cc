# mount --overlay MODDIR --to LAYOUT (issue 32): saves into the mod folder are written in
# a layout of `animfs convert` (PAYDAY 2's x64 build loads 64-bit animations from
# assets/mod_overrides/<mod>/), byte for byte as `animfs convert --to x64` writes the
# encoded file; GAME's 32-bit file is unchanged. An unknown layout, or --to without
# --overlay, is refused. --overlay-layout pd2 (PAYDAY 2's mod folder, from the Diesel
# codec's descriptor): a MODDIR that is not mod_overrides/<mod> is refused; a vim edit
# lands at MODDIR/<asset path> in the x64 layout, byte for byte as animfs convert
# writes it; a mod folder of 32-bit files keeps them 32-bit (a sed -i edit). No samples
# needed (examples/).
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
"$ANIMFS" convert --help 2>&1 | grep -q '^ *x64 ' || { echo "SKIP: no x64 layout in this build"; exit 77; }
mkdir -p "$GAME/units/anims"
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/units/anims/walk.animation" || fail "encode"
cp "$GAME/units/anims/walk.animation" "$T/orig"
MOD=$T/mod_overrides/MyMod
mkdir -p "$MOD"
out=$("$ANIMFS" mount "$GAME" "$VIEW" --overlay "$MOD" --to x99 2>&1) && fail "an unknown layout was taken"
echo "$out" | grep -q "no format writes that layout" || fail "unknown layout: '$out'"
out=$("$ANIMFS" mount "$GAME" "$VIEW" --to x64 2>&1) && fail "--to without --overlay was taken"
echo "$out" | grep -q "goes with --overlay" || fail "--to alone: '$out'"
mount_view_fg --overlay "$MOD" --to x64
v=$VIEW/units/anims/walk.animation.yaml
sed 's/^length: *[^ #]*/length: 7.25/' "$v" > "$T/edit.yaml"
cat "$T/edit.yaml" > "$v" || fail "the save: $(cat "$VIEW/.animfs/errors")"
grep -q '^  layout: 64-bit' "$v" || fail "the view of MODDIR's copy is not 64-bit: $(grep layout "$v")"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
# what animfs convert makes of the encoded edit (the expected side: $EXPECT_ANIMFS; cli/diesel_convert
# and mount/x64 run convert sanitized)
mkdir -p "$T/x32" "$T/x64"
"$EXPECT_ANIMFS" encode "$T/edit.yaml" -o "$T/x32/walk.animation" || fail "encode the edit"
"$EXPECT_ANIMFS" convert --to x64 -o "$T/x64" "$T/x32" > /dev/null || fail "convert"
cmp -s "$(find "$T/x64" -name walk.animation)" "$MOD/units/anims/walk.animation" ||
  fail "MODDIR's copy is not what animfs convert --to x64 writes"
cmp -s "$T/orig" "$GAME/units/anims/walk.animation" || fail "GAME changed"
echo "ok: --overlay --to x64 writes the 64-bit layout into the mod folder"

# no --to: the layout of the mod folder's own files (now a 64-bit one) is kept
cp "$src/examples/walk.animation.yaml" "$T/run.yaml"
"$EXPECT_ANIMFS" encode "$T/run.yaml" -o "$GAME/units/anims/run.animation" 2>/dev/null || fail "encode run"
mount_view_fg --overlay "$MOD"
grep -q "written in the x64 layout, as its files are" "$T/daemon.log" || fail "no default layout said: $(cat "$T/daemon.log")"
v=$VIEW/units/anims/run.animation.yaml
sed 's/^length: *[^ #]*/length: 3.75/' "$v" > "$T/edit2.yaml"
cat "$T/edit2.yaml" > "$v" || fail "the save: $(cat "$VIEW/.animfs/errors")"
grep -q '^  layout: 64-bit' "$v" || fail "without --to the copy is not 64-bit: $(grep layout "$v")"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: without --to, saves keep the mod folder's layout"

# --overlay-layout pd2: PAYDAY 2's assets/mod_overrides/<mod>, asset paths kept
PD2=$T/PAYDAY\ 2/assets/mod_overrides
mkdir -p "$PD2/Walk Mod" "$T/elsewhere/Walk Mod"
for bad in "$T/elsewhere/Walk Mod" "$PD2"; do
  out=$("$ANIMFS" mount "$GAME" "$VIEW" --overlay "$bad" --overlay-layout pd2 2>&1) &&
    fail "--overlay-layout pd2 took '$bad'"
  echo "$out" | grep -q "must be a mod's own folder in a 'mod_overrides' folder" ||
    fail "a wrong MODDIR: '$out'"
  mountpoint -q "$VIEW" && fail "mounted with a wrong MODDIR"
done
out=$("$ANIMFS" mount "$GAME" "$VIEW" --overlay "$PD2/Walk Mod" --overlay-layout pd9 2>&1) &&
  fail "an unknown --overlay-layout was taken"
echo "$out" | grep -q "no format has that mod folder layout" || fail "unknown --overlay-layout: '$out'"
out=$("$ANIMFS" mount "$GAME" "$VIEW" --overlay-layout pd2 2>&1) && fail "--overlay-layout alone was taken"
echo "$out" | grep -q "goes with --overlay" || fail "--overlay-layout alone: '$out'"
"$ANIMFS" encode "$T/edit.yaml" -o "$T/elsewhere/w.animation" --overlay "$T/elsewhere/Walk Mod" \
  --overlay-layout pd2 --game "$T/elsewhere" 2>/dev/null && fail "encode took a wrong MODDIR"
[ -z "$(ls -A "$T/elsewhere/Walk Mod")" ] || fail "a refused encode wrote into the wrong MODDIR"
ls -A "$PD2/Walk Mod" | grep -q . && fail "a refused mount wrote into MODDIR"
sums() { (cd "$GAME" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
sums > "$T/game.sums"
# an empty mod folder: the 64-bit layout the game loads, said at mount
mount_view_fg --overlay "$PD2/Walk Mod" --overlay-layout pd2
grep -q "written in the x64 layout, the default of --overlay-layout pd2" "$T/daemon.log" ||
  fail "the default is not said: $(cat "$T/daemon.log")"
v=$VIEW/units/anims/walk.animation.yaml
grep -q '^  layout: 32-bit' "$v" || fail "GAME's walk is not 32-bit: $(grep layout: "$v")"
sed 's/^length: *[^ #]*/length: 5.5/' "$v" > "$T/edit3.yaml"
timeout 60 vim -N -u DEFAULTS -i NONE -es -c '%s/^length: *[^ #]*/length: 5.5/' -c 'wq' "$v" \
  </dev/null 2>"$T/vim.err" || fail "vim exited with $?: $(cat "$T/vim.err") ($(cat "$VIEW/.animfs/errors"))"
grep -q '^  layout: 64-bit' "$v" || fail "the copy-up is not 64-bit: $(grep layout: "$v")"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
(cd "$PD2/Walk Mod" && find . -type f) | cmp -s - <(echo ./units/anims/walk.animation) ||
  fail "MODDIR holds: $(cd "$PD2/Walk Mod" && find . -type f)"
rm -rf "$T/x32" "$T/x64" && mkdir -p "$T/x32" "$T/x64"
"$EXPECT_ANIMFS" encode "$T/edit3.yaml" -o "$T/x32/walk.animation" || fail "encode the vim edit"
"$EXPECT_ANIMFS" convert --to x64 -o "$T/x64" "$T/x32" > /dev/null || fail "convert the vim edit"
cmp -s "$(find "$T/x64" -name walk.animation)" "$PD2/Walk Mod/units/anims/walk.animation" ||
  fail "the pd2 copy-up is not what animfs convert --to x64 writes"
sums | cmp -s - "$T/game.sums" || fail "GAME changed"
# encode --overlay-layout pd2 writes the same bytes
mkdir "$PD2/Encoded"
"$ANIMFS" encode "$T/edit3.yaml" -o "$GAME/units/anims/walk.animation" --game "$GAME" \
  --overlay "$PD2/Encoded" --overlay-layout pd2 2> "$T/encode.err" || fail "encode: $(cat "$T/encode.err")"
grep -q "written in the x64 layout, the default of --overlay-layout pd2" "$T/encode.err" ||
  fail "encode does not say the layout: $(cat "$T/encode.err")"
cmp -s "$PD2/Walk Mod/units/anims/walk.animation" "$PD2/Encoded/units/anims/walk.animation" ||
  fail "encode --overlay-layout pd2 differs from the mount's copy-up"
sums | cmp -s - "$T/game.sums" || fail "encode changed GAME"
echo "ok: --overlay-layout pd2 refuses a wrong MODDIR and copies up in x64 at the asset path"

# a mod folder of 32-bit files: --overlay-layout pd2 keeps its layout (sed -i edit)
mkdir -p "$PD2/Old Mod/units/anims"
cp "$GAME/units/anims/walk.animation" "$PD2/Old Mod/units/anims/walk.animation"
mount_view_fg --overlay "$PD2/Old Mod" --overlay-layout pd2
grep -q "written in the x32 layout, as its files are" "$T/daemon.log" ||
  fail "the mod folder's layout is not said: $(cat "$T/daemon.log")"
v=$VIEW/units/anims/run.animation.yaml
sed 's/^length: *[^ #]*/length: 2.25/' "$v" > "$T/edit4.yaml"
sed -i 's/^length: *[^ #]*/length: 2.25/' "$v" || fail "sed -i: $(cat "$VIEW/.animfs/errors")"
grep -q '^  layout: 32-bit' "$v" || fail "the copy-up is not 32-bit: $(grep layout: "$v")"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
"$EXPECT_ANIMFS" encode "$T/edit4.yaml" -o "$T/x32/run.animation" || fail "encode the sed edit"
cmp -s "$T/x32/run.animation" "$PD2/Old Mod/units/anims/run.animation" ||
  fail "the 32-bit mod folder's copy-up is not the encoded edit"
sums | cmp -s - "$T/game.sums" || fail "GAME changed"
echo "ok: --overlay-layout pd2 keeps a 32-bit mod folder 32-bit"
