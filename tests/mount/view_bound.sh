# Issue 28: a view is rendered within the memory bound. Under --cache-mb=1, where the
# render cache has next to nothing to lend, two Diesel files (no zlib) are listed and
# read as their plain binaries (byte for byte) and .animfs/errors names each, what it
# would take and --cache-mb:
#  - text.animation: 460 000 packed rotation keys, 3.7 MB whose model fits a render's
#    own 32 MiB but whose view is 19 MB of YAML, more than the 16 MiB of text one render
#    takes of its own: the render stops at its bound instead of holding the whole text;
#  - model.animation: 600 000 float position keys, zlib (level 6): a file of about 1 MB
#    whose 9.6 MB of data, once inflated, and the keys parsed from them (about 4x) are
#    more than a render's own: the codec asks (af_io.mem_room) and is refused before it
#    inflates them;
#  - raw.animation: the same keys without zlib, 9.6 MB whose model (about 8x the file)
#    is refused before the file is read.
# Mounted with the default --cache-mb both are their views, the texts `animfs decode`
# gives. Last, renders at once share the renders' pool, and so does a save beside them
# (below).
. "$(dirname "$0")/common.inc"
# the daemon too is the unsanitized build when scripts/test built one (tests/samples.inc):
# rendering 19 MB under ASan is most of a minute; the render paths are checked under
# ASan by the other mount tests
ANIMFS=$PLAIN
# the documents (their key lines by tests/tools/keys.awk: a million, too many for Python)
doc_head() { # doc_head FILE: the document's head, up to its object's position keys
  printf '%s\n' "format: diesel-animation" "length: 1.0" "binary:" "  layout: 32-bit" \
    "  container: raw" "objects:" "  - name: root_point" \
    "    position:" "      type: pos_f32" "      keys:" > "$1"
}
rot="    rotation:
      type: rot_packed
      keys:"
keys() { awk -f "${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}/tests/tools/keys.awk" "$@" || fail "cannot write the keys"; }
made() { # made WHAT OUT: a binary (text, raw, model: in GAME) or its decode (NAME.expect)
  case $1 in
    text) doc_head "$T/text.yaml"
      { echo "        - [0.0, 0.0, 0.0, 0.0]"; echo "$rot"; keys -v n=460000 -v kind=rot -v z0=0.017 -v z1=0.000; } >> "$T/text.yaml"
      "$EXPECT_ANIMFS" encode --cache-mb=1024 "$T/text.yaml" -o "$2" ;;
    raw) doc_head "$T/raw.yaml"
      { keys -v n=600000; echo "$rot"; echo "        - [0.0, 0.000, 0.000, 0.000, 1.000]"; } >> "$T/raw.yaml"
      "$EXPECT_ANIMFS" encode --cache-mb=1024 "$T/raw.yaml" -o "$2" ;;
    # raw's body in a zlib container (level 6), as `container: zlib` encodes it: the
    # deflate stream and the inflated size after it (a third document's encode saved)
    model) python3 -c 'import struct, sys, zlib; r = open(sys.argv[1], "rb").read(); open(sys.argv[2], "wb").write(zlib.compress(r, 6) + struct.pack("<I", len(r)))' \
      "$GAME/raw.animation" "$2" ;;
    mid) keys_doc "$T/mid.yaml" 300000 && "$EXPECT_ANIMFS" encode "$T/mid.yaml" -o "$2" ;;
    *.expect) "$EXPECT_ANIMFS" decode --schema-ref .animfs/schema "$GAME/${1%.expect}.animation" > "$2" ;;
  esac
}
# (what an earlier run of the same build made is kept: made_once, tests/samples.inc)
for f in text raw model; do
  made_once "$EXPECT_ANIMFS" "$GAME/$f.animation" made $f || fail "cannot make $f.animation"
  made_once "$EXPECT_ANIMFS" "$T/$f.expect" made $f.expect || fail "decode $f"
done
grep -q '^  container: zlib' "$T/model.expect" || fail "model.animation is not a zlib container"
size=$(stat -c %s "$T/text.expect")
[ "$size" -gt $((17 << 20)) ] || fail "text.animation's view is only $size bytes: the test needs 17 MiB"
[ "$(stat -c %s "$GAME/text.animation")" -lt $((4 << 20)) ] || fail "text.animation is over 4 MiB"

mount_view_fg --cache-mb=1
# A listing waits up to a second for the renders that say whether a claimed file
# decodes, then names the rest as views while their renders go on (src/view/nsnode.c):
# on a loaded machine text.animation's render (16 MiB of text before its bound) can
# take that second, and the files after it are named as views until their renders
# have said no. The test waits for the verdicts (a minute at most), the daemon does not.
want="model.animation raw.animation text.animation "
for i in $(seq 600); do
  names=$(ls "$VIEW" | tr '\n' ' ')
  [ "$names" = "$want" ] && break
  [ "$i" = 1 ] && echo "first listing under --cache-mb=1: $names (renders still going)"
  sleep 0.1
done
[ "$names" = "$want" ] || fail "listed as '$names', not as the plain binaries"
[ "$(stat -c %s "$GAME/model.animation")" -lt $((2 << 20)) ] || fail "model.animation is not small"
for f in text model raw; do
  cmp -s "$VIEW/$f.animation" "$GAME/$f.animation" || fail "$f.animation does not read back byte for byte"
  [ -e "$VIEW/$f.animation.yaml" ] && fail "$f's view exists under --cache-mb=1"
done
grep -q "text.animation: its view would be more than [0-9]* MiB of text, what one view may take under --cache-mb=1 .*raise --cache-mb" \
  "$VIEW/.animfs/errors" || fail "no line for text.animation in .animfs/errors: $(cat "$VIEW/.animfs/errors")"
for f in model raw; do
  grep -q "$f.animation: showing it would take about [0-9]* MiB (the file and the codec's model of it), more than one view may take under --cache-mb=1 .*raise --cache-mb" \
    "$VIEW/.animfs/errors" || fail "no line for $f.animation in .animfs/errors: $(cat "$VIEW/.animfs/errors")"
done
sed 's/^/under --cache-mb=1: /' "$VIEW/.animfs/errors"
peak=$(awk '/^VmHWM:/ {print $2}' "/proc/$DAEMON/status")
echo "daemon VmHWM under --cache-mb=1: $((peak / 1024)) MiB (bound 65 MiB)"
if [ "$ANIMFS" = "${ANIMFS_PLAIN:-}" ]; then # an unsanitized daemon: its peak means something
  [ "$peak" -le $((65 * 1024)) ] || fail "the daemon peaked at $((peak / 1024)) MiB, over the 65 MiB bound"
fi
fusermount3 -u "$VIEW"
check_daemon

mount_view_fg
for f in text model raw; do
  cmp -s "$VIEW/$f.animation.yaml" "$T/$f.expect" || fail "$f's view under the default --cache-mb is not the decode"
done
echo "under the default --cache-mb: the views, $size bytes of text.animation's"
fusermount3 -u "$VIEW"
check_daemon

# Renders at once share one pool: 8 files whose views (12 MB) and models (~19 MB) each
# fit what one render may take, listed cold by 8 prefetch workers under --cache-mb=16.
# With an allowance each the daemon peaked at 179 MiB (bound 80); every view is shown
# (a render refused while others held the pool is done again alone, no verdict).
rm -f "$GAME"/*.animation
made_once "$EXPECT_ANIMFS" "$GAME/m0.animation" made mid || fail "encode mid.yaml"
for i in 1 2 3 4 5 6 7; do cp "$GAME/m0.animation" "$GAME/m$i.animation"; done
made_once "$EXPECT_ANIMFS" "$T/mid.expect" made m0.expect || fail "decode mid"
ANIMFS_PREFETCH=8 ANIMFS_SIZE_CACHE=0 mount_view_fg --cache-mb=16
ls -l "$VIEW" > "$T/ls" || fail "ls -l"
for i in 0 1 2 3 4 5 6 7; do
  cmp -s "$VIEW/m$i.animation.yaml" "$T/mid.expect" || fail "m$i's view under --cache-mb=16 is not the decode: $(cat "$VIEW/.animfs/errors")"
done
peak=$(awk '/^VmHWM:/ {print $2}' "/proc/$DAEMON/status")
echo "8 views of $(stat -c %s "$T/mid.expect") bytes rendered by 8 workers under --cache-mb=16: daemon VmHWM $((peak / 1024)) MiB (bound 80 MiB)"
if [ "$ANIMFS" = "${ANIMFS_PLAIN:-}" ]; then
  [ "$peak" -le $((80 * 1024)) ] || fail "the daemon peaked at $((peak / 1024)) MiB, over the 80 MiB bound"
fi
fusermount3 -u "$VIEW"
check_daemon

# A save during those renders: its YAML tree (about 6x the 12 MB text) takes its share of
# the same pool and borrows the rest from the render cache while 8 workers render the
# other views cold, under --cache-mb=64 (bound 128 MiB; the save alone peaks at ~100).
# The edit lands, every other view is still its decode, and the daemon stays in bound.
sed 's/, 0\.5, /, 0.25, /' "$T/mid.expect" > "$T/mid.edit"
cmp -s "$T/mid.edit" "$T/mid.expect" && fail "the edit changed nothing"
ANIMFS_PREFETCH=8 ANIMFS_SIZE_CACHE=0 mount_view_fg --cache-mb=64
ls -l "$VIEW" > "$T/ls" &
lister=$!
cp "$T/mid.edit" "$VIEW/m7.animation.yaml" || fail "the save beside 8 renders was refused: $(cat "$VIEW/.animfs/errors")"
wait "$lister" || fail "ls -l beside the save"
for i in 0 1 2 3 4 5 6; do
  cmp -s "$VIEW/m$i.animation.yaml" "$T/mid.expect" || fail "m$i's view beside the save is not the decode"
done
cmp -s "$VIEW/m7.animation.yaml" "$T/mid.edit" || fail "m7's view after the save is not the edit"
peak=$(awk '/^VmHWM:/ {print $2}' "/proc/$DAEMON/status")
echo "a save of a 12 MB document beside 8 cold renders under --cache-mb=64: daemon VmHWM $((peak / 1024)) MiB (bound 128 MiB); $(tr '\n' ' ' < "$VIEW/.animfs/stats")"
if [ "$ANIMFS" = "${ANIMFS_PLAIN:-}" ]; then
  [ "$peak" -le $((128 * 1024)) ] || fail "the daemon peaked at $((peak / 1024)) MiB, over the 128 MiB bound"
fi
fusermount3 -u "$VIEW"
check_daemon
"$EXPECT_ANIMFS" decode --schema-ref .animfs/schema "$GAME/m7.animation" | cmp -s - "$T/mid.edit" ||
  fail "m7.animation does not decode to the edit"
echo "ok: view_bound"
