#!/usr/bin/env bash
# Each view rendered once per pass (issue 28): under a --cache-mb smaller than the
# folder's YAML, `ls -lR` (which renders every view for its size) and then `cat` of
# every view render each view once (the texts that left the cache are read back from
# the spill file), a second pass renders none, and what is read is the decode byte for
# byte, of the size the listing gave. The daemon's counters (.animfs/stats, not listed)
# say how many renders ran. With --spill-mb=0 the same pass renders more than once a
# view (what the counter would show if the spill file were not read).
. "$(dirname "$0")/common.inc"
copy_samples
export ANIMFS_SIZE_CACHE=0 ANIMFS_PREFETCH=2 # no sizes from an earlier mount
big=$(ls -S "$GAME"/*.animation | head -1)
mkdir "$GAME/many"
copies=8
for i in $(seq $copies); do cp "$big" "$GAME/many/v$i.animation"; done
want=$(view_decode "$GAME/many/v1.animation" | md5sum) || fail "decode"
ysize=$(view_decode "$GAME/many/v1.animation" | wc -c)
# the cache holds fewer than half of the texts
cache_mb=$(( (copies * ysize / 3 + 1048575) / 1048576 ))
[ $((cache_mb * 1048576)) -lt $((copies * ysize / 2)) ] || cache_mb=1
stat_of() { sed -n "s/^$1 //p" "$VIEW/.animfs/stats"; }

# pass 1: a cold listing with sizes, then every view read
mount_view_fg --cache-mb=$cache_mb
ls -A "$VIEW/.animfs" | grep -qx stats && fail ".animfs/stats is listed"
r0=$(stat_of renders)
ls -lR "$VIEW/many" > "$T/listing" || fail "ls -lR"
r1=$(stat_of renders)
[ $((r1 - r0)) = $copies ] || fail "the listing rendered $((r1 - r0)) of $copies views"
for i in $(seq $copies); do
  v=$VIEW/many/v$i.animation.yaml
  got=$(md5sum < "$v") || fail "read v$i"
  [ "$got" = "$want" ] || fail "v$i.animation.yaml differs from a fresh decode"
  s=$(stat -c %s "$v")
  [ "$s" = "$ysize" ] || fail "v$i: st_size $s, $ysize bytes read"
  grep -q " $ysize .* v$i.animation.yaml\$" "$T/listing" || fail "v$i: the listing's size is not $ysize"
done
r2=$(stat_of renders)
[ $((r2 - r0)) = $copies ] || fail "listing + read rendered $((r2 - r0)) times for $copies views"
reads=$(stat_of spill_reads)
[ "$reads" -gt 0 ] || fail "nothing read back from the spill file: $(cat "$VIEW/.animfs/stats")"
held=$(stat_of text_bytes)
[ "$held" -le $((cache_mb * 1048576)) ] || fail "$held bytes of text held, over --cache-mb=$cache_mb"
# pass 2: nothing rendered again, the same bytes
cat "$VIEW"/many/*.yaml | md5sum > "$T/pass2"
r3=$(stat_of renders)
[ "$r3" = "$r2" ] || fail "a second pass rendered $((r3 - r2)) views"
for i in $(seq $copies); do view_decode "$GAME/many/v$i.animation"; done | md5sum | cmp -s - "$T/pass2" ||
  fail "the second pass differs from the decodes"
echo "pass: $(tr '\n' ' ' < "$VIEW/.animfs/stats")"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon

# the counter counts: without the spill file the read renders again what was evicted
mount_view_fg --cache-mb=$cache_mb --spill-mb=0
ls -lR "$VIEW/many" > /dev/null || fail "ls -lR"
cat "$VIEW"/many/*.yaml > /dev/null || fail "cat"
r=$(stat_of renders)
[ "$r" -gt $copies ] || fail "without spilling, listing + read rendered $r times for $copies views"
[ "$(stat_of spill_writes)" = 0 ] || fail "--spill-mb=0 spilled"
echo "no spill: $(tr '\n' ' ' < "$VIEW/.animfs/stats")"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
exit 0
