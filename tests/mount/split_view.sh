# Issue 29, part 7 in the mount: `mount --split` shows each view a format can split as
# a folder under the view's name holding what `animfs decode --split` writes (the
# same names, byte for byte, the modelines one folder further from .animfs/schema).
# A part saved by vim, sed -i, nano or a VS Code-style writer (write, fsync, close)
# saves the whole binary, which is then what `animfs encode DIR` gives for the same
# edited folder; a broken part is refused at its own line:col in .animfs/errors, the
# binary unchanged; parts cannot be added or renamed (EPERM and a line; a removed part
# is only hidden until written again: mount/split_tools);
# editors' droppings in the folder go to the scratch area and survive a remount; the
# folder and its parts obey the binary's mode (another user: EACCES on a 0600 one).
# The large sample: mount/split_view_big.
. "$(dirname "$0")/common.inc"
. "$(dirname "$0")/multiuser.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
for y in "$src"/examples/*.yaml; do
  "$EXPECT_ANIMFS" encode "$y" -o "$GAME/$(basename "$y" .yaml)" 2>/dev/null || fail "encode $(basename "$y")"
done
chmod 644 "$GAME"/*
for bad in --split-over=abc --split-over=-1 --split-over=1T; do
  msg=$("$ANIMFS" mount "$GAME" "$VIEW" "$bad" 2>&1); rc=$?
  [ $rc = 2 ] && echo "$msg" | grep -q "split-over wants a size" || fail "$bad: exit $rc, $msg"
done
mount_view_fg --split -o allow_other
errors() { cat "$VIEW/.animfs/errors"; }

# 1. Every view: a folder equal to decode --split (diff -r), or, when its format does
# not split, the same one file as without --split.
split=0; mkdir -p "$T/ref"
for b in "$GAME"/*; do
  n=$(basename "$b")
  if "$EXPECT_ANIMFS" decode --schema-ref ../.animfs/schema "$b" --split "$T/ref/$n.yaml" 2>/dev/null; then
    [ -d "$VIEW/$n.yaml" ] || fail "$n.yaml is not a folder"
    diff -r "$T/ref/$n.yaml" "$VIEW/$n.yaml" || fail "$n.yaml differs from decode --split"
    split=$((split + 1))
  else
    [ -f "$VIEW/$n.yaml" ] && view_decode "$b" | cmp -s - "$VIEW/$n.yaml" ||
      fail "$n.yaml (not split) is not its view"
  fi
done
[ $split -ge 4 ] || fail "only $split examples shown split"
echo "listings: $split split views equal decode --split"
# each part names a schema the mount serves
for f in "$VIEW"/walk.animation.yaml/*.yaml; do
  s=$(head -1 "$f" | sed -n 's|^# yaml-language-server: \$schema=\.\./||p')
  [ -s "$VIEW/$s" ] || fail "$(basename "$f"): its schema $s is not served"
done

# 2. Saves. d: the folder; ref: decode --split of the binary as it is, edited the same
# way and put together by encode, must be the bytes the mount saved.
d=$VIEW/walk.animation.yaml
bin=$GAME/walk.animation
part=$(ls "$d" | grep '^objects-.*-Hips.yaml$')
[ -n "$part" ] || fail "no Hips part: $(ls "$d")"
line=$(grep -n '^        - \[' "$d/$part" | sed -n 2p | cut -d: -f1)
same_as_encode() { # same_as_encode WHAT SED-SCRIPT FILE: the binary is encode's
  rm -rf "$T/ed.yaml"
  cp -r "$T/before.yaml" "$T/ed.yaml"
  sed -i "$2" "$T/ed.yaml/$3"
  "$EXPECT_ANIMFS" encode "$T/ed.yaml" -o "$T/ed.animation" || fail "$1: encode of the edited folder"
  cmp -s "$T/ed.animation" "$bin" || fail "$1: the binary is not encode DIR's"
  cmp -s "$T/ed.animation" "$T/before.animation" && fail "$1: the edit did not land"
  echo "$1: lands; the binary is encode DIR's"
}
snapshot() {
  cp "$bin" "$T/before.animation"
  rm -rf "$T/before.yaml"
  "$EXPECT_ANIMFS" decode --schema-ref ../.animfs/schema "$bin" --split "$T/before.yaml" || fail "decode --split"
}
snapshot
vim -N -u NONE -i NONE -n -es -c "${line}s/\[\([-0-9.e]*\), [-0-9.e]*,/[\1, 0.25,/" -c 'wq' "$d/$part" ||
  fail "vim could not save the part"
same_as_encode vim "${line}s/\[\([-0-9.e]*\), [-0-9.e]*,/[\1, 0.25,/" "$part"

snapshot
edit() { echo "${line}s/\[\([-0-9.e]*\), [-0-9.e]*,/[\1, $1,/"; } # the key's x
sed -i "$(edit 0.5)" "$d/$part" || fail "sed -i"
same_as_encode "sed -i" "$(edit 0.5)" "$part"

snapshot # the index is a file of the folder too
sed -i 's/^length: .*/length: 1.5/' "$d/index.yaml" || fail "sed -i of index.yaml"
same_as_encode "sed -i index.yaml" 's/^length: .*/length: 1.5/' index.yaml

snapshot
node -e '
const fs = require("fs"), p = process.argv[1];
const t = fs.readFileSync(p, "utf8").split("\n"); t[process.argv[2] - 1] = t[process.argv[2] - 1].replace(/\[([-0-9.e]*), [-0-9.e]*,/, "[$1, 0.75,");
const fd = fs.openSync(p, "w"); fs.writeSync(fd, t.join("\n")); fs.fsyncSync(fd); fs.closeSync(fd);' "$d/$part" "$line" ||
  fail "the VS Code-style writer could not save the part"
same_as_encode "node writer" "$(edit 0.75)" "$part"

if command -v tmux >/dev/null && command -v nano >/dev/null; then
  snapshot
  nano_write afsplitnano "$d/$part" "$line" "        - [0.25, 1.0, 0.0, 97.5]"
  wait_for afsplitnano 'Wrote' || fail "nano did not save the part"
  tmux send-keys -t afsplitnano C-x
  tmux kill-session -t afsplitnano 2>/dev/null
  same_as_encode nano "${line}s/.*/        - [0.25, 1.0, 0.0, 97.5]/" "$part"
else
  echo "note: nano or tmux missing, nano not tried"
fi

# 3. A broken part: refused at its line:col, the binary unchanged; the editor is told
cp "$bin" "$T/good"
col=$(sed -n "${line}p" "$d/$part" | sed 's/\[\([-0-9.e]*\), /[\1, abc/' | awk '{ print index($0, "abc") }')
out=$(node -e '
const fs = require("fs"), p = process.argv[1];
const t = fs.readFileSync(p, "utf8").split("\n"); t[process.argv[2] - 1] = t[process.argv[2] - 1].replace(/\[([-0-9.e]*), /, "[$1, abc");
const fd = fs.openSync(p, "w"); let errs = [];
fs.writeSync(fd, t.join("\n"));
try { fs.fsyncSync(fd); } catch (e) { errs.push("fsync " + e.code); }
try { fs.closeSync(fd); } catch (e) { errs.push("close " + e.code); }
console.log(errs.join(", ") || "no error");' "$d/$part" "$line")
[ "$out" = "fsync EIO, close EINVAL" ] || fail "a refused part: the writer saw '$out'"
cmp -s "$T/good" "$bin" || fail "a refused part changed the binary"
errors | grep -q " walk.animation.yaml/$part:$line:$col: .*'abc" ||
  fail "the refusal does not name $part:$line:col: $(errors)"
"$ANIMFS" errors "$VIEW" | grep -q "^$VIEW/walk.animation.yaml/$part:$line:" ||
  fail "animfs errors: $("$ANIMFS" errors "$VIEW")"
vim -N -u NONE -i NONE -n -es -c "${line}s/\[\([-0-9.e]*\), /[\1, abc/" -c 'silent! w' -c "redir! > $T/vim.out" \
  -c 'echo v:errmsg' -c 'echo &modified' -c 'redir END' -c 'qa!' "$d/$part" 2>/dev/null
grep -q 'E667\|E512\|E212' "$T/vim.out" || fail "vim did not report a refused part: $(cat "$T/vim.out")"
cmp -s "$T/good" "$bin" || fail "a refused part (vim) changed the binary"
echo "refused: $(errors | grep "$part" | tail -1 | cut -d' ' -f2-)"
# a good save of any file of the folder clears its lines
vim -N -u NONE -i NONE -n -es -c "${line}s/\[\([-0-9.e]*\), [-0-9.e]*,/[\1, 0.5,/" -c 'wq' "$d/$part" ||
  fail "vim could not save the mended part"
errors | grep -q "walk.animation.yaml/" && fail "lines of a saved folder stay: $(errors)"

# A save that renames its own part (the object's name is in the part's name): the
# folder lists the new name at once, and a later save under the old one is refused,
# not lost
out=$(node -e '
const fs = require("fs"), p = process.argv[1], errs = [];
const t = fs.readFileSync(p, "utf8").replace("name: Hips", "name: Hips2");
const fd = fs.openSync(p, "r+");
fs.writeSync(fd, t, 0); fs.ftruncateSync(fd, Buffer.byteLength(t)); fs.fsyncSync(fd);
fs.writeSync(fd, t.replace("name: Hips2", "name: Hips3"), 0);
try { fs.fsyncSync(fd); } catch (e) { errs.push("fsync " + e.code); }
try { fs.closeSync(fd); } catch (e) { errs.push("close " + e.code); }
console.log(errs.join(", ") || "no error");' "$d/$part")
renamed=$(ls "$d" | grep -- '-Hips2.yaml$')
[ "$out" = "fsync EIO, close EINVAL" ] && [ -n "$renamed" ] && [ ! -e "$d/$part" ] ||
  fail "a save under a part's old name: '$out', $(ls "$d")"
errors | grep -q "$part: not saved: $part is not in the folder any more" || fail "no line: $(errors)"
"$EXPECT_ANIMFS" decode "$bin" | grep -q 'name: Hips3' && fail "the save under the old name landed"
sed -i 's/name: Hips2/name: Hips/' "$d/$renamed" && [ -f "$d/$part" ] || fail "renaming back"
echo "a part renamed by its save: the old name refused"

# 4. No part is added, removed or renamed; nothing else is made there: EPERM and a line
refuse() { # refuse WHAT COMMAND...
  local what=$1; shift
  local msg; msg=$("$@" 2>&1) && fail "$what was not refused"
  echo "$msg" | grep -q "Operation not permitted" || fail "$what: not EPERM: $msg"
}
refuse "a new file" sh -c "echo 'x: 1' > '$d/new.yaml'"
refuse "mv of a part" mv "$d/$part" "$d/objects-9999-X.yaml"
refuse "mkdir" mkdir "$d/sub"
refuse "ln -s" ln -s "$part" "$d/link.yaml"
refuse "rmdir" rmdir "$d"
[ -f "$d/$part" ] && [ ! -e "$d/new.yaml" ] && [ ! -e "$d/objects-9999-X.yaml" ] ||
  fail "a refusal changed the folder: $(ls "$d")"
[ "$(errors | grep -c 'split view.s folder holds the files its index.yaml lists')" -ge 5 ] ||
  fail "the refusals are not each in .animfs/errors: $(errors)"
[ -z "$(find "$GAME" -mindepth 1 -not -type f)" ] || fail "something was made in GAME: $(find "$GAME")"

# 5. Droppings are kept aside, and survive a remount
printf 'swap\n' > "$d/.$part.swp" || fail "a swap file"
printf 'backup\n' > "$d/$part~" || fail "a backup"
printf 'probe\n' > "$d/4913" && rm "$d/4913" || fail "vim's probe"
printf 'autosave\n' > "$d/#$part#" || fail "an emacs auto-save"
ls -a "$d" | grep -qx ".$part.swp" || fail "the swap file is not listed"
[ -z "$(find "$GAME" -name "*$part*" -o -name 4913)" ] || fail "a dropping reached GAME: $(find "$GAME")"
[ -f "$(scratch_of)/walk.animation.yaml/.$part.swp" ] || fail "the swap file is not in the scratch area"
"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
mount_view_fg --split -o allow_other
[ "$(cat "$d/.$part.swp")" = swap ] && [ "$(cat "$d/$part~")" = backup ] &&
  [ "$(cat "$d/#$part#")" = autosave ] || fail "droppings did not survive a remount: $(ls -a "$d")"
rm "$d/.$part.swp" "$d/$part~" "$d/#$part#" || fail "droppings are not removable"
echo "droppings: kept aside, there after a remount"

# 6. Another user: the folder and parts obey the binary's mode
as_nobody cat "$d/$part" | cmp -s - "$d/$part" || fail "nobody cannot read a part of a 0644 binary"
chmod 600 "$bin"
msg=$(as_nobody cat "$d/$part" 2>&1) && fail "nobody read a part of a 0600 binary"
echo "$msg" | grep -q "Permission denied" || fail "nobody, 0600: not EACCES: $msg"
msg=$(as_nobody ls "$d" 2>&1) && fail "nobody listed the folder of a 0600 binary"
echo "$msg" | grep -q "Permission denied" || fail "nobody, ls: not EACCES: $msg"
msg=$(as_nobody sh -c "echo x >> '$d/$part'" 2>&1) && fail "nobody wrote a part of a 0600 binary"
cmp -s "$d/$part" "$d/$part" && [ "$(stat -c %a "$d")" = 700 ] && [ "$(stat -c %a "$d/$part")" = 600 ] ||
  fail "modes: folder $(stat -c %a "$d"), part $(stat -c %a "$d/$part")"
chmod 644 "$bin"
echo "another user: EACCES on a 0600 binary's parts"

"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "PASS"
