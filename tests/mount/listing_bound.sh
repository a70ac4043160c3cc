# Issue 47: a container's tables within the one memory bound. A PKS of 1 M entries
# (tests/tools/shm_make_big.py, 20 MB; its member table, names and indexes take about
# 130 MiB) is listed through a mount under --cache-mb=16 (bound 80 MiB) and 200 (bound
# 264): under 16 it is refused before its tables are made (a line in .animfs/errors names
# what they would take and --cache-mb) and shown as its plain file, its bytes; under 200
# it lists its million members. The daemon's VmHWM stays within the bound both times
# (before: 181 MiB under --cache-mb=16, a documented exception).
. "$(dirname "$0")/common.inc"
[ "$PLAIN" != "$ANIMFS" ] || { echo "SKIP: the unsanitized build is not there (scripts/test makes it)"; exit 77; }
ANIMFS=$PLAIN
python3 "$(dirname "$0")/../tools/shm_make_big.py" pks 1000000 "$GAME/BIG.PKS" || fail "cannot make the PKS"
run() { # run CACHE_MB: LISTED set to the entries listed
  local cache_mb=$1 n hwm pid
  ANIMFS_SIZE_CACHE=0 mount_view_fg --cache-mb="$cache_mb"
  pid=$(cat "$VIEW/.animfs/pid")
  n=$(ls -f "$VIEW/BIG.PKS" 2>/dev/null | grep -vcx '\.\|\.\.\|index.yaml')
  if [ "$n" -lt 1000000 ]; then
    grep -q "BIG.PKS: its table of .* would take more than [0-9]* MiB.*--cache-mb=$cache_mb.*raise --cache-mb" \
      "$VIEW/.animfs/errors" || fail "--cache-mb=$cache_mb: $n listed, and no line in .animfs/errors"
    [ -f "$VIEW/BIG.PKS" ] || fail "--cache-mb=$cache_mb: refused, but not shown as its file"
    cmp -s "$VIEW/BIG.PKS" "$GAME/BIG.PKS" || fail "--cache-mb=$cache_mb: refused, and its bytes differ"
  fi
  hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
  "$EXPECT_ANIMFS" umount "$VIEW"
  check_daemon
  echo "--cache-mb=$cache_mb: $n members listed; daemon VmHWM $((hwm >> 10)) MiB (bound $((cache_mb + 64)))"
  [ "$hwm" -le $(((cache_mb + 64) << 10)) ] || fail "the daemon peaked at $((hwm >> 10)) MiB, over --cache-mb + 64 = $((cache_mb + 64)) MiB"
  LISTED=$n
}
run 16
[ "$LISTED" -lt 1000000 ] || fail "listed under --cache-mb=16: the tables passed the texts' share"
run 200
[ "$LISTED" -ge 1000000 ] || fail "not listed under --cache-mb=200"
echo "listing_bound: ok"
