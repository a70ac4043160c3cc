# Issue 28: a view's text is rendered within the memory bound. A Diesel file of 500 000
# keys (an 8 MB binary, no zlib, whose view is 19 MB of YAML: more than the 16 MiB one
# render takes of its own) under --cache-mb=1, where the render cache has next to nothing to
# lend: the render stops at its bound instead of holding the whole text, the file is
# listed and read as its plain binary (byte for byte), and .animfs/errors names it,
# the size and --cache-mb. Mounted with the default --cache-mb the same file is its
# view, the text `animfs decode` gives.
. "$(dirname "$0")/common.inc"
# the daemon too is the unsanitized build when scripts/test built one (tests/samples.inc):
# rendering 19 MB under ASan twice is most of a minute; the render paths are checked
# under ASan by the other mount tests
ANIMFS=$PLAIN
b=big.animation
python3 - "$T/big.yaml" <<'PY' || fail "cannot write the document"
import sys
n = 500_000
out = ["format: diesel-animation", "length: 1.0", "binary:", "  layout: 32-bit",
       "  container: raw", "objects:", "  - name: root_point",
       "    position:", "      type: pos_f32", "      keys:"]
out += ["        - [%r, 0.0, %r, 0.0]" % (i / 2**20, (i % 512) / 4) for i in range(n)]
out += ["    rotation:", "      type: rot_packed", "      keys:",
        "        - [0.0, 0.000, 0.000, 0.000, 1.000]"]
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
"$EXPECT_ANIMFS" encode --cache-mb=1024 "$T/big.yaml" -o "$GAME/$b" || fail "encode"
"$EXPECT_ANIMFS" decode --schema-ref .animfs/schema "$GAME/$b" > "$T/expect.yaml" || fail "decode"
size=$(stat -c %s "$T/expect.yaml")
[ "$size" -gt $((17 << 20)) ] || fail "the view is only $size bytes: the test needs more than 17 MiB"

mount_view_fg --cache-mb=1
names=$(ls "$VIEW")
[ "$names" = "$b" ] || fail "listed as '$names', not as the plain binary"
cmp -s "$VIEW/$b" "$GAME/$b" || fail "the plain binary does not read back byte for byte"
[ -e "$VIEW/$b.yaml" ] && fail "the view exists under --cache-mb=1"
line=$(grep -F "$b: its view would be more than" "$VIEW/.animfs/errors") ||
  fail "no line in .animfs/errors: $(cat "$VIEW/.animfs/errors")"
case "$line" in *"under --cache-mb=1 "*"raise --cache-mb"*) ;; *) fail "the line says: $line";; esac
echo "under --cache-mb=1: $line"
fusermount3 -u "$VIEW"
check_daemon

mount_view_fg
cmp -s "$VIEW/$b.yaml" "$T/expect.yaml" || fail "the view under the default --cache-mb is not the decode"
echo "under the default --cache-mb: the view, $size bytes"
fusermount3 -u "$VIEW"
check_daemon
echo "ok: view_bound"
