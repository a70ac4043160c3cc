#!/usr/bin/env bash
# Hostile inputs through the command line (built here, no samples): each ends in
# exit 1 with a clear message, within a time bound and a memory bound (max RSS of
# the process, measured by /usr/bin/time; ASan's shadow memory is allowed for).
# "wide" (3 Mi values, under the 8 Mi limit) shows the tree stays bounded.
set -u
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
rss_limit_mb=400    # far below what the attacks would need, above ASan's overhead
# (sanitized: the runtime's names are in the binary, linked in or asked of libasan.so)
if grep -qa __asan_init "$ANIMFS"; then rss_limit_mb=1000; fi
# t NAME SECONDS EXPECTED_TEXT CMD... : exit 1, the text in stderr, time and RSS bounds
t() {
  local name=$1 secs=$2 want=$3; shift 3
  local rc=0
  /usr/bin/time -f '%M %e' -o "$tmp/usage" timeout "$secs" "$@" >/dev/null 2>"$tmp/err" || rc=$?
  local kb=0 s=0; read -r kb s < <(tail -1 "$tmp/usage")
  if [ "$rc" != 1 ]; then echo "FAIL $name: exit $rc (124 = timed out), wanted 1"; cat "$tmp/err"; fails=$((fails+1)); return; fi
  if ! grep -qF -- "$want" "$tmp/err"; then echo "FAIL $name: stderr lacks '$want':"; cat "$tmp/err"; fails=$((fails+1)); fi
  if [ "$((kb / 1024))" -gt "$rss_limit_mb" ]; then echo "FAIL $name: max RSS $((kb / 1024)) MiB"; fails=$((fails+1)); fi
  echo "ok $name: $(head -c 300 "$tmp/err" | tr '\n' ' ') [${s}s, $((kb / 1024)) MiB]"
}
python3 - "$tmp" <<'PY'
import os, random, struct, sys, zlib
d = sys.argv[1]
def w(name, data):
    open(os.path.join(d, name), "wb").write(data)
w("trailer4g.animation", zlib.compress(b"hello") + struct.pack("<I", 0xFFFFFFFF))
w("trailerbig.animation", zlib.compress(b"hello") + struct.pack("<I", 200 << 20))
# 128 MiB of zeros in ~128 KiB, without deflating 128 MiB (0.9 CPU s): a MiB of zeros
# fully flushed is byte-aligned and refers to nothing before it, so it may be repeated
mib = zlib.compressobj(9, zlib.DEFLATED, -15)
mib = mib.compress(bytes(1 << 20)) + mib.flush(zlib.Z_FULL_FLUSH)
end = zlib.compressobj(9, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)
bomb = b"\x78\xda" + mib * 128 + end + struct.pack(">I", zlib.adler32(bytes(128 << 20)))
w("bomb.animation", bomb + struct.pack("<I", 1 << 20))
random.seed(1)
noise = bytes(random.getrandbits(8) for _ in range(4000))
w("cut.animation", zlib.compress(noise)[:100] + struct.pack("<I", 4000))
# YAML
w("alias.yaml", b"format: diesel-animation\nlength: &l 1.0\nname: *l\n")
laughs = b"format: diesel-animation\na: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n"
for i, c in enumerate("bcdefghij"):
    p = "abcdefghij"[i]
    laughs += ("%s: &%s [%s]\n" % (c, c, ",".join(["*" + p] * 9))).encode()
w("laughs.yaml", laughs)
w("deep.yaml", b"format: diesel-animation\nx: " + b"[" * 200000 + b"]" * 200000 + b"\n")
w("deepmap.yaml", b"format: diesel-animation\n" + b"".join(b" " * i + b"k:\n" for i in range(300)))
w("badutf8.yaml", b"# x\nformat: diesel-animation\nname: ab\xff\n")
w("huge.yaml", b"format: sims3-jazz\nname: " + b"a" * (64 << 20) + b"\nx: [\n")
w("wide.yaml", b"format: re-model\nx: [" + b"1," * 3000000 + b"1]\n")
PY
truncate -s $((256 * 1024 * 1024 + 1)) "$tmp/toolarge.yaml"
printf 'format: diesel-animation\n' | dd of="$tmp/toolarge.yaml" conv=notrunc 2>/dev/null
A=$ANIMFS
# also() TEXT NAME: the last t's stderr holds TEXT as well (one run, two checks)
also() { grep -qF -- "$1" "$tmp/err" || { echo "FAIL $2: stderr lacks '$1':"; cat "$tmp/err"; fails=$((fails+1)); }; }
t trailer-4GiB 10 "byte 0x" "$A" decode "$tmp/trailer4g.animation"
also "size trailer claims 4294967295 bytes, more than the 256 MiB" trailer-4GiB-text
t trailer-ratio 10 "cannot inflate to more than" "$A" decode "$tmp/trailerbig.animation"
t deflate-bomb 20 "inflates to more than the 1048576 bytes the size trailer says" "$A" decode "$tmp/bomb.animation"
t zlib-cut 10 "truncated" "$A" decode "$tmp/cut.animation"
# animfs check over all of them: each reported, none stops the walk
t check-folder 30 "bomb.animation: decode: byte 0x" sh -c 'exec "$0" check "$1" 1>&2' "$A" "$tmp"
grep -q "trailer4g.animation: decode: byte 0xd: size trailer claims" "$tmp/err" ||
  { echo "FAIL check-folder: trailer4g not reported"; fails=$((fails+1)); }
t alias 10 "alias.yaml:3:7: aliases (*l) are not supported" "$A" encode "$tmp/alias.yaml" -o "$tmp/out"
t billion-laughs 10 "laughs.yaml:3:" "$A" encode "$tmp/laughs.yaml" -o "$tmp/out"
t deep-flow 10 "deep.yaml:2:" "$A" encode "$tmp/deep.yaml" -o "$tmp/out"
also "nesting deeper than 64 levels" deep-flow-text
t deep-block 10 "nesting deeper than 64 levels" "$A" encode "$tmp/deepmap.yaml" -o "$tmp/out"
t bad-utf8 10 "badutf8.yaml:3:9: invalid leading UTF-8 octet" "$A" encode "$tmp/badutf8.yaml" -o "$tmp/out"
t huge-scalar 60 "huge.yaml:4:1: " "$A" encode "$tmp/huge.yaml" -o "$tmp/out"
t wide 60 "wide.yaml:2:1: top level: unknown key 'x'" "$A" encode "$tmp/wide.yaml" -o "$tmp/out"
t too-large 10 "the limit is 268435456" "$A" encode "$tmp/toolarge.yaml" -o "$tmp/out"
# a skeleton whose parents form a cycle (bones 1 and 2 each other's parent)
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
sed 's/{bone: 1, parent: 0,/{bone: 1, parent: 2,/; s/{bone: 2, parent: 0,/{bone: 2, parent: 1,/' \
  "$src/examples/re3_tiny.PLD.yaml" > "$tmp/cycle.PLD.yaml"
t skeleton-cycle 10 "cycle.PLD.yaml:15:9: banks[0].skeleton[1]: bone 1 is not part of a tree rooted at bone 0" \
  "$A" encode "$tmp/cycle.PLD.yaml" -o "$tmp/out"
[ -e "$tmp/out" ] && { echo "FAIL: a refused document left an output file"; fails=$((fails+1)); }
ls -A "$tmp" | grep -q animfs-tmp && { echo "FAIL: a temporary file was left"; fails=$((fails+1)); }
[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "hostile: ok"
