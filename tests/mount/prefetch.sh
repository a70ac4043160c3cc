#!/usr/bin/env bash
# Cold listings on every core (src/view/prefetch.c): a listing queues its folder's views
# for the worker threads. A stat during that prefetch gets the exact size of every view
# (a worker's render, a queued one taken over, or one waited for), the views rendered
# ahead or taken over are counted in the daemon's log (all of them), and an unmount while the workers are busy
# ends cleanly: the daemon exits 0 with no sanitizer report.
. "$(dirname "$0")/common.inc"
copy_samples
export ANIMFS_SIZE_CACHE=0 ANIMFS_PREFETCH=2 # no sizes from an earlier mount
mkdir "$GAME/many"
copies=10
# (the loops over the 29 samples start no process they can do without: ~8 ms each)
for bin in "$GAME"/*.animation; do
  b=${bin##*/} b=${b%.animation}
  dst=()
  for ((i = 1; i <= copies; i++)); do dst+=("$GAME/many/$b-$i.animation"); done
  tee "${dst[@]}" < "$bin" > /dev/null || fail "copies of $b" # one process, not ten cp
done
# the expected size of each view, from one decode per source file (kept for the
# comparison of the texts below)
declare -A want
mkdir "$T/expect"
for bin in "$GAME"/*.animation; do
  b=${bin##*/} b=${b%.animation}
  view_decode "$GAME/many/$b-1.animation" > "$T/expect/$b.yaml" || fail "decode $b"
  n=$(stat -c %s "$T/expect/$b.yaml")
  for ((i = 1; i <= copies; i++)); do want[$b-$i.animation.yaml]=$n; done
done
total=${#want[@]}

# 1. a names-only listing starts the workers; the stats that follow race them
mount_view_fg
ls -f "$VIEW/many" > /dev/null || fail "readdir"
seen=0
while read -r size name; do
  [ "${want[$name]:-}" = "$size" ] || fail "$name: size $size, decode says ${want[$name]:-nothing}"
  seen=$((seen + 1))
done < <(cd "$VIEW/many" && stat -c '%s %n' -- *.yaml)
[ $seen = "$total" ] || fail "$seen of $total views listed"
# the texts behind those sizes are the decoded ones (cached or rendered again)
for bin in "$GAME"/*.animation; do
  b=${bin##*/} b=${b%.animation}
  cmp -s "$T/expect/$b.yaml" "$VIEW/many/$b-$copies.animation.yaml" ||
    fail "$b-$copies.animation.yaml differs from decode"
done
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
line=$(grep 'prefetch: ' "$T/daemon.log") || fail "no prefetch summary in the log: $(cat "$T/daemon.log")"
ahead=$(sed -n 's/.*prefetch: \([0-9]*\) views rendered ahead, \([0-9]*\) taken by getattr.*/\1 \2/p' <<< "$line")
read -r r taken <<< "$ahead"
[ -n "${r:-}" ] && [ $((r + taken)) -ge "$total" ] ||
  fail "prefetch accounted for ${r:-?} + ${taken:-?} of $total views: $line"

# 2. unmount while the workers are at it (a fresh mount: no size is known)
mount_view_fg
ls -f "$VIEW/many" > /dev/null || fail "readdir"
ls -f "$VIEW" > /dev/null || fail "readdir of the root"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount during prefetch"
check_daemon
grep -q 'prefetch: .* left at unmount' "$T/daemon.log" || fail "no prefetch summary: $(cat "$T/daemon.log")"
mountpoint -q "$VIEW" && fail "still mounted"
echo "prefetch: $total views; $line; unmount: $(grep 'prefetch: ' "$T/daemon.log")"
exit 0
