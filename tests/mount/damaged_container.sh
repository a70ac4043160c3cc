# A container refused as damaged says so where a user looks (issue 46): a PKS whose IPAC
# table disagrees with its size is shown as the plain file it is, and .animfs/errors
# (and `animfs errors`) has one line naming it and the reason, however often it is
# looked up. A sound PKS beside it is a folder and has no line.
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
python3 - "$GAME/GOOD.PKS" "$GAME/BAD.PKS" <<'PY' || fail "cannot build the PKS files"
import struct, sys
body = b'hello, world\n' * 5
pad = bytes((-len(body)) % 32)
d = 16 + len(body) + len(pad)
entry = struct.pack('<8s4sII', b'HELLO', b'TXT ', 16, len(body))
ipac = b'IPAC' + struct.pack('<III', d, 1, d) + body + pad + entry
good = b'PAKS' + struct.pack('<III', 16, 0, 1) + ipac
open(sys.argv[1], 'wb').write(good)
# the same, but its IPAC table says a size past the file's end
bad = bytearray(good)
struct.pack_into('<I', bad, 16 + 4, d + 4096)
open(sys.argv[2], 'wb').write(bytes(bad))
PY
mount_view_fg
[ -d "$VIEW/GOOD.PKS" ] || fail "the sound PKS is not a folder: $(cat "$T/daemon.log")"
for _ in 1 2 3; do
  [ -f "$VIEW/BAD.PKS" ] && [ ! -d "$VIEW/BAD.PKS" ] || fail "the damaged PKS is not a plain file"
  ls "$VIEW" >/dev/null
done
cmp -s "$VIEW/BAD.PKS" "$GAME/BAD.PKS" || fail "the damaged PKS does not read as its bytes"
cat "$VIEW/.animfs/errors"
[ "$(grep -c ' BAD.PKS' "$VIEW/.animfs/errors")" = 1 ] ||
  fail "not one line for the damaged PKS in .animfs/errors: $(cat "$VIEW/.animfs/errors")"
grep -q 'GOOD.PKS' "$VIEW/.animfs/errors" && fail "a line for the sound PKS"
"$ANIMFS" errors "$VIEW" | grep -q "^$VIEW/BAD.PKS: " || fail "animfs errors does not list it"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: a damaged container is named in .animfs/errors"
