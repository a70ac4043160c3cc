# `animfs errors [VIEW]`: the mount's refused saves, newest last, as path:line:col: message
# with the path as an editor started here opens it (VIEW joined with the view's path, or
# relative to the current folder inside the mount), and vim's quickfix jumps to the spot.
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
head -1 "$T/out" | grep -q "^$VIEW/anims/$bin.yaml:$want_line:[0-9]*: " || fail "first line is not $VIEW/anims/$bin.yaml:$want_line:col: message"
tail -1 "$T/out" | grep -q "^$VIEW/$other.yaml:1:9: unknown format 'no-such-format'" || fail "newest is not last, or not path:line:col"
f=$(head -1 "$T/out" | cut -d: -f1); [ -e "$f" ] || fail "the path $f does not open"
# inside the mount, without VIEW: paths from the current folder
(cd "$VIEW/anims" && "$ANIMFS" errors) > "$T/here" || fail "errors inside the mount: exit $?"
head -1 "$T/here" | grep -q "^\.\./anims/$bin.yaml:$want_line:" || fail "inside the mount: $(head -1 "$T/here")"
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
  [ "$(sed -n 2p "$T/qf")" = "$v" ] || fail "vim's quickfix names $(sed -n 2p "$T/qf")"
  [ "$(sed -n 3p "$T/qf")" = "$want_line" ] || fail "vim's quickfix line $(sed -n 3p "$T/qf")"
  col=$(head -1 "$T/out" | cut -d: -f3)
  [ "$(sed -n 4p "$T/qf")" = "$col" ] || fail "vim's quickfix column $(sed -n 4p "$T/qf")"
  echo "vim quickfix: $(tr '\n' ' ' < "$T/qf")"
fi
echo "ok"
