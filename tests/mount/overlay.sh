# --overlay MODDIR (issue 32): GAME on a read-only bind mount is never written; every
# change lands in MODDIR the way the games load mods. A vim edit of a Diesel view (the
# re-encoded file at the same relative path), a Jazz and a CLIP in a Sims 3 package (an
# override package in MODDIR holding only those two resources under their original keys
# with their _KEY names, checked by the independent reader pkgread.py), a MOTN in a PKS in
# an AFS (the whole rebuilt AFS copied up), a new file, a folder and a rename: GAME's
# checksums are unchanged, MODDIR holds exactly the expected files, a remount shows the
# same, removing a GAME file is EROFS with a line in .animfs/errors, removing MODDIR's
# copy shows GAME's again; `animfs overlay status` and `diff` say what the mod changes.
. "$(dirname "$0")/common.inc"
need_samples
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
PKG_SRC="$ANIMFS_SAMPLES/sims3-clip/echoweaver_SeasonsSymptoms/SeasonsSymptoms.package"
S="$ANIMFS_SAMPLES/shenmue-containers"
[ -f "$PKG_SRC" ] && [ -f "$S/syn_afs_pks.AFS" ] || { echo "SKIP: ../shared/samples not found"; exit 77; }
here=$(dirname "$0")
rd() { python3 "$here/pkgread.py" "$@"; }
MOD=$T/mod
mkdir -p "$MOD" "$GAME/anims" "$GAME/Packages"
cp "$ANIMFS_SAMPLES"/diesel/phys808__shared_bow_combat_cbt_std_*.animation "$GAME/anims/"
cp "$PKG_SRC" "$GAME/Packages/s.package"
cp "$S/syn_afs_pks.AFS" "$GAME/HUMANS.AFS"
"$ANIMFS" decode "$S/syn_SPK_WARM.MOTN" > "$T/SPK_WARM.yaml" || fail "decode SPK_WARM"
chmod -R a-w "$GAME"
sums() { (cd "$GAME" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
sums > "$T/game.sums"
# GAME read-only for the daemon too (root writes through modes): a read-only bind mount
RO=$T/game-ro
mkdir "$RO"
cleanup_ro() {
  "$EXPECT_ANIMFS" umount "$VIEW" 2>/dev/null || fusermount3 -uz "$VIEW" 2>/dev/null
  umount "$RO" 2>/dev/null || umount -l "$RO" 2>/dev/null
  cleanup
}
if mount --bind "$GAME" "$RO" 2>/dev/null; then
  trap cleanup_ro EXIT
  mount -o remount,ro,bind "$RO" || fail "cannot make the bind mount read-only"
  touch "$RO/x" 2>/dev/null && fail "the read-only bind mount takes writes"
  GAMEDIR=$RO
else
  echo "note: no bind mount here; GAME is 0555/0444 only"
  GAMEDIR=$GAME
fi
MOUNT_GAME=$GAMEDIR
ov_mount() { mount_view_fg --overlay "$MOD"; }
mod_files() { (cd "$MOD" && find . -type f | LC_ALL=C sort | tr '\n' ' '); }
ov_mount

# a Diesel view edited with vim: the re-encoded binary at the same path in MODDIR
d=phys808__shared_bow_combat_cbt_std_walk_fwd.animation
V=$VIEW/anims/$d.yaml
[ -f "$V" ] || fail "no Diesel view: $(ls "$VIEW/anims")"
len=$(sed -n 's/^length: *\([^ ]*\).*/\1/p' "$V")
timeout 60 vim -N -u DEFAULTS -i NONE -es -c "%s/^length: *[^ ]*/length: 7.25/" -c 'wq' "$V" \
  </dev/null 2>"$T/vim.err" || fail "vim exited with $?: $(cat "$T/vim.err") ($(cat "$VIEW/.animfs/errors"))"
[ -f "$MOD/anims/$d" ] || fail "no copy in MODDIR: $(mod_files)"
[ "$(length_of "$MOD/anims/$d")" = 7.25 ] || fail "MODDIR's copy has length $(length_of "$MOD/anims/$d")"
grep -q '^length: 7.25' "$V" || fail "the view does not show the edit"
[ "$(length_of "$GAME/anims/$d")" = "$len" ] || fail "GAME's file changed"
echo "ok: a vim edit of a Diesel view lands in MODDIR (copy-up)"

# a Jazz and a CLIP in the package: an override package of just those two
P=$VIEW/Packages/s.package
cp "$P/ewcoughing.jazz.yaml" "$T/jazz.orig" && cp "$P/c_buff_dazed_x.clip.yaml" "$T/clip.orig" || fail "read the views"
sed '0,/speed: 1.0/s//speed: 1.5/' "$P/ewcoughing.jazz.yaml" > "$T/jazz.yaml"
cmp -s "$T/jazz.yaml" "$P/ewcoughing.jazz.yaml" && fail "no speed to edit in the Jazz"
cp "$T/jazz.yaml" "$P/ewcoughing.jazz.yaml" || fail "save the Jazz: $(cat "$VIEW/.animfs/errors")"
C=$P/c_buff_dazed_x.clip.yaml
v0=$(grep -m1 -E '^      0: \[[^]]*\]' "$C" | sed -E 's/^      0: (\[[^]]*\]).*/\1/')
sed "0,/^      2: \[[^]]*\]/s//      2: $v0/" "$C" > "$T/clip.yaml"
cmp -s "$T/clip.yaml" "$C" && fail "the clip edit changed nothing"
cp "$T/clip.yaml" "$C" || fail "save the clip: $(cat "$VIEW/.animfs/errors")"
O=$MOD/Packages/s.package
[ -f "$O" ] || fail "no override package: $(mod_files)"
rd diff "$GAME/Packages/s.package" "$O" > "$T/diff"
grep -v '^removed ' "$T/diff" | grep -v '^order ok$' | sort > "$T/kept"
printf '%s\n' "changed 02D5DF13 00000000 8200F029DB6F938B" "changed 0166038C 00000000 0000000000000000" \
  "changed 6B20C4F3 70000000 D660C6DA61573420" | sort > "$T/want"
cmp -s "$T/kept" "$T/want" || fail "the override package holds: $(cat "$T/kept")"
rd keys "$O" | sort > "$T/keys"
rd keys "$GAME/Packages/s.package" | grep -E '^(8200F029DB6F938B|D660C6DA61573420) ' | sort > "$T/wantkeys"
[ -s "$T/wantkeys" ] && cmp -s "$T/keys" "$T/wantkeys" || fail "the override's _KEY: $(cat "$T/keys") (want $(cat "$T/wantkeys"))"
"$ANIMFS" encode "$T/jazz.yaml" -o "$T/j.jazz" 2>/dev/null || fail "encode the Jazz"
rd body "$O" 02D5DF13 8200F029DB6F938B | cmp -s - "$T/j.jazz" || fail "the override's Jazz is not the edit"
cmp -s "$T/jazz.yaml" "$P/ewcoughing.jazz.yaml" || fail "the view does not show the Jazz edit"
cmp -s "$T/clip.yaml" "$C" || fail "the view does not show the clip edit"
echo "ok: a Jazz and a CLIP saved: MODDIR's package holds only them, original keys and names"

# a MOTN in a PKS in an AFS: the whole rebuilt AFS in MODDIR
cp "$T/SPK_WARM.yaml" "$VIEW/HUMANS.AFS/SYNA.PKS/M_SYNB.MOTN.yaml" || fail "the nested save: $(cat "$VIEW/.animfs/errors")"
cmp -s "$MOD/HUMANS.AFS" "$S/syn_afs_pks_edit.AFS" || fail "MODDIR's AFS is not the edited one"
echo "ok: a MOTN in a PKS in an AFS: the rebuilt AFS is copied up"

# new files, a folder, a rename: in MODDIR
mkdir "$VIEW/newdir" || fail "mkdir"
echo hello > "$VIEW/newdir/readme.txt" || fail "a new file"
cp "$VIEW/anims/phys808__shared_bow_combat_cbt_std_reload_bow.animation.yaml" "$VIEW/anims/mine.animation.yaml" ||
  fail "a new view: $(cat "$VIEW/.animfs/errors")"
mv "$VIEW/newdir/readme.txt" "$VIEW/newdir/README" || fail "rename a MODDIR file"
[ -f "$MOD/newdir/README" ] && [ ! -e "$MOD/newdir/readme.txt" ] || fail "the rename: $(mod_files)"
[ -f "$MOD/anims/mine.animation" ] || fail "the new view's binary is not in MODDIR: $(mod_files)"
echo "ok: new files, folders and renames happen in MODDIR"

# a GAME file is never removed or renamed: EROFS with a line in .animfs/errors
out=$(rm "$VIEW/anims/phys808__shared_bow_combat_cbt_std_reload_bow.animation.yaml" 2>&1) &&
  fail "a GAME file was removed"
echo "$out" | grep -q "Read-only file system" || fail "rm of a GAME file: '$out' (want EROFS)"
grep -q "never removed or renamed with --overlay" "$VIEW/.animfs/errors" ||
  fail "no line in .animfs/errors: $(cat "$VIEW/.animfs/errors")"
mv "$VIEW/anims/phys808__shared_bow_combat_cbt_std_reload_bow.animation.yaml" "$VIEW/anims/x.animation.yaml" 2>/dev/null &&
  fail "a GAME file was renamed"
rm "$P/ewsneeze.jazz.yaml" 2>/dev/null && fail "a GAME package's member was removed"
echo "ok: GAME's files are not removed or renamed (EROFS, said in .animfs/errors)"

want="./HUMANS.AFS ./Packages/s.package ./anims/mine.animation ./anims/$d ./newdir/README "
[ "$(mod_files)" = "$want" ] || fail "MODDIR holds: $(mod_files) (want $want)"
sums | cmp -s - "$T/game.sums" || fail "GAME changed"
(cd "$VIEW" && find . -path ./.animfs -prune -o -type f -print0 | sort -z | xargs -0 sha256sum) > "$T/view.sums"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: GAME unchanged, MODDIR holds exactly the mod"

# what the mod changes, and the YAML diff of each change
"$ANIMFS" overlay status "$GAME" "$MOD" > "$T/status" || fail "overlay status: $(cat "$T/status")"
printf '%-8s %s\n' changed HUMANS.AFS/SYNA.PKS/M_SYNB.MOTN changed Packages/s.package/c_buff_dazed_x.clip \
  changed Packages/s.package/ewcoughing.jazz new anims/mine.animation changed "anims/$d" \
  new newdir/README | sort > "$T/want"
grep -v '^install ' "$T/status" | sort | cmp -s - "$T/want" || fail "overlay status says: $(cat "$T/status")"
# the override package goes under a name of its own (tests/cli/overlay_encode.sh: the rule)
grep -q '^install  Packages/s.package -> Overrides/Packages/s.override.package (' "$T/status" ||
  fail "overlay status does not say where the override goes: $(cat "$T/status")"
"$ANIMFS" overlay diff "$GAME" "$MOD" > "$T/diff" || fail "overlay diff failed"
grep -qx -- "--- a/anims/$d" "$T/diff" && grep -qx -- "+++ b/anims/$d" "$T/diff" &&
  grep -qE -- "^-length: $len( |\$)" "$T/diff" && grep -qE -- '^\+length: 7.25( |$)' "$T/diff" ||
  fail "the diff of the Diesel edit: $(grep -A12 -- "--- a/anims/$d" "$T/diff")"
grep -qx -- "+++ b/Packages/s.package/ewcoughing.jazz" "$T/diff" && grep -qE -- '^\+ +speed: 1.5$' "$T/diff" ||
  fail "the diff of the Jazz edit: $(grep -A12 'ewcoughing' "$T/diff")"
[ "$(grep -c '^+++ b/' "$T/diff")" = 5 ] || fail "not one diff per change (README has no YAML): $(grep '^+++' "$T/diff")"
[ "$(grep -c '^--- /dev/null' "$T/diff")" = 1 ] || fail "the new view is not diffed against nothing"
echo "ok: overlay status and diff"

# a remount shows the same view
ov_mount
(cd "$VIEW" && find . -path ./.animfs -prune -o -type f -print0 | sort -z | xargs -0 sha256sum) |
  cmp -s - "$T/view.sums" || fail "the remount shows another view"
# removing MODDIR's copy shows GAME's again
rm "$VIEW/anims/$d.yaml" || fail "rm of the MODDIR copy"
[ -f "$VIEW/anims/$d.yaml" ] || fail "GAME's view is not shown again"
[ "$(sed -n 's/^length: *\([^ ]*\).*/\1/p' "$VIEW/anims/$d.yaml")" = "$len" ] || fail "not GAME's length again"
[ ! -e "$MOD/anims/$d" ] || fail "MODDIR's copy is still there"
echo "ok: a remount shows the same; removing MODDIR's copy shows GAME's again"
# a revert of the package edits: the override loses that resource, then is gone
cp "$T/jazz.orig" "$P/ewcoughing.jazz.yaml" || fail "revert the Jazz: $(cat "$VIEW/.animfs/errors")"
rd diff "$GAME/Packages/s.package" "$O" | grep -v '^removed ' | grep -v '^order ok$' | sort > "$T/kept"
printf '%s\n' "changed 0166038C 00000000 0000000000000000" "changed 6B20C4F3 70000000 D660C6DA61573420" > "$T/want"
cmp -s "$T/kept" "$T/want" || fail "after the Jazz's revert the override holds: $(cat "$T/kept")"
cmp -s "$T/jazz.orig" "$P/ewcoughing.jazz.yaml" || fail "the view does not show GAME's Jazz again"
cp "$T/clip.orig" "$P/c_buff_dazed_x.clip.yaml" || fail "revert the clip: $(cat "$VIEW/.animfs/errors")"
[ ! -e "$O" ] || fail "nothing differs from GAME's package, but MODDIR still has one"
cmp -s "$T/clip.orig" "$P/c_buff_dazed_x.clip.yaml" || fail "the view does not show GAME's clip again"
echo "ok: reverting the package's edits leaves no override package"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
sums | cmp -s - "$T/game.sums" || fail "GAME changed"
echo "ok: overlay"
