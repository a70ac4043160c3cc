#!/usr/bin/env bash
# animfs serve shows what the mount shows and saves as it saves: views GET as their
# decode, a PUT of an edited view gives the binary `animfs encode` gives, a refused PUT
# answers 422 with file:line:col and leaves the binary, other files land in GAME whole,
# client droppings are kept aside, and the Windows Explorer, macOS Finder and Word request
# sequences end in the right binary and no stray file in GAME.
. "$(dirname "$0")/dav.inc"
need_samples
cp "$ANIMFS_SAMPLES"/diesel/*.animation "$GAME"/
chmod u+w "$GAME"/*
small=$(ls -S "$GAME"/*.animation | tail -1 | xargs -n1 basename)
start_serve

# the listing: one view per binary, and .animfs/
expect 207 PROPFIND / -H "Depth: 1"
for f in "$GAME"/*.animation; do
  b=$(basename "$f")
  grep -q "<D:href>/$b.yaml</D:href>" "$T/body" || fail "PROPFIND does not list $b.yaml"
done
grep -q "<D:href>/.animfs/</D:href>" "$T/body" || fail "PROPFIND does not list .animfs/"
# every view reads as its decode (the modeline names the served .animfs/schema)
for f in "$GAME"/*.animation; do
  b=$(basename "$f")
  expect 200 GET "/$b.yaml"
  "$PLAIN" decode --schema-ref .animfs/schema "$f" > "$T/want.yaml" || fail "decode $b"
  cmp -s "$T/body" "$T/want.yaml" || fail "GET $b.yaml differs from its decode"
done
# a range of a view, and a conditional GET
expect 200 GET "/$small.yaml" -D "$T/h"
etag=$(sed -n 's/^[Ee][Tt]ag: *//p' "$T/h" | tr -d '\r')
[ -n "$etag" ] || fail "no ETag"
expect 206 GET "/$small.yaml" -H "Range: bytes=0-99"
[ "$(wc -c < "$T/body")" = 100 ] || fail "a range of 100 bytes gave $(wc -c < "$T/body")"
expect 304 GET "/$small.yaml" -H "If-None-Match: $etag"
expect 416 GET "/$small.yaml" -H "Range: bytes=99999999-"

# an edit saved by PUT: the binary is encode's of the same text
"$PLAIN" decode --schema-ref .animfs/schema "$GAME/$small" > "$T/v.yaml"
len=$(sed -n 's/^length: *\([^ ]*\).*/\1/p' "$T/v.yaml")
sed "s/^length: *$len /length: 2.5 /" "$T/v.yaml" > "$T/e.yaml"
grep -q "^length: 2.5 " "$T/e.yaml" || fail "cannot make the edit"
expect 204 PUT "/$small.yaml" -T "$T/e.yaml"
"$PLAIN" encode "$T/e.yaml" -o "$T/want.animation" || fail "encode of the edit"
cmp -s "$GAME/$small" "$T/want.animation" || fail "the PUT's binary differs from encode's"
expect 200 GET "/$small.yaml"
cmp -s "$T/body" "$T/e.yaml" || fail "the view does not read back as saved"

# a refused PUT: 422 naming the place, the binary unchanged, the line in .animfs/errors
cp "$GAME/$small" "$T/before.bin"
sed "s/^length: 2.5 /length: [2.5 /" "$T/e.yaml" > "$T/bad.yaml"
line=$(grep -n "^length: \[" "$T/bad.yaml" | cut -d: -f1)
expect 422 PUT "/$small.yaml" -T "$T/bad.yaml"
grep -q "^$small.yaml:$line:[0-9]*: " "$T/body" || fail "the 422 does not say file:line:col: $(cat "$T/body")"
cmp -s "$GAME/$small" "$T/before.bin" || fail "a refused PUT changed the binary"
expect 200 GET /.animfs/errors
grep -q "$small.yaml:$line:" "$T/body" || fail ".animfs/errors has no line for the refused PUT"

# other files land in GAME whole; folders, moves and deletes are GAME's
printf 'notes\n' > "$T/n.txt"
expect 201 PUT /notes.txt -T "$T/n.txt"
cmp -s "$GAME/notes.txt" "$T/n.txt" || fail "notes.txt is not in GAME"
expect 201 MKCOL /mods
[ -d "$GAME/mods" ] || fail "MKCOL made no folder in GAME"
expect 201 MOVE /notes.txt -H "Destination: $U/mods/notes.txt"
[ -f "$GAME/mods/notes.txt" ] && [ ! -e "$GAME/notes.txt" ] || fail "MOVE did not move in GAME"
expect 201 COPY "/$small.yaml" -H "Destination: $U/mods/$small.yaml"
cmp -s "$GAME/mods/$small" "$GAME/$small" || fail "COPY of a view did not make the same binary"
expect 204 DELETE /mods
[ ! -e "$GAME/mods" ] || fail "DELETE left the folder"

# client droppings stay out of GAME (Finder's, Explorer's)
printf 'x' > "$T/d"
expect 201 PUT /.DS_Store -T "$T/d"
expect 201 PUT "/._$small.yaml" -T "$T/d"
expect 201 PUT /Thumbs.db -T "$T/d"
for n in .DS_Store "._$small.yaml" Thumbs.db; do
  [ ! -e "$GAME/$n" ] || fail "the dropping $n landed in GAME"
done
expect 200 GET /.DS_Store

# Windows Explorer's save of a view, replayed: OPTIONS, PROPFIND, LOCK, an empty PUT,
# the content PUT with the token, PROPPATCH of the Win32 times, UNLOCK
ua=(-A "Microsoft-WebDAV-MiniRedir/10.0.19045")
expect 200 OPTIONS / "${ua[@]}"
expect 207 PROPFIND "/$small.yaml" "${ua[@]}" -H "Depth: 0"
cat > "$T/lock.xml" <<'XML'
<?xml version="1.0" encoding="utf-8" ?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner><D:href>DESKTOP\modder</D:href></D:owner></D:lockinfo>
XML
expect 200 LOCK "/$small.yaml" "${ua[@]}" -H "Timeout: Second-3600" --data-binary @"$T/lock.xml" -D "$T/h"
token=$(sed -n 's/^[Ll]ock-[Tt]oken: *<\(.*\)>.*/\1/p' "$T/h" | tr -d '\r')
[ -n "$token" ] || fail "LOCK gave no token"
sed "s/^length: 2.5 /length: 3 /" "$T/e.yaml" > "$T/e3.yaml"
expect 423 PUT "/$small.yaml" -T "$T/e3.yaml"
: > "$T/empty"
expect 204 PUT "/$small.yaml" "${ua[@]}" -H "If: (<$token>)" -T "$T/empty"
cmp -s "$GAME/$small" "$T/want.animation" || fail "Explorer's empty PUT changed the binary"
expect 204 PUT "/$small.yaml" "${ua[@]}" -H "If: (<$token>)" -T "$T/e3.yaml"
cat > "$T/pp.xml" <<'XML'
<?xml version="1.0" encoding="utf-8" ?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:schemas-microsoft-com:"><D:set><D:prop><Z:Win32CreationTime>Sat, 05 Dec 2026 06:00:00 GMT</Z:Win32CreationTime><Z:Win32LastAccessTime>Sat, 05 Dec 2026 06:00:00 GMT</Z:Win32LastAccessTime><Z:Win32LastModifiedTime>Sat, 05 Dec 2026 06:00:00 GMT</Z:Win32LastModifiedTime><Z:Win32FileAttributes>00000020</Z:Win32FileAttributes></D:prop></D:set></D:propertyupdate>
XML
expect 207 PROPPATCH "/$small.yaml" "${ua[@]}" -H "If: (<$token>)" --data-binary @"$T/pp.xml"
grep -q "200 OK" "$T/body" || fail "PROPPATCH of the Win32 times was refused: $(cat "$T/body")"
expect 204 UNLOCK "/$small.yaml" "${ua[@]}" -H "Lock-Token: <$token>"
"$PLAIN" encode "$T/e3.yaml" -o "$T/want3.animation" || fail "encode of the third edit"
cmp -s "$GAME/$small" "$T/want3.animation" || fail "Explorer's save did not give encode's binary"

# macOS Finder's copy of a new file, replayed: the file, its AppleDouble ._ file and
# .DS_Store; only the file lands in GAME
fua=(-A "WebDAVFS/3.0.0 (03008000) Darwin/22.1.0 (arm64)")
printf 'readme\n' > "$T/r.txt"
expect 201 PUT /readme.txt "${fua[@]}" -T "$T/r.txt"
expect 201 PUT /._readme.txt "${fua[@]}" -T "$T/d"
expect 204 PUT /.DS_Store "${fua[@]}" -T "$T/d"
[ -f "$GAME/readme.txt" ] && [ ! -e "$GAME/._readme.txt" ] || fail "Finder's copy left strays in GAME"
stray=$(cd "$GAME" && ls -A | grep -v '\.animation$' | grep -vx readme.txt || true)
[ -z "$stray" ] || fail "stray files in GAME: $stray"

# Word's save of a view on a mapped drive, replayed (KB 211632's pattern): its owner file
# ~$X, the new text written to ~WRD0000.tmp, the original renamed away to ~WRL0001.tmp,
# the temp file renamed onto the view, the old one and the owner file deleted; the
# binary is encode's of the new text and no ~ file reaches GAME
wua=(-A "Microsoft Office Word 2014")
owner="~\$${small:2}.yaml"
sed "s/^length: *3 /length: 3.5 /" "$T/e3.yaml" > "$T/e4.yaml"
grep -q "^length: 3.5 " "$T/e4.yaml" || fail "cannot make Word's edit"
expect 201 PUT "/$owner" "${wua[@]}" -T "$T/d"
expect 201 PUT /~WRD0000.tmp "${wua[@]}" -T "$T/e4.yaml"
for n in "$owner" "~WRD0000.tmp"; do
  [ ! -e "$GAME/$n" ] || fail "Office's $n landed in GAME"
done
expect 201 MOVE "/$small.yaml" "${wua[@]}" -H "Destination: $U/~WRL0001.tmp"
expect 201 MOVE /~WRD0000.tmp "${wua[@]}" -H "Destination: $U/$small.yaml"
expect 204 DELETE /~WRL0001.tmp "${wua[@]}"
expect 204 DELETE "/$owner" "${wua[@]}"
"$PLAIN" encode "$T/e4.yaml" -o "$T/want4.animation" || fail "encode of Word's edit"
cmp -s "$GAME/$small" "$T/want4.animation" || fail "Word's save did not give encode's binary"
stray=$(cd "$GAME" && ls -A | grep -v '\.animation$' | grep -vx readme.txt || true)
[ -z "$stray" ] || fail "stray files in GAME after Word's save: $stray"

stop_serve
echo "PASS: views, saves, refusals, files, droppings and the Explorer, Finder and Word sequences"
