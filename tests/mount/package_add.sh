# Packages gain and lose resources through the mount (issue 17): cp of a Jazz YAML into
# a package folder adds the resource (type from the extension, group 0, instance FNV-1
# 64 of the name, a _KEY entry naming it); rm of the member view removes it and its
# _KEY entry; editors' save patterns (gedit, sed -i, vim) make new members and edit
# them; a refused add (bad YAML) leaves the package unchanged and logs line:col. An
# independent reader (pkgread.py, written from the spec) checks every other resource is
# byte-identical and the _KEY is right. The package is made here (mkpackage.py).
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
here=$(dirname "$0")
src=${ANIMFS_SOURCE_DIR:-$here/../..}
rd() { python3 "$here/pkgread.py" "$@"; }
"$EXPECT_ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$T/wave.jazz" || fail "encode the example"
inst=$(rd fnv64 wave_hello)
# a _KEY map naming the Jazz, and an opaque resource of another type
python3 - "$T/key.bin" "$inst" <<'PY'
import struct, sys
t = b"wave_hello"
open(sys.argv[1], "wb").write(struct.pack("<IiQI", 1, 1, int(sys.argv[2], 16), len(t)) + t)
PY
head -c 300 /dev/urandom > "$T/other.bin"
python3 "$here/mkpackage.py" "$GAME/mod.package" "0166038C:0:$T/key.bin" "02D5DF13:$inst:$T/wave.jazz" \
  "220557DA:1234:$T/other.bin" || fail "mkpackage"
# header offset 40 is 0 in Sims 3 packages (spec 6.1), as a rewrite writes it
printf '\0\0\0\0' | dd of="$GAME/mod.package" bs=1 seek=40 conv=notrunc status=none
cp "$GAME/mod.package" "$T/orig.package"
python3 "$here/mkpackage.py" "$GAME/other.package" "220557DA:99:$T/other.bin" || fail "mkpackage other"
pkg=$GAME/mod.package
mount_view_fg
P=$VIEW/mod.package
[ "$(ls "$P" | tr '\n' ' ')" = "index.yaml wave_hello.jazz.yaml " ] || fail "listing: $(ls "$P")"
cp "$P/wave_hello.jazz.yaml" "$T/w.yaml"

# add: cp of a YAML file under a new name
cp "$T/w.yaml" "$P/mywave.jazz.yaml" || fail "cp of a new Jazz into the package"
[ "$(ls "$P" | tr '\n' ' ')" = "index.yaml mywave.jazz.yaml wave_hello.jazz.yaml " ] || fail "listing after add: $(ls "$P")"
new=$(rd fnv64 mywave)
rd diff "$T/orig.package" "$pkg" > "$T/diff"
[ "$(cat "$T/diff")" = "changed 0166038C 00000000 0000000000000000
same 02D5DF13 00000000 $inst
same 220557DA 00000000 0000000000001234
added 02D5DF13 00000000 $new
order ok" ] || fail "after the add: $(cat "$T/diff")"
[ "$(rd keys "$pkg")" = "$inst wave_hello
$new mywave" ] || fail "_KEY after the add: $(rd keys "$pkg")"
rd body "$pkg" 02D5DF13 "$new" | cmp -s - "$T/wave.jazz" || fail "the new resource is not the encoded YAML"
grep -q "name: mywave.jazz" "$P/index.yaml" || fail "index.yaml does not name the new member"

# rm: the package is the original again, byte for byte (all records stored raw here)
rm "$P/mywave.jazz.yaml" || fail "rm of the new member"
[ "$(ls "$P" | tr '\n' ' ')" = "index.yaml wave_hello.jazz.yaml " ] || fail "listing after rm: $(ls "$P")"
cmp -s "$pkg" "$T/orig.package" || fail "add then rm is not the original: $(rd diff "$T/orig.package" "$pkg")"

# rm of a member that was there: its record and its _KEY entry go, nothing else
rm "$P/wave_hello.jazz.yaml" || fail "rm of the original member"
[ "$(rd diff "$T/orig.package" "$pkg" | tr '\n' ';')" = "changed 0166038C 00000000 0000000000000000;same 220557DA 00000000 0000000000001234;removed 02D5DF13 00000000 $inst;order ok;" ] ||
  fail "after rm: $(rd diff "$T/orig.package" "$pkg")"
[ -z "$(rd keys "$pkg")" ] || fail "_KEY after rm: $(rd keys "$pkg")"
cp "$T/w.yaml" "$P/wave_hello.jazz.yaml" || fail "putting it back"
# a new resource is appended (index and data) and stored RefPack-compressed (spec 6.4)
[ "$(rd diff "$T/orig.package" "$pkg" | tr '\n' ';')" = "same 0166038C 00000000 0000000000000000;same 220557DA 00000000 0000000000001234;body 02D5DF13 00000000 $inst;order changed;" ] ||
  fail "after putting it back: $(rd diff "$T/orig.package" "$pkg")"
cp "$pkg" "$T/back.package"

# a refused add: the package stays as it was, the reason at its line:col
sed 's/^format: sims3-jazz$/format: sims3-jazz\nbogus_key: 1/' "$T/w.yaml" > "$T/bad.yaml"
cmp -s "$T/bad.yaml" "$T/w.yaml" && fail "the bad document is not bad"
if cp "$T/bad.yaml" "$P/broken.jazz.yaml" 2> "$T/cp.err"; then fail "a bad document was added"; fi
grep -q "Invalid argument" "$T/cp.err" || fail "the refused add did not say EINVAL: $(cat "$T/cp.err")"
cmp -s "$pkg" "$T/back.package" || fail "a refused add changed the package"
grep -q "mod.package/broken.jazz.yaml:[0-9]*:[0-9]*: .*bogus_key" "$VIEW/.animfs/errors" ||
  fail ".animfs/errors: $(cat "$VIEW/.animfs/errors")"
ls "$P" | grep -q broken && fail "the refused member is listed: $(ls "$P")"
# a name the package cannot hold, and a document of another format for the extension
if cp "$T/w.yaml" "$P/.hidden.jazz.yaml" 2>/dev/null; then :; fi
cmp -s "$pkg" "$T/back.package" || fail "a hidden name became a resource"

# editors: gedit and sed -i write a temp file and rename it over a new name; then vim
# (backupcopy=yes: probe, swap file, write in place; no: rename the old file away) and
# emacs (rename to a backup) edit the new member
i=0
for ed in gedit sed; do
  i=$((i + 1))
  python3 "$here/editors.py" "$ed" "$P/ed$i.jazz.yaml" "$T/w.yaml" || fail "$ed: a new member"
  rd keys "$pkg" | grep -q " ed$i\$" || fail "$ed: no _KEY entry for ed$i"
done
[ "$(ls "$P" | tr '\n' ' ')" = "ed1.jazz.yaml ed2.jazz.yaml index.yaml wave_hello.jazz.yaml " ] ||
  fail "listing after the editors: $(ls "$P")"
w=4
for ed in vim-yes vim-no emacs; do
  w=$((w + 1))
  sed "s/{weight: 3.0, /{weight: $w.5, /" "$T/w.yaml" > "$T/e.yaml"
  cmp -s "$T/e.yaml" "$T/w.yaml" && fail "the edit for $ed changes nothing"
  python3 "$here/editors.py" "$ed" "$P/ed1.jazz.yaml" "$T/e.yaml" || fail "$ed: editing a new member"
  grep -q "{weight: $w.5, " "$P/ed1.jazz.yaml" || fail "$ed: the edit is not in the view"
done
# emacs' backup stays, an editor's file beside the members (scratch), no resource
[ "$(ls "$P" | tr '\n' ' ')" = "ed1.jazz.yaml ed1.jazz.yaml~ ed2.jazz.yaml index.yaml wave_hello.jazz.yaml " ] ||
  fail "listing after the edits: $(ls "$P")"
n=$(rd diff "$T/back.package" "$pkg" | grep -c '^added')
[ "$n" = 2 ] || fail "the editors added $n resources: $(rd diff "$T/back.package" "$pkg")"
rd diff "$T/back.package" "$pkg" | grep -q '^same 220557DA' || fail "the other resource changed"

# the modder's way: copy a Jazz from one package folder into another
cp "$P/ed2.jazz.yaml" "$VIEW/other.package/" || fail "cp from one package into another"
[ "$(ls "$VIEW/other.package" | tr '\n' ' ')" = "ed2.jazz.yaml index.yaml " ] || fail "other.package: $(ls "$VIEW/other.package")"
rd body "$GAME/other.package" 02D5DF13 "$(rd fnv64 ed2)" | cmp -s - <(rd body "$pkg" 02D5DF13 "$(rd fnv64 ed2)") ||
  fail "the copied Jazz is not the same resource"
[ "$(rd keys "$GAME/other.package")" = "$(rd fnv64 ed2) ed2" ] || fail "other.package's new _KEY: $(rd keys "$GAME/other.package")"
cmp -s "$VIEW/other.package/ed2.jazz.yaml" "$P/ed2.jazz.yaml" || fail "the copy's view differs"

"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: packages gain and lose resources through the mount"
