#!/usr/bin/env bash
# refit: true on a real CLIP channel whose range has room below (issue 46): one value
# pushed 2.3 steps past the top is taken by moving the channel's offset by whole steps,
# the scale kept, so every other frame keeps its code and its value to within the new
# offset's float rounding (a full refit moves every value by up to half a step: every
# line of the channel changes), and the edited value lands within half a step. The
# game's own channels span their whole code range (offset and scale from their values),
# so the channel is first widened, by the
# fewest steps (8 or more) whose float offset lets the move keep at least half of the
# printed values (a float offset rarely keeps them all; else refit recomputes the range).
set -u
A=${ANIMFS:?set ANIMFS to the animfs binary}
S=${ANIMFS_SAMPLES:-$(dirname "$0")/../../../shared/samples}
C=$S/sims3-clip/echoweaver_Breastfeed/S3_6B20C4F3_00000000_096265A2AD5D5C9A%%+CLIP.animation
[ -f "$C" ] || { echo "SKIP: ../shared/samples not found ($C)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$A" decode --schema-ref none "$C" > "$tmp/c.yaml" || fail "decode"
# step $1: widen (scale + 8 steps) or push (one value 2.3 steps over, refit: true) the
# first F3_HighPrecisionNormalized channel of more than 20 frames
edit() {
  python3 - "$1" "$2" "$3" "${4:-0}" <<'PY'
import re, sys
how, src, dst = sys.argv[1:4]
L = open(src).read().split("\n")
row = re.compile(r"^      \d+: (?:\{v: )?\[([^\]]*)\]")
for i, l in enumerate(L):
    if l != "    type: F3_HighPrecisionNormalized" or not L[i + 2].startswith("    offset: "):
        continue
    off = float(L[i + 2].split()[1]); sc = abs(float(L[i + 3].split()[1])); q = sc / 1023
    rows = [j for j in range(i + 5, len(L)) if row.match(L[j])]
    rows = [j for k, j in enumerate(rows) if j == i + 5 + k]
    if len(rows) <= 20:
        continue
    if how == "widen":
        L[i + 3] = "    scale: %r" % (sc + int(sys.argv[4]) * q)
    else:
        r = rows[len(rows) // 2]
        v = row.match(L[r]).group(1).split(", ")
        c = max(range(len(v)), key=lambda k: float(v[k]))
        v[c] = repr(off + sc + 2.3 * q)
        L[r] = L[r][:L[r].index("[")] + "[" + ", ".join(v) + L[r][L[r].index("]"):]
        L.insert(i + 2, "    refit: true")
    # written before the line is printed: the caller reads the line and goes on at once
    open(dst, "w").write("\n".join(L))
    if how != "widen":
        print(r + 1, c, off + sc + 2.3 * q, q, flush=True)
    sys.exit(0)
sys.exit(1)
PY
}
# the channel widened by w steps: the first w whose float offsets let the move keep at
# least half of the frames' printed values (the mover's own rule; else a full refit)
for w in $(seq 8 40); do
  edit widen "$tmp/c.yaml" "$tmp/w.yaml" "$w" || fail "no channel to widen"
  "$A" encode "$tmp/w.yaml" -o "$tmp/w.animation" 2>/dev/null || fail "encode the widened channel"
  "$A" decode --schema-ref none "$tmp/w.animation" > "$tmp/base.yaml" || fail "decode"
  read -r line comp want q < <(edit push "$tmp/base.yaml" "$tmp/e.yaml") || fail "no channel to edit"
  err=$("$A" encode "$tmp/e.yaml" -o "$tmp/e.animation" 2>&1) || fail "refit refused: $err"
  echo "$err" | grep -qE "offset moved by [0-9]+ step\(s\)" && break
done
echo "$err" | grep -qE "offset moved by [0-9]+ step\(s\)" || fail "no widening from 8 to 40 steps let the offset move: $err"
echo "widened by $w steps: $(echo "$err" | grep -o 'offset moved.*')"
kept=$(echo "$err" | sed -n 's/.*(refit): \([0-9]*\) of the \([0-9]*\) frames.*/\1 \2/p')
"$A" decode --schema-ref none "$tmp/e.animation" > "$tmp/after.yaml" || fail "decode the refit"
python3 - "$tmp/base.yaml" "$tmp/after.yaml" "$line" "$comp" "$want" "$q" $kept <<'PY' || fail "values moved"
import re, sys
a, b = (open(f).read().split("\n") for f in sys.argv[1:3])
line, comp, want, q = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
kept, inrange = int(sys.argv[7]), int(sys.argv[8])
row = re.compile(r"^      \d+: (?:\{v: )?\[([^\]]*)\]")
assert len(a) == len(b), "line counts differ"
worst, same, rows = 0.0, 0, 0
for n, (x, y) in enumerate(zip(a, b), 1):
    mx, my = row.match(x), row.match(y)
    if not mx:
        continue
    vx = [float(t) for t in mx.group(1).split(", ")]
    vy = [float(t) for t in my.group(1).split(", ")]
    for k, (u, w) in enumerate(zip(vx, vy)):
        if n == line and k == comp:
            assert abs(w - want) <= q / 2, "the edited value %r is %r" % (want, w)
        else:
            worst = max(worst, abs(u - w))
    rows += 1
    same += x == y
changed = rows - same
print("frame lines changed: %d (the edited one and %d of the %d in range not kept); "
      "largest move of another value: %.3g (a step: %.3g)" % (changed, inrange - kept, inrange, worst, q))
assert worst <= 2.5e-7, "another value moved by %g" % worst
assert changed <= 1 + inrange - kept <= 1 + inrange // 2, "%d frame lines changed" % changed
PY
echo "ok: refit moved the offset; every other value kept to 2.5e-7, most exactly"
