# A container's folder answers like a folder that holds only members: a plain file, a
# folder or a link made in it is refused with EPERM (EROFS where the container is never
# rewritten) and a line in .animfs/errors that says why; a claimed file that does not
# decode is the plain file, and its reason is in .animfs/errors once; and a revert is a
# revert: saving a member's original text again gives back the original bytes.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
here=$(dirname "$0")
"$EXPECT_ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$T/wave.jazz" || fail "encode"
python3 "$here/mkpackage.py" "$GAME/m.package" "02D5DF13:1:$T/wave.jazz" || fail "mkpackage"
cp "$GAME/m.package" "$T/orig.package"
printf 'only text, though the name says animation\n' > "$GAME/x.animation"
mount_view_fg
P=$VIEW/m.package
[ -d "$P" ] || fail "the package is not a folder"
expect_eperm() { # expect_eperm WHAT COMMAND...
  local what=$1 out; shift
  out=$("$@" 2>&1) && fail "$what in a package's folder succeeded"
  echo "$out" | grep -q "Operation not permitted" || fail "$what: '$out' (want EPERM)"
}
expect_eperm "touch" touch "$P/notes.txt"
expect_eperm "mkdir" mkdir "$P/sub"
expect_eperm "ln -s" ln -s wave "$P/lnk"
expect_eperm "cp" cp "$T/wave.jazz" "$P/plain.bin"
[ "$(grep -c 'holds only its' "$VIEW/.animfs/errors")" = 4 ] ||
  fail "not one line each in .animfs/errors: $(cat "$VIEW/.animfs/errors")"
cmp -s "$T/orig.package" "$GAME/m.package" || fail "the package changed"
m0=$(ls "$P" | grep -m1 '\.jazz\.yaml$')
out=$(mv "$P/$m0" "$P/renamed.jazz.yaml" 2>&1) && fail "a member was renamed"
echo "$out" | grep -q "Operation not permitted" || fail "mv of a member: '$out' (want EPERM)"
grep -q "a member of a container keeps its name" "$VIEW/.animfs/errors" ||
  fail "the refused rename of a member does not say why: $(cat "$VIEW/.animfs/errors")"
echo "ok: adds a package cannot hold are EPERM with a line"
# a claimed file that does not decode: the plain file from the first listing on
ls -l "$VIEW" > "$T/ls1" 2>&1 || fail "the first listing failed: $(cat "$T/ls1")"
grep -q ' x\.animation$' "$T/ls1" || fail "the undecodable file is not listed as itself: $(cat "$T/ls1")"
grep -q 'x\.animation\.yaml' "$T/ls1" && fail "the first listing names a view of a file that does not decode"
[ "$(grep -c 'x\.animation' "$VIEW/.animfs/errors")" = 1 ] ||
  fail "the reason it is shown plain is not in .animfs/errors once: $(cat "$VIEW/.animfs/errors")"
echo "ok: an undecodable file's reason is in .animfs/errors once"
# a revert is a revert: an edit, then the original text again
revert() { # revert PACKAGE MEMBER
  local v="$VIEW/$1/$2.yaml"
  cp "$GAME/$1" "$T/before"
  cp "$v" "$T/orig.yaml" || fail "read $v"
  sed '0,/speed: 1.0/s//speed: 1.5/' "$T/orig.yaml" > "$T/edit.yaml"
  cmp -s "$T/orig.yaml" "$T/edit.yaml" && fail "no speed: 1.0 to edit in $2"
  cat "$T/edit.yaml" > "$v" || fail "the edit of $2"
  cmp -s "$T/before" "$GAME/$1" && fail "the edit did not change $1"
  cat "$T/orig.yaml" > "$v" || fail "the revert of $2"
  cmp -s "$T/before" "$GAME/$1" || fail "$1 after the revert is not its original bytes"
  echo "ok: a revert of $2 gives back $1 byte for byte"
}
m=$(ls "$P" | grep -m1 '\.jazz\.yaml$') || fail "no member"
revert m.package "${m%.yaml}"
if [ "$HAVE_SAMPLES" = 1 ] && [ -f "$ANIMFS_SAMPLES/sims3/echoweaver_WarriorCats/WarriorCats.package" ]; then
  cp "$ANIMFS_SAMPLES/sims3/echoweaver_WarriorCats/WarriorCats.package" "$GAME/wc.package"
  chmod u+w "$GAME/wc.package"
  revert wc.package petgardening.jazz # RefPack-compressed by the game's tools
fi
"$EXPECT_ANIMFS" umount "$VIEW" >/dev/null || fail "umount"
check_daemon
echo "container_dirs: ok"
