#!/usr/bin/env bash
# Real sizes (issue 28), from the command line, with synthetic files only
# (tests/tools/shm_make_big.py): a PKS and an AFS of 100 000 entries, names repeated
# in case and as suffixes, decode (index.yaml, a member by its ~N name) and check
# within a generous time bound (a quadratic pass took minutes here); and gzip layers
# within the memory bound: a 1 GiB bomb of 1 MB, bare and as a PKS member, is refused
# (or kept raw) naming the file and the limit, with max RSS far below what it inflates to.
set -u
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
MAKE="python3 $(dirname "$0")/../tools/shm_make_big.py"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails+1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
A=$ANIMFS
rss_limit_mb=128 # a refusal must not hold the layer: 8 MiB counted, nothing kept (ASan included)

# run SECONDS CMD...: stdout to $tmp/out, stderr to $tmp/err; sets rc, kb, secs
run() {
  local limit=$1; shift
  rc=0
  /usr/bin/time -f '%M %e' -o "$tmp/usage" timeout "$limit" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  read -r kb secs < <(tail -1 "$tmp/usage")
}

# --- 100 000 entries: nothing quadratic ---
$MAKE pks 100000 "$tmp/BIG.PKS" && $MAKE afs 100000 "$tmp/BIG.AFS" || { echo "cannot build"; exit 1; }
gzip -1 -c "$tmp/BIG.PKS" >"$tmp/BIGGZ.PKS"
for f in BIG.PKS BIG.AFS BIGGZ.PKS; do
  run 60 "$A" decode "$tmp/$f/index.yaml"
  [ "$rc" = 0 ] || { bad "$f: decode index.yaml: exit $rc (124: over 60 s) $(head -c 300 "$tmp/err")"; continue; }
  echo "ok $f: index.yaml in ${secs}s, $((kb / 1024)) MiB"
  n=$(grep -c '^  - {index: ' "$tmp/out")
  [ "$n" = 100000 ] || bad "$f: index.yaml lists $n members, not 100000"
  # the dedup rule (spec 10.1) on each kind of repeat
  for want in 'file: E0000008.CHRM' 'file: "e0000008~1.chrm"' 'file: DUP.BIN' 'index: 1999, file: "DUP~1.BIN"' \
              'index: 4999, file: "DUP~1~1.BIN"' 'index: 99998, file: E0099998.CHRM'; do
    grep -qF "$want" "$tmp/out" || bad "$f: index.yaml lacks '$want'"
  done
  names=$(grep -o 'file: [^,]*' "$tmp/out" | tr 'A-Z' 'a-z' | sort | uniq -d | head -3)
  [ -z "$names" ] || bad "$f: names shown twice: $names"
  run 60 "$A" decode "$tmp/$f/e0099988~1.chrm"
  [ "$rc" = 0 ] || bad "$f: decode of a ~N member: exit $rc $(head -c 300 "$tmp/err")"
  run 60 "$A" decode "$tmp/$f/E0099910.CHRM" # every 97th holds 4 bytes: its index, LE
  [ "$rc" = 0 ] && [ "$(od -An -tu4 "$tmp/out" | tr -d ' ')" = 99910 ] || bad "$f: member E0099910 is not its bytes"
  run 60 "$A" check "$tmp/$f"
  [ "$rc" = 0 ] && grep -q '1 rebuilt byte for byte, 0 failed' "$tmp/out" ||
    bad "$f: check: exit $rc $(cat "$tmp/out" "$tmp/err" | head -c 400)"
  echo "ok $f: check in ${secs}s"
done

# --- a large archive checked without holding it: its rebuild is compared with the file
# as it is handed over in pieces (160 MiB; held whole, the check took twice that) ---
"$A" encode "$ANIMFS_SOURCE_DIR/examples/MOTION.BIN.yaml" -o "$tmp/MOTION.BIN" >/dev/null &&
  ANIMFS_NOISE_SEED=28 python3 "$(dirname "$0")/../tools/big_archive.py" afs 160 "$tmp/MOTION.BIN" "$tmp/LARGE.AFS" ||
  { echo "cannot build LARGE.AFS"; exit 1; }
run 120 "$A" check --cache-mb=16 "$tmp/LARGE.AFS"
[ "$rc" = 0 ] && grep -q '1 rebuilt byte for byte, 0 failed' "$tmp/out" ||
  bad "LARGE.AFS: check: exit $rc $(cat "$tmp/out" "$tmp/err" | head -c 400)"
[ "$((kb / 1024))" -le "$rss_limit_mb" ] || bad "check LARGE.AFS: max RSS $((kb / 1024)) MiB > $rss_limit_mb MiB"
echo "ok check LARGE.AFS (160 MiB): ${secs}s, $((kb / 1024)) MiB"
rm -f "$tmp/LARGE.AFS"

# --- gzip bombs: refused while counting, nothing kept ---
$MAKE bomb 1024 "$tmp/bomb.GZ" || { echo "cannot build the bomb"; exit 1; }
python3 - "$tmp" <<'PY'
import struct, sys
d = sys.argv[1]
bomb = open(d + '/bomb.GZ', 'rb').read()
pad = bytes((-len(bomb)) % 32)
ipac = b'IPAC' + struct.pack('<III', 16 + len(bomb) + len(pad), 1, 16 + len(bomb) + len(pad))
ipac += bomb + pad + struct.pack('<8s4sII', b'BOMB', b'GZ  ', 16, len(bomb))
open(d + '/HOLDS.PKS', 'wb').write(b'PAKS' + struct.pack('<III', 16, 0, 1) + ipac)
PY
limit='gzip member inflates past 48 MiB, the most one gzip layer may hold (AF_MAX_LAYER)'
for args in "decode $tmp/bomb.GZ" "decode $tmp/bomb.GZ/index.yaml" "check $tmp/bomb.GZ"; do
  run 60 "$A" $args
  [ "$rc" = 1 ] || bad "$args: exit $rc, wanted 1"
  cat "$tmp/err" "$tmp/out" | grep -F "bomb.GZ" | grep -qF "$limit" ||
    bad "$args: no message naming the file and the limit: $(cat "$tmp/err" "$tmp/out" | head -c 400)"
  [ "$((kb / 1024))" -le "$rss_limit_mb" ] || bad "$args: max RSS $((kb / 1024)) MiB > $rss_limit_mb MiB"
  echo "ok $args: ${secs}s, $((kb / 1024)) MiB"
done
# inside a PKS: the member stays raw (its 1 MB), the PKS works
run 60 "$A" decode "$tmp/HOLDS.PKS/index.yaml"
[ "$rc" = 0 ] && grep -qF 'file: BOMB.GZ' "$tmp/out" || bad "HOLDS.PKS: index.yaml: exit $rc $(head -c 300 "$tmp/err")"
grep -qF 'nested:' "$tmp/out" && bad "HOLDS.PKS: the bomb was opened as a nested layer"
[ "$((kb / 1024))" -le "$rss_limit_mb" ] || bad "HOLDS.PKS: max RSS $((kb / 1024)) MiB"
run 60 "$A" decode "$tmp/HOLDS.PKS/BOMB.GZ"
[ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/bomb.GZ" || bad "HOLDS.PKS/BOMB.GZ is not the raw member: exit $rc"
run 60 "$A" check "$tmp/HOLDS.PKS"
[ "$rc" = 0 ] || bad "check HOLDS.PKS: exit $rc $(cat "$tmp/out" "$tmp/err" | head -c 400)"
[ "$((kb / 1024))" -le "$rss_limit_mb" ] || bad "check HOLDS.PKS: max RSS $((kb / 1024)) MiB"
echo "ok HOLDS.PKS: ${secs}s, $((kb / 1024)) MiB"
[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "archive_sizes: ok"
