# `animfs errors [VIEW]`: the mount's refused saves, newest first, as path:line:col: message
# with the path as an editor started here opens it (VIEW joined with the view's path, or
# relative to the current folder inside the mount), and vim's quickfix jumps to the spot:
# the save just refused, in the buffer that holds it (no E37). `animfs errors --clear
# [PATH]` forgets the caller's lines about PATH, or all of the mount's.
. "$(dirname "$0")/common.inc"
copy_samples
mkdir -p "$GAME/anims"
bin=$(pick_small)
mv "$GAME/$bin" "$GAME/anims/$bin"
other=$(ls "$GAME"/*.animation | head -1 | xargs basename)
mount_view
"$ANIMFS" errors "$VIEW" > "$T/none" || fail "errors on a mount without refused saves: exit $?"
[ -s "$T/none" ] && fail "errors printed lines before any refused save: $(cat "$T/none")"
# two refused saves: a letter for a number, then a second file with an unknown format
v="$VIEW/anims/$bin.yaml"
awk '!done && /^        - \[/ { sub(/\[[^,]*, [^,]*/, "&x"); done = 1 } { print }' "$v" > "$T/bad.yaml"
want_line=$(grep -n '[0-9]x,' "$T/bad.yaml" | head -1 | cut -d: -f1)
cp "$T/bad.yaml" "$v" 2>/dev/null && fail "the bad save was taken"
printf 'format: no-such-format\n' > "$T/bad2.yaml"
cp "$T/bad2.yaml" "$VIEW/$other.yaml" 2>/dev/null && fail "the second bad save was taken"
"$ANIMFS" errors "$VIEW" > "$T/out" || fail "animfs errors exited $?"
cat "$T/out"
[ "$(wc -l < "$T/out")" = 2 ] || fail "expected 2 lines"
tail -1 "$T/out" | grep -q "^$VIEW/anims/$bin.yaml:$want_line:[0-9]*: " || fail "last line is not $VIEW/anims/$bin.yaml:$want_line:col: message"
head -1 "$T/out" | grep -q "^$VIEW/$other.yaml:1:9: unknown format 'no-such-format'" || fail "newest is not first, or not path:line:col"
f=$(tail -1 "$T/out" | cut -d: -f1); [ -e "$f" ] || fail "the path $f does not open"
# inside the mount, without VIEW: paths from the current folder
(cd "$VIEW/anims" && "$ANIMFS" errors) > "$T/here" || fail "errors inside the mount: exit $?"
tail -1 "$T/here" | grep -q "^\.\./anims/$bin.yaml:$want_line:" || fail "inside the mount: $(tail -1 "$T/here")"
(cd "$VIEW/anims" && test -e "$(head -1 "$T/here" | cut -d: -f1)") || fail "the relative path does not open"
(cd "$T" && "$ANIMFS" errors 2>/dev/null); [ $? = 2 ] || fail "outside a mount without VIEW is not a usage error"
"$ANIMFS" errors "$GAME" 2>/dev/null && fail "GAME taken for a mount"
# vim's quickfix reads the lines as they are
if command -v vim >/dev/null; then
  vim -Nu NONE -i NONE -es -c "cexpr system('$ANIMFS errors $VIEW')" \
      -c "let q = getqflist()" \
      -c "call writefile([len(q), bufname(q[0].bufnr), q[0].lnum, q[0].col, q[1].lnum], '$T/qf')" \
      -c 'qa!' </dev/null
  [ "$(sed -n 1p "$T/qf")" = 2 ] || fail "vim's quickfix has $(sed -n 1p "$T/qf") entries"
  [ "$(sed -n 2p "$T/qf")" = "$VIEW/$other.yaml" ] || fail "vim's quickfix names $(sed -n 2p "$T/qf") first"
  [ "$(sed -n 3p "$T/qf")" = 1 ] || fail "vim's quickfix line $(sed -n 3p "$T/qf")"
  [ "$(sed -n 5p "$T/qf")" = "$want_line" ] || fail "vim's second quickfix line $(sed -n 5p "$T/qf")"
  echo "vim quickfix: $(tr '\n' ' ' < "$T/qf")"
  # the README's recipe, in the buffer of a save just refused: it lands on the mistake,
  # with the buffer still modified (the oldest entry, another file, stopped at E37)
  vim -Nu NONE -i NONE -es -c 'set backupskip=' -c '%s/^length: *[^ ]*/length: abc/' -c 'silent! w' \
      -c "cexpr system('$ANIMFS errors $VIEW')" \
      -c "call writefile([bufname('%'), line('.'), &modified, v:errmsg], '$T/qf2')" \
      -c 'qa!' "$v" </dev/null
  len_line=$(grep -n '^length:' "$v" | cut -d: -f1)
  [ "$(sed -n 1p "$T/qf2")" = "$v" ] && [ "$(sed -n 2p "$T/qf2")" = "$len_line" ] &&
    [ "$(sed -n 3p "$T/qf2")" = 1 ] ||
    fail "vim's :cexpr after a refused save is at $(tr '\n' ' ' < "$T/qf2"), not $v:$len_line"
  sed -n 4p "$T/qf2" | grep -q E37 && fail "vim's :cexpr stopped at E37"
  echo "vim :cexpr after a refused save: $(tr '\n' ' ' < "$T/qf2")"
fi
# --clear PATH: the lines about that file go, the others stay
"$ANIMFS" errors --clear "$v" || fail "errors --clear PATH exited $?"
"$ANIMFS" errors "$VIEW" > "$T/left" || fail "errors after --clear"
grep -q "anims/$bin.yaml" "$T/left" && fail "--clear PATH left its lines: $(cat "$T/left")"
grep -q "$other.yaml" "$T/left" || fail "--clear PATH took another file's line"
grep -q "$other.yaml" "$VIEW/.animfs/errors" || fail ".animfs/errors lost the other line"
# --clear inside the mount: all of them
(cd "$VIEW/anims" && "$ANIMFS" errors --clear) || fail "errors --clear inside the mount exited $?"
[ -s "$VIEW/.animfs/errors" ] && fail "--clear left lines: $(cat "$VIEW/.animfs/errors")"
(cd "$T" && "$ANIMFS" errors --clear 2>/dev/null); [ $? = 2 ] || fail "--clear outside a mount is not a usage error"
"$ANIMFS" errors --clear "$GAME" 2>/dev/null && fail "--clear on GAME succeeded"
echo "ok: errors --clear"
echo "ok"
