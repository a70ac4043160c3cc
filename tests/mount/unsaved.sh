# --unsaved-mb bounds the unsaved text that all views open for writing hold
# together: with a 4 MiB budget, two writers holding 3.5 MiB leave no room for a
# third 1 MiB write (ENOMEM), and closing one (its garbage refused at close, the
# binary untouched) gives the room back. No samples needed.
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
for i in 1 2 3; do
  "$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/w$i.animation" || fail "encode"
done
cp "$GAME/w1.animation" "$T/orig"
mount_view_fg --unsaved-mb=4
python3 - "$VIEW" <<'PY' || fail "the unsaved-text budget"
import errno, os, sys, time
v = sys.argv[1]
fds = [os.open(os.path.join(v, "w%d.animation.yaml" % i), os.O_WRONLY | os.O_TRUNC) for i in (1, 2, 3)]
os.pwrite(fds[0], b"x", 2 << 20)          # 2 MiB + 1
os.pwrite(fds[1], b"y" * 1024, (3 << 19)) # 1.5 MiB + 1 KiB
try:
    os.pwrite(fds[2], b"z", 1 << 20)
    sys.exit("a write past the budget was accepted")
except OSError as e:
    if e.errno != errno.ENOMEM:
        sys.exit("a write past the budget gave %s" % e)
try:
    os.close(fds[0])                      # not a document: refused, its room given back
    sys.exit("closing a view of garbage succeeded")
except OSError as e:
    if e.errno != errno.EINVAL:
        sys.exit("closing a view of garbage gave %s" % e)
# fits now; the room comes back at FUSE's RELEASE, which the kernel sends
# after close() has returned (asynchronously), so give it a moment
for tries in range(100):
    try:
        os.pwrite(fds[2], b"z", 1 << 20)
        break
    except OSError as e:
        if e.errno != errno.ENOMEM or tries == 99:
            raise
        time.sleep(0.05)
for fd in fds[1:]:
    try:
        os.close(fd)
    except OSError:
        pass
PY
for i in 1 2 3; do cmp -s "$GAME/w$i.animation" "$T/orig" || fail "w$i.animation changed"; done
grep -q "unsaved-mb=4 MiB" "$T/daemon.log" || fail "the refusal is not in the daemon's log"
"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "unsaved: ok"
