# mount --overlay MODDIR --to LAYOUT (issue 32): saves into the mod folder are written in
# a layout of `animfs convert` (PAYDAY 2's x64 build loads 64-bit animations from
# assets/mod_overrides/<mod>/), byte for byte as `animfs convert --to x64` writes the
# encoded file; GAME's 32-bit file is unchanged. An unknown layout, or --to without
# --overlay, is refused. No samples needed (examples/).
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
"$ANIMFS" convert --help 2>&1 | grep -q '^ *x64 ' || { echo "SKIP: no x64 layout in this build"; exit 77; }
mkdir -p "$GAME/units/anims"
"$ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/units/anims/walk.animation" || fail "encode"
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
"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
# what animfs convert makes of the encoded edit
mkdir -p "$T/x32" "$T/x64"
"$ANIMFS" encode "$T/edit.yaml" -o "$T/x32/walk.animation" || fail "encode the edit"
"$ANIMFS" convert --to x64 -o "$T/x64" "$T/x32" > /dev/null || fail "convert"
cmp -s "$(find "$T/x64" -name walk.animation)" "$MOD/units/anims/walk.animation" ||
  fail "MODDIR's copy is not what animfs convert --to x64 writes"
cmp -s "$T/orig" "$GAME/units/anims/walk.animation" || fail "GAME changed"
echo "ok: --overlay --to x64 writes the 64-bit layout into the mod folder"

# no --to: the layout of the mod folder's own files (now a 64-bit one) is kept
cp "$src/examples/walk.animation.yaml" "$T/run.yaml"
"$ANIMFS" encode "$T/run.yaml" -o "$GAME/units/anims/run.animation" 2>/dev/null || fail "encode run"
mount_view_fg --overlay "$MOD"
grep -q "written in the x64 layout, as its files are" "$T/daemon.log" || fail "no default layout said: $(cat "$T/daemon.log")"
v=$VIEW/units/anims/run.animation.yaml
sed 's/^length: *[^ #]*/length: 3.75/' "$v" > "$T/edit2.yaml"
cat "$T/edit2.yaml" > "$v" || fail "the save: $(cat "$VIEW/.animfs/errors")"
grep -q '^  layout: 64-bit' "$v" || fail "without --to the copy is not 64-bit: $(grep layout "$v")"
"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: without --to, saves keep the mod folder's layout"
