#!/usr/bin/env bash
# Issue 28: `animfs decode --cache-mb=N` stays within N + 64 MiB: half of it for the
# YAML, half for the binary and the codec's model of it; `animfs check --cache-mb=N`
# asks the same of its pool. Two Diesel files (zlib level 6,
# made here) under --cache-mb=1, each refused naming what it would take and --cache-mb,
# exit 1, nothing written, a small peak; both decode under the default:
#  - model.animation: 600 000 float position keys, about 1 MB whose 9.6 MB of inflated
#    data and the keys parsed from them (about 4x) are more than the model's half: the
#    codec asks before it inflates them (af_io.mem_room);
#  - text.animation: 750 000 packed rotation keys, a small model (6 MB inflated) whose
#    YAML (31 MB) is more than the text's half: the decode stops at its bound.
set -u
src=${ANIMFS_SOURCE_DIR:?}
. "$src/tests/samples.inc"
A=$PLAIN # the unsanitized build when scripts/test made one: its peak means something
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# the documents (the key lines by tests/tools/keys.awk: 2.25 million, too many for Python)
doc_head() { # doc_head FILE: the document's head, up to its object's position keys
  printf '%s\n' "format: diesel-animation" "length: 1.0" "binary:" "  layout: 32-bit" \
    "  container: zlib" "  zlib_level: 6" "objects:" "  - name: root_point" \
    "    position:" "      type: pos_f32" "      keys:" > "$1"
}
rot="    rotation:
      type: rot_packed
      keys:"
keys() { awk -f "$src/tests/tools/keys.awk" "$@" || { echo "cannot write the keys"; exit 1; }; }
encoded() { # encoded NAME OUT: NAME's document, encoded to OUT
  local y=$tmp/$1.yaml
  doc_head "$y"
  case $1 in
    model) { keys -v n=600000; echo "$rot"; echo "        - [0.0, 0.000, 0.000, 0.000, 1.000]"; } >> "$y" ;;
    text) { echo "        - [0.0, 0.0, 0.0, 0.0]"; echo "$rot"; keys -v n=750000 -v kind=rot -v z0=0.000 -v z1=0.000; } >> "$y" ;;
    huge) { keys -v n=900000 -v shift=21; echo "$rot"; echo "        - [0.0, 0.000, 0.000, 0.000, 1.000]"; } >> "$y" ;;
  esac
  "$A" encode --cache-mb=1024 "$y" -o "$2"
}
# (what an earlier run of the same build encoded is kept: made_once, tests/samples.inc)
for f in model text huge; do
  made_once "$A" "$tmp/$f.animation" encoded $f || { echo "cannot encode $f"; exit 1; }
done
want_model="model.animation: decoding it would take about [0-9]* MiB (the file and the codec's model of it), more than --cache-mb=1 lets it take: raise --cache-mb"
want_text="text.animation: its YAML would be more than [0-9]* MiB, more than --cache-mb=1 lets it take: raise --cache-mb"
for f in model text; do
  rc=0
  /usr/bin/time -f %M -o "$tmp/kb" "$A" decode --cache-mb=1 "$tmp/$f.animation" -o "$tmp/$f.out" 2>"$tmp/err" || rc=$?
  want=want_$f
  [ "$rc" = 1 ] || bad "$f: decode --cache-mb=1: exit $rc"
  grep -q "${!want}" "$tmp/err" || bad "$f: the message: $(cat "$tmp/err")"
  [ -e "$tmp/$f.out" ] && bad "$f: something was written"
  mib=$(($(tail -1 "$tmp/kb") / 1024))
  if [ "$A" != "$ANIMFS" ] && [ "$mib" -gt 65 ]; then bad "$f: max RSS $mib MiB, over 65"; fi
  echo "ok $f under --cache-mb=1: $(cat "$tmp/err") ($mib MiB)"
  "$A" decode "$tmp/$f.animation" -o "$tmp/$f.out" || bad "$f: decode under the default failed"
  echo "ok $f under the default: $(stat -c %s "$tmp/$f.out") bytes of YAML"
done
# animfs check asks the same within its pool: each file refused with its reason, the
# walk goes on, a small peak
mkdir -p "$tmp/set" && cp "$tmp/model.animation" "$tmp/text.animation" "$tmp/huge.animation" "$tmp/set/"
rc=0
/usr/bin/time -f %M -o "$tmp/kb" "$A" check --cache-mb=1 "$tmp/set" >"$tmp/out" 2>&1 || rc=$?
[ "$rc" = 1 ] || bad "check --cache-mb=1: exit $rc"
# (a check holds the whole bound for one file, 49 MiB: the model's 36 MiB fit it, its
# YAML then does not; huge.animation, 900 000 keys, asks 55 MiB for its model)
grep -q "FAIL $tmp/set/huge.animation: decode: it would take about [0-9]* MiB (the file and the codec's model of it), more than --cache-mb=1 lets a check hold: raise --cache-mb" "$tmp/out" ||
  bad "check: no line for huge.animation: $(cat "$tmp/out")"
for f in model text; do
  grep -q "FAIL $tmp/set/$f.animation: decode: its YAML would be more than [0-9]* MiB, more than --cache-mb=1 lets a check hold: raise --cache-mb" "$tmp/out" ||
    bad "check: no line for $f.animation: $(cat "$tmp/out")"
done
mib=$(($(tail -1 "$tmp/kb") / 1024))
if [ "$A" != "$ANIMFS" ] && [ "$mib" -gt 65 ]; then bad "check: max RSS $mib MiB, over 65"; fi
echo "ok check --cache-mb=1: the three refused ($mib MiB)"
# a container decoded whole: its document (every member's YAML) within the same half;
# a PKS of the Shenmue motion bank twice (29 MB of YAML) under --cache-mb=1; a member's
# model within the other half
bank=${ANIMFS_SAMPLES:-$src/../shared/samples}/shenmue/dashgl_motion.bin
if [ -f "$bank" ]; then
  python3 - "$bank" "$tmp/TWO.PKS" <<'PY' || { echo "cannot build TWO.PKS"; exit 1; }
import struct, sys
b = open(sys.argv[1], "rb").read()
pad = bytes((-len(b)) % 32)
body = b + pad + b + pad
dir_off = 16 + len(body)
ipac = b"IPAC" + struct.pack("<III", dir_off, 2, dir_off)
ipac += body + struct.pack("<8s4sII", b"BANK_A", b"MOTN", 16, len(b))
ipac += struct.pack("<8s4sII", b"BANK_B", b"MOTN", 16 + len(b) + len(pad), len(b))
open(sys.argv[2], "wb").write(b"PAKS" + struct.pack("<III", 16, 0, 1) + ipac)
PY
  # refused_then_shown WHAT OUT MESSAGE: refused under --cache-mb=1 with MESSAGE, exit 1,
  # nothing written to OUT; decoded to OUT under the default
  refused_then_shown() {
    local rc=0
    "$A" decode --cache-mb=1 "$tmp/$1" -o "$2" 2>"$tmp/err" || rc=$?
    [ "$rc" = 1 ] && grep -q "$3" "$tmp/err" || bad "$1 under --cache-mb=1: exit $rc: $(cat "$tmp/err")"
    [ -e "$2" ] && bad "$1: something was written under --cache-mb=1"
    "$A" decode "$tmp/$1" -o "$2" 2>"$tmp/err" || bad "$1 under the default: $(cat "$tmp/err")"
  }
  refused_then_shown TWO.PKS "$tmp/two.yaml" \
    "TWO.PKS: its YAML would be more than [0-9]* MiB, more than --cache-mb=1 lets it take: raise --cache-mb"
  n=$(grep -c "^  BANK_[AB].MOTN:" "$tmp/two.yaml")
  echo "ok TWO.PKS: refused under --cache-mb=1, $(stat -c %s "$tmp/two.yaml") bytes under the default ($n members shown)"
  # a member's model asked for as a file's: the bank with 2 MiB after it (a MOTN by its
  # header; 3.7 MB whose model, about 8x, is more than the model's half of
  # --cache-mb=1), refused by name and whole, under both; shown under the default
  python3 - "$bank" "$tmp/BIG.PKS" <<'PY' || { echo "cannot build BIG.PKS"; exit 1; }
import struct, sys
b = open(sys.argv[1], "rb").read() + bytes(2 << 20)
dir_off = 16 + len(b)
ipac = b"IPAC" + struct.pack("<III", dir_off, 1, dir_off) + b
ipac += struct.pack("<8s4sII", b"BANK_C", b"MOTN", 16, len(b))
open(sys.argv[2], "wb").write(b"PAKS" + struct.pack("<III", 16, 0, 1) + ipac)
PY
  for what in BIG.PKS/BANK_C.MOTN BIG.PKS; do
    refused_then_shown "$what" "$tmp/big.yaml" \
      "decoding it would take about [0-9]* MiB (the file and the codec's model of it), more than --cache-mb=1 lets it take: raise --cache-mb"
    echo "ok $what: its model refused under --cache-mb=1, $(stat -c %s "$tmp/big.yaml") bytes under the default"
    rm -f "$tmp/big.yaml"
  done
else
  echo "the samples are missing: no container decoded whole"
fi
"$A" decode --cache-mb=0 "$tmp/text.animation" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q -- "--cache-mb wants a number of MiB" "$tmp/err" || bad "--cache-mb=0: exit $rc: $(cat "$tmp/err")"
[ $fails = 0 ] && echo "decode_bound: ok"
exit $((fails > 0))
