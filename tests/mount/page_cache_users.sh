# The kernel's page cache is one per inode, whoever reads it (issue 43): a page kept
# for one user never reaches a user who may not read the file. A view and a GAME file
# read by A (their pages kept), then made 0600 by their owner B, are refused to A at
# the next open, through the mount (chmod of the view) and behind its back (chmod in
# GAME), while B still reads them; and with -o allow_other the kernel keeps no size
# (attr_cache is ignored): A, who may not read the binary, is shown the binary's size,
# B the view's. Needs root (users.inc). No samples needed.
. "$(dirname "$0")/common.inc"
. "$(dirname "$0")/users.inc"
copy_samples
name=$(pick_small)
bin=$GAME/$name v=$VIEW/$name.yaml
printf 'notes of B\n' > "$GAME/notes.txt"
chown "$UB" "$bin" "$GAME/notes.txt" && chmod 644 "$bin" "$GAME/notes.txt" || fail "chown"
want_text=$(view_decode "$bin" | wc -c)
mount_view_fg -o allow_other,attr_cache=60
for how in mount game; do
  for f in "$v" "$VIEW/notes.txt"; do
    as_a cat "$f" > "$T/a1" && as_a cat "$f" > "$T/a2" || fail "$how: A cannot read $f"
    cmp -s "$T/a1" "$T/a2" || fail "$how: A's two reads of $f differ"
    g=$bin; [ "$f" = "$v" ] || g=$GAME/notes.txt
    if [ $how = mount ]; then as_b chmod 600 "$f" || fail "B's chmod of $f"
    else chmod 600 "$g"; fi
    [ "$(stat -c %a "$g")" = 600 ] || fail "$how: $g is $(stat -c %a "$g")"
    as_a cat "$f" > "$T/a3" 2> "$T/err" && fail "$how: A still reads $f after it was made 0600"
    grep -q "Permission denied" "$T/err" || fail "$how: A is told $(cat "$T/err")"
    as_a "$PY" -c 'import mmap, sys; f = open(sys.argv[1], "rb"); mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)' \
      "$f" 2> /dev/null && fail "$how: A maps $f after it was made 0600"
    as_b cat "$f" > "$T/b" || fail "$how: B cannot read $f"
    cmp -s "$T/a1" "$T/b" || fail "$how: B reads another text of $f"
    chmod 644 "$g"
  done
  echo "ok: $how: a file made 0600 is refused to A at the next open, its pages kept for B"
done
# sizes: per caller, whatever the kernel kept
chmod 600 "$bin"
[ "$(as_a stat -c %s "$v")" = "$(stat -c %s "$bin")" ] || fail "A is shown $(as_a stat -c %s "$v") bytes, not the binary's"
[ "$(as_b stat -c %s "$v")" = "$want_text" ] || fail "B is shown $(as_b stat -c %s "$v") bytes, not the view's $want_text"
[ "$(as_a stat -c %s "$v")" = "$(stat -c %s "$bin")" ] || fail "after B's stat, A is shown $(as_a stat -c %s "$v") bytes"
echo "ok: with allow_other each caller is shown their own size"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "page_cache_users: ok"
