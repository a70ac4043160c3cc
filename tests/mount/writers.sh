# Other writers: sed -i, a shell `>` redirect, cp over a view, cp of a new YAML
# (creates the binary its `format:` names), rm of a view (deletes the binary), and a
# new plain file (the user's: in GAME, renamed and removed there).
. "$(dirname "$0")/common.inc"
copy_samples
bin=$(pick_small)
v="$VIEW/$bin.yaml"
mount_view_fg
before=$(game_listing)

sed -i 's/^length: *[^ ]*/length: 21.5/' "$v" || fail "sed -i"
[ "$(length_of "$GAME/$bin")" = 21.5 ] || fail "sed -i did not arrive"
[ "$(game_listing)" = "$before" ] || fail "sed -i left a file in GAME"

sed 's/^length: *[^ ]*/length: 22.5/' "$v" > "$T/new.yaml"
cat "$T/new.yaml" > "$v" || fail "redirect"
[ "$(length_of "$GAME/$bin")" = 22.5 ] || fail "> did not arrive"

sed 's/^length: *[^ ]*/length: 23.5/' "$v" > "$T/new.yaml"
cp "$T/new.yaml" "$v" || fail "cp over"
[ "$(length_of "$GAME/$bin")" = 23.5 ] || fail "cp over did not arrive"

cp "$T/new.yaml" "$VIEW/brand_new.animation.yaml" || fail "cp of a new YAML"
[ -f "$GAME/brand_new.animation" ] || fail "cp of a new YAML made no binary"
[ "$(length_of "$GAME/brand_new.animation")" = 23.5 ] || fail "new binary content"
cmp -s "$VIEW/brand_new.animation.yaml" <(view_decode "$GAME/brand_new.animation") ||
  fail "new view differs from its decode"

# while a new view is being written it is listed (and stat'ed) with its buffer's size
python3 - "$VIEW" "$T/new.yaml" <<'PY' || fail "a new view being written is not listed"
import os, sys
view, src = sys.argv[1:3]
p = os.path.join(view, "pending.animation.yaml")
fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, open(src, "rb").read())
ok = "pending.animation.yaml" in os.listdir(view) and os.stat(p).st_size == os.path.getsize(src)
os.close(fd)
sys.exit(0 if ok else 1)
PY
[ -f "$GAME/pending.animation" ] || fail "the pending view was not saved at close"
rm "$VIEW/pending.animation.yaml"
rm "$VIEW/brand_new.animation.yaml" || fail "rm"
[ -e "$GAME/brand_new.animation" ] && fail "rm kept the binary"
[ -e "$VIEW/brand_new.animation.yaml" ] && fail "rm kept the view"

# a shell `>` saves when the shell that opened the file closes it: the children that
# inherit the descriptor (head, cmp, tail) close it too, and must not save half of it
cp "$GAME/$bin" "$T/orig.bin"
sed 's/^length: *[^ ]*/length: 24.5/' "$v" > "$T/new.yaml"
[ "$(wc -l < "$T/new.yaml")" -gt 100 ] || fail "precondition: a view of more than 100 lines"
{ head -n 80 "$T/new.yaml"; sleep 1; cmp -s "$GAME/$bin" "$T/orig.bin" || echo early > "$T/early"
  tail -n +81 "$T/new.yaml"; } > "$v"
[ -e "$T/early" ] && fail "a child's close saved part of a shell redirect"
[ "$(length_of "$GAME/$bin")" = 24.5 ] || fail "the shell's close did not save the redirect"
echo "ok: a redirect saves once, at the opener's close"

# fstat of an open view: a reader that opened a longer text still sees its length
python3 - "$v" <<'PY' || fail "a reader of the longer text lost part of it"
import os, re, subprocess, sys
v = sys.argv[1]
fd = os.open(v, os.O_RDONLY)
old = os.pread(fd, 1 << 26, 0)
short = re.sub(rb"(?m)^length: *\S+", b"length: 1", old)
if len(short) >= len(old):
    sys.exit("precondition: the edit must shorten the view")
with open(v, "wb") as f:  # another writer saves a shorter text
    f.write(short)
size = os.fstat(fd).st_size
got = os.read(fd, size)
os.close(fd)
sys.exit(0 if size >= len(old) and got == old else "fstat %d, read %d of %d" % (size, len(got), len(old)))
PY
[ "$(length_of "$GAME/$bin")" = 1.0 ] || fail "the shorter save did not land"
echo "ok: fstat of an open view"

# a binary of 250 characters saves (its temporary name must fit NAME_MAX too)
long=$(printf 'l%.0s' $(seq 240)).animation
cp "$GAME/$bin" "$GAME/$long"
sed -i 's/^length: *[^ ]*/length: 25.5/' "$VIEW/$long.yaml" || fail "save of a 250-character name"
[ "$(length_of "$GAME/$long")" = 25.5 ] || fail "the 250-character save did not land"
rm "$GAME/$long"
echo "ok: a 250-character name"

chmod 600 "$v" || fail "chmod of a view"
[ "$(stat -c %a "$GAME/$bin")" = 600 ] || fail "chmod did not reach the binary"
m0=$(stat -c %y "$GAME/$bin")
touch "$v" || fail "touch of a view"
[ "$(stat -c %y "$GAME/$bin")" = "$m0" ] || fail "touch moved the binary's mtime"

# a new plain file is the user's: it lands in GAME, and mv renames it there
echo mine > "$VIEW/notes.tmp" || fail "new plain file"
[ "$(cat "$VIEW/notes.tmp")" = mine ] || fail "plain read"
ls "$VIEW" | grep -qx notes.tmp || fail "new file not listed"
[ "$(cat "$GAME/notes.tmp")" = mine ] || fail "new plain file not in GAME"
mv "$VIEW/notes.tmp" "$VIEW/notes2.tmp" || fail "plain rename"
[ "$(cat "$GAME/notes2.tmp")" = mine ] && [ ! -e "$GAME/notes.tmp" ] || fail "rename not in GAME"
rm "$VIEW/notes2.tmp" || fail "plain rm"
[ -e "$GAME/notes2.tmp" ] && fail "rm kept the file"
[ "$(game_listing)" = "$before" ] || fail "GAME changed: $(game_listing)"
[ -s "$VIEW/.animfs/errors" ] && fail "spurious save errors: $(cat "$VIEW/.animfs/errors")"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: writers"
