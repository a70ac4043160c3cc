# Issue 47: texts held open count in the one memory bound. 12 callers each hold a
# different big view open at once (12 copies of the 1.8 MB motion bank: 12 views of
# 14.6 MB, 175 MB of text) under --cache-mb=16 (bound 80 MiB), then read them all at
# once: the daemon's VmHWM stays within the bound, and each open either reads the text
# a view of the bank is, whole, or is refused (EFBIG) with its line in .animfs/errors
# naming what it would take and --cache-mb. A text an open file holds is lent from the
# texts' share while it is in memory; one that does not fit is kept in a file of the
# daemon's (beside the spill file) and read from there. Before: every open file kept its
# text in memory, 12 of them beyond the cache.
. "$(dirname "$0")/common.inc"
bank=$ANIMFS_SAMPLES/shenmue/dashgl_motion.bin
[ -f "$bank" ] || { echo "SKIP: no motion bank in ../shared/samples/shenmue"; exit 77; }
[ "$PLAIN" != "$ANIMFS" ] || { echo "SKIP: the unsanitized build is not there (scripts/test makes it)"; exit 77; }
ANIMFS=$PLAIN
N=12
for i in $(seq 0 "$N"); do cp "$bank" "$GAME/m$i.bin"; done

# hold CACHE_MB MIN_MADE [MOUNT OPTION...]: N callers open their view (each a different
# file), wait until all hold theirs, then read it whole at once
hold() {
  local cache_mb=$1 min=$2 i made=0 pids=()
  refused=0
  shift 2
  rm -f "$T"/ready* "$T/go" "$T"/out*
  ANIMFS_SIZE_CACHE=0 mount_view_fg --cache-mb="$cache_mb" "$@"
  local pid; pid=$(cat "$VIEW/.animfs/pid")
  [ -f "$T/ref" ] || cat "$VIEW/m0.bin.yaml" > "$T/ref" || fail "the view of m0.bin"
  [ "$(stat -c %s "$T/ref")" -gt $((12 << 20)) ] || fail "the bank's view is under 12 MiB"
  for i in $(seq "$N"); do
    ( exec 3< "$VIEW/m$i.bin.yaml" || { touch "$T/ready$i"; exit 1; }
      touch "$T/ready$i"
      while [ ! -e "$T/go" ]; do sleep 0.05; done
      cat <&3 > "$T/out$i" ) 2> "$T/err$i" &
    pids+=($!)
  done
  for _ in $(seq 1200); do
    [ "$(ls "$T" | grep -c '^ready')" -ge "$N" ] && break
    sleep 0.1
  done
  [ "$(ls "$T" | grep -c '^ready')" -ge "$N" ] || fail "the $N opens did not all return"
  touch "$T/go"
  for i in $(seq "$N"); do
    if wait "${pids[$((i - 1))]}"; then
      # (the view's second line names its file)
      sed "2s/: m$i\.bin\$/: m0.bin/" "$T/out$i" | cmp -s - "$T/ref" ||
        fail "view $i of $N held open reads other bytes than the view"
      made=$((made + 1))
    else
      grep -q "File too large" "$T/err$i" || fail "view $i of $N: $(cat "$T/err$i")"
      grep -q "m$i.bin.yaml: .*would take more than [0-9]* MiB.*--cache-mb=$cache_mb.*raise --cache-mb" \
        "$VIEW/.animfs/errors" || fail "view $i refused with no line in .animfs/errors: $(cat "$VIEW/.animfs/errors")"
      refused=$((refused + 1))
    fi
  done
  bound_check "$pid" "$cache_mb" "$* $N different views of $(stat -c %s "$T/ref") bytes held open at once: $made read whole, $refused refused"
  [ "$made" -ge "$min" ] || fail "only $made of $N views read under --cache-mb=$cache_mb"
}
hold 16 "$N"
# no disk for them either (no spill file): the one the texts' share lends is read, the
# others refused with their line
hold 16 1 --spill-mb=0
[ "$refused" -ge 1 ] || fail "none refused with no disk for held texts"
echo "held_bound: ok"
