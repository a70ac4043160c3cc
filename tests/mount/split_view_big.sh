# Issue 29, part 7 in the mount, on the largest sample (a 14.5 MB motion bank view,
# 1,342 files): under --split-over=1M it is a folder equal to `animfs decode --split`
# (diff -r, one folder down: the modelines' relative path), a small view stays one
# file; listing the folder, stat'ing and reading every part cut the rendered text once
# (the daemon's log says each cut); a sed -i of one part, and then rsync -a of the
# whole edited folder back, save the binary that `animfs encode` gives for the same
# edited folder. mount/split_view and mount/split_tools have the rest.
. "$(dirname "$0")/common.inc"
need_samples
big=$ANIMFS_SAMPLES/shenmue/dashgl_motion.bin
[ -f "$big" ] || { echo "SKIP: $big not found"; exit 77; }
small=$(ls -S "$ANIMFS_SAMPLES"/diesel/*.animation | tail -1)
mkdir "$GAME/sub"
cp "$big" "$GAME/sub/"
cp "$small" "$GAME/"
chmod -R u+w "$GAME"
# the daemon and the CLI unsanitized when scripts/test built them (tests/samples.inc): the
# 14.5 MB view rendered, cut and saved under ASan costs more than all of mount/split_view,
# which runs the same code under ASan on the examples
. "$(dirname "$0")/../samples.inc"
ANIMFS=$PLAIN
mount_view_fg --split-over=1M
d=$VIEW/sub/dashgl_motion.bin.yaml
s=$(basename "$small").yaml
[ -f "$VIEW/$s" ] || fail "$s (under 1M) is not one file"
[ -d "$d" ] || fail "the big view is not a folder: $(ls -la "$VIEW/sub")"
n=$(ls "$d" | wc -l)
ls -l "$d" > /dev/null || fail "ls -l"
cat "$d"/* | wc -c > "$T/bytes" || fail "reading every part"
cuts=$(grep -c 'dashgl_motion.bin: its view .* cut into' "$T/daemon.log")
[ "$cuts" = 1 ] || fail "listing and reading $n files cut the view $cuts times"
echo "$n files listed, stat'ed and read ($(cat "$T/bytes") bytes): the view cut once"
"$ANIMFS" decode --schema-ref ../../.animfs/schema "$GAME/sub/dashgl_motion.bin" --split "$T/ref.yaml" ||
  fail "decode --split"
diff -r "$T/ref.yaml" "$d" > "$T/diff" || fail "the folder differs from decode --split: $(head "$T/diff")"
echo "equal to decode --split (diff -r)"
part=$(ls "$d" | grep '^blocks-' | sed -n 3p)
line=$(grep -n '^          - \[[0-9]*, [0-9]*, [-0-9.]*, [-0-9.]*\]$' "$d/$part" | head -1 | cut -d: -f1)
[ -n "$line" ] || fail "no key to edit in $part"
edit="${line}s/, \([-0-9.]*\)\]\$/, 0.125]/"
sed -i "$edit" "$d/$part" || fail "sed -i of $part"
sed -i "$edit" "$T/ref.yaml/$part"
"$ANIMFS" encode "$T/ref.yaml" -o "$T/ed.bin" || fail "encode of the edited folder"
cmp -s "$T/ed.bin" "$GAME/sub/dashgl_motion.bin" || fail "the saved binary is not encode DIR's"
cmp -s "$big" "$GAME/sub/dashgl_motion.bin" && fail "the edit did not land"
echo "sed -i of $part: the binary is encode DIR's"
# the edited folder copied back whole by rsync (a temp file beside each part, renamed onto
# it): one more part changed, every file sent (times unlike the view's); the binary is
# encode's of the folder, and each of the other parts is saved with the text it has
part=$(ls "$d" | grep '^blocks-' | sed -n 5p)
line=$(grep -n '^          - \[[0-9]*, [0-9]*, [-0-9.]*, [-0-9.]*\]$' "$d/$part" | head -1 | cut -d: -f1)
sed -i "${line}s/, \([-0-9.]*\)\]\$/, 0.25]/" "$T/ref.yaml/$part"
touch -d 2001-02-03 "$T/ref.yaml"/*
cp "$GAME/sub/dashgl_motion.bin" "$T/before.bin"
start=$(date +%s%N)
rsync -a "$T/ref.yaml/" "$d/" || fail "rsync -a of the edited folder: exit $?"
took=$((($(date +%s%N) - start) / 1000000))
"$ANIMFS" encode "$T/ref.yaml" -o "$T/ed.bin" || fail "encode of the edited folder"
cmp -s "$T/ed.bin" "$GAME/sub/dashgl_motion.bin" || fail "rsync: the binary is not encode DIR's"
cmp -s "$T/before.bin" "$GAME/sub/dashgl_motion.bin" && fail "rsync: the edit did not land"
[ "$(ls -A "$d" | wc -l)" = "$n" ] || fail "rsync left files in the folder: $(ls -A "$d" | grep -v '^blocks-\|^index\|^entries\|^extras')"
echo "rsync -a of all $n files with $part changed: the binary is encode DIR's (${took} ms)"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
# Memory: the cuts kept are bounded in bytes (32 MiB), not only in number: reading four
# such folders under --cache-mb=96 peaks no more than 40 MiB above reading one (four cuts
# of 29 MB each were kept before), besides the three more rendered texts (14.5 MB each) the
# larger render cache keeps. Cutting one peaks far above the 29 MB it keeps: the
# cut parses the view into a tree of about 6 times its text, as a save of the whole view
# does (docs/hardening.md); under --cache-mb=16 that tree does not fit the bound and the
# view is not cut (mount/tree_bound). Measured on the unsanitized daemon only.
for k in 1 2 3; do cp "$big" "$GAME/sub/bank$k.bin"; done
mount_view_fg --split-over=1M --cache-mb=96
hwm() { awk '/^VmHWM:/ {print $2}' "/proc/$DAEMON/status"; }
cat "$VIEW/sub/dashgl_motion.bin.yaml"/* > /dev/null || fail "reading the parts"
one=$(hwm)
for b in bank1 bank2 bank3 dashgl_motion; do
  cat "$VIEW/sub/$b.bin.yaml"/* > /dev/null || fail "reading the parts of $b"
done
four=$(hwm)
echo "split motion banks read under --cache-mb=96: daemon VmHWM $one kB after one, $four kB after four"
if [ "$ANIMFS" = "${ANIMFS_PLAIN:-}" ]; then
  texts=$((3 * $(cat "$T/bytes") / 1024)) # kB: the parts' bytes are about the text's
  [ $((four - one)) -le $((40 * 1024 + texts)) ] ||
    fail "four cuts peak $(((four - one) / 1024)) MiB above one (texts: $((texts / 1024)) MiB)"
else
  echo "(a sanitized daemon: not checked)"
fi
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "PASS"
