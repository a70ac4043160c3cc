# Open descriptors across saves and removals: `tail -f` keeps following a view that
# `sed -i` replaces (no "Stale file handle"), `tail -F` shows the saved text; a failed
# replace while a reader holds the file leaves it whole, and `rm` of an open view or
# file removes it (from the view at once, from GAME at the last close).
. "$(dirname "$0")/common.inc"
copy_samples
bin=$(pick_small)
v="$VIEW/$bin.yaml"
mount_view_fg

tail -f "$v" > "$T/f.out" 2> "$T/f.err" & tf=$!
tail -F -s 0.2 "$v" > "$T/F.out" 2> "$T/F.err" & tF=$!
sleep 0.5
sed -i 's/^length: *[^ ]*/length: 31.5/' "$v" || fail "sed -i while tail follows"
[ "$(length_of "$GAME/$bin")" = 31.5 ] || fail "the save did not land"
for _ in $(seq 50); do grep -q '^length: 31.5' "$T/F.out" && break; sleep 0.1; done
sleep 1.5
kill -0 $tf 2>/dev/null || fail "tail -f died: $(cat "$T/f.err")"
grep -qi stale "$T/f.err" "$T/F.err" && fail "stale file handle: $(cat "$T/f.err" "$T/F.err")"
grep -q '^length: 31.5' "$T/F.out" || fail "tail -F does not show the saved text: $(cat "$T/F.err")"
kill $tf $tF; wait $tf $tF 2>/dev/null
echo "ok: tail -f and tail -F across sed -i"

# a replace that fails while a reader holds the file: the view and binary stay
cp "$GAME/$bin" "$T/saved.bin"
exec 3< "$v"
sed -i 's/^length: *[^ ]*/length: oops/' "$v" 2>/dev/null && fail "a bad sed -i was saved"
exec 3<&-
sleep 0.3
cmp -s "$GAME/$bin" "$T/saved.bin" || fail "a failed replace of an open view changed or removed the binary"
[ -f "$v" ] || fail "the view is gone after a failed replace"
echo "ok: a failed replace of an open view"

# rm of an open view and of an open plain file
cp "$GAME/$bin" "$GAME/gone.animation"
echo plain > "$GAME/gone.txt"
exec 3< "$VIEW/gone.animation.yaml" 4< "$VIEW/gone.txt"
rm "$VIEW/gone.animation.yaml" "$VIEW/gone.txt" || fail "rm of open files"
ls "$VIEW" | grep -q '^gone' && fail "removed open files are still listed"
head -c 10 <&3 > /dev/null || fail "the open view cannot be read after rm"
[ "$(cat <&4)" = plain ] || fail "the open file cannot be read after rm"
exec 3<&- 4<&-
sleep 0.3
[ -e "$GAME/gone.animation" ] && fail "rm of an open view kept the binary after the last close"
[ -e "$GAME/gone.txt" ] && fail "rm of an open file kept it after the last close"
ls -A "$GAME" | grep -q fuse_hidden && fail ".fuse_hidden names reached GAME"
echo "ok: rm of open files"

# a dropping removed while open and made again at once (vim's swap file) is the new one
python3 - "$VIEW/.$bin.yaml.swp" <<'PY' || fail "a dropping removed while open cannot be made again"
import os, sys, time
p = sys.argv[1]
old = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
os.write(old, b"old")
os.unlink(p)
new = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # EEXIST would be the bug
os.write(new, b"new")
os.close(old)
os.close(new)
time.sleep(0.3)  # the old one's last close has been handled
sys.exit(0 if open(p, "rb").read() == b"new" else "the new dropping is gone or wrong")
PY
rm "$VIEW/.$bin.yaml.swp"
echo "ok: a dropping removed while open, made again"

"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: follow"
