# The view behaves like the folder it shows: what a user creates, copies, moves or
# renames there lands in GAME (checked in GAME after unmount and again after a
# remount); only editor droppings stay out of GAME, in a scratch area that outlives
# the mount. Each case is checked byte for byte in GAME.
. "$(dirname "$0")/common.inc"
copy_samples
bin=$(pick_small)
mount_view_fg

# cp of a new binary a codec claims: in GAME under its name, then shown as its view
mkdir "$VIEW/anims" || fail "mkdir"
cp "$GAME/$bin" "$VIEW/anims/new.animation" || fail "cp of a new binary"
cmp -s "$GAME/$bin" "$GAME/anims/new.animation" || fail "new binary not in GAME byte for byte"
ls "$VIEW/anims" | grep -qx new.animation.yaml || fail "new binary not shown as its view: $(ls "$VIEW/anims")"
# and again, a newer version over it: replaced, as in the folder itself
big=$(ls -S "$GAME"/*.animation | head -1)
cp "$big" "$VIEW/anims/new.animation" || fail "cp of a binary over one shown as its view"
cmp -s "$big" "$GAME/anims/new.animation" || fail "the binary was not replaced"
echo "ok: cp of a new binary"

# a plain file, a folder with files
echo credits > "$VIEW/README.md" || fail "new plain file"
mkdir "$VIEW/sub" && echo x > "$VIEW/sub/f.txt" || fail "mkdir + file"
ln -s README.md "$VIEW/readme-link" || fail "a symlink"
echo "ok: plain file, folder, link"

# mv of a whole mod folder from another file system (tmpfs): copy + delete by mv
shm=$(mktemp -d /dev/shm/animfs-mod.XXXXXX 2>/dev/null || mktemp -d)
mkdir -p "$shm/mymod/anims/deep"
cp "$GAME/$bin" "$shm/mymod/anims/deep/mod.animation"
printf 'my mod\n' > "$shm/mymod/mod.txt"
printf '#!/bin/sh\n' > "$shm/mymod/run.sh" && chmod 755 "$shm/mymod/run.sh"
mkdir "$VIEW/Mods"
mv "$shm/mymod" "$VIEW/Mods/" || fail "mv of a mod folder into the view"
rm -rf "$shm"
cmp -s "$GAME/$bin" "$GAME/Mods/mymod/anims/deep/mod.animation" || fail "moved binary not in GAME"
[ "$(cat "$GAME/Mods/mymod/mod.txt")" = "my mod" ] || fail "moved text not in GAME"
[ "$(stat -c %a "$GAME/Mods/mymod/run.sh")" = 755 ] || fail "moved file lost its mode"
ls "$VIEW/Mods/mymod/anims/deep" | grep -qx mod.animation.yaml || fail "moved binary not a view"
echo "ok: mv of a mod folder from tmpfs"

# renames of plain files and folders happen in GAME
echo notes > "$GAME/notes.txt"
ino=$(stat -c %i "$GAME/notes.txt")
mv "$VIEW/notes.txt" "$VIEW/notes.old" || fail "rename of a plain file"
[ "$(cat "$GAME/notes.old")" = notes ] && [ ! -e "$GAME/notes.txt" ] || fail "plain rename not in GAME"
[ "$(stat -c %i "$GAME/notes.old")" = "$ino" ] || fail "plain rename was not a rename (copy?)"
mv "$VIEW/sub" "$VIEW/sub2" || fail "rename of a folder"
[ "$(cat "$GAME/sub2/f.txt")" = x ] && [ ! -e "$GAME/sub" ] || fail "folder rename not in GAME"
mv "$VIEW/Mods/mymod/mod.txt" "$VIEW/mod.txt" || fail "move across folders"
[ -f "$GAME/mod.txt" ] && [ ! -e "$GAME/Mods/mymod/mod.txt" ] || fail "cross-folder move not in GAME"
echo "ok: renames in GAME"

# renames of views: same format renames the binary; anything else is refused
cp "$GAME/$bin" "$GAME/a.animation"
mv "$VIEW/a.animation.yaml" "$VIEW/b.animation.yaml" || fail "view rename"
[ -f "$GAME/b.animation" ] && [ ! -e "$GAME/a.animation" ] || fail "view rename did not move the binary"
for bad in b.PLD.yaml b.txt b.animation.txt; do
  mv "$VIEW/b.animation.yaml" "$VIEW/$bad" 2>/dev/null && fail "view renamed to $bad"
  cmp -s "$GAME/$bin" "$GAME/b.animation" || fail "refused rename to $bad changed the binary"
  [ -e "$GAME/${bad%.yaml}" ] && fail "refused rename to $bad made ${bad%.yaml}"
done
grep -q "not renamed to b.PLD.yaml" "$VIEW/.animfs/errors" || fail "refused rename not in .animfs/errors"
echo "ok: view renames"

# a save goes only into the view's own format: the binary's codec, or a new view's
# extension's; anything else is EINVAL with file:line:col and the binary unchanged
ex=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}/examples
"$EXPECT_ANIMFS" encode "$ex/re3_tiny.PLD.yaml" -o "$GAME/tiny.PLD" || fail "encode of the RE example"
cp "$GAME/tiny.PLD" "$T/tiny.orig"
out=$(cat "$ex/walk.animation.yaml" 2>&1 > "$VIEW/tiny.PLD.yaml") && fail "a Diesel document saved into a PLD"
case "$out" in *"Invalid argument"*) ;; *) fail "cross-format save: wanted EINVAL, got '$out'";; esac
cmp -s "$GAME/tiny.PLD" "$T/tiny.orig" || fail "a refused cross-format save changed the binary"
grep -q "tiny.PLD.yaml:4:9: format diesel-animation, but tiny.PLD is a re-model file" "$VIEW/.animfs/errors" ||
  fail "cross-format save not in .animfs/errors: $(cat "$VIEW/.animfs/errors")"
cp "$ex/walk.animation.yaml" "$VIEW/fresh.PLD.yaml" 2>/dev/null && fail "a Diesel document made a new PLD"
[ -e "$GAME/fresh.PLD" ] && fail "a refused new view made its binary"
mv "$VIEW/tiny.PLD.yaml" "$VIEW/tiny.animation.yaml" 2>/dev/null && fail "a PLD view renamed to a Diesel name"
cmp -s "$GAME/tiny.PLD" "$T/tiny.orig" && [ ! -e "$GAME/tiny.animation" ] || fail "a refused rename changed GAME"
rm "$GAME/tiny.PLD"
echo "ok: saves and renames across formats refused"

# editor droppings: one of each row of the table, never in GAME, kept across mounts
x=b.animation.yaml
droppings=(".$x.swp" ".$x.swo" "$x~" ".$x.un~" 4913 "#$x#" "$x.~3~" "$x.save" "$x.save.1"
  sedAb3xZ9 .goutputstream-K2LQ0Z ".$x.kate-swp" "${x}___jb_tmp___" "${x}___jb_old___"
  ".~lock.$x#")
for d in "${droppings[@]}"; do
  printf 'dropping %s\n' "$d" > "$VIEW/$d" || fail "cannot create dropping $d"
  ls -A "$VIEW" | grep -qxF -- "$d" || fail "dropping $d not listed"
  [ -e "$GAME/$d" ] && fail "dropping $d reached GAME"
done
ln -s "root@host.1234:1" "$VIEW/.#$x" || fail "emacs lock link"
[ -L "$GAME/.#$x" ] && fail "emacs lock link reached GAME"
echo "ok: droppings kept aside"

snapshot() { (cd "$GAME" && find . -path ./.animfs -prune -o -print | sort && # one md5sum for all
  find . -path ./.animfs -prune -o -type f -print0 | sort -z | xargs -0r md5sum); }
want=$(snapshot)
"$ANIMFS" umount "$VIEW" > "$T/umount.out" || fail "umount"
check_daemon
grep -q "16 editor files .* kept in" "$T/umount.out" || fail "umount did not say what it kept: $(cat "$T/umount.out")"
[ "$(snapshot)" = "$want" ] || fail "GAME after unmount differs"
for f in README.md sub2/f.txt Mods/mymod/run.sh; do [ -f "$GAME/$f" ] || fail "$f not in GAME"; done
[ "$(readlink "$GAME/readme-link")" = README.md ] || fail "link not in GAME"
mount_view_fg
[ "$(snapshot)" = "$want" ] || fail "GAME after remount differs"
for d in "${droppings[@]}"; do
  [ "$(cat "$VIEW/$d" 2>/dev/null)" = "dropping $d" ] || fail "dropping $d lost across the remount"
done
[ "$(readlink "$VIEW/.#$x")" = "root@host.1234:1" ] || fail "lock link lost across the remount"
for d in "${droppings[@]}" ".#$x"; do rm "$VIEW/$d" || fail "rm of dropping $d"; done
[ -z "$(find "$(scratch_of)" -mindepth 1 ! -type d)" ] || fail "removed droppings stay in scratch: $(find "$(scratch_of)")"
echo "ok: droppings survive a remount and go when removed"

# vim's recovery after kill -9, across a remount
if command -v vim >/dev/null; then
  v="$VIEW/b.animation.yaml"
  vim -N -u DEFAULTS -i NONE -es -c '%s/^length: *[^ ]*/length: 77.5/' -c preserve \
    -c 'sleep 60' "$v" </dev/null >/dev/null 2>&1 &
  vimpid=$!
  for _ in $(seq 100); do [ -s "$VIEW/.$x.swp" ] && break; sleep 0.1; done
  [ -s "$VIEW/.$x.swp" ] || fail "vim made no swap file"
  sleep 0.5
  kill -9 $vimpid; wait $vimpid 2>/dev/null
  "$ANIMFS" umount "$VIEW" >/dev/null || fail "umount"
  check_daemon
  mount_view_fg
  [ -s "$VIEW/.$x.swp" ] || fail "swap file gone after remount"
  timeout 60 vim -N -u DEFAULTS -i NONE -es -r "$v" -c wq </dev/null >/dev/null 2>&1
  [ "$(length_of "$GAME/b.animation")" = 77.5 ] || fail "vim -r did not recover the edit"
  rm "$VIEW/.$x.swp"
  echo "ok: vim recovery across a remount"
fi
"$ANIMFS" umount "$VIEW" >/dev/null || fail "umount"
check_daemon
echo "ok: faithful"
