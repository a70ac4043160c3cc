# mount --overlay: a view of GAME's file shows GAME's mode (and its owner's write: a save
# lands in MODDIR), never 0666, so an editor that gives its new file the mode it saw
# (vim) makes no world-writable file in MODDIR. vim, nano and emacs save a view and a
# plain file under umask 022 and 077; every file they leave in MODDIR has GAME's mode
# (a copy-up keeps it, as any change of a file does) or, when new, 0666 less the umask.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
MOD=$T/mod
mkdir -p "$MOD"
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$T/walk.animation" || fail "encode"
mount_view_fg --overlay "$MOD"
tried=""
for um in 022 077; do
  for ed in vim nano emacs; do
    command -v $ed >/dev/null || continue
    [ $ed = nano ] && ! command -v tmux >/dev/null && continue
    n=$ed-$um
    cp "$T/walk.animation" "$GAME/$n.animation"
    printf 'hello\n' > "$GAME/$n.txt"
    chmod 644 "$GAME/$n.animation" "$GAME/$n.txt"
    for f in "$n.animation.yaml" "$n.txt"; do
      m=$(stat -c %a "$VIEW/$f")
      [ "$m" = 644 ] || fail "the view of a 644 file $f shows $m"
    done
    for f in "$n.animation.yaml" "$n.txt"; do
      v=$VIEW/$f
      case $ed in
      vim)
        (umask $um && vim -N -u NONE -i NONE -n -es -c 'set backupskip=' \
          -c '%s/^length: .*/length: 2.5/e' -c '%s/^hello$/hi/e' -c 'wq' "$v" </dev/null) ||
          fail "vim under umask $um: $(cat "$VIEW/.animfs/errors")" ;;
      emacs)
        (umask $um && emacs -Q --batch --eval "(progn (find-file \"$v\") (goto-char (point-min))
          (when (re-search-forward \"^length: .*\" nil t) (replace-match \"length: 2.5\"))
          (goto-char (point-min)) (when (re-search-forward \"^hello$\" nil t) (replace-match \"hi\"))
          (save-buffer))" 2>"$T/emacs.err") || fail "emacs under umask $um: $(cat "$T/emacs.err")" ;;
      nano)
        line=$(grep -n '^length:\|^hello$' "$v" | head -1 | cut -d: -f1)
        text=$(sed -n "${line}p" "$v" | sed 's/^length: .*/length: 2.5/; s/^hello$/hi/')
        tmux kill-session -t afnano 2>/dev/null
        nano_write afnano "$v" "$line" "$text"
        wait_for afnano 'Wrote' || fail "nano under umask $um did not write $f"
        tmux kill-session -t afnano ;;
      esac
    done
    # nano runs in tmux, whose shell has the test's umask: its saves are copy-ups only
    [ "$("$ANIMFS" decode "$MOD/$n.animation" | sed -n 's/^length: *\([^ #]*\).*/\1/p')" = 2.5 ] ||
      fail "$ed under umask $um: the save did not land in MODDIR"
    [ "$(cat "$MOD/$n.txt")" = hi ] || fail "$ed under umask $um: the plain file did not land"
    tried="$tried $n"
  done
done
[ -n "$tried" ] || { echo "SKIP: no editor to try"; exit 77; }
# a new file made under each umask
(umask 022 && echo new > "$VIEW/new-022.txt") && (umask 077 && echo new > "$VIEW/new-077.txt") ||
  fail "new files"
[ "$(stat -c %a "$MOD/new-022.txt")" = 644 ] && [ "$(stat -c %a "$MOD/new-077.txt")" = 600 ] ||
  fail "new files' modes: $(stat -c '%a %n' "$MOD"/new-*)"
ls -la "$MOD"
wide=$(find "$MOD" -type f -perm /022 -printf '%m %p\n')
[ -z "$wide" ] || fail "group- or world-writable files in MODDIR: $wide"
for f in "$MOD"/*-*.animation "$MOD"/*-*.txt; do
  case $f in */new-*) continue ;; esac
  [ "$(stat -c %a "$f")" = 644 ] || fail "$f is $(stat -c %a "$f"), GAME's is 644"
done
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: MODDIR's files have GAME's modes (tried:$tried)"
