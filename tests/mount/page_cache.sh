# The kernel's page cache keeps a view's pages and a GAME file's between opens while
# their text is unchanged (issue 43); every change is seen by the next open, the size
# unchanged too (the hard case: the kernel's size alone would not drop a page):
#  - a save through the mount, read at once by a second process;
#  - the binary replaced in GAME directly, behind the mount's back;
#  - a rename onto the view's name (sed -i);
#  - a GAME file written in place, through the mount and behind its back;
#  - with --overlay, a save and a write copied up to MODDIR;
# and a view's mmap reads the bytes its read(2) does; a reader open through the page
# cache when the view is first opened for writing (O_TRUNC, then written in halves)
# still reads its whole text, in small reads below and past the size the writer set.
# All of it again with -o attr_cache=60 (the kernel keeps sizes: an open that finds
# another text drops them).
# No samples needed.
. "$(dirname "$0")/common.inc"
copy_samples
# three views: one saved through the mount (read with direct_io from then on: a
# writer's truncation would change the size the kernel keeps for every reader), two
# never written through it (read through the page cache)
mapfile -t names < <(ls -S "$GAME" | grep '\.animation$' | tail -3)
[ ${#names[@]} = 3 ] || fail "precondition: three animations"
name=${names[0]}
bin=$GAME/$name v=$VIEW/$name.yaml
bin2=$GAME/${names[1]} v2=$VIEW/${names[1]}.yaml
bin3=$GAME/${names[2]} v3=$VIEW/${names[2]}.yaml
printf 'plain file %04d\n' 1 > "$GAME/notes.txt"
warm() { cat "$1" > /dev/null && cat "$1" > /dev/null || fail "cannot read $1"; } # pages kept
# same_size_edit IN OUT: IN's text (a view at the root) with another length whose
# text has the same size (OUT: that text as a decode renders it)
same_size_edit() {
  local len d
  len=$(sed -n 's/^length: *\([0-9][^ ]*\).*/\1/p' "$1" | head -1)
  [ -n "$len" ] || fail "no length in $1"
  local i new
  # each digit of it in turn, each other digit; not a leading 0, whose change adds a
  # digit before the point that the float's shortest form pays for with one after it
  # (0.16666667 -> 1.1666666: nine tries, each three processes, for no edit)
  for i in $(seq 0 $((${#len} - 1))); do
    [[ ${len:$i:1} == [0-9] ]] || continue
    [ "$i" = 0 ] && [ "${len:0:2}" = 0. ] && continue
    for d in 1 2 3 4 5 6 7 8 9 0; do
      [ "$d" = "${len:$i:1}" ] && continue
      new=${len:0:$i}$d${len:$((i + 1))}
      sed "s/^length: $len/length: $new/" "$1" > "$T/try.yaml"
      "$EXPECT_ANIMFS" encode "$T/try.yaml" -o "$T/try.animation" 2> /dev/null || continue
      "$EXPECT_ANIMFS" decode --schema-ref .animfs/schema "$T/try.animation" > "$2"
      [ "$(stat -c %s "$1")" = "$(stat -c %s "$2")" ] && ! cmp -s "$1" "$2" && return 0
    done
  done
  fail "precondition: no length of the same size for $1"
}
check_view() { # check_view VIEW BINARY WHAT: VIEW read by a new process is BINARY's decode
  cmp -s "$1" <(view_decode "$2") || fail "$3: the view shows $(diff <(view_decode "$2") "$1" | head -4)"
}

round() { # round [MOUNT OPTIONS]
mount_view_fg "$@"
echo "mount $*"
check_view "$v" "$bin" "before any change"
# a save through the mount, read at once by another process
warm "$v"
same_size_edit "$v" "$T/edit.yaml"
cp "$T/edit.yaml" "$v" || fail "the save was refused: $(cat "$VIEW/.animfs/errors")"
cmp -s "$v" "$T/edit.yaml" || fail "after a save, a second process reads $(diff "$T/edit.yaml" "$v" | head -4)"
check_view "$v" "$bin" "after a save"
echo "ok: a save through the mount is read at once"

# the binary replaced behind the mount's back (in place: cp onto it)
warm "$v2"
same_size_edit "$v2" "$T/edit2.yaml"
"$EXPECT_ANIMFS" encode "$T/edit2.yaml" -o "$T/new.animation" 2> "$T/enc.log" || fail "encode: $(cat "$T/enc.log")"
cp "$T/new.animation" "$bin2" || fail "cp into GAME"
cmp -s "$v2" "$T/edit2.yaml" || fail "after a cp into GAME, the next open reads $(diff "$T/edit2.yaml" "$v2" | head -4)"
check_view "$v2" "$bin2" "after a cp into GAME"
# and replaced by a rename in GAME (another inode)
warm "$v2"
same_size_edit "$v2" "$T/edit3.yaml"
"$EXPECT_ANIMFS" encode "$T/edit3.yaml" -o "$T/new3.animation" 2> "$T/enc.log" && mv "$T/new3.animation" "$bin2" || fail "mv into GAME"
check_view "$v2" "$bin2" "after a mv in GAME"
# and by another size (with attributes cached, the open drops the kernel's size)
warm "$v2"
keys_doc "$T/long.yaml" 3000
"$EXPECT_ANIMFS" encode "$T/long.yaml" -o "$T/long.animation" 2> "$T/enc.log" && cp "$T/long.animation" "$bin2" ||
  fail "encode: $(cat "$T/enc.log")"
check_view "$v2" "$bin2" "after a longer cp into GAME"
[ "$(stat -c %s "$v2")" = "$(view_decode "$bin2" | wc -c)" ] || fail "after the open, stat shows $(stat -c %s "$v2") bytes"
echo "ok: a binary changed in GAME is read at the next open"

# a rename onto the view's name: sed -i writes a file beside it and renames it onto it
warm "$v3"
same_size_edit "$v3" "$T/edit5.yaml"
line=$(grep '^length:' "$T/edit5.yaml")
sed -i "s/^length:.*/$line/" "$v3" || fail "sed -i: $(cat "$VIEW/.animfs/errors")"
cmp -s "$v3" "$T/edit5.yaml" || fail "after sed -i the view shows $(diff "$T/edit5.yaml" "$v3" | head -4)"
check_view "$v3" "$bin3" "after sed -i"
echo "ok: a rename onto the view's name is read at once"

# mmap reads what read(2) reads
python3 - "$v2" <<'PY' || fail "mmap of the view differs from its read"
import mmap, sys
with open(sys.argv[1], "rb") as f:
    data = f.read()
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    assert m[:] == data and len(data) > 0, (len(m), len(data))
PY
echo "ok: mmap of a view reads its text"

# a reader through the page cache, then a first writer: the reader's text stays whole
python3 - "$v2" <<'PY' || fail "a reader open when the view was first opened for writing"
import os, sys
v = sys.argv[1]
with open(v, "rb") as f:
    old = f.read()
r = os.open(v, os.O_RDONLY)
got = os.read(r, 100)
w = os.open(v, os.O_WRONLY | os.O_TRUNC)
half = len(old) // 2
os.write(w, old[:half])
while True:
    c = os.read(r, 1000)
    if not c:
        break
    got += c
os.write(w, old[half:])
os.close(w)  # the same text: an unchanged save
assert got == old, "the reader read %d bytes of %d" % (len(got), len(old))
os.close(r)
with open(v, "rb") as f:
    assert f.read() == old
PY
check_view "$v2" "$bin2" "after a first writer"
echo "ok: a reader open when a writer first opens the view reads its whole text"

# a GAME file: written in place through the mount, then behind its back
warm "$VIEW/notes.txt"
printf 'plain file %04d\n' 2 > "$VIEW/notes.txt" || fail "write through the mount"
[ "$(cat "$VIEW/notes.txt")" = "plain file 0002" ] || fail "the write: $(cat "$VIEW/notes.txt")"
warm "$VIEW/notes.txt"
printf '3' | dd of="$GAME/notes.txt" bs=1 seek=14 conv=notrunc status=none || fail "write in GAME"
[ "$(cat "$VIEW/notes.txt")" = "plain file 0003" ] || fail "after a write in GAME: $(cat "$VIEW/notes.txt")"
echo "ok: a GAME file changed in place is read at the next open"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon

# --overlay: a save and a write land in MODDIR (copied up): read at once
MOD=$T/mod
rm -rf "$MOD" && mkdir -p "$MOD"
mount_view_fg --overlay "$MOD" "$@"
warm "$v"
same_size_edit "$v" "$T/edit4.yaml"
cp "$T/edit4.yaml" "$v" || fail "the save with --overlay: $(cat "$VIEW/.animfs/errors")"
[ -f "$MOD/$name" ] || fail "the save did not land in MODDIR"
cmp -s "$v" "$T/edit4.yaml" || fail "after a copy-up, the view shows $(diff "$T/edit4.yaml" "$v" | head -4)"
cmp -s "$v" <("$EXPECT_ANIMFS" decode --schema-ref .animfs/schema "$MOD/$name") || fail "after a copy-up: not MODDIR's decode"
warm "$VIEW/notes.txt"
printf '4' | dd of="$VIEW/notes.txt" bs=1 seek=14 conv=notrunc status=none || fail "write with --overlay"
[ "$(cat "$MOD/notes.txt")" = "plain file 0004" ] || fail "the write did not land in MODDIR"
[ "$(cat "$VIEW/notes.txt")" = "plain file 0004" ] || fail "after a copy-up: $(cat "$VIEW/notes.txt")"
echo "ok: a copy-up is read at once"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
printf 'plain file %04d\n' 1 > "$GAME/notes.txt"
}
round
round -o attr_cache=60
echo "page_cache: ok"
