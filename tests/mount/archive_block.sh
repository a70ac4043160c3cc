# One slow archive never blocks the other files of the mount (issue 28). A TAD whose
# TAC is a FIFO is an archive as slow as the test wants: listing it, the daemon reads
# the TAC and waits there until the test writes it. Meanwhile a raw member and a view
# of two other archives (neither read before, so each is opened), a loose view and a
# plain file are read; each read must return while that listing still waits (no lock
# of the whole mount held across an archive's reading or listing). Then the TAC is
# written and the listing completes with the TAD's member.
. "$(dirname "$0")/common.inc"
S="$ANIMFS_SAMPLES/shenmue-containers"
[ -f "$S/syn_pks_2motn.PKS" ] || { echo "SKIP: ../shared/samples not found"; exit 77; }
TOOLS="$(dirname "$0")/../tools"
python3 "$TOOLS/shm_make_tad.py" "$T/mod.tad" "$T/mod.tac" "$S/syn_BPK_MISS.MOTN" || fail "shm_make_tad"
cp "$T/mod.tad" "$GAME/mod.tad"
mkfifo "$GAME/mod.tac"
python3 "$TOOLS/shm_make_big.py" pks 100 "$GAME/SMALL.PKS" || fail "shm_make_big"
cp "$S/syn_pks_2motn.PKS" "$GAME/TWO.PKS"
cp "$S/syn_A_WALK.MOTN" "$GAME/A_WALK.MOTN"
echo "a plain file" > "$GAME/other.txt"
chmod u+w "$GAME"/*
two=$(python3 "$TOOLS/shm_reader.py" list "$GAME/TWO.PKS" | awk 'NR == 1 { print $2 }')
[ -n "$two" ] || fail "no member in TWO.PKS"

# the gate: holds the FIFO open for writing once the daemon opens it for reading
# (then "inside" exists), and writes the TAC when "release" exists (or after 60 s)
python3 - "$GAME/mod.tac" "$T/mod.tac" "$T/inside" "$T/release" <<'PY' &
import os, sys, time
fifo, tac, inside, release = sys.argv[1:]
fd = os.open(fifo, os.O_WRONLY)  # blocks until the daemon opens it
open(inside, "w").close()
end = time.monotonic() + 60
while not os.path.exists(release) and time.monotonic() < end:
    time.sleep(0.05)
os.write(fd, open(tac, "rb").read())
os.close(fd)
PY
gate=$!
release() {
  touch "$T/release"
  # a gate that never saw the daemon: open the FIFO for reading ourselves to end it
  [ -e "$T/inside" ] || { timeout 5 cat "$GAME/mod.tac" >/dev/null 2>&1 || true; }
  wait "$gate" 2>/dev/null || true
  # the listing ends once the TAC is read (a folder still listed keeps the mount busy)
  [ -z "${lister:-}" ] || wait "$lister" 2>/dev/null || true
}
trap 'release; cleanup' EXIT
lister=
mount_view_fg

ls -f "$VIEW/mod.tad" > "$T/ls" 2>&1 &
lister=$!
for _ in $(seq 600); do [ -e "$T/inside" ] && break; sleep 0.1; done
[ -e "$T/inside" ] || fail "the daemon never read the TAC"

# each read while the TAD's listing waits on its TAC (20 s: blocked, not slow; a read
# the daemon has taken cannot be killed, so a blocked one ends once the TAC is written)
read_now() {
  cat "$1" > "$T/got" &
  local r=$!
  for _ in $(seq 200); do kill -0 "$r" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$r" 2>/dev/null; then
    touch "$T/release"
    wait "$r"
    fail "$2: not read while another archive is listed (still waiting after 20 s)"
  fi
  wait "$r" || fail "$2: the read failed"
  [ -s "$T/got" ] || fail "$2: empty"
}
read_now "$VIEW/SMALL.PKS/E0000000.CHRM" "a raw member of another PKS"
cmp -s "$T/got" <(python3 "$TOOLS/shm_reader.py" extract "$GAME/SMALL.PKS/E0000000.CHRM" /dev/stdout) ||
  fail "the raw member's bytes"
read_now "$VIEW/TWO.PKS/$two.yaml" "a view in another PKS"
grep -q '^format: ' "$T/got" || fail "the view in another PKS: $(head -3 "$T/got")"
read_now "$VIEW/A_WALK.MOTN.yaml" "a loose view"
read_now "$VIEW/other.txt" "a plain file"
stat "$VIEW/SMALL.PKS/index.yaml" > /dev/null || fail "stat in another PKS"
kill -0 "$lister" 2>/dev/null && [ ! -s "$T/ls" ] ||
  fail "the TAD's listing did not wait on its TAC (the test proves nothing): $(cat "$T/ls")"

touch "$T/release"
wait "$lister" || fail "the TAD's listing failed: $(cat "$T/ls")"
grep -qx '00000_00001000.MOTN.yaml' "$T/ls" || fail "the TAD's listing: $(cat "$T/ls")"
wait "$gate" || fail "the gate"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "archive_block: ok"
