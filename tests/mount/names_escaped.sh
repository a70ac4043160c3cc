#!/usr/bin/env bash
# Issue 29, part 3: member names that collide with a folder's own names are escaped
# (docs/mount.md, "Member names"): in a synthetic AFS (names from its name table) the
# members ".", "..", "index.yaml", "DEMO.BIN.yaml" (raw, beside DEMO.BIN, which has a
# view) and "index" (a view) are listed as %2E, %2E%2E, index%2Eyaml, DEMO.BIN%2Eyaml
# and %69ndex.yaml; "a/b" as the container writes it, a%2Fb. No name is listed twice,
# each listed name resolves to its own member (bytes or view), the CLI takes the same
# names, and a save through an escaped view lands in that member only.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
mkdir -p "$GAME"
"$EXPECT_ANIMFS" encode "$src/examples/MOTION.BIN.yaml" -o "$T/motn.bin" >/dev/null || fail "encode the example"
python3 - "$T/motn.bin" "$GAME/NAMES.AFS" <<'PY' || fail "make the AFS"
import struct, sys
motn = open(sys.argv[1], "rb").read()
members = [(b"DEMO.BIN", motn), (b"DEMO.BIN.yaml", b"raw one\n"), (b"index.yaml", b"raw two\n"),
           (b".", b"raw dot\n"), (b"..", b"raw dotdot\n"), (b"index", motn), (b"a/b", b"raw slash\n")]
n = len(members)
toc_end = 8 + 8 * n + 8
first = -(-toc_end // 2048) * 2048
data, toc, recs, pos = bytearray(), bytearray(), bytearray(), first
for name, body in members:
    toc += struct.pack("<II", pos, len(body))
    recs += struct.pack("<32s6HI", name, 2000, 1, 1, 0, 0, 0, len(body))
    pad = (-len(body)) % 2048
    data += body + bytes(pad)
    pos += len(body) + pad
head = b"AFS\0" + struct.pack("<I", n) + bytes(toc) + struct.pack("<II", pos, len(recs))
head += bytes(first - len(head))
open(sys.argv[2], "wb").write(head + bytes(data) + bytes(recs) + bytes((-len(recs)) % 2048))
PY
cp "$GAME/NAMES.AFS" "$T/orig.afs"
mount_view
F=$VIEW/NAMES.AFS
ls -a "$F" > "$T/ls" || fail "ls -a"
printf '%s\n' . .. %2E %2E%2E DEMO.BIN%2Eyaml DEMO.BIN.yaml %69ndex.yaml a%2Fb index%2Eyaml index.yaml |
	sort > "$T/want"
sort "$T/ls" | diff "$T/want" - || fail "the listing is not the escaped names"
[ "$(sort "$T/ls" | uniq -d)" = "" ] || fail "a name is listed twice"
# each resolves to its own member
[ "$(cat "$F/%2E")" = "raw dot" ] || fail "%2E is not the member '.'"
[ "$(cat "$F/%2E%2E")" = "raw dotdot" ] || fail "%2E%2E is not the member '..'"
[ "$(cat "$F/index%2Eyaml")" = "raw two" ] || fail "index%2Eyaml is not the member 'index.yaml'"
[ "$(cat "$F/DEMO.BIN%2Eyaml")" = "raw one" ] || fail "DEMO.BIN%2Eyaml is not its raw member"
[ "$(cat "$F/a%2Fb")" = "raw slash" ] || fail "a%2Fb is not the member 'a/b'"
grep -q '^format: shenmue-motn' "$F/DEMO.BIN.yaml" || fail "DEMO.BIN.yaml is not the view of DEMO.BIN"
grep -q '^format: shenmue-motn' "$F/%69ndex.yaml" || fail "%69ndex.yaml is not the view of 'index'"
grep -q '^# animfs index' "$F/index.yaml" || fail "index.yaml is not the folder's index"
for name in $(cat "$T/ls"); do
	[ "$name" = . ] || [ "$name" = .. ] && continue
	stat "$F/$name" >/dev/null 2>&1 || fail "stat $name"
done
# names that are not listed do not resolve (one name per member)
for name in DEMO.BIN index.yaml.yaml %2E.yaml a%2Fb.yaml; do
	[ -e "$F/$name" ] && [ "$name" != index.yaml.yaml ] && fail "$name resolves but is not listed"
done
# a save through the escaped view of 'index' changes that member only
sed 's/^          - \[8, 1, 1.0\]$/          - [8, 1, 1.5]/' "$F/%69ndex.yaml" > "$T/edit.yaml"
grep -q '^          - \[8, 1, 1.5\]$' "$T/edit.yaml" || fail "the example's key changed: the test needs another edit"
cp "$T/edit.yaml" "$F/%69ndex.yaml" || fail "the save of %69ndex.yaml: $(cat "$VIEW/.animfs/errors")"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
cmp -s "$GAME/NAMES.AFS" "$T/orig.afs" && fail "the save did not change the AFS"
"$ANIMFS" decode "$GAME/NAMES.AFS/index" | grep -q '^          - \[8, 1, 1.5\]$' || fail "member 'index' not edited"
"$ANIMFS" decode "$GAME/NAMES.AFS/DEMO.BIN" | grep -q '^          - \[8, 1, 1.0\]$' || fail "member DEMO.BIN changed too"
echo "names_escaped: passed"
