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
cmp -s "$VIEW/brand_new.animation.yaml" <("$ANIMFS" decode "$GAME/brand_new.animation") ||
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
"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: writers"
