#!/usr/bin/env bash
# Real WebDAV clients against animfs serve: rclone copies every view of the folder down
# (each equals its decode) and an edited view up (the binary equals encode's), cadaver
# puts and gets a view from a script.
. "$(dirname "$0")/dav.inc"
need_samples
command -v rclone >/dev/null || { echo "SKIP: rclone missing (scripts/setup installs it)"; exit 77; }
command -v cadaver >/dev/null || { echo "SKIP: cadaver missing (scripts/setup installs it)"; exit 77; }
cp "$ANIMFS_SAMPLES"/diesel/*.animation "$GAME"/
chmod u+w "$GAME"/*
small=$(ls -S "$GAME"/*.animation | tail -1 | xargs -n1 basename)
start_serve
export RCLONE_CONFIG=$T/rclone.conf
: > "$RCLONE_CONFIG"
rc() { rclone --webdav-url "$U" --webdav-vendor other --low-level-retries 1 --retries 1 -q "$@"; }

# every view down
rc copy :webdav:/ "$T/down" --exclude '.animfs/**' || fail "rclone copy down failed"
n=0
for f in "$GAME"/*.animation; do
  b=$(basename "$f")
  "$PLAIN" decode --schema-ref .animfs/schema "$f" > "$T/want.yaml"
  cmp -s "$T/down/$b.yaml" "$T/want.yaml" || fail "rclone's $b.yaml differs from its decode"
  n=$((n + 1))
done
[ "$(ls "$T/down" | wc -l)" = "$n" ] || fail "rclone copied $(ls "$T/down" | wc -l) files, not $n views"

# an edited view up
sed "s/^length: *\([0-9.]*\) /length: 2.25 /" "$T/down/$small.yaml" > "$T/up.yaml"
grep -q "^length: 2.25 " "$T/up.yaml" || fail "cannot make the edit"
rc copyto "$T/up.yaml" ":webdav:/$small.yaml" || fail "rclone copyto up failed"
"$PLAIN" encode "$T/up.yaml" -o "$T/want.animation" || fail "encode"
cmp -s "$GAME/$small" "$T/want.animation" || fail "rclone's upload did not give encode's binary"
# a sync of the folder down again: the edited view as saved
rc sync :webdav:/ "$T/down" --exclude '.animfs/**' || fail "rclone sync failed"
cmp -s "$T/down/$small.yaml" "$T/up.yaml" || fail "the synced view is not the saved text"

# cadaver, scripted
sed "s/^length: 2.25 /length: 2.75 /" "$T/up.yaml" > "$T/cad.yaml"
(cd "$T" && printf 'put cad.yaml %s.yaml\nget %s.yaml got.yaml\nquit\n' "$small" "$small" |
  HOME=$T timeout 60 cadaver "$U/" > "$T/cadaver.log" 2>&1) || { cat "$T/cadaver.log" >&2; fail "cadaver failed"; }
cmp -s "$T/got.yaml" "$T/cad.yaml" || { cat "$T/cadaver.log" >&2; fail "cadaver's get is not its put"; }
"$PLAIN" encode "$T/cad.yaml" -o "$T/want2.animation" || fail "encode"
cmp -s "$GAME/$small" "$T/want2.animation" || fail "cadaver's put did not give encode's binary"
stray=$(cd "$GAME" && ls -A | grep -v '\.animation$' || true)
[ -z "$stray" ] || fail "stray files in GAME: $stray"
stop_serve
echo "PASS: rclone down and up, cadaver put and get"
