# The Shenmue containers through the mount: the real DCBN PKS (gzip > PAKS > IPAC) is a
# folder with the M_DCBN view, 36 raw members and index.yaml; one key of M_DCBN changed
# through the view leaves the other 36 members byte-identical (the independent reader
# tests/tools/shm_reader.py checks); a size-changing edit and the nested AFS > PKS edit
# give the expected samples; members are not removed or renamed; the damaged PKS is the
# plain file, its reason logged once; a TAD/TAC is read-only (EROFS, .animfs/errors).
. "$(dirname "$0")/common.inc"
S="$ANIMFS_SAMPLES/shenmue-containers"
[ -f "$S/am2_s1pal_DCBN_MPK00.PKS" ] || { echo "SKIP: ../shared/samples not found"; exit 77; }
TOOLS="$(dirname "$0")/../tools"
R="python3 $TOOLS/shm_reader.py"
mkdir "$GAME/scene"
cp "$S/am2_s1pal_DCBN_MPK00.PKS" "$GAME/scene/MPK00.PKS"
cp "$S/am2_s1pal_DCBN_MPK00.PKF" "$GAME/scene/MPK00.PKF"
cp "$S/syn_afs_pks.AFS" "$GAME/HUMANS.AFS"
cp "$S/syn_pks_2motn_gz.PKS" "$GAME/SYN.PKS"
cp "$S/sizious_MESSEDUP.PKS" "$GAME/MESSEDUP.PKS"
python3 "$TOOLS/shm_make_tad.py" "$GAME/mod.tad" "$GAME/mod.tac" "$S/syn_BPK_MISS.MOTN"
chmod -R u+w "$GAME"
for m in BPK_MISS SPK_WARM; do "$ANIMFS" decode "$S/syn_$m.MOTN" > "$T/$m.yaml"; done
pks="$GAME/scene/MPK00.PKS"
$R list "$pks" > "$T/before"
mount_view_fg
V="$VIEW/scene/MPK00.PKS"

# the folder
[ -d "$V" ] || fail "the PKS is not a folder"
[ "$(ls "$V" | wc -l)" = 38 ] || fail "listing: $(ls "$V")"
[ -f "$V/M_DCBN.MOTN.yaml" ] && [ -f "$V/ATRS5ITG.CHRM" ] && [ -f "$V/index.yaml" ] || fail "names: $(ls "$V")"
"$ANIMFS" decode "$pks/index.yaml" | cmp -s - "$V/index.yaml" || fail "index.yaml differs from decode"
grep -q '^  - format: gzip$' "$V/index.yaml" || fail "the gzip layer is not in index.yaml"
$R extract "$pks/ATRS5ITG.CHRM" "$T/raw"
cmp -s "$V/ATRS5ITG.CHRM" "$T/raw" || fail "a raw member is not its bytes"
{ echo x > "$V/ATRS5ITG.CHRM"; } 2>/dev/null && fail "a raw member is writable"
{ echo x > "$V/index.yaml"; } 2>/dev/null && fail "index.yaml is writable"
[ -d "$VIEW/scene/MPK00.PKF/IPAC" ] && [ -f "$VIEW/scene/MPK00.PKF/IPAC/CHARA.CHRT" ] || fail "the PKF's IPAC is no folder"
[ -d "$VIEW/HUMANS.AFS/SYNA.PKS" ] && [ -f "$VIEW/HUMANS.AFS/SYNB.PKS/M_SYNB.MOTN.yaml" ] || fail "AFS > PKS does not nest"

# rm and renames of members are refused, as for package members
rm "$V/M_DCBN.MOTN.yaml" 2>/dev/null && fail "a member view was removed"
rm "$V/ATRS5ITG.CHRM" 2>/dev/null && fail "a raw member was removed"
mv "$V/ATRS5ITG.CHRM" "$V/OTHER.CHRM" 2>/dev/null && fail "a raw member was renamed"
mv "$V/M_DCBN.MOTN.yaml" "$V/M_X.MOTN.yaml" 2>/dev/null && fail "a member view was renamed"
mv "$VIEW/HUMANS.AFS/SYNA.PKS" "$VIEW/HUMANS.AFS/SYNC.PKS" 2>/dev/null && fail "a nested folder was renamed"
rm -rf "$VIEW/HUMANS.AFS/SYNA.PKS" 2>/dev/null
[ -f "$VIEW/HUMANS.AFS/SYNA.PKS/M_SYNA.MOTN.yaml" ] || fail "rm -r emptied a nested folder"
$R list "$pks" | cmp -s - "$T/before" || fail "the PKS changed without a save"
cmp -s "$GAME/HUMANS.AFS" "$S/syn_afs_pks.AFS" || fail "the AFS changed without a save"

# one key of M_DCBN through its view
grep -q '^          - \[29, 1, 0.2455\]$' "$V/M_DCBN.MOTN.yaml" || fail "the key to edit is not in the view"
sed -i '0,/^          - \[29, 1, 0.2455\]$/s//          - [29, 1, 0.25]/' "$V/M_DCBN.MOTN.yaml" || fail "sed -i through the view"
grep -q '^          - \[29, 1, 0.25\]$' "$V/M_DCBN.MOTN.yaml" || fail "the view does not show the edit"
$R list "$pks" > "$T/after"
diff <(grep -v '^28 ' "$T/before") <(grep -v '^28 ' "$T/after") > /dev/null || fail "other members changed: $(diff "$T/before" "$T/after")"
[ "$(grep -c . "$T/after")" = 37 ] || fail "the PKS lost entries"
grep '^28 ' "$T/before" | cmp -s - <(grep '^28 ' "$T/after") && fail "M_DCBN did not change"
mkdir "$T/x" && $R extract "$pks/M_DCBN.MOTN" "$T/x/M_DCBN.MOTN"
[ "$(stat -c %s "$T/x/M_DCBN.MOTN")" = 16140 ] || fail "a value edit changed the MOTN's size"
"$ANIMFS" decode --schema-ref none "$T/x/M_DCBN.MOTN" | grep -q '^          - \[29, 1, 0.25\]$' || fail "the MOTN does not hold the edit"
cmp -s <(head -c 36 "$pks") <(head -c 36 "$S/am2_s1pal_DCBN_MPK00.PKS") || fail "the gzip header changed"

# a size-changing edit (through gzip), and the nested AFS > PKS edit
cp "$T/BPK_MISS.yaml" "$VIEW/SYN.PKS/M_SYNA.MOTN.yaml" || fail "the size-changing save"
$R inflate "$GAME/SYN.PKS" "$T/syn.inflated"
cmp -s "$T/syn.inflated" "$S/syn_pks_2motn_edit.PKS" || fail "the size-changing edit differs from syn_pks_2motn_edit.PKS"
cp "$T/SPK_WARM.yaml" "$VIEW/HUMANS.AFS/SYNA.PKS/M_SYNB.MOTN.yaml" || fail "the nested save"
cmp -s "$GAME/HUMANS.AFS" "$S/syn_afs_pks_edit.AFS" || fail "the nested edit differs from syn_afs_pks_edit.AFS"

# damaged: the plain file
[ -f "$VIEW/MESSEDUP.PKS" ] && cmp -s "$VIEW/MESSEDUP.PKS" "$GAME/MESSEDUP.PKS" || fail "MESSEDUP.PKS is not the plain file"
ls -l "$VIEW" > /dev/null

# a read-only container: the save refused with EROFS, said in .animfs/errors
tv="$VIEW/mod.tad/00000_00001000.MOTN.yaml"
[ -f "$tv" ] || fail "the TAD member view: $(ls "$VIEW/mod.tad")"
# its mode is the container's, as on a read-only mount: the refusal is EROFS with a
# line for every user, not a bare EACCES from the mode bits
[ "$(stat -c %a "$tv")" = "$(stat -c %a "$GAME/mod.tad")" ] || fail "a read-only container's view mode"
sed '0,/\[0, 1, 1.0\]/s//[0, 1, 0.5]/' "$tv" > "$T/t.yaml"
cp "$GAME/mod.tac" "$T/mod.tac"
cp "$T/t.yaml" "$tv" 2> "$T/cp.err" && fail "a TAD member was saved"
grep -q "Read-only file system" "$T/cp.err" || fail "the TAD refusal is not EROFS: $(cat "$T/cp.err")"
grep -q "mod.tad/00000_00001000.MOTN.yaml: .*read-only" "$VIEW/.animfs/errors" || fail ".animfs/errors: $(cat "$VIEW/.animfs/errors")"
cmp -s "$GAME/mod.tac" "$T/mod.tac" || fail "the TAC changed"

"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
[ "$(grep -c 'MESSEDUP.PKS: byte 0x14: IPAC: directory offset (+4) 0x1240C disagrees' "$T/daemon.log")" = 1 ] ||
  fail "the damaged PKS's reason is not logged exactly once: $(cat "$T/daemon.log")"
echo "shenmue containers through the mount: ok"
