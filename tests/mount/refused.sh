# Every editor shows a refused save and keeps the buffer modified: vim and neovim
# (headless), emacs and nano (interactive, in tmux), and a VS Code-style writer (node:
# open, write, fsync, close). Each types a value the codec refuses ('abc' for a
# length) and saves; the backing binary must stay byte for byte as it was.
# A refused document is EIO at fsync (emacs ignores EINVAL there: "fsync is not
# supported") and EINVAL at close, and every later close of that descriptor says so
# again until it changes (emacs 28 with a backup, told only at fsync, says "Write error:
# No such file or directory": the close must fail too). A line leaves .animfs/errors when a later save of its file
# succeeds or the file is removed, not when an editor puts its backup back (emacs).
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/walk.animation" || fail "encode"
cp "$GAME/walk.animation" "$T/orig"
mount_view_fg
f=$VIEW/walk.animation.yaml
line=$(grep -n '^length:' "$f" | cut -d: -f1)
unchanged() { cmp -s "$T/orig" "$GAME/walk.animation" || fail "$1: the binary changed"; }
tried=0

for ed in vim nvim; do
  command -v $ed >/dev/null || { echo "note: $ed missing, not tried"; continue; }
  rm -f "$T/$ed.out"
  $ed -N -u NONE -i NONE -n -es -c '%s/^length: .*/length: abc/' -c 'silent! w' \
    -c "redir! > $T/$ed.out" -c 'echo v:errmsg' -c 'echo &modified' -c 'redir END' -c 'qa!' "$f"
  out=$(cat "$T/$ed.out")
  echo "$ed: $(echo $out)"
  echo "$out" | grep -q 'E667\|E512\|E212' || fail "$ed did not report the refused save: $out"
  [ "$(echo "$out" | tail -1)" = 1 ] || fail "$ed: the buffer is not modified after a refused save"
  unchanged $ed
  tried=$((tried + 1))
done
# vim renaming the view to its backup (backupcopy=no; vim makes no backup under /tmp by
# default) puts the backup back when refused: the refusal stays said
if command -v vim >/dev/null; then
  rm -f "$T/vimbk.out"
  vim -N -u NONE -i NONE -n -es -c 'set backupskip= backupcopy=no' -c '%s/^length: .*/length: abc/' \
    -c 'silent! w' -c "redir! > $T/vimbk.out" -c 'echo v:errmsg' -c 'echo &modified' -c 'redir END' -c 'qa!' "$f"
  out=$(cat "$T/vimbk.out")
  echo "vim (backupcopy=no): $(echo $out)"
  echo "$out" | grep -q 'E667\|E512' && [ "$(echo "$out" | tail -1)" = 1 ] ||
    fail "vim (backupcopy=no) did not report the refused save: $out"
  unchanged "vim (backupcopy=no)"
  grep -q "walk.animation.yaml:$line:[0-9]*: length: 'abc'" "$VIEW/.animfs/errors" ||
    fail "vim: the line went when vim put its backup back: $(cat "$VIEW/.animfs/errors")"
fi

# ... and on screen, in tmux, as a user runs them. Outside /tmp (backupskip= here) both
# make a backup and put it back after the refused close, so the refusal is the whole
# message: no "Original file may be lost" (vim and neovim print that after any failed
# write they have no backup of: under /tmp, or with 'nowritebackup'). The game file is
# untouched either way.
if command -v tmux >/dev/null; then
  for ed in vim nvim; do
    command -v $ed >/dev/null || continue
    printf '%s -N -u NONE -i NONE -n -c "set backupskip=" "%s"\n' $ed "$f" > "$T/run-$ed"
    tmux new-session -d -s "af$ed" -x 200 -y 50 "sh '$T/run-$ed'"
    trap "tmux kill-session -t af$ed 2>/dev/null; cleanup" EXIT
    wait_for "af$ed" 'walk.animation.yaml' || fail "$ed did not come up"
    tmux send-keys -t "af$ed" ':%s/^length: .*/length: abc/' Enter
    tmux send-keys -t "af$ed" ':w' Enter
    wait_for "af$ed" 'E[0-9]*:' || fail "$ed (tmux) did not report the refused save"
    screen=$(tmux capture-pane -t "af$ed" -p)
    said=$(echo "$screen" | grep -o 'E[0-9]*:.*' | head -1)
    echo "$ed (tmux): $said"
    echo "$screen" | grep -q 'may be lost' && fail "$ed (tmux) warns of data loss: $screen"
    case $ed in
    vim) [ "$said" = "E512: Close failed" ] || fail "vim (tmux) said '$said'" ;;
    *) [ "$said" = "E512: Close failed: invalid argument" ] || fail "nvim (tmux) said '$said'" ;;
    esac
    tmux kill-session -t "af$ed"
    unchanged "$ed (tmux)"
    rm -f "$f~"
  done
fi

if command -v node >/dev/null; then
  out=$(node -e '
const fs = require("fs"), p = process.argv[1];
const t = fs.readFileSync(p, "utf8").replace(/^length: .*$/m, "length: abc");
const fd = fs.openSync(p, "w"); let errs = [];
fs.writeSync(fd, t);
try { fs.fsyncSync(fd); } catch (e) { errs.push("fsync " + e.code); }
try { fs.closeSync(fd); } catch (e) { errs.push("close " + e.code); }
console.log(errs.join(", ") || "no error");' "$f")
  echo "node writer: $out"
  [ "$out" = "fsync EIO, close EINVAL" ] || fail "node writer: $out"
  unchanged node
  tried=$((tried + 1))
else
  echo "note: node missing, the VS Code-style writer not tried"
fi

if command -v tmux >/dev/null && command -v emacs >/dev/null; then
  rm -f "$T/emacs.out"
  tmux new-session -d -s afemacs -x 160 -y 40 \
    "emacs -nw -Q '$f' --eval '(progn (setq backup-inhibited nil) (goto-char (point-min)) (re-search-forward \"^length: .*\") (replace-match \"length: abc\"))'"
  trap 'tmux kill-session -t afemacs 2>/dev/null; cleanup' EXIT
  wait_for afemacs 'walk.animation.yaml' || fail "emacs did not come up"
  tmux send-keys -t afemacs C-x C-s
  wait_for afemacs 'Write error' || fail "emacs did not report the refused save"
  said=$(tmux capture-pane -t afemacs -p | grep -o 'Write error.*' | head -1)
  tmux send-keys -t afemacs M-: "(write-region (format \"%S\" (buffer-modified-p)) nil \"$T/emacs.out\")" Enter
  for _ in $(seq 50); do [ -s "$T/emacs.out" ] && break; sleep 0.1; done
  [ "$(cat "$T/emacs.out" 2>/dev/null)" = t ] || fail "emacs: the buffer is not modified after a refused save"
  echo "emacs: $said, modified"
  case $said in *"Invalid argument"*) ;; *) fail "emacs said '$said', not the refusal's EINVAL";; esac
  tmux kill-session -t afemacs
  unchanged emacs
  # emacs renamed the view to its backup (as it does outside /tmp) and, refused, put the
  # backup back: the refusal stays said
  grep -q "walk.animation.yaml:$line:[0-9]*: length: 'abc'" "$VIEW/.animfs/errors" ||
    fail "emacs: the line went when emacs put its backup back: $(cat "$VIEW/.animfs/errors")"
  rm -f "$f~"
  tried=$((tried + 1))
else
  echo "note: emacs or tmux missing, emacs not tried"
fi

if command -v tmux >/dev/null && command -v nano >/dev/null; then
  nano_write afnano "$f" "$line" 'length: abc'
  wait_for afnano 'Error writing' || fail "nano did not report the refused save"
  echo "nano: $(tmux capture-pane -t afnano -p | grep -o 'Error writing[^]]*')"
  tmux send-keys -t afnano C-x
  wait_for afnano 'Save modified buffer' || fail "nano: the buffer is not modified after a refused save"
  tmux kill-session -t afnano
  unchanged nano
  tried=$((tried + 1))
else
  echo "note: nano or tmux missing, nano not tried"
fi
[ $tried -ge 1 ] || { echo "SKIP: no editor to try"; exit 77; }
grep -q "length: 'abc'" "$VIEW/.animfs/errors" || fail "the refusals are not in .animfs/errors"
# errors stay current: a later good save of the file takes its lines away
sed 's/^length: *[^ ]*/length: 2.5/' "$f" > "$T/good.yaml" && cat "$T/good.yaml" > "$f" || fail "a good save"
grep -q "walk.animation.yaml" "$VIEW/.animfs/errors" && fail "lines of a file saved since stay in .animfs/errors"
# ... and so does removing the file
cp "$T/orig" "$GAME/gone.animation"
sed 's/^length: *[^ ]*/length: abc/' "$VIEW/gone.animation.yaml" > "$T/bad.yaml"
cat "$T/bad.yaml" > "$VIEW/gone.animation.yaml" 2>/dev/null && fail "a bad save went through"
grep -q "gone.animation.yaml" "$VIEW/.animfs/errors" || fail "no line for the refused save"
rm "$VIEW/gone.animation.yaml" || fail "rm"
grep -q "gone.animation.yaml" "$VIEW/.animfs/errors" && fail "lines of a removed file stay in .animfs/errors"
echo "ok: errors stay current"
"$EXPECT_ANIMFS" umount "$VIEW" >/dev/null || fail "umount"
check_daemon
echo "refused: ok ($tried editors)"
