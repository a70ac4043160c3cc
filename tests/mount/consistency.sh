# Consistency: an unchanged save keeps the binary's mtime; a change made to GAME
# outside the mount shows at the next access; readers during commits see the old or
# the new text, never a mix; `animfs umount` right after a save leaves it on disk.
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
copy_samples
bin=$(pick_small)
other=$(ls -S "$GAME"/*.animation | tail -2 | head -1 | xargs basename)
v="$VIEW/$bin.yaml"
mount_view

m0=$(stat -c %y "$GAME/$bin")
cp "$v" "$T/same.yaml"
sleep 0.05
cp "$T/same.yaml" "$v" || fail "unchanged save"
[ "$(stat -c %y "$GAME/$bin")" = "$m0" ] || fail "an unchanged save moved the mtime"

# outside change: replace the backing file behind the mount's back
cp "$GAME/$other" "$GAME/$bin"
view_decode "$GAME/$bin" > "$T/expect"
[ "$(stat -c %s "$v")" = "$(stat -c %s "$T/expect")" ] || fail "outside change: stale size"
cmp -s "$v" "$T/expect" || fail "outside change: stale content"

# readers during commits: two versions, a writer alternating, readers checking
sed 's/^length: *[^ ]*/length: 31.5/' "$v" > "$T/a.yaml"
sed 's/^length: *[^ ]*/length: 32.5/' "$v" > "$T/b.yaml"
cp "$T/a.yaml" "$v" && cp "$v" "$T/a.view"
cp "$T/b.yaml" "$v" && cp "$v" "$T/b.view"
python3 - "$v" "$T/a.yaml" "$T/b.yaml" "$T/a.view" "$T/b.view" <<'PY' || fail "a reader saw a mix"
import os, sys, threading
v, a, b, av, bv = sys.argv[1:6]
docs = [open(a, "rb").read(), open(b, "rb").read()]
views = {open(av, "rb").read(), open(bv, "rb").read()}
stop = False
bad = []
def reader():
    n = 0
    while not stop:
        with open(v, "rb") as f:
            got = f.read()
        if got not in views:
            bad.append(len(got))
        n += 1
ts = [threading.Thread(target=reader) for _ in range(3)]
for t in ts: t.start()
for i in range(40):
    with open(v, "wb") as f:
        f.write(docs[i % 2])
stop = True
for t in ts: t.join()
if bad:
    print("mixed reads:", bad[:5], file=sys.stderr)
    sys.exit(1)
PY

# a temporary file left by a crashed save: hidden, and swept when its folder is listed
dead=999999; while kill -0 $dead 2>/dev/null; do dead=$((dead + 1)); done
old_tmp="$GAME/.animfs-tmp-$dead-1-$bin"
young_tmp="$GAME/.animfs-tmp-$dead-2-$bin"
echo partial > "$old_tmp"; touch -d '2 minutes ago' "$old_tmp"
echo partial > "$young_tmp"
ls -a "$VIEW" | grep -q animfs-tmp && fail "a temporary file is listed"
[ -e "$old_tmp" ] && fail "an old temporary file of a dead process was not swept"
[ -e "$young_tmp" ] || fail "a young temporary file was swept"
rm -f "$young_tmp"

# umount right after a save: the edit is on disk when umount returns
sed -i 's/^length: *[^ ]*/length: 33.5/' "$v" || fail "sed -i"
"$ANIMFS" umount "$VIEW" || fail "umount"
mountpoint -q "$VIEW" && fail "still mounted after umount"
[ "$(length_of "$GAME/$bin")" = 33.5 ] || fail "edit not on disk after umount"
echo "ok: consistency"
