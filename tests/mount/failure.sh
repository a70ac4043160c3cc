# Failure paths: a bad document makes close() fail (EINVAL), leaves the binary byte
# for byte, and lands in .animfs/errors with its line and column; the view then shows
# the binary's text again. Mount refuses bad folders with clear reasons, and a stale
# mount (daemon killed) is reported with the command that clears it.
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
copy_samples
bin=$(pick_small)
v="$VIEW/$bin.yaml"
cp "$GAME/$bin" "$T/orig"
mount_view
cp "$v" "$T/view-before"
python3 - "$v" <<'PY' || fail "close did not report the bad document"
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
os.write(fd, b"# bad\nformat: diesel-animation\nlength: [1.0,\n")
try:
    os.close(fd)
except OSError as e:
    sys.exit(0 if e.errno == errno.EINVAL else 1)
sys.exit(1)
PY
cmp "$GAME/$bin" "$T/orig" || fail "backing file changed"
grep -q "$bin.yaml:[0-9]*:[0-9]*: " "$VIEW/.animfs/errors" || fail "no line:col in errors: $(cat "$VIEW/.animfs/errors")"
cmp -s "$v" "$T/view-before" || fail "the view does not show the binary's text again"
# a document with a wrong value: fsync reports it too (EIO: emacs ignores EINVAL from
# fsync), and so does the close after it (EINVAL)
python3 - "$v" <<'PY' || fail "fsync did not report the bad document"
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
os.write(fd, b"format: no-such-format\n")
try:
    os.fsync(fd)
except OSError as e:
    try:
        os.close(fd)
    except OSError as c:
        sys.exit(0 if e.errno == errno.EIO and c.errno == errno.EINVAL else 1)
sys.exit(1)
PY
cmp "$GAME/$bin" "$T/orig" || fail "backing file changed after fsync failure"
[ "$(wc -l < "$VIEW/.animfs/errors")" -ge 2 ] || fail "second failure not listed"
tail -1 "$VIEW/.animfs/errors" | grep -q "unknown format" || fail "newest error is not last"
# sed -i with a broken result: the rename fails, nothing reaches GAME
sed -i 's/^format:.*/format: [/' "$v" 2>/dev/null && fail "sed -i of a broken document succeeded"
cmp "$GAME/$bin" "$T/orig" || fail "backing file changed after a failed rename"
ls "$GAME" | grep -v '\.animation$' && fail "GAME gained a file"

# mount's checks
out=$("$ANIMFS" mount "$T/nope" "$T/v2" 2>&1) && fail "missing GAME accepted"
echo "$out" | grep -q "does not exist" || fail "missing GAME message: $out"
mkdir -p "$T/v2" && touch "$T/v2/x"
out=$("$ANIMFS" mount "$GAME" "$T/v2" 2>&1) && fail "non-empty VIEW accepted"
echo "$out" | grep -q "not empty" || fail "non-empty VIEW message: $out"
out=$("$ANIMFS" mount "$GAME" "$T/v2/x" 2>&1) && fail "file VIEW accepted"
echo "$out" | grep -q "not a folder\|not empty" || fail "file VIEW message: $out"
mkdir -p "$GAME/inner"
out=$("$ANIMFS" mount "$GAME" "$GAME/inner" 2>&1) && fail "VIEW inside GAME accepted"
echo "$out" | grep -q "inside GAME" || fail "nesting message: $out"
rmdir "$GAME/inner"
mkdir -p "$T/v3/g"
out=$("$ANIMFS" mount "$T/v3/g" "$T/v3" 2>&1) && fail "GAME inside VIEW accepted"
echo "$out" | grep -q "inside VIEW" || fail "GAME inside VIEW message: $out"
truncate -s 0 "$v" 2>/dev/null && fail "truncate of a view to nothing succeeded"
cmp "$GAME/$bin" "$T/orig" || fail "backing file changed after truncate"

# a stale mount: kill the daemon hard, then mount again
pid=$(cat "$VIEW/.animfs/pid")
kill -9 "$pid"
for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
out=$("$ANIMFS" mount "$GAME" "$VIEW" 2>&1) && fail "stale mount accepted"
echo "$out" | grep -q "fusermount3 -u" || fail "stale mount message: $out"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount of a stale mount"
stat "$VIEW" >/dev/null || fail "stale mount not cleared"
echo "ok: failure"
