# Issue 29, part 7 in the mount: the tools a user copies a folder of parts back with,
# and emacs, on a split view's folder (mount --split). A tool that writes its own temp
# file beside a part and renames it onto the part (rsync without --inplace, Python's
# atomic writes, node's write-file-atomic) saves that part; its temp file is kept aside
# with the droppings, and stays there if never renamed. Tools that remove a part before
# writing it anew (install, tar x, git checkout) save it too: a removed part is only
# hidden until it is written again or the folder is listed. After each, the binary is
# what `animfs encode` gives for the same edited folder. A broken part copied back by
# rsync (both ways) or saved by emacs is refused: the binary unchanged, a line naming
# the part and line:col, the editor told (emacs: buffer still modified).
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/walk.animation" || fail "encode"
chmod 644 "$GAME/walk.animation"
mount_view_fg --split
errors() { cat "$VIEW/.animfs/errors"; }
d=$VIEW/walk.animation.yaml
bin=$GAME/walk.animation
[ -d "$d" ] || fail "the view is not a folder"
hips=$(ls "$d" | grep -- '-Hips.yaml$')
leg=$(ls "$d" | grep -- '-LeftUpLeg.yaml$')
[ -n "$hips" ] && [ -n "$leg" ] || fail "no Hips or LeftUpLeg part: $(ls "$d")"
key() { grep -n '^        - \[' "$1" | sed -n 2p | cut -d: -f1; } # a position key's line

# ed: `decode --split` of the binary as it is now, edited; each tool copies (some of) it
# back; the binary must then be encode's of ed, and differ from before.
fresh() {
  cp "$bin" "$T/before"
  rm -rf "$T/ed"
  "$EXPECT_ANIMFS" decode --schema-ref ../.animfs/schema "$bin" --split "$T/ed" || fail "decode --split"
  # times unlike the view's (rsync skips a file of the same size and mtime)
  touch -d 2001-02-03 "$T/ed"/*
}
setx() { # setx PART X: the key's x in ed's PART
  local l; l=$(key "$T/ed/$1")
  sed -i "${l}s/\[\([-0-9.e]*\), [-0-9.e]*,/[\1, $2,/" "$T/ed/$1"
  touch -d 2001-02-04 "$T/ed/$1"
}
lands() { # lands TOOL: the binary is encode's of the edited folder, and new
  "$EXPECT_ANIMFS" encode "$T/ed" -o "$T/ed.animation" || fail "$1: encode of the edited folder"
  cmp -s "$T/ed.animation" "$bin" || fail "$1: the binary is not encode DIR's"
  cmp -s "$T/before" "$bin" && fail "$1: the edit did not land"
  clean "$1"
  echo "$1: lands; the binary is encode DIR's"
}
clean() { # no temp file left in the folder, nothing but the binary in GAME
  local extra; extra=$(ls -A "$d" | grep -vx -f <(cd "$T/ed" && ls -A))
  [ -z "$extra" ] || fail "$1: left in the folder: $extra"
  [ "$(ls -A "$GAME")" = walk.animation ] || fail "$1: GAME holds $(ls -A "$GAME")"
}
tried=()

# 1. rsync -a (temp file .part.XXXXXX, renamed onto the part) and --inplace: two parts
# and the index changed, the rest copied back as they are
x=0
for how in "" " --inplace"; do
  fresh
  x=$((x + 1))
  setx "$hips" "$x.5"
  setx "$leg" "1$x.5"
  sed -i "s/^length: .*/length: 1.$x/" "$T/ed/index.yaml"
  rsync -a $how "$T/ed/" "$d/" || fail "rsync -a$how: exit $?"
  lands "rsync -a$how"
  tried+=("rsync -a$how: saves")
done
# a broken part copied back: refused, the binary unchanged, the part and line:col said
for how in "" " --inplace"; do
  fresh
  l=$(key "$T/ed/$hips")
  sed -i "${l}s/\[\([-0-9.e]*\), /[\1, abc/" "$T/ed/$hips"
  col=$(sed -n "${l}p" "$T/ed/$hips" | awk '{ print index($0, "abc") }')
  touch -d 2001-02-04 "$T/ed/$hips"
  out=$(rsync -a $how "$T/ed/" "$d/" 2>&1) && fail "rsync -a$how of a broken part: exit 0"
  cmp -s "$T/before" "$bin" || fail "rsync -a$how: a broken part changed the binary"
  errors | grep -q " walk.animation.yaml/$hips:$l:$col: .*'abc" ||
    fail "rsync -a$how: no line naming $hips:$l:$col: $(errors)"
  echo "$out" | grep -q "Invalid argument" || fail "rsync -a$how was not told: $out"
  clean "rsync -a$how (refused)"
  echo "rsync -a$how of a broken part: refused at $hips:$l:$col ($(echo "$out" | head -1))"
  tried+=("rsync -a$how of a broken part: refused, the line names $hips:$l:$col")
done
# a broken part and a good one after it (rsync goes on after a refused rename): the good
# one saves, and the broken one's line stays said
fresh
cp "$T/ed/$hips" "$T/hips"
l=$(key "$T/ed/$hips")
sed -i "${l}s/\[\([-0-9.e]*\), /[\1, abc/" "$T/ed/$hips"
touch -d 2001-02-04 "$T/ed/$hips"
setx "$leg" 7.5
rsync -a "$T/ed/" "$d/" 2>/dev/null && fail "rsync -a of a broken and a good part: exit 0"
errors | grep -q " walk.animation.yaml/$hips:$l:[0-9]*: .*'abc" ||
  fail "the broken part's line went with the good part's save: $(errors)"
cp "$T/hips" "$T/ed/$hips"
lands "rsync -a of a broken part and a good one (the good one)"
tried+=("rsync -a of a broken part and a good one: the good one saves, the broken one's line stays")

# 2. One part copied back by each tool
one() { # one TOOL X COMMAND...: ed's Hips with x X copied onto the folder's by COMMAND
  local what=$1 x=$2; shift 2
  fresh
  setx "$hips" "$x"
  "$@" || fail "$what: exit $?"
  lands "$what"
  tried+=("$what: saves")
}
one "cp" 0.25 cp "$T/ed/$hips" "$d/$hips"
one "cp -a" 0.75 cp -a "$T/ed/$hips" "$d/$hips"
one "cp -p" 0.875 cp -p "$T/ed/$hips" "$d/$hips"
one "cp -a of the folder" 1.0 cp -a "$T/ed/." "$d/"
one "install -m 644" 1.25 install -m 644 "$T/ed/$hips" "$d/$hips"
one "tar x" 1.75 sh -c "cd '$T/ed' && tar cf - '$hips' | (cd '$d' && tar xf -)"
one "Python shutil.copy2" 2.0 python3 -c 'import shutil, sys; shutil.copy2(*sys.argv[1:])' "$T/ed/$hips" "$d/$hips"
one "Python shutil.copytree" 2.25 python3 -c \
  'import shutil, sys; shutil.copytree(*sys.argv[1:], dirs_exist_ok=True)' "$T/ed" "$d"
one "Python NamedTemporaryFile + os.replace" 2.5 python3 -c '
import os, sys, tempfile
src, dst = sys.argv[1:]
with tempfile.NamedTemporaryFile("wb", dir=os.path.dirname(dst), delete=False) as f:
    f.write(open(src, "rb").read()); f.flush(); os.fsync(f.fileno())
os.replace(f.name, dst)' "$T/ed/$hips" "$d/$hips"
one "Python PART.tmp + os.replace" 2.75 python3 -c '
import os, sys
src, dst = sys.argv[1:]
with open(dst + ".tmp", "wb") as f: f.write(open(src, "rb").read())
os.replace(dst + ".tmp", dst)' "$T/ed/$hips" "$d/$hips"
one "node write-file-atomic style (PART.<pid><n>)" 3.0 node -e '
const fs = require("fs"), [src, dst] = process.argv.slice(1), tmp = dst + "." + process.pid + "1";
fs.writeFileSync(tmp, fs.readFileSync(src)); fs.renameSync(tmp, dst);' "$T/ed/$hips" "$d/$hips"
# git checkout: a work tree of the folder, a part changed through the mount, checked out
git init -q --bare "$T/git"
g() { git --git-dir="$T/git" --work-tree="$d" -c user.name=t -c user.email=t@t "$@"; }
g add -A && g commit -qm parts || fail "git commit of the folder"
cp "$bin" "$T/committed"
sed -i "$(key "$d/$hips")s/\[\([-0-9.e]*\), [-0-9.e]*,/[\1, 3.5,/" "$d/$hips" || fail "sed -i"
[ "$(g status --short)" = " M $hips" ] || fail "git status: $(g status --short)"
g checkout -- "$hips" || fail "git checkout -- $hips"
cmp -s "$T/committed" "$bin" && [ -z "$(g status --short)" ] ||
  fail "git checkout did not give back the committed part: $(g status --short)"
echo "git checkout: the committed part saved back (the binary as committed)"
tried+=("git checkout of a part: saves")

# 3. What stays refused or aside
# a temp file never renamed stays aside: listed, in the scratch area, never in GAME
printf 'x: 1\n' > "$d/.$hips.Ab12Cd" || fail "a temp file in the folder"
ls -A "$d" | grep -qx ".$hips.Ab12Cd" || fail "the temp file is not listed"
[ -f "$(scratch_of)/walk.animation.yaml/.$hips.Ab12Cd" ] || fail "the temp file is not in the scratch area"
[ "$(ls -A "$GAME")" = walk.animation ] || fail "the temp file reached GAME: $(ls -A "$GAME")"
rm "$d/.$hips.Ab12Cd" || fail "rm of the temp file"
# a new name a part could have is no new part (EPERM, a line), nor is a temp renamed there
msg=$(sh -c "echo 'x: 1' > '$d/objects-0009-X.yaml'" 2>&1) && fail "a new part was made"
echo "$msg" | grep -q "Operation not permitted" || fail "a new part: $msg"
printf 'x: 1\n' > "$d/tmpabc" && msg=$(mv "$d/tmpabc" "$d/objects-0009-X.yaml" 2>&1) &&
  fail "a temp file renamed to a new part name"
echo "$msg" | grep -q "Operation not permitted" || fail "a temp file renamed to a new part: $msg"
rm "$d/tmpabc"
# nor is a part renamed to a temp name (only to an editor's backup name)
msg=$(mv "$d/$hips" "$d/$hips.tmp" 2>&1) && fail "a part renamed to a temp name"
echo "$msg" | grep -q "Operation not permitted" || fail "a part renamed to a temp name: $msg"
# rm of a part: hidden, not removed (a line says so); the binary unchanged; listed again
cp "$bin" "$T/before"
rm "$d/$leg" || fail "rm of a part"
[ -e "$d/$leg" ] && fail "a removed part is still there"
errors | grep -q "walk.animation.yaml/$leg: not removed: .*only hidden" || fail "no line for rm: $(errors)"
ls "$d" | grep -qx "$leg" && [ -f "$d/$leg" ] || fail "a listing does not show a removed part again"
cmp -s "$T/before" "$bin" || fail "rm of a part changed the binary"
# written back with the text it has (install removes it first): the line goes
cp "$d/$leg" "$T/leg" && rm "$d/$leg" && install -m 644 "$T/leg" "$d/$leg" || fail "rm, install"
errors | grep -q "walk.animation.yaml/$leg: not removed" && fail "written back, the rm line stays: $(errors)"
cmp -s "$T/before" "$bin" && [ -f "$d/$leg" ] || fail "rm and install of the same text changed the binary"
tried+=("rm of a part: hidden until written again or listed, a line; the binary unchanged")
# chmod of the folder: the binary's r and w bits, its x bits kept
chmod 700 "$d" && [ "$(stat -c %a "$bin")" = 600 ] && [ "$(stat -c %a "$d")" = 700 ] ||
  fail "chmod 700 of the folder: binary $(stat -c %a "$bin"), folder $(stat -c %a "$d")"
chmod 755 "$d" && [ "$(stat -c %a "$bin")" = 644 ] || fail "chmod 755 of the folder: $(stat -c %a "$bin")"
echo "refusals and temp files: as said"

# 4. emacs (interactive, in tmux): a good save of a part, then a refused one
if command -v tmux >/dev/null && command -v emacs >/dev/null; then
  emacs_edit() { # emacs_edit SESSION NEWTEXT: the key's x in Hips, then C-x C-s
    # a backup (emacs makes none under /tmp by default): the part renamed
    # to its backup, then written anew
    printf '(setq backup-inhibited nil)\n(goto-char (point-min))\n(forward-line %d)\n(re-search-forward "\\\\[[-0-9.e]*, \\\\([-0-9.e]*\\\\),")\n(replace-match "%s" t t nil 1)\n' \
      "$(($(key "$d/$hips") - 1))" "$2" > "$T/edit.el"
    tmux new-session -d -s "$1" -x 160 -y 40 "emacs -nw -Q '$d/$hips' -l '$T/edit.el'"
    trap "tmux kill-session -t $1 2>/dev/null; cleanup" EXIT
    wait_for "$1" "$hips" || fail "emacs did not come up"
    tmux send-keys -t "$1" C-x C-s
  }
  modified() { # modified SESSION: emacs' buffer-modified-p
    rm -f "$T/emacs.out"
    tmux send-keys -t "$1" M-: "(write-region (format \"%S\" (buffer-modified-p)) nil \"$T/emacs.out\")" Enter
    for _ in $(seq 50); do [ -s "$T/emacs.out" ] && break; sleep 0.1; done
    cat "$T/emacs.out" 2>/dev/null
  }
  fresh
  setx "$hips" 4.5
  emacs_edit afsplitemacs 4.5
  wait_for afsplitemacs 'Wrote' || fail "emacs did not save the part"
  [ "$(modified afsplitemacs)" = nil ] || fail "emacs: the buffer is modified after a good save"
  tmux kill-session -t afsplitemacs
  # emacs renamed the part to its backup and wrote the part anew: the backup is kept
  # aside (a dropping), never in GAME
  [ -f "$d/$hips~" ] && [ -f "$(scratch_of)/walk.animation.yaml/$hips~" ] ||
    fail "emacs' backup is not kept aside: $(ls -A "$d")"
  rm "$d/$hips~"
  lands "emacs"
  tried+=("emacs: saves (its backup $hips~ kept aside)")
  cp "$bin" "$T/before"
  emacs_edit afsplitemacs2 abc
  wait_for afsplitemacs2 'Write error' || fail "emacs did not report the refused part"
  said=$(tmux capture-pane -t afsplitemacs2 -p | grep -o 'Write error.*' | head -1)
  [ "$(modified afsplitemacs2)" = t ] || fail "emacs: the buffer is not modified after a refused save"
  tmux kill-session -t afsplitemacs2
  cmp -s "$T/before" "$bin" || fail "emacs: a refused part changed the binary"
  errors | grep -q " walk.animation.yaml/$hips:$(key "$d/$hips"):[0-9]*: .*'abc" ||
    fail "emacs: no line naming the part: $(errors)"
  [ -f "$d/$hips" ] || fail "emacs: the part is gone after a refused save: $(ls -A "$d")"
  rm -f "$d/$hips~"
  echo "emacs, a broken part: '$said', the buffer modified, the binary unchanged"
  tried+=("emacs of a broken part: '$said', buffer modified, binary unchanged")
else
  echo "note: emacs or tmux missing, emacs not tried"
fi

[ "$(ls -A "$GAME")" = walk.animation ] || fail "GAME holds $(ls -A "$GAME")"
"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
printf 'tried: %s\n' "${tried[@]}"
echo "PASS"
