# The command line's member save and the mount's are one pipeline (issue 42): the same
# edit of a package's member, saved through the view and by `animfs encode
# X.package/MEMBER` into a copy of the package, gives the same bytes; so does a new
# member added both ways; and a save of the same text again writes neither. The
# package is made here (mkpackage.py).
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
here=$(dirname "$0")
src=${ANIMFS_SOURCE_DIR:-$here/../..}
"$EXPECT_ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$T/wave.jazz" || fail "encode the example"
head -c 300 /dev/urandom > "$T/other.bin"
python3 "$here/mkpackage.py" "$GAME/p.package" "02D5DF13:A52DACFA1A316A6C:$T/wave.jazz" \
  "220557DA:1234:$T/other.bin" || fail "mkpackage"
mkdir "$T/cli"
cp "$GAME/p.package" "$T/cli/p.package"
cp "$GAME/p.package" "$T/orig.package"
m=S3_02D5DF13_00000000_A52DACFA1A316A6C.jazz
mount_view_fg
P=$VIEW/p.package
cp "$P/$m.yaml" "$T/m.yaml" || fail "read the member's view"
sed 's/^default_priority: Normal$/default_priority: NormalPlus/' "$T/m.yaml" > "$T/e.yaml"
cmp -s "$T/m.yaml" "$T/e.yaml" && fail "the edit changed nothing"

# an edit: through the view, and from the command line
cp "$T/e.yaml" "$P/$m.yaml" || fail "the save through the view"
"$ANIMFS" encode "$T/e.yaml" -o "$T/cli/p.package/$m" 2>"$T/err" || fail "the CLI's save: $(cat "$T/err")"
cmp "$GAME/p.package" "$T/cli/p.package" || fail "the two saves of one edit differ"
cmp -s "$GAME/p.package" "$T/orig.package" && fail "the edit changed nothing in the package"

# a new member, both ways
cp "$T/e.yaml" "$P/added.jazz.yaml" || fail "the add through the view"
"$ANIMFS" encode "$T/e.yaml" -o "$T/cli/p.package/added.jazz" 2>"$T/err" || fail "the CLI's add: $(cat "$T/err")"
grep -q "added to the package" "$T/err" || fail "no word of the add: $(cat "$T/err")"
cmp "$GAME/p.package" "$T/cli/p.package" || fail "the two adds of one member differ"

# the same text again: neither writes
cp "$GAME/p.package" "$T/saved.package"
m0=$(stat -c %Y.%i "$T/cli/p.package")
"$ANIMFS" encode "$T/e.yaml" -o "$T/cli/p.package/$m" 2>"$T/err" || fail "unchanged CLI save: $(cat "$T/err")"
grep -q "unchanged; the package was not rewritten" "$T/err" || fail "no 'unchanged': $(cat "$T/err")"
[ "$(stat -c %Y.%i "$T/cli/p.package")" = "$m0" ] || fail "an unchanged CLI save rewrote the package"
i0=$(stat -c %i "$GAME/p.package")
cp "$T/e.yaml" "$P/$m.yaml" || fail "unchanged save through the view"
[ "$(stat -c %i "$GAME/p.package")" = "$i0" ] || fail "an unchanged save through the view rewrote the package"
cmp -s "$GAME/p.package" "$T/saved.package" || fail "an unchanged save changed the package"
echo "ok: one edit and one add give the same bytes from the view and the command line"
