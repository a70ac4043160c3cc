# Issue 47: what a container holds beyond its own tables asks the one memory bound too.
#  - An archive nested in another (tests/tools/shm_make_big.py nest: an AFS holding a PKS
#    of 1 M entries, 20 MB whose tables take about 130 MiB): its bytes and its tables are
#    lent from the texts' share as the outer one's are. Under --cache-mb=16 (bound 80
#    MiB) the nested PKS is refused before it is read (shown as its raw member, its bytes,
#    with a line in .animfs/errors naming what it would take and --cache-mb); under 200
#    (bound 264) its million members are listed.
#  - A Shenmue HD TAD whose TAC beside it is 100 MiB (shm_make_big.py tad): the TAC is
#    read whole, so its room is asked before it is read. Under --cache-mb=16 the TAD is
#    refused and shown as its plain file, with its line; under 200 it lists its members.
# The daemon's VmHWM stays within the bound every time. Before: under --cache-mb=16 the
# nested PKS was listed at 170 MiB and the TAD at 216.
. "$(dirname "$0")/common.inc"
[ "$PLAIN" != "$ANIMFS" ] || { echo "SKIP: the unsanitized build is not there (scripts/test makes it)"; exit 77; }
ANIMFS=$PLAIN
make_big=$(dirname "$0")/../tools/shm_make_big.py
python3 "$make_big" nest 1000000 "$GAME/N.AFS" || fail "cannot make the AFS"
python3 "$make_big" tad 100 "$GAME/BIG" || fail "cannot make the TAD and its TAC"
mkdir -p "$T/nest" "$T/tad"
mv "$GAME/N.AFS" "$T/nest/"
mv "$GAME/BIG.tad" "$GAME/BIG.tac" "$T/tad/"
nested() { # nested CACHE_MB: NESTED set to the nested PKS's members listed
  local cache_mb=$1
  MOUNT_GAME=$T/nest ANIMFS_SIZE_CACHE=0 mount_view_fg --cache-mb="$cache_mb"
  local pid; pid=$(cat "$VIEW/.animfs/pid")
  NESTED=$(ls -f "$VIEW/N.AFS/BIG.PKS" 2>/dev/null | grep -vcx '\.\|\.\.\|index.yaml')
  if [ "$NESTED" -lt 1000000 ]; then
    grep -q "N.AFS: .*BIG.PKS.* would take more than [0-9]* MiB.*--cache-mb=$cache_mb.*raise --cache-mb" \
      "$VIEW/.animfs/errors" || fail "--cache-mb=$cache_mb: $NESTED nested members listed, and no line: $(cat "$VIEW/.animfs/errors")"
    [ -f "$VIEW/N.AFS/BIG.PKS" ] || fail "--cache-mb=$cache_mb: the nested PKS refused, but not shown as its bytes"
    [ "$(stat -c %s "$VIEW/N.AFS/BIG.PKS")" -gt $((19 << 20)) ] || fail "the nested PKS is not its bytes"
  fi
  bound_check "$pid" "$cache_mb" "$NESTED members of the nested PKS listed"
}
tad() { # tad CACHE_MB: TAD set to the TAD's members listed
  local cache_mb=$1
  MOUNT_GAME=$T/tad ANIMFS_SIZE_CACHE=0 mount_view_fg --cache-mb="$cache_mb"
  local pid; pid=$(cat "$VIEW/.animfs/pid")
  TAD=$(ls -f "$VIEW/BIG.tad" 2>/dev/null | grep -vcx '\.\|\.\.\|index.yaml')
  if [ "$TAD" -lt 3 ]; then
    grep -q "BIG.tad: .*would take more than [0-9]* MiB.*--cache-mb=$cache_mb.*raise --cache-mb" \
      "$VIEW/.animfs/errors" || fail "--cache-mb=$cache_mb: the TAD not listed, and no line: $(cat "$VIEW/.animfs/errors")"
    cmp -s "$VIEW/BIG.tad" "$T/tad/BIG.tad" || fail "--cache-mb=$cache_mb: the TAD refused, but not shown as its file"
  fi
  bound_check "$pid" "$cache_mb" "$TAD members of the TAD listed"
}
nested 16
[ "$NESTED" -lt 1000000 ] || fail "the nested PKS listed under --cache-mb=16: its tables passed the texts' share"
nested 200
[ "$NESTED" -ge 1000000 ] || fail "the nested PKS not listed under --cache-mb=200"
tad 16
[ "$TAD" -lt 3 ] || fail "the TAD listed under --cache-mb=16: its TAC passed the texts' share"
tad 200
[ "$TAD" -ge 3 ] || fail "the TAD not listed under --cache-mb=200"
echo "nested_bound: ok"
