#!/usr/bin/env bash
# 32 clients at once against animfs serve for a bounded time (LOAD_SECONDS, default 8):
# 16 save their own view over and over (each save a new length), 16 read views and
# list folders. Every request answers as it should (0 errors), every text read is one
# that was saved whole (none torn), the last save of each view is what its binary holds
# (none lost), and the server's peak memory stays within --cache-mb + 64 MiB (measured
# on the unsanitized animfs when the build has one).
. "$(dirname "$0")/dav.inc"
need_samples
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
small=$(ls -S "$ANIMFS_SAMPLES"/diesel/*.animation | tail -1)
for i in $(seq 0 15); do cp "$small" "$GAME/w$i.animation"; done
cp "$ANIMFS_SAMPLES"/diesel/*.animation "$GAME"/
chmod u+w "$GAME"/*
ANIMFS=$PLAIN start_serve --cache-mb=16
python3 - "$U" "${LOAD_SECONDS:-8}" "$T" <<'PY' || fail "the load found errors"
import http.client, os, random, re, sys, threading, time, urllib.parse
url, secs, tmp = sys.argv[1], float(sys.argv[2]), sys.argv[3]
host = urllib.parse.urlparse(url).netloc
errors, saved, reads = [], {}, [0]
lock = threading.Lock()
def req(c, m, p, body=None, headers={}):
    c.request(m, p, body=body, headers=headers)
    r = c.getresponse()
    return r.status, r.read()
def base(i):
    c = http.client.HTTPConnection(host, timeout=60)
    s, b = req(c, "GET", "/w%d.animation.yaml" % i)
    assert s == 200, s
    return b.decode()
texts = {}
for i in range(16):
    t = base(i)
    texts[i] = [t]
    saved[i] = t
LEN = re.compile(r"^length: *([0-9.]+) ", re.M)
stop = time.time() + secs
def writer(i):
    c = http.client.HTTPConnection(host, timeout=60)
    k = 0
    while time.time() < stop:
        k += 1
        t = LEN.sub("length: %d.%d1 " % (k, i), saved[i], count=1)  # no trailing 0: as rendered
        with lock:
            texts[i].append(t)  # may be read as soon as the save lands
        s, b = req(c, "PUT", "/w%d.animation.yaml" % i, t.encode())
        if s != 204:
            errors.append("PUT w%d: %d %s" % (i, s, b[:200]))
            return
        saved[i] = t
def reader(j):
    c = http.client.HTTPConnection(host, timeout=60)
    rnd = random.Random(j)
    while time.time() < stop:
        if rnd.random() < 0.2:
            s, b = req(c, "PROPFIND", "/", headers={"Depth": "1"})
            if s != 207 or not b.rstrip().endswith(b"</D:multistatus>"):
                errors.append("PROPFIND: %d" % s)
            continue
        i = rnd.randrange(16)
        s, b = req(c, "GET", "/w%d.animation.yaml" % i)
        if s != 200:
            errors.append("GET w%d: %d" % (i, s)); continue
        t = b.decode()
        with lock:
            ok = t in texts[i]
        if not ok:
            errors.append("GET w%d: a text never saved (torn?), %d bytes" % (i, len(t)))
        reads[0] += 1
ts = [threading.Thread(target=writer, args=(i,)) for i in range(16)]
ts += [threading.Thread(target=reader, args=(j,)) for j in range(16)]
for t in ts: t.start()
for t in ts: t.join()
for i in range(16):
    if base(i) != saved[i]:
        errors.append("w%d: the view is not its last save" % i)
    open(os.path.join(tmp, "last%d.yaml" % i), "w").write(saved[i])
print("saves: %d, reads: %d, errors: %d" % (sum(len(v) - 1 for v in texts.values()), reads[0], len(errors)))
for e in errors[:10]: print("  " + e)
sys.exit(1 if errors else 0)
PY
# none lost: each binary is encode's of its last save
for i in 0 7 15; do
  "$PLAIN" encode "$T/last$i.yaml" -o "$T/last$i.animation" || fail "encode of w$i's last save"
  cmp -s "$T/last$i.animation" "$GAME/w$i.animation" || fail "w$i: the binary is not its last save"
done
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$SERVER/status")
echo "animfs serve peak memory: $((hwm / 1024)) MiB (bound: 16 + 64 MiB)"
if [ "$PLAIN" != "$ANIMFS" ]; then
  [ "$hwm" -le $(((16 + 64) * 1024)) ] || fail "peak memory $((hwm / 1024)) MiB is over the bound"
else
  echo "note: no unsanitized animfs in this build: the bound is not checked (ASan's memory)"
fi
stop_serve
echo "PASS: 32 clients, no error, nothing torn or lost"
