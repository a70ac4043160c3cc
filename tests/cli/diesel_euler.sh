#!/usr/bin/env bash
# Diesel rotations as Euler angles (issue 19): `animfs decode --euler` puts `euler: xyz`
# in the header and each rotation key's angles in a comment; such a document encodes
# to the same bytes (the Diesel samples, when ../shared/samples is there: a fixed
# representative subset, tests/samples.inc sample_files; every one in the slow tier's
# cli/diesel_euler_full, ANIMFS_TEST_FULL=1); a key rewritten as
# [t, rx, ry, rz] becomes the quaternion of those angles (rot_packed and rot_f32), and
# only that key changes; without the header a 4-value rotation key is still refused.
set -u
src=${ANIMFS_SOURCE_DIR:?}/examples/walk.animation.yaml
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
A=$ANIMFS

# 1. unchanged documents come back byte for byte
"$A" encode "$src" -o "$tmp/walk.animation" 2>/dev/null || fail "encode example"
bins=("$tmp/walk.animation")
S=${ANIMFS_SAMPLES:-}/diesel
if [ -n "${ANIMFS_SAMPLES:-}" ] && [ -d "$S" ]; then
  . "$ANIMFS_SOURCE_DIR/tests/samples.inc"
  mapfile -d '' -t subset < <(sample_files "$ANIMFS_SAMPLES" -path "$S/*.animation")
  bins+=("${subset[@]}")
else
  echo "note: ../shared/samples not found; the example only"
fi
for b in "${bins[@]}"; do
  "$A" decode --euler "$b" -o "$tmp/e.yaml" || fail "decode --euler $b"
  grep -q '^euler: xyz' "$tmp/e.yaml" || fail "$b: no euler header"
  "$A" encode "$tmp/e.yaml" -o "$tmp/back.animation" || fail "encode the --euler view of $b"
  cmp -s "$tmp/back.animation" "$b" || fail "$b: the --euler view does not encode to the same bytes"
done
# without --euler the view has neither the header nor the comments
"$A" decode "$tmp/walk.animation" > "$tmp/plain.yaml" || fail "decode"
grep -q '^euler:\|\]  # -\?[0-9]*\.[0-9][0-9], ' "$tmp/plain.yaml" && fail "Euler text without --euler"

# 2. the comment of a known rotation: the code packed from [0.259, 0, 0, 0.966] is 30.05 degrees about x
"$A" decode --euler "$tmp/walk.animation" -o "$tmp/e.yaml"
grep -qx '        - \[0.0, 0.259, 0.000, 0.000, 0.966\]  # 30.05, 0.00, 0.00' "$tmp/e.yaml" ||
  fail "comment of [0.259, 0, 0, 0.966]: $(grep -m1 '0.259, 0.000' "$tmp/e.yaml")"

# 3. edit through Euler angles, rot_packed: only that key changes, to about 45 degrees
edit_one() { # edit_one IN OUT OLD-KEY NEW-KEY
  grep -q "^        - \[$3\]" "$1" || fail "key [$3] not found"
  sed "0,/^        - \[$3\].*/s//        - [$4]/" "$1" > "$2"
}
edit_one "$tmp/e.yaml" "$tmp/p.yaml" '0.5, -0.259, 0.000, 0.000, 0.966' '0.5, 45, 0, 0'
"$A" encode "$tmp/p.yaml" -o "$tmp/p.animation" || fail "encode a rot_packed Euler key"
"$A" decode "$tmp/p.animation" > "$tmp/p2.yaml" || fail "decode the edit"
d=$(diff "$tmp/plain.yaml" "$tmp/p2.yaml" | grep -c '^[<>]')
[ "$d" = 2 ] || fail "a rot_packed Euler edit changed $d lines: $(diff "$tmp/plain.yaml" "$tmp/p2.yaml")"
grep -qx '        - \[0.5, 0.382, 0.000, 0.000, 0.924\]' "$tmp/p2.yaml" ||
  fail "45 degrees about x does not pack to [0.382, 0, 0, 0.924]: $(diff "$tmp/plain.yaml" "$tmp/p2.yaml")"

# 4. the same on a rot_f32 track (its type changed first, so its keys are floats)
sed '0,/type: rot_packed.*/s//type: rot_f32/' "$tmp/e.yaml" > "$tmp/f.yaml"
"$A" encode "$tmp/f.yaml" -o "$tmp/f.animation" 2>/dev/null || fail "encode rot_f32"
"$A" decode --euler "$tmp/f.animation" -o "$tmp/f1.yaml"
edit_one "$tmp/f1.yaml" "$tmp/f2.yaml" '0.5, 0.0, 0.0, 0.018, 1.0' '0.5, 0, 0, 90'
"$A" encode "$tmp/f2.yaml" -o "$tmp/f2.animation" || fail "encode a rot_f32 Euler key"
"$A" decode "$tmp/f.animation" > "$tmp/f1p.yaml" && "$A" decode "$tmp/f2.animation" > "$tmp/f2p.yaml"
d=$(diff "$tmp/f1p.yaml" "$tmp/f2p.yaml" | grep -c '^[<>]')
[ "$d" = 2 ] || fail "a rot_f32 Euler edit changed $d lines: $(diff "$tmp/f1p.yaml" "$tmp/f2p.yaml")"
grep -qx '        - \[0.5, 0.0, 0.0, 0.70710677, 0.70710677\]' "$tmp/f2p.yaml" ||
  fail "90 degrees about z is not [0, 0, 0.70710677, 0.70710677]: $(diff "$tmp/f1p.yaml" "$tmp/f2p.yaml")"

# 5. refusals: a 4-value rotation key without the header, another rotation order
sed '/^euler: xyz/d' "$tmp/p.yaml" > "$tmp/noh.yaml"
"$A" encode "$tmp/noh.yaml" -o "$tmp/x.animation" 2> "$tmp/err" && fail "a 4-value key without euler: xyz was taken"
grep -q 'rot_packed key is' "$tmp/err" || fail "message: $(cat "$tmp/err")"
sed 's/^euler: xyz/euler: zyx/' "$tmp/p.yaml" > "$tmp/zyx.yaml"
"$A" encode "$tmp/zyx.yaml" -o "$tmp/x.animation" 2> "$tmp/err" && fail "euler: zyx was taken"
grep -q 'only rotation order is xyz' "$tmp/err" || fail "message: $(cat "$tmp/err")"
echo "diesel euler: ${#bins[@]} files round-trip through --euler; Euler edits on rot_packed and rot_f32"
exit 0
