# A GAME that is mounted already is refused (issue 29), by any spelling of its path,
# with the mount point named and exit 1, and nothing is mounted on the second VIEW
# (a VIEW's own problems, as a mount already on it, are said first);
# once unmounted it mounts again. Paths with spaces (escaped in /proc/self/mountinfo).
. "$(dirname "$0")/common.inc"
copy_samples
V2="$T/second view"
G2="$T/a game"
V3="$T/a view"
mkdir "$V2" "$G2" "$V3"
cp "$GAME"/*.animation "$G2"/
ln -s "$GAME" "$T/link"
# the other mounts of this test are unmounted whatever happens, then common.inc's
more_cleanup() {
  for v in "$V2" "$V3"; do
    mountpoint -q "$v" 2>/dev/null && { "$ANIMFS" umount "$v" || fusermount3 -uz "$v"; } 2>/dev/null
  done
  cleanup
}
trap more_cleanup EXIT
refused() { # refused GAME VIEW MOUNTED_ON
  local out rc
  out=$(TMPDIR="$T" "$ANIMFS" mount "$1" "$2" 2>&1); rc=$?
  [ $rc = 1 ] || fail "mount $1 $2: exit $rc, wanted 1: $out"
  [[ $out == *"animfs mount: $1 is already mounted on $3"* ]] || fail "mount $1 $2 says: $out"
  ! mountpoint -q "$2" || fail "$2 was mounted all the same"
  return 0
}
mount_view
view=$(realpath "$VIEW")
refused "$GAME" "$V2" "$view"
refused "$T/link" "$V2" "$view"
refused "$T/./game/" "$V2" "$view"
# onto its own VIEW: that VIEW is not empty, which is said first
out=$(TMPDIR="$T" "$ANIMFS" mount "$GAME" "$VIEW" 2>&1) && fail "mounted twice on one VIEW"
[[ $out == *"an animfs mount is there"* ]] || fail "same VIEW says: $out"
TMPDIR="$T" "$ANIMFS" mount "$G2" "$V3" || fail "mount of another GAME"
refused "$G2" "$V2" "$(realpath "$V3")"
"$ANIMFS" umount "$V3" || fail "umount $V3"
"$ANIMFS" umount "$VIEW" || fail "umount"
TMPDIR="$T" "$ANIMFS" mount "$GAME" "$V2" || fail "GAME does not mount again once unmounted"
ls "$V2" | grep -q '\.animation\.yaml$' || fail "no views on the new mount"
"$ANIMFS" umount "$V2" || fail "umount $V2"
echo "twice: passed"
