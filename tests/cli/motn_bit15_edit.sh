#!/usr/bin/env bash
# shenmue-motn, the blocks with rig bit 15 (baked: and nodes:): each newly decoded field
# edited in the view of motion.bin changes exactly its bytes (a node track's first sample
# also its node's value word), decodes back to the edited value, and the rest of the file
# stays byte for byte; structural edits (a bone dropped, a track made constant) re-lay the
# block out and round-trip; bad edits are refused with the YAML line and path.
set -u
bin="${ANIMFS_SAMPLES:-}/shenmue/dashgl_motion.bin"
if [ -z "${ANIMFS_SAMPLES:-}" ] || [ ! -f "$bin" ]; then
	echo "SKIP: ../shared/samples not found"
	exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ANIMFS" decode "$bin" >"$tmp/a.yaml" || fail "decode"

# edit.py MODE IN.yaml OUT.yaml BIN: the edits of MODE; prints the expected bytes
# (file offset and value, one a line) for MODE=values
cat >"$tmp/edit.py" <<'PY'
import re, struct, sys
mode, src, dst, binpath = sys.argv[1:5]
lines = open(src).read().split('\n')
b = open(binpath, 'rb').read()
data = struct.unpack_from('<I', b, 8)[0]
expect = {}

def block(rel):  # the view's lines of block rel: [start, end)
    s = lines.index('  - block: 0x%X' % rel)
    e = s + 1
    while e < len(lines) and not lines[e].startswith('  - block: '):
        e += 1
    return s, e

def find(rel, pattern, nth=0):
    s, e = block(rel)
    hits = [i for i in range(s, e) if re.match(pattern, lines[i])]
    return hits[nth]

def set_item(i, k, text):  # item k of the flow list on line i
    head, rest = lines[i].split('[', 1)
    body, tail = rest.rsplit(']', 1)
    items = body.split(', ')
    items[k] = text
    lines[i] = head + '[' + ', '.join(items) + ']' + tail

def put(off, word):
    expect[off] = word & 0xFF
    expect[off + 1] = word >> 8

def scale_item(i, k, c, text):  # sample k, coordinate c of a scale track line
    head, rest = lines[i].split(': [', 1)
    body, tail = rest.rsplit(']', 1)
    samples = re.findall(r'\[[^\]]*\]', body)
    items = samples[k][1:-1].split(', ')
    items[c] = text
    samples[k] = '[' + ', '.join(items) + ']'
    lines[i] = head + ': [' + ', '.join(samples) + ']' + tail

YS00, EXB3, MEMO, MJAS, HARD = 0xD66B8, 0x10AA90, 0x142C04, 0x1475C8, 0x15089C
if mode == 'values':
    base = data + YS00  # baked: record f at 14 + 32 f
    set_item(find(YS00, '          ty: '), 5, '1.25'); put(base + 14 + 5 * 32 + 2, 0x3D00)
    set_item(find(YS00, '          rx: '), 0, '100'); put(base + 14 + 6, 100)
    i = find(YS00, '        - bone: 31 ')
    set_item(i + 2, 3, '-1000'); put(base + 14 + 3 * 32 + 14, -1000 & 0xFFFF)
    set_item(find(YS00, '          hinge: '), 59, '6000'); put(base + 14 + 59 * 32 + 24, 6000)
    base = data + EXB3
    i = find(EXB3, '      rig: 0xD ')
    lines[i] = lines[i].replace('rig: 0xD ', 'rig: 0xC ', 1); put(base + 2, 0x800C)
    set_item(find(EXB3, '          rz: ', -1), 49, '0'); put(base + 14 + 49 * 98 + 96, 0)
    base = data + MEMO  # nodes: node i at 12 + 32 i
    i = find(MEMO, '      unknown: ')
    lines[i] = lines[i].replace('[0x3C00, 0x0]', '[0x3C00, 0x1]'); put(base + 6, 1)
    set_item(find(MEMO, '          t: ', 0), 1, '0.5'); put(base + 12 + 26, 0x3800)
    set_item(find(MEMO, '        - scale: ', 1), 1, '2.0'); put(base + 12 + 32 + 4, 0x4000)
    rec = base + 12 + 3 * 32  # node 3 ry: its track's sample 0 and the node's value word
    set_item(find(MEMO, '          ry: ', 3), 0, '100'); put(rec + 14, 100)
    put(base + struct.unpack_from('<H', b, rec + 12)[0], 100)
    rec = base + 12 + 7 * 32
    set_item(find(MEMO, '          rz: ', 7), 10, '1234')
    put(base + struct.unpack_from('<H', b, rec + 16)[0] + 20, 1234)
    base = data + MJAS  # node 0's scale track: sample 3 y; sample 0 x, also the node's scale x
    so = base + struct.unpack_from('<H', b, base + 12)[0]
    i = find(MJAS, '        - scale: ', 0)
    scale_item(i, 3, 1, '1.5'); put(so + (3 * 3 + 1) * 2, 0x3E00)
    scale_item(i, 0, 0, '0.5'); put(so, 0x3800); put(base + 12 + 2, 0x3800)
    for off, v in sorted(expect.items()):
        print(off, v)
elif mode == 'shape':
    i = find(YS00, '        - bone: 34 ')  # drop the hinge: 15 words a record
    del lines[i:i + 2]
    i = find(HARD, '          rx: ', 0)  # a track of zeros made constant
    lines[i] = '          rx: 0'
elif mode == 'badlen':
    set_item(find(YS00, '          ty: '), 0, '1.0, 2.0')
elif mode == 'badhinge':
    i = find(YS00, '          hinge: ')
    lines[i] = lines[i].replace('hinge:', 'rx:')
open(dst, 'w').write('\n'.join(lines))
PY

python3 "$tmp/edit.py" values "$tmp/a.yaml" "$tmp/v.yaml" "$bin" >"$tmp/expect" || fail "edit values"
"$ANIMFS" encode "$tmp/v.yaml" -o "$tmp/v.bin" || fail "encode the edited values"
python3 - "$bin" "$tmp/v.bin" "$tmp/expect" <<'PY' || fail "the edited bytes"
import sys
a, b = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
want = {int(o): int(v) for o, v in (l.split() for l in open(sys.argv[3]))}
assert len(a) == len(b), 'size changed: %d -> %d' % (len(a), len(b))
got = {i: b[i] for i in range(len(a)) if a[i] != b[i]}
missing = {o: v for o, v in want.items() if b[o] != v}
extra = {o: v for o, v in got.items() if o not in want}
assert not missing and not extra, 'missing %s, unexpected %s' % (missing, extra)
print('%d bytes changed, each as expected (%d expected, some equal to the old byte)' % (len(got), len(want)))
PY
"$ANIMFS" decode "$tmp/v.bin" >"$tmp/v2.yaml" || fail "decode the edited file"
for want in '^          ty: \[1.15, 1.15, 1.15, 1.15, 1.15, 1.25, 1.15' '^          hinge: \[5173, .*, 6000\]$' \
	'^      rig: 0xC ' '^      unknown: \[0x3C00, 0x1\]' '^          rz: \[.*, 1234, ' \
	'^        - scale: \[\[0.5, 1.0, 1.0\], \[[^]]*\], \[[^]]*\], \[1.0, 1.5, [0-9.]+\]'; do
	grep -qE "$want" "$tmp/v2.yaml" || fail "the edit does not read back: $want"
done

python3 "$tmp/edit.py" shape "$tmp/a.yaml" "$tmp/s.yaml" "$bin" || fail "edit shape"
"$ANIMFS" encode "$tmp/s.yaml" -o "$tmp/s.bin" || fail "encode the structural edits"
[ "$(stat -c %s "$tmp/s.bin")" = $(( $(stat -c %s "$bin") - 60 * 2 - 12 )) ] || fail "size after the structural edits"
out=$("$ANIMFS" check "$tmp/s.bin") || fail "the re-laid file does not round-trip: $out"
"$ANIMFS" decode "$tmp/s.bin" >"$tmp/s2.yaml" || fail "decode the re-laid file"
grep -q '^    baked: ' "$tmp/s2.yaml" && grep -q '^    raw: ' "$tmp/s2.yaml" && fail "a re-laid block came back raw"
[ "$(grep -c '^          hinge: ' "$tmp/s2.yaml")" = 17 ] || fail "the dropped hinge is back"
grep -q '^          rx: 0$' "$tmp/s2.yaml" || fail "the constant rotation does not read back"

python3 "$tmp/edit.py" badlen "$tmp/a.yaml" "$tmp/b1.yaml" "$bin" || fail "edit badlen"
line=$(grep -n '^          ty: \[1.0, 2.0, ' "$tmp/b1.yaml" | cut -d: -f1)
err=$("$ANIMFS" encode "$tmp/b1.yaml" -o "$tmp/b1.bin" 2>&1) && fail "a list of 61 values accepted"
echo "$err" | grep -q "b1.yaml:$line:[0-9]*: blocks\[[0-9]*\] (AKI_AKI_YS00_R_ST) bone 0: ty: expected a list of 60 values (one a frame), got 61" \
	|| fail "length message: $err"
[ -e "$tmp/b1.bin" ] && fail "a failed encode left an output file"
python3 "$tmp/edit.py" badhinge "$tmp/a.yaml" "$tmp/b2.yaml" "$bin" || fail "edit badhinge"
err=$("$ANIMFS" encode "$tmp/b2.yaml" -o "$tmp/b2.bin" 2>&1) && fail "rx on a hinge accepted"
echo "$err" | grep -q "bone 34: missing channel 'hinge'" || fail "hinge message: $err"
echo "ok"
