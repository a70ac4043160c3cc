# Real sizes (issue 28) through the mount, synthetic files only: under --cache-mb=16
# a 1 GiB gzip bomb (1 MB, tests/tools/shm_make_big.py) in GAME is listed and read as
# the plain file it is, the daemon's log names it and the limit; a gzip'd PKS at the
# limit's size class (8 MiB of noise: compressed as large) is a folder whose member reads back; and
# the daemon's peak memory (VmHWM) stays under --cache-mb + 64 MiB through all that
# (ASan's quarantine of freed blocks turned off: it would hold them past the bound).
# Then a PKS of 100 000 entries lists within a generous time bound while another file
# of the mount is read, each name once, every 10th name looked up, within the same
# bound (the unsanitized daemon: ~52 MB; 77 MB when each member kept 500 bytes), under
# --cache-mb=32: its tables (17 MiB: ~175 bytes a member) borrow the texts' share, and
# --cache-mb=16 lends too little (issue 47: refused, mount/listing_bound).
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
MAKE="python3 $(dirname "$0")/../tools/shm_make_big.py"
cache_mb=16
bound_kb=$(((cache_mb + 64) * 1024))
$MAKE bomb 1024 "$GAME/bomb.GZ" || fail "cannot build the bomb"
cp "$GAME/bomb.GZ" "$GAME/BOMB.PKS" # the same bytes where a PKS is expected
$MAKE pks 100000 "$GAME/BIG.PKS" || fail "cannot build the PKS"
python3 - "$T/fat.PKS" <<'PY'
import random, struct, sys
random.seed(1)
size = (8 << 20) - 16 - 16 - 20 - 64  # the inflated PKS just under 8 MiB
block = bytes(random.getrandbits(8) for _ in range(1 << 16))
body = block * (size >> 16) + block[:size & 0xFFFF]
pad = bytes((-len(body)) % 32)
d = 16 + len(body) + len(pad)
ipac = b'IPAC' + struct.pack('<III', d, 1, d) + body + pad + struct.pack('<8s4sII', b'NOISE', b'BIN ', 16, len(body))
open(sys.argv[1], 'wb').write(b'PAKS' + struct.pack('<III', 16, 0, 1) + ipac)
PY
gzip -1 -c "$T/fat.PKS" > "$GAME/FAT.PKS" && python3 "$(dirname "$0")/../tools/shm_reader.py" extract "$T/fat.PKS/NOISE.BIN" "$T/noise" ||
  fail "cannot build the 8 MiB layer"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
hwm() { awk '/^VmHWM:/ {print $2}' "/proc/$DAEMON/status"; }
mount_view_fg --cache-mb=$cache_mb
base=$(hwm)

# the bombs: plain files, their bytes, the reason logged with the file and the limit
for f in bomb.GZ BOMB.PKS; do
  [ -f "$VIEW/$f" ] && [ ! -d "$VIEW/$f" ] || fail "$f: not shown as a plain file: $(ls -la "$VIEW")"
  ls -la "$VIEW/$f/" >/dev/null 2>&1 && fail "$f: listed as a folder"
  cmp -s "$VIEW/$f" "$GAME/$f" || fail "$f: reading it does not give its bytes"
  cat "$VIEW/$f/index.yaml" >/dev/null 2>&1 && fail "$f: has an index.yaml"
  grep -F "$f" "$T/daemon.log" | grep -qF "inflates past 48 MiB, the most one gzip layer may hold (AF_MAX_LAYER)" ||
    fail "$f: the daemon's log does not name it and the limit: $(cat "$T/daemon.log")"
done
ls -la "$VIEW" >/dev/null
[ -d "$VIEW/FAT.PKS" ] || fail "the 8 MiB layer is not a folder: $(grep FAT.PKS "$T/daemon.log")"
cmp -s "$VIEW/FAT.PKS/NOISE.BIN" "$T/noise" || fail "the 8 MiB layer's member does not read back"
grep -q '^  - format: gzip$' "$VIEW/FAT.PKS/index.yaml" || fail "FAT.PKS: no gzip layer in index.yaml"
peak=$(hwm)
echo "daemon VmHWM: ${base} kB after mounting, ${peak} kB after the bombs and the 8 MiB layer (bound ${bound_kb} kB)"
[ "$peak" -le "$bound_kb" ] || fail "the daemon peaked at $peak kB > --cache-mb + 64 MiB = $bound_kb kB"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon

# the 100 000 lookups by the unsanitized daemon when scripts/test built one
# (tests/samples.inc): under ASan they cost more than the rest of the test, and the
# container tests run the same lookups under ASan on small archives
. "$(dirname "$0")/../samples.inc"
ANIMFS=$PLAIN
cache_mb=32 # the tables' 17 MiB come from the texts' share (mount/listing_bound)
bound_kb=$(((cache_mb + 64) * 1024))
mount_view_fg --cache-mb=$cache_mb

# 100 000 entries: listed within the time bound while another file of the mount is read
# over and over, each name once; every 10th looked up (a stat each, one process)
printf 'another file\n' > "$GAME/other.txt"
start=$(date +%s)
( for _ in $(seq 100); do cmp -s "$VIEW/other.txt" "$GAME/other.txt" || exit 1; done ) &
reader=$!
timeout 120 ls -f "$VIEW/BIG.PKS" > "$T/ls" || fail "ls of 100 000 entries: exit $? (124: over 120 s)"
wait "$reader" || fail "reading another file of the mount failed during the listing"
n=$(grep -c '^E00\|^e00\|^DUP' "$T/ls")
[ "$n" = 100000 ] || fail "ls lists $n members, not 100000"
[ -z "$(sort "$T/ls" | uniq -d | head -3)" ] || fail "a name is listed twice"
grep -qx 'DUP~2.BIN' "$T/ls" && grep -qx 'DUP~1~1.BIN' "$T/ls" || fail "the ~N names: $(grep DUP "$T/ls" | head)"
python3 - "$VIEW/BIG.PKS" "$T/ls" <<'PY' || fail "a stat of a listed name failed"
import os, sys
names = [l.rstrip("\n") for l in open(sys.argv[2]) if l not in (".\n", "..\n")]
for name in names[::10]:
    os.stat(os.path.join(sys.argv[1], name))
PY
cmp -s "$VIEW/BIG.PKS/index.yaml" <("$ANIMFS" decode "$GAME/BIG.PKS/index.yaml") || fail "index.yaml differs from decode"
peak=$(hwm)
echo "ls of 100 000 entries, 10 000 stats and index.yaml: $(( $(date +%s) - start )) s; daemon VmHWM $peak kB"
if [ "$ANIMFS" = "${ANIMFS_PLAIN:-}" ]; then
  [ "$peak" -le "$bound_kb" ] || fail "100 000 entries: the daemon peaked at $peak kB > $bound_kb kB"
fi
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "archive_sizes: ok"
