# Load: writers each saving their own file over and over while readers read,
# stat and list the same files, for ANIMFS_LOAD_SECONDS (default 10 in the default
# tier; mount/load_full, ANIMFS_TEST_FULL=1 in the slow tier, runs the issue's minute,
# 60). Every read is a whole document of one saved
# version, every close succeeds, nothing deadlocks (the run is bounded), and at
# the end each binary decodes to the last document written. No samples needed.
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
secs=10
[ "${ANIMFS_TEST_FULL:-}" = 1 ] && secs=60
secs=${ANIMFS_LOAD_SECONDS:-$secs}
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$T/walk.animation" || fail "encode"
for i in 0 1 2 3; do cp "$T/walk.animation" "$GAME/w$i.animation"; done
mount_view_fg
timeout $((secs + 120)) python3 - "$VIEW" "$secs" > "$T/load.out" <<'PY' || fail "load: $(cat "$T/load.out")"
import os, re, sys, threading, time
view, secs = sys.argv[1], float(sys.argv[2])
files = ["w%d.animation.yaml" % i for i in range(4)]
base = open(os.path.join(view, files[0])).read()
assert re.search(r"^length: *[^ #\n]+", base, re.M), "no length line"
def doc(v):
    return re.sub(r"^length: *[^ #\n]+", "length: " + v, base, count=1, flags=re.M)
pat = re.compile(r"^length: *([^ #\n]+).*$", re.M)
def bare(t):
    # trailing comments are derived from the values (seconds of events): ignore them
    return "\n".join(re.sub(r"\s+#.*$", "", l) for l in t.split("\n"))
def same(t, v):
    """t is the whole document of version v."""
    m = pat.search(t)
    return m is not None and m.group(1) == v and bare(t) == bare(doc(v))
stop = time.monotonic() + secs
last = {f: None for f in files}
errors, counts = [], {"saves": 0, "reads": 0}
lock = threading.Lock()
def err(m):
    with lock:
        errors.append(m)
def writer(f):
    k = 0
    while time.monotonic() < stop and not errors:
        k += 1
        v = "%d.5" % k
        try:
            with open(os.path.join(view, f), "w") as fh:
                fh.write(doc(v))
        except OSError as e:
            err("%s: save %d failed: %s" % (f, k, e)); return
        last[f] = v
        with lock:
            counts["saves"] += 1
        got = open(os.path.join(view, f)).read()
        if not same(got, v):
            err("%s: read back after save %d differs" % (f, k)); return
def reader():
    while time.monotonic() < stop and not errors:
        names = os.listdir(view)
        for f in files:
            if f not in names:
                err("%s missing from a listing" % f); return
            p = os.path.join(view, f)
            os.stat(p)
            t = open(p).read()
            m = pat.search(t)
            if not m or not same(t, m.group(1)):
                err("%s: a reader saw a partial or mixed document (%d bytes)" % (f, len(t))); return
            with lock:
                counts["reads"] += 1
ts = [threading.Thread(target=writer, args=(f,)) for f in files]
ts += [threading.Thread(target=reader) for _ in range(4)]
for t in ts: t.start()
for t in ts: t.join()
if errors:
    print("\n".join(errors)); sys.exit(1)
for f in files:
    print(f, last[f])
print("saves %d reads %d" % (counts["saves"], counts["reads"]), file=sys.stderr)
PY
while read -r f val; do
  [ "$(length_of "$GAME/${f%.yaml}")" = "$val" ] || fail "$f: the binary does not hold the last save ($val)"
done < "$T/load.out"
[ "$(wc -l < "$T/load.out")" = 4 ] || fail "load: $(cat "$T/load.out")"
ls -A "$GAME" | grep -q '^\.animfs-tmp-' && fail "a temporary file was left"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "load: ok"
