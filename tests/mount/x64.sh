#!/usr/bin/env bash
# PAYDAY 2 x64 files in the mount: every sample converted by `animfs convert`
# shows as its exact view saying layout 64-bit; an edit through the mount keeps
# the converter's layout (raw, final padding); and changing only `layout:` of a
# 32-bit view in an editor gives the bytes `animfs convert --to x64` gives.
. "$(dirname "$0")/common.inc"
need_samples
copy_samples
mkdir -p "$T/x32"
cp "$GAME"/*.animation "$T/x32/"
"$ANIMFS" convert --to x64 "$GAME" > "$T/convert.log" || fail "convert: $(cat "$T/convert.log")"
# one file stays 32-bit, for the layout flip
walk=phys808__shared_bow_combat_cbt_std_walk_fwd.animation
cp "$T/x32/$walk" "$GAME/$walk"
mount_view
n=0
for bin in "$GAME"/*.animation; do
  b=$(basename "$bin")
  v="$VIEW/$b.yaml"
  [ -f "$v" ] || fail "$b.yaml not listed"
  view_decode "$bin" > "$T/expect" || fail "decode $b"
  cmp -s "$v" "$T/expect" || fail "content of $b.yaml differs from decode"
  if [ "$b" != "$walk" ]; then
    grep -q '^  layout: 64-bit ' "$v" || fail "$b: not shown as 64-bit"
    n=$((n + 1))
  fi
done
[ $n -ge 20 ] || fail "only $n converted samples shown"

# an edit of a converted file with the final padding: the length, saved through the mount
reload=phys808__shared_bow_combat_cbt_std_reload_bow.animation
grep -q '^  end_pad: 8$' "$VIEW/$reload.yaml" || fail "$reload: no end_pad 8"
sed 's/^length: [^ ]*/length: 0.25/' "$VIEW/$reload.yaml" > "$T/edit.yaml"
cat "$T/edit.yaml" > "$VIEW/$reload.yaml" || fail "save of $reload"
# the layout flip: only `layout:` changes in the 32-bit view
sed 's/^  layout: 32-bit /  layout: 64-bit /' "$VIEW/$walk.yaml" > "$T/flip.yaml"
[ "$(diff "$VIEW/$walk.yaml" "$T/flip.yaml" | grep -c '^>')" = 1 ] || fail "the flip changed more than one line"
cat "$T/flip.yaml" > "$VIEW/$walk.yaml" || fail "save of the flip"

# a file that decodes but would not rebuild byte for byte (bytes after the last key
# that are not padding, counted in the size): shown read-only, never hidden, the
# reason in its header and in .animfs/errors; writes refused, the binary unchanged
kate=$(ls "$GAME"/*e_so_kate*.animation 2>/dev/null | head -1)
[ -n "$kate" ] || fail "no e_so_kate sample"
ro=$GAME/ro.animation
cp "$kate" "$ro"
printf '\x11\x22\x33\x44\x55\x66\x77\x88' >> "$ro"
size=$(stat -c %s "$ro")
printf "$(printf '\\x%02x\\x%02x' $((size & 255)) $((size >> 8 & 255)))" |
  dd of="$ro" bs=1 seek=16 conv=notrunc 2>/dev/null
cp "$ro" "$T/ro.orig"
[ -f "$VIEW/ro.animation.yaml" ] || fail "the read-only view is not listed: $(ls "$VIEW" | head)"
grep -q '^# READ-ONLY: ' "$VIEW/ro.animation.yaml" || fail "no READ-ONLY header in the view"
case "$(stat -c %A "$VIEW/ro.animation.yaml")" in *w*) fail "the read-only view shows write permission";; esac
sed 's/^length: *[^ ]*/length: 0.5/' "$VIEW/ro.animation.yaml" > "$T/ro.yaml"
cat "$T/ro.yaml" 2>/dev/null > "$VIEW/ro.animation.yaml" && fail "a read-only view was written"
cmp -s "$ro" "$T/ro.orig" || fail "a refused write changed the binary"
grep -q "ro.animation: .*shown read-only\|ro.animation: byte" "$VIEW/.animfs/errors" ||
  fail "the reason is not in .animfs/errors: $(cat "$VIEW/.animfs/errors")"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"

# the backing files, decoded on their own
"$ANIMFS" decode --schema-ref none "$GAME/$reload" > "$T/reload.yaml" || fail "decode the edited file"
grep -q '^length: 0.25 ' "$T/reload.yaml" || fail "the edit did not land"
grep -q '^  end_pad: 8$' "$T/reload.yaml" || fail "the edit lost end_pad"
grep -q '^  container: raw$' "$T/reload.yaml" || fail "the edit is not raw"
[ $(( $(stat -c %s "$GAME/$reload") % 8 )) = 0 ] || fail "the edited file does not end 8-aligned"
"$ANIMFS" convert --to x64 -o "$T/conv" "$T/x32/$walk" > /dev/null || fail "convert walk"
cmp "$GAME/$walk" "$T/conv/$walk" || fail "layout: 64-bit in the editor differs from animfs convert"
echo "ok: x64 in the mount ($n converted samples)"
