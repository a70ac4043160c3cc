#!/usr/bin/env bash
# The Shenmue containers from the command line, over every sample: `animfs check`
# reports each layer and rebuilds each byte for byte (the damaged PKS refused with its
# reason); `decode X` prints the index and each member view; members and nested
# members decode like the independent reader (tests/tools/shm_reader.py) extracts
# them; the synthetic expected edits are reproduced (plain, through gzip, AFS > PKS);
# the size-changing edit of the real DCBN PKS follows spec 9.3; a read-only TAD/TAC
# refuses a save.
set -u
S="${ANIMFS_SAMPLES:-}/shenmue-containers"
[ -f "$S/am2_s1pal_DCBN_MPK00.PKS" ] || { echo "skipped: ../shared/samples not found"; exit 77; }
TOOLS="$(dirname "$0")/../tools"
R="python3 $TOOLS/shm_reader.py"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails+1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
A() { "$ANIMFS" "$@"; }

# --- check: every layer, every sample ---
out=$(A check "$S" 2>&1) && bad "check passed although MESSEDUP.PKS is damaged"
for want in \
  'shenmue-motn                 23       452012         23        0        0            0' \
  'gzip files: 9 (9 inflated inside), 9 rebuilt byte for byte, 0 failed' \
  'PKS files: 14 (125 entries inside), 13 rebuilt byte for byte, 0 failed, 1 refused as damaged' \
  '23 of 23 decoded files identical, 1 refused as damaged' \
  'IPAC archives: 3 (3 entries inside), 3 rebuilt byte for byte, 0 failed' \
  'PKF files: 3 (408 chunks inside), 3 rebuilt byte for byte, 0 failed' \
  'AFS archives: 4 (11 members inside), 4 rebuilt byte for byte, 0 failed' \
  'TAD/TAC pairs: 1 (2 members inside), 1 rebuilt byte for byte, 0 failed' \
  "FAIL $S/sizious_MESSEDUP.PKS: PKS: byte 0x14: IPAC: directory offset (+4) 0x1240C disagrees with content size (+12) 0x123F0 (refused: shown as the plain file)"; do
  grep -qxF "$want" <<<"$out" || bad "check lacks '$want': $out"
done
[ "$(grep -c '^FAIL' <<<"$out")" = 1 ] || bad "check: more than the damaged file failed: $out"
mkdir "$tmp/good" && cp "$S"/* "$tmp/good" && rm "$tmp/good/sizious_MESSEDUP.PKS" && chmod u+w "$tmp/good"/*
A check "$tmp/good" >/dev/null || bad "check of the undamaged samples failed"

# --- decode X: the index, then each member view; X/M: as the reader extracts it ---
for f in "$S"/*.PKS "$S"/*.PKF "$S"/*.AFS "$S"/*.afs "$S"/*.tad "$S"/*.gz; do
  case $f in *MESSEDUP*) continue;; esac
  A decode "$f" >"$tmp/whole.yaml" || { bad "decode $f"; continue; }
  python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); assert d["layers"] and "members" in d and "views" in d' \
    "$tmp/whole.yaml" || bad "decode $f: not one document with layers, members and views"
done
dcbn="$S/am2_s1pal_DCBN_MPK00.PKS"
A decode "$dcbn" >"$tmp/whole.yaml"
grep -q '^  M_DCBN.MOTN:$' "$tmp/whole.yaml" || bad "the whole DCBN document lacks the M_DCBN view"
grep -q '^    format: shenmue-motn$' "$tmp/whole.yaml" || bad "the M_DCBN view is not nested"
[ "$(grep -c '^  # .*: raw' "$tmp/whole.yaml")" = 36 ] || bad "36 raw members are not named"
mkdir "$tmp/x"
$R extract "$dcbn/M_DCBN.MOTN" "$tmp/x/M_DCBN.MOTN"
A decode --schema-ref none "$dcbn/M_DCBN.MOTN" >"$tmp/m1.yaml" || bad "decode X/M_DCBN.MOTN"
A decode --schema-ref none "$tmp/x/M_DCBN.MOTN" | cmp -s - "$tmp/m1.yaml" || bad "the member view differs from the extracted MOTN's"
grep -q '^  attr_high: 0x7 ' "$tmp/m1.yaml" || bad "the bank number (attr bits 12+) is not carried"
grep -q '^  pad: "00700000 0e700000 00000000"' "$tmp/m1.yaml" || bad "words 0x14/0x18 (first/last id) are not carried"
A decode "$dcbn/ATRS5ITG.CHRM" >"$tmp/raw" && $R extract "$dcbn/ATRS5ITG.CHRM" "$tmp/raw2" &&
  cmp -s "$tmp/raw" "$tmp/raw2" || bad "a raw member is not its bytes"
A decode "$S/syn_afs_pks.AFS/SYNB.PKS/index.yaml" | grep -q '^  - format: gzip$' || bad "the nested gzip layer is not in the index"
$R extract "$S/syn_afs_pks.AFS/SYNB.PKS/M_SYNB.MOTN" "$tmp/x/M_SYNB.MOTN"
A decode --schema-ref none "$S/syn_afs_pks.AFS/SYNB.PKS/M_SYNB.MOTN" |
  cmp -s - <(A decode --schema-ref none "$tmp/x/M_SYNB.MOTN") || bad "AFS > gzip > PKS member decode"
A decode "$S/syn_afs_pks.AFS/NOPE.PKS" 2>"$tmp/err" && bad "a missing member decoded"
grep -q "no member 'NOPE.PKS'" "$tmp/err" || bad "missing member message: $(cat "$tmp/err")"
A decode "$S/am2_M_TAIA.BIN" >"$tmp/taia.yaml" && A encode "$tmp/taia.yaml" -o "$tmp/taia.bin" &&
  cmp -s "$tmp/taia.bin" "$S/am2_M_TAIA.BIN" || bad "M_TAIA.BIN does not round-trip"

# --- the expected edits ---
for m in BPK_MISS SPK_WARM A_WALK; do A decode "$S/syn_$m.MOTN" >"$tmp/$m.yaml"; done
cp "$S/syn_pks_2motn.PKS" "$S/syn_pks_2motn_gz.PKS" "$S/syn_afs_pks.AFS" "$dcbn" "$tmp/" && chmod u+w "$tmp"/*.*
A encode "$tmp/BPK_MISS.yaml" -o "$tmp/syn_pks_2motn.PKS/M_SYNA.MOTN" || bad "encode into the PKS"
cmp -s "$tmp/syn_pks_2motn.PKS" "$S/syn_pks_2motn_edit.PKS" || bad "the PKS edit differs from syn_pks_2motn_edit.PKS"
A encode "$tmp/BPK_MISS.yaml" -o "$tmp/syn_pks_2motn_gz.PKS/M_SYNA.MOTN" || bad "encode into the gzip'd PKS"
$R inflate "$tmp/syn_pks_2motn_gz.PKS" "$tmp/gz.inflated"
cmp -s "$tmp/gz.inflated" "$S/syn_pks_2motn_edit.PKS" || bad "the inflated gzip edit differs"
cmp -s <(head -c 20 "$tmp/syn_pks_2motn_gz.PKS") <(head -c 20 "$S/syn_pks_2motn_gz.PKS") || bad "the gzip header changed"
A encode "$tmp/SPK_WARM.yaml" -o "$tmp/syn_afs_pks.AFS/SYNA.PKS/M_SYNB.MOTN" || bad "the nested encode"
cmp -s "$tmp/syn_afs_pks.AFS" "$S/syn_afs_pks_edit.AFS" || bad "the nested AFS > PKS edit differs from syn_afs_pks_edit.AFS"
out=$(A encode "$tmp/SPK_WARM.yaml" -o "$tmp/syn_afs_pks.AFS/SYNA.PKS/M_SYNB.MOTN" 2>&1)
case $out in *"unchanged; the AFS archive was not rewritten"*) ;; *) bad "unchanged nested save: $out";; esac

# --- spec 9.3 on the real file: M_DCBN replaced by a 1954-byte MOTN ---
d="$tmp/am2_s1pal_DCBN_MPK00.PKS"
$R list "$dcbn" >"$tmp/before"
A encode "$tmp/A_WALK.yaml" -o "$d/M_DCBN.MOTN" || bad "the DCBN size-changing edit"
$R list "$d" >"$tmp/after"
$R inflate "$d" "$tmp/dcbn.inflated"
[ "$(stat -c %s "$tmp/dcbn.inflated")" = 310436 ] || bad "inflated size $(stat -c %s "$tmp/dcbn.inflated") is not 310436"
grep -q '^28 M_DCBN.MOTN MOTN 0x40020 1954 889e9f88' "$tmp/after" || bad "M_DCBN is not the new MOTN at 0x40010"
grep -q '^29 NIPK302G.CHRM CHRM 0x407e0 ' "$tmp/after" || bad "entry 29 is not at IPAC 0x407D0"
grep -q '^36 YKB_UR.CHRM CHRM 0x479c0 ' "$tmp/after" || bad "entry 36 is not at IPAC 0x479B0"
[ "$($R layout "$d")" = canonical-32 ] || bad "the edited DCBN is not canonical-32"
diff <(grep -v '^28 ' "$tmp/before" | awk '{print $1, $2, $5, $6}') \
     <(grep -v '^28 ' "$tmp/after" | awk '{print $1, $2, $5, $6}') >/dev/null || bad "another member changed"
cmp -s <(head -c 36 "$d") <(head -c 36 "$dcbn") || bad "the 36-byte gzip header changed"
A decode "$d/index.yaml" | grep -q 'dir_offset: 0x4B9B0' || bad "dir_offset is not 0x4B9B0"

# --- a read-only container: TAD/TAC ---
python3 "$TOOLS/shm_make_tad.py" "$tmp/mod.tad" "$tmp/mod.tac" "$S/syn_BPK_MISS.MOTN"
A decode "$tmp/mod.tad/00000_00001000.MOTN" >"$tmp/t.yaml" || bad "decode of a TAD member"
sed -i '0,/\[0, 1, 1.0\]/s//[0, 1, 0.5]/' "$tmp/t.yaml"
cmp -s "$tmp/t.yaml" <(A decode "$tmp/mod.tad/00000_00001000.MOTN") && bad "the key edit did not apply"
cp "$tmp/mod.tac" "$tmp/mod.tac.orig"
out=$(A encode "$tmp/t.yaml" -o "$tmp/mod.tad/00000_00001000.MOTN" 2>&1) && bad "a TAD member was saved"
case $out in *"read-only"*) ;; *) bad "the TAD refusal does not say read-only: $out";; esac
cmp -s "$tmp/mod.tac" "$tmp/mod.tac.orig" || bad "the TAC changed"

[ $fails = 0 ] && echo "ok: shenmue containers" || exit 1
