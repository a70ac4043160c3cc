# A Sims 3 package through the mount: X.package is a folder with index.yaml and one
# YAML per Jazz; an unchanged save writes nothing; a bad document fails with EINVAL,
# leaves the package as it was and lands in .animfs/errors; a sed -i edit rewrites the
# package; damaged and non-DBPF packages pass through, their reason logged once. After
# unmounting, the package is checked independently (tests/cli/pkg_check.inc).
. "$(dirname "$0")/common.inc"
need_samples
. "$(dirname "$0")/../cli/pkg_check.inc"
src="$ANIMFS_SAMPLES/sims3/echoweaver_WarriorCats"
[ -f "$src/WarriorCats.package" ] || { echo "SKIP: ../shared/samples not found"; exit 77; }
cp -r "$src" "$GAME/wc" && chmod -R u+w "$GAME/wc"
head -c 80000 "$src/WarriorCats.package" > "$GAME/cut.package"
printf 'not a package\n' > "$GAME/notes.package"
pkg="$GAME/wc/WarriorCats.package"
cp "$pkg" "$T/orig.package"
mount_view_fg
V="$VIEW/wc/WarriorCats.package"

# the folder and what it holds
[ -d "$V" ] || fail "the package is not a folder"
[ "$(ls "$V" | tr '\n' ' ')" = "index.yaml petgardening.jazz.yaml " ] || fail "listing: $(ls "$V")"
"$ANIMFS" decode --schema-ref none "$pkg/index.yaml" > "$T/index.yaml"
cmp -s "$V/index.yaml" "$T/index.yaml" || fail "index.yaml differs from decode"
view_decode "$pkg/petgardening.jazz" > "$T/pg.yaml"
cmp -s "$V/petgardening.jazz.yaml" "$T/pg.yaml" || fail "the view differs from decode"
[ "$(stat -c %s "$V/petgardening.jazz.yaml")" = "$(stat -c %s "$T/pg.yaml")" ] || fail "st_size"
{ echo x > "$V/index.yaml"; } 2>/dev/null && fail "index.yaml is writable"
mv "$V/index.yaml" "$V/other.yaml" 2>/dev/null && fail "index.yaml could be renamed"
[ -f "$V/index.yaml" ] || fail "index.yaml is gone"
chmod 640 "$V/petgardening.jazz.yaml" && [ "$(stat -c %a "$pkg")" = 640 ] || fail "chmod of a member is not the package's"
chmod 644 "$V/petgardening.jazz.yaml"
mv "$V" "$VIEW/wc/Renamed.package" && [ -f "$GAME/wc/Renamed.package" ] || fail "renaming the folder"
mv "$VIEW/wc/Renamed.package" "$V" && [ -f "$pkg" ] || fail "renaming the folder back"
cmp -s "$pkg" "$T/orig.package" || fail "the package changed without a save"

# damaged and non-DBPF packages are the plain files they are
[ -f "$VIEW/cut.package" ] && cmp -s "$VIEW/cut.package" "$GAME/cut.package" || fail "damaged package not passed through"
[ -f "$VIEW/notes.package" ] && cmp -s "$VIEW/notes.package" "$GAME/notes.package" || fail "text .package not passed through"
stat "$VIEW/cut.package" > /dev/null; ls -l "$VIEW" > /dev/null

# an unchanged save writes nothing (the package keeps its inode and mtime)
before=$(stat -c '%i %Y.%y' "$pkg")
cp "$T/pg.yaml" "$V/petgardening.jazz.yaml" || fail "unchanged save failed"
[ "$(stat -c '%i %Y.%y' "$pkg")" = "$before" ] || fail "an unchanged save rewrote the package"

# a bad document: EINVAL, package untouched, the reason in .animfs/errors
sed 's/^  - name: Loop Water$/  - name: Loop Sprinkle/' "$T/pg.yaml" > "$T/bad.yaml"
if cp "$T/bad.yaml" "$V/petgardening.jazz.yaml" 2> "$T/cp.err"; then fail "a dangling reference was saved"; fi
grep -q "Invalid argument" "$T/cp.err" || fail "the refused save did not say EINVAL: $(cat "$T/cp.err")"
cmp -s "$pkg" "$T/orig.package" || fail "a refused save changed the package"
grep -q "wc/WarriorCats.package/petgardening.jazz.yaml:[0-9]*:[0-9]*: states\[7\].transitions\[0\]: dangling reference" \
  "$VIEW/.animfs/errors" || fail ".animfs/errors: $(cat "$VIEW/.animfs/errors")"
cmp -s "$V/petgardening.jazz.yaml" "$T/pg.yaml" || fail "after a refused save the view is not the package's"

# the edit: rename a state where it lives
sed -i 's/Loop Water/Loop Sprinkle/g' "$V/petgardening.jazz.yaml" || fail "sed -i through the view"
cmp -s "$pkg" "$T/orig.package" && fail "the edit did not reach the package"
grep -q "^  - name: $(fnv32 "Loop Sprinkle")\$" "$V/petgardening.jazz.yaml" || fail "the view does not show the edit"
ls -a "$GAME/wc" | grep -qv '^\(\.\|\.\.\|WarriorCats.package\|S3_.*\)$' && fail "junk in GAME: $(ls -a "$GAME/wc")"

"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
[ "$(grep -c 'cut.package: byte 0x40: the index at' "$T/daemon.log")" = 1 ] ||
  fail "the damaged package's reason is not logged exactly once: $(cat "$T/daemon.log")"
grep -q "notes.package: byte 0x0: not a DBPF package" "$T/daemon.log" || fail "notes.package not logged"

# independent check of the package after unmounting
res=$(compare_packages "$T/orig.package" "$pkg" "$T")
[ "$res" = "37 1" ] || fail "independent comparison: $res"
view_decode "$pkg/petgardening.jazz" > "$T/after.yaml" || fail "decode after the edit"
[ "$(diff "$T/pg.yaml" "$T/after.yaml" | grep -c '^>')" = 3 ] || fail "the edit touched more than 3 lines"
grep -q "Loop Water" "$T/after.yaml" && fail "'Loop Water' is still in the package"
echo "package through the mount: ok"
