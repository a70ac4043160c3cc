# Hostile binaries in GAME (lying trailer, deflate bomb) are listed quickly and shown
# as themselves. Hostile documents saved through the mount: aliases (a billion laughs), deep
# nesting and bad UTF-8 are refused at close with EINVAL and a
# line:col in .animfs/errors; writing past the 256 MiB YAML limit fails with EFBIG;
# the binary is untouched throughout. No samples needed.
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/walk.animation" || fail "encode"
cp "$GAME/walk.animation" "$T/orig"
# hostile binaries in GAME: a lying 4 GiB trailer and a deflate bomb
python3 - "$GAME" <<'PY'
import os, struct, sys, zlib
g = sys.argv[1]
open(os.path.join(g, "liar.animation"), "wb").write(zlib.compress(b"hello") + struct.pack("<I", 0xFFFFFFFF))
open(os.path.join(g, "bomb.animation"), "wb").write(zlib.compress(bytes(64 << 20), 9) + struct.pack("<I", 1 << 20))
PY
cp "$GAME/liar.animation" "$T/liar"; cp "$GAME/bomb.animation" "$T/bomb"
mount_view_fg
# they are shown as themselves (they do not decode), quickly, and read back unchanged
timeout 20 ls "$VIEW" > "$T/ls" || fail "listing a folder of hostile binaries took too long"
timeout 20 cat "$VIEW/liar.animation" "$VIEW/liar.animation.yaml" > /dev/null 2>&1
cmp -s "$VIEW/bomb.animation" "$T/bomb" || fail "the bomb does not read back as itself"
cmp -s "$VIEW/liar.animation" "$T/liar" || fail "the liar does not read back as itself"
grep -q '^walk.animation.yaml$' "$T/ls" || fail "the good file is not listed: $(cat "$T/ls")"
python3 - "$VIEW/walk.animation.yaml" "$VIEW/.animfs/errors" <<'PY' || fail "hostile saves"
import errno, os, sys
v, errors = sys.argv[1:3]
laughs = b"format: diesel-animation\na: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n"
for i, c in enumerate("bcdefghij"):
    laughs += ("%s: &%s [%s]\n" % (c, c, ",".join(["*" + "abcdefghij"[i]] * 9))).encode()
cases = [
    ("billion laughs", laughs, "walk.animation.yaml:3:8: aliases (*a) are not supported"),
    ("deep nesting", b"format: diesel-animation\nx: " + b"[" * 100000 + b"]" * 100000 + b"\n",
     "walk.animation.yaml:2:67: nesting deeper than 64 levels"),
    ("bad UTF-8", b"# x\nformat: diesel-animation\nname: ab\xff\n",
     "walk.animation.yaml:3:9: invalid leading UTF-8 octet"),
]
bad = 0
for name, doc, want in cases:
    fd = os.open(v, os.O_WRONLY | os.O_TRUNC)
    os.write(fd, doc)
    try:
        os.close(fd)
        print("FAIL %s: close succeeded" % name); bad += 1; continue
    except OSError as e:
        if e.errno != errno.EINVAL:
            print("FAIL %s: close gave %s" % (name, e)); bad += 1
    last = open(errors).read().splitlines()[-1]
    if want not in last:
        print("FAIL %s: errors says %r" % (name, last)); bad += 1
# past the YAML size limit: EFBIG at the write, nothing allocated for it
fd = os.open(v, os.O_WRONLY)
try:
    os.pwrite(fd, b"x", 256 << 20)
    print("FAIL: a write past 256 MiB was accepted"); bad += 1
except OSError as e:
    if e.errno != errno.EFBIG:
        print("FAIL: write past 256 MiB gave %s" % e); bad += 1
try:
    os.ftruncate(fd, (256 << 20) + 1)
    print("FAIL: a truncate past 256 MiB was accepted"); bad += 1
except OSError as e:
    if e.errno != errno.EFBIG:
        print("FAIL: truncate past 256 MiB gave %s" % e); bad += 1
os.close(fd)
sys.exit(1 if bad else 0)
PY
cmp -s "$GAME/walk.animation" "$T/orig" || fail "the binary changed"
cmp -s "$GAME/bomb.animation" "$T/bomb" || fail "the bomb changed"
ls -A "$GAME" | grep -q '^\.animfs-tmp-' && fail "a temporary file was left"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "hostile: ok"
