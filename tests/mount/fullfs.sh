# A save on a full file system: GAME is a small tmpfs, filled to the last block
# (through the mount and with `animfs encode -o`).
# The save fails with an error the writer sees (close), the binary keeps its bytes,
# no temporary file is left, the error names the cause; with room again it saves.
# Needs root (mount -t tmpfs); the tmpfs is always unmounted on exit.
. "$(dirname "$0")/common.inc"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to mount a tmpfs"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
cleanup_all() {
  if mountpoint -q "$VIEW" 2>/dev/null || ! stat "$VIEW" >/dev/null 2>&1; then
    "$EXPECT_ANIMFS" umount "$VIEW" 2>/dev/null || fusermount3 -uz "$VIEW" 2>/dev/null
  fi
  mountpoint -q "$GAME" && { umount "$GAME" 2>/dev/null || umount -l "$GAME"; }
  cleanup
}
trap cleanup_all EXIT
trap 'exit 143' TERM INT HUP   # a ctest timeout still unmounts (the EXIT trap runs)
mount -t tmpfs -o size=256k,mode=0755 animfs-test-full "$GAME" ||
  { echo "SKIP: cannot mount a tmpfs here"; exit 77; }
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/walk.animation" || fail "encode"
cp "$GAME/walk.animation" "$T/orig"
# fill every block (and then the inode-free remainder of the last page)
dd if=/dev/zero of="$GAME/filler" bs=4k 2>/dev/null && fail "the tmpfs did not fill"
dd if=/dev/zero of="$GAME/filler2" bs=1 count=4096 2>/dev/null
v="$VIEW/walk.animation.yaml"
mount_view_fg
sed 's/^length: *[^ #]*/length: 3.75/' "$v" > "$T/new.yaml"
python3 - "$v" "$T/new.yaml" <<'PY' || fail "close did not report the full disk"
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
os.write(fd, open(sys.argv[2], "rb").read())
try:
    os.close(fd)
except OSError as e:
    sys.exit(0 if e.errno in (errno.EIO, errno.ENOSPC) else 1)
sys.exit(1)
PY
cmp -s "$GAME/walk.animation" "$T/orig" || fail "the binary changed on a full disk"
ls -A "$GAME" | grep -q '^\.animfs-tmp-' && fail "a temporary file was left: $(ls -A "$GAME")"
grep -q "walk.animation.yaml: .*No space left on device" "$VIEW/.animfs/errors" ||
  fail "the error does not name the cause: $(cat "$VIEW/.animfs/errors")"
cmp -s "$v" <(view_decode "$GAME/walk.animation") || fail "the view does not show the binary again"
# the command line on the same full disk: refused, nothing left behind
out=$("$ANIMFS" encode "$T/new.yaml" -o "$GAME/walk.animation" 2>&1) && fail "encode onto a full disk succeeded"
echo "$out" | grep -q "No space left on device" || fail "encode on a full disk: $out"
cmp -s "$GAME/walk.animation" "$T/orig" || fail "encode changed the binary on a full disk"
ls -A "$GAME" | grep -q '^\.animfs-tmp-' && fail "encode left a temporary file"
# room again: the same save goes through
rm -f "$GAME/filler" "$GAME/filler2"
cat "$T/new.yaml" > "$v" || fail "save with room"
[ "$(length_of "$GAME/walk.animation")" = 3.75 ] || fail "save with room did not arrive"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "fullfs: ok"
