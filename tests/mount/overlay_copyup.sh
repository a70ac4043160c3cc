# mount --overlay (issue 32): a GAME file opened for writing through the view is copied
# up to MODDIR by the kernel (copy_file_range), never through the daemon's memory: a
# 200 MiB file written in place lands in MODDIR with GAME's bytes and the write, GAME is
# unchanged, and the daemon's peak memory (VmHWM) stays under --cache-mb + 64 MiB.
# Opened with O_TRUNC, the copy holds only what was written. No samples needed.
. "$(dirname "$0")/common.inc"
MOD=$T/mod
mkdir -p "$MOD" "$GAME/data"
head -c $((200 << 20)) /dev/urandom > "$GAME/data/big.bin" || fail "make GAME's file"
printf 'hello\n' > "$GAME/data/plain.txt"
# (BLAKE2b: half sha256's CPU here; cmp skips and bounds by itself, no pipe of 200 MiB)
game_sum=$(cat "$GAME"/data/* | b2sum)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
mount_view_fg --overlay "$MOD" --cache-mb=16
printf 'ZZ' | dd of="$VIEW/data/big.bin" bs=1 seek=1000 conv=notrunc status=none || fail "write in place"
echo more >> "$VIEW/data/plain.txt" || fail "append"
hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$DAEMON/status")
echo fresh > "$VIEW/data/plain2.txt" || fail "a new file"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
[ "$(cat "$GAME"/data/* | b2sum)" = "$game_sum" ] || fail "GAME changed"
cmp -s -n 1000 "$GAME/data/big.bin" "$MOD/data/big.bin" &&
  cmp -s -i 1002 "$GAME/data/big.bin" "$MOD/data/big.bin" &&
  [ "$(dd if="$MOD/data/big.bin" bs=1 skip=1000 count=2 status=none)" = ZZ ] ||
  fail "MODDIR's copy is not GAME's bytes with the write"
[ "$(cat "$MOD/data/plain.txt")" = "$(printf 'hello\nmore')" ] || fail "the append: $(cat "$MOD/data/plain.txt")"
echo "daemon VmHWM ${hwm} kB after copying up 200 MiB (bound $(((16 + 64) * 1024)) kB)"
[ "$hwm" -lt $(((16 + 64) * 1024)) ] || fail "the copy-up went through the daemon's memory"
echo "ok: a GAME file written through the view is copied up by the kernel"
