# A typed value the format stores as its nearest step is said (issue 46): a save through
# the mount that types -1.27 cm into a pos_u16 track lands, .animfs/errors gets
# `file:line:col: note: -1.27 stored as -1.28 (pos_u16 step 0.0305 cm)` at the value,
# `animfs errors` lists it, the next read shows -1.28, and `animfs encode` prints the same
# note on stderr. A value the step holds exactly (97.5) is no news; a later save with no
# such value takes the note away.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/walk.animation" || fail "encode"
mount_view_fg
v=$VIEW/walk.animation.yaml
key='^        - \[0.25, 0.0, 0.0, 97.5\]'
grep -q "$key" "$v" || fail "the example has no pos_u16 key [0.25, 0.0, 0.0, 97.5]"
line=$(grep -n "$key" "$v" | head -1 | cut -d: -f1)
sed "${line}s/0.0, 0.0, 97.5/0.0, -1.27, 97.5/" "$v" > "$T/typed.yaml"
col=$(sed -n "${line}p" "$T/typed.yaml" | awk '{ print index($0, "-1.27") }')
cat "$T/typed.yaml" > "$v" || fail "the save was refused: $(cat "$VIEW/.animfs/errors")"
cat "$VIEW/.animfs/errors"
grep -q " walk.animation.yaml:$line:$col: note: -1.27 stored as -1.28 (pos_u16 step 0.0305 cm)$" \
  "$VIEW/.animfs/errors" || fail "no note at $line:$col: $(cat "$VIEW/.animfs/errors")"
[ "$(grep -c note "$VIEW/.animfs/errors")" = 1 ] || fail "more than one note"
"$ANIMFS" errors "$VIEW" | grep -q "^$v:$line:$col: note: -1.27 stored as -1.28" ||
  fail "animfs errors does not list the note: $("$ANIMFS" errors "$VIEW")"
sed -n "${line}p" "$v" | grep -q '\[0.25, 0.0, -1.28, 97.5\]' ||
  fail "the next read shows $(sed -n "${line}p" "$v"), not the stored -1.28"
# a save of what the view shows says nothing, and takes the note away
cp "$v" "$T/shown.yaml" && cat "$T/shown.yaml" > "$v" || fail "saving the view back"
grep -q note "$VIEW/.animfs/errors" && fail "the note stays after a save without one"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
# the command line says the same on stderr, and writes the file
"$ANIMFS" encode "$T/typed.yaml" -o "$T/out.animation" 2> "$T/enc.err" || fail "encode: $(cat "$T/enc.err")"
cat "$T/enc.err"
grep -q "typed.yaml:$line:$col: note: -1.27 stored as -1.28 (pos_u16 step 0.0305 cm)" "$T/enc.err" ||
  fail "encode did not print the note: $(cat "$T/enc.err")"
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$T/plain.animation" 2> "$T/plain.err" &&
  ! grep -q note "$T/plain.err" || fail "encode of values the steps hold printed: $(cat "$T/plain.err")"
echo "ok: a value stored as its nearest step is said"
