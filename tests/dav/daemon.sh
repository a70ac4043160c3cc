#!/usr/bin/env bash
# animfs serve --daemon: the command ends once the server listens, saying its URL and
# pid; the server runs in its own session with no terminal, serves and saves as in the
# foreground, and a kill (SIGTERM) ends it with every save on disk. A server that
# cannot listen (the port taken) makes the command fail with the reason and leaves no
# process behind.
. "$(dirname "$0")/dav.inc"
need_samples
cp "$ANIMFS_SAMPLES"/diesel/*.animation "$GAME"/
chmod u+w "$GAME"/*
small=$(ls -S "$GAME"/*.animation | tail -1 | xargs -n1 basename)
DPID=""
dcleanup() {
  [ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null
  cleanup
}
trap dcleanup EXIT

# the command returns (within the timeout) with status 0 and one line
start=$(date +%s)
TMPDIR="$T" timeout 60 "$ANIMFS" serve "$GAME" --listen 127.0.0.1:0 --daemon \
  > "$T/d.out" 2> "$T/d.err" < /dev/null || fail "serve --daemon failed: $(cat "$T/d.err")"
DPID=$(sed -n 's/.*(pid \([0-9][0-9]*\): kill .*/\1/p' "$T/d.out")
port=$(sed -n 's|.*http://127.0.0.1:\([0-9][0-9]*\)/.*|\1|p' "$T/d.out")
[ -n "$DPID" ] && [ -n "$port" ] || fail "serve --daemon did not say its pid and port: $(cat "$T/d.out")"
U=http://127.0.0.1:$port
kill -0 "$DPID" 2>/dev/null || fail "the server $DPID is not running"
# its own session, no controlling terminal, stdio on /dev/null, not in the start folder
[ "$(ps -o sid= -p "$DPID" | tr -d ' ')" = "$DPID" ] || fail "the server is not a session leader"
[ "$(ps -o tty= -p "$DPID" | tr -d ' ')" = "?" ] || fail "the server has a terminal"
for fd in 0 1 2; do
  [ "$(readlink "/proc/$DPID/fd/$fd")" = /dev/null ] || fail "the server's fd $fd is $(readlink "/proc/$DPID/fd/$fd")"
done
[ "$(readlink "/proc/$DPID/cwd")" = / ] || fail "the server stays in $(readlink "/proc/$DPID/cwd")"

# it serves and saves
expect 200 GET "/$small.yaml"
cp "$T/body" "$T/v.yaml"
len=$(sed -n 's/^length: *\([^ ]*\).*/\1/p' "$T/v.yaml")
sed "s/^length: *$len /length: 2.5 /" "$T/v.yaml" > "$T/e.yaml"
grep -q "^length: 2.5 " "$T/e.yaml" || fail "cannot make the edit"
expect 204 PUT "/$small.yaml" -T "$T/e.yaml"
"$ANIMFS" encode "$T/e.yaml" -o "$T/want.animation" 2>/dev/null || fail "encode of the edit"

# a second server on the same port: the command fails, says why, leaves nothing running
if TMPDIR="$T" timeout 60 "$ANIMFS" serve "$GAME" --listen "127.0.0.1:$port" --daemon \
     > "$T/d2.out" 2> "$T/d2.err" < /dev/null; then
  fail "a second serve --daemon on a taken port succeeded: $(cat "$T/d2.out")"
fi
[ -s "$T/d2.err" ] || fail "the refused serve --daemon said nothing"
grep -qi "in use" "$T/d2.err" || fail "the refusal does not say why: $(cat "$T/d2.err")"
# (a refused server's forked child may still be on its way out: waited for, up to 10 s)
for _ in $(seq 100); do
  left=$(pgrep -f -- "--listen 127.0.0.1:$port --daemon" | grep -vx "$DPID" || true)
  [ -z "$left" ] && break
  sleep 0.1
done
[ -z "$left" ] || fail "a refused serve --daemon left processes: $left"
# -d and --daemon together are refused
if TMPDIR="$T" timeout 20 "$ANIMFS" serve "$GAME" --listen 127.0.0.1:0 --daemon -d > /dev/null 2> "$T/d3.err"; then
  fail "serve --daemon -d was accepted"
fi

# SIGTERM ends it, the save on disk
kill -TERM "$DPID"
for _ in $(seq 200); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.05; done
kill -0 "$DPID" 2>/dev/null && fail "the server did not end on SIGTERM"
DPID=""
cmp -s "$GAME/$small" "$T/want.animation" || fail "the save is not on disk after the server ended"
echo "PASS: serve --daemon detaches, serves, refuses a taken port, ends on SIGTERM"
