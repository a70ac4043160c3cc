# Proof by descriptor (issue 42): the daemon renders the file its caller opened, never
# what the name holds a moment later. In a 0777 folder that is not sticky, A swaps A's
# own a.animation with B's 0600 b.animation (renameat2's RENAME_EXCHANGE, in a loop,
# straight in GAME) while A reads both views, their plots and their glTF previews, and
# A's saves of a.animation.yaml race the swap too. A plain file system answers EACCES
# to every open of B's file and lets A's save replace only what a plain `mv` would:
# so no read A makes may show B's data (a bone only B's file has), and B's file must
# keep B's bytes, owner and mode. RACE_SECONDS each for the reads and the saves: 20 in
# mount/caller_race_full (slow tier, ANIMFS_TEST_FULL=1: issue 42's "at least 20 s"),
# 3 in mount/caller_race (default tier).
. "$(dirname "$0")/common.inc"
. "$(dirname "$0")/users.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
here=$(dirname "$0")
secs=3
[ "${ANIMFS_TEST_FULL:-}" = 1 ] && secs=20
secs=${RACE_SECONDS:-$secs}
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$T/a.animation" || fail "encode a"
sed 's/LeftUpLeg/SecretBoneB/' "$src/examples/walk.animation.yaml" > "$T/b.yaml"
"$ANIMFS" encode "$T/b.yaml" -o "$T/b.animation" || fail "encode b"
mkdir -m 777 "$GAME/pub"
put() { cp "$1" "$GAME/$2" && chown "$3" "$GAME/$2" && chmod "$4" "$GAME/$2"; }
put "$T/a.animation" pub/a.animation "$UA" 644
put "$T/b.animation" pub/b.animation "$UB" 600
mount_view_fg -o allow_other
P=$VIEW/pub
files="$P/a.animation.yaml $P/b.animation.yaml
$VIEW/.animfs/plot/pub/a.animation.yaml.svg $VIEW/.animfs/plot/pub/b.animation.yaml.svg
$VIEW/.animfs/gltf/pub/a.animation.yaml.glb $VIEW/.animfs/gltf/pub/b.animation.yaml.glb"
# preconditions: each output shows B's bone to B, and none is A's to read
for f in $P/b.animation.yaml $VIEW/.animfs/plot/pub/b.animation.yaml.svg \
         $VIEW/.animfs/gltf/pub/b.animation.yaml.glb; do
  as_b grep -qa SecretBoneB "$f" || fail "precondition: B's $f shows no SecretBoneB"
  as_a cat "$f" >/dev/null 2>&1 && fail "precondition: A reads B's $f"
done
as_a grep -qa LeftUpLeg "$P/a.animation.yaml" || fail "precondition: A's view"

swap() { # as A, for $1 seconds: a.animation <-> b.animation in GAME
  as_a "$PY" - "$GAME/pub" "$1" <<'PYEOF'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
d = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
end, n = time.time() + float(sys.argv[2]), 0
while time.time() < end:
    if libc.renameat2(d, b"a.animation", d, b"b.animation", 2) != 0:
        sys.exit("renameat2: errno %d" % ctypes.get_errno())
    n += 1
print("swaps", n)
PYEOF
}

# 1. reads of the views, plots and previews against the swap
swap "$secs" > "$T/swaps1" 2>&1 &
sw=$!
as_a "$PY" - "$secs" $files > "$T/reads" 2>&1 <<'PYEOF' &
import sys, time
end, ok, refused, leaks = time.time() + float(sys.argv[1]), {}, 0, []
while time.time() < end:
    for f in sys.argv[2:]:
        try:
            with open(f, "rb") as h:
                data = h.read()
        except OSError:
            refused += 1
            continue
        ok[f] = ok.get(f, 0) + 1
        if b"SecretBoneB" in data:
            leaks.append(f)
print("reads", sum(ok.values()), "refused", refused, "leaks", len(leaks))
for f in sorted(ok):
    print("  ", ok[f], f)
for f in sorted(set(leaks)):
    print("LEAK", f)
sys.exit(1 if leaks or len(ok) < 3 else 0)
PYEOF
rd=$!
wait $sw || fail "the swap failed: $(cat "$T/swaps1")"
wait $rd; rrc=$?
cat "$T/swaps1" "$T/reads"
[ $rrc = 0 ] || fail "A read B's data (or read too little): $(grep -c LEAK "$T/reads") outputs leaked"
echo "ok 1: $(cat "$T/swaps1"): A never read B's view, plot or preview"

# 2. A's saves of the view of a.animation against the swap: a save replaces what the name
# holds, as `mv` would (A may rename in this folder), and never writes B's file in place
sed 's/LeftUpLeg/SavedByA/' "$src/examples/walk.animation.yaml" > "$T/a2.yaml"
swap "$secs" > "$T/swaps2" 2>&1 &
sw=$!
end=$(( $(date +%s) + secs )); saves=0
while [ "$(date +%s)" -lt "$end" ]; do
  as_a cp "$T/a2.yaml" "$P/a.animation.yaml" 2>/dev/null && saves=$((saves + 1))
done
wait $sw || fail "the swap failed: $(cat "$T/swaps2")"
# B's file is wherever its inode is now: B's bytes, owner and mode, or (replaced by A's
# save, as a plain `mv` onto its name would) gone from that name, never rewritten
n=0
for f in "$GAME"/pub/*.animation; do
  if [ "$(stat -c %U "$f")" = "$UB" ]; then
    n=$((n + 1))
    [ "$(stat -c %a "$f")" = 600 ] || fail "2: B's file's mode is $(stat -c %a "$f")"
    cmp -s "$f" "$T/b.animation" || fail "2: B's file was written by A's save"
  else # what A's save made: A's file, as `mv` by A makes it
    [ "$(stat -c %U "$f")" = "$UA" ] || fail "2: $f is $(stat -c %U "$f")'s after A's saves"
  fi
done
as_a grep -q SecretBoneB "$P"/*.animation.yaml 2>/dev/null && fail "2: A reads B's bone after the saves"
echo "ok 2: $(cat "$T/swaps2"), $saves saves by A: B's file kept its bytes and mode ($n left)"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "caller_race: ok"
