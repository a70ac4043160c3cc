# Issue 47: one memory bound for every output, plots and previews too. The motion bank
# (1.8 MB, a view of 14.6 MB whose YAML tree takes 87 MB) is plotted and previewed through
# .animfs/plot and .animfs/gltf, alone and 12 callers at once, under --cache-mb=16 (bound
# 80 MiB) and --cache-mb=100 (bound 164): the daemon's VmHWM stays within the bound, and
# each read gives the bytes `animfs plot` / `animfs gltf` make of the same view, or is
# refused (EFBIG) with its line in .animfs/errors naming what it would take and
# --cache-mb. Under --cache-mb=100 each is made (so the test sees both answers). Before:
# one preview took the daemon to 150 MiB under --cache-mb=16, one plot to 106, 12
# previews at once to 681.
. "$(dirname "$0")/common.inc"
bank=$ANIMFS_SAMPLES/shenmue/dashgl_motion.bin
[ -f "$bank" ] || { echo "SKIP: no motion bank in ../shared/samples/shenmue"; exit 77; }
# an unsanitized daemon (tests/samples.inc): ASan's allocator says nothing of animfs's peak
[ "$PLAIN" != "$ANIMFS" ] || { echo "SKIP: the unsanitized build is not there (scripts/test makes it)"; exit 77; }
ANIMFS=$PLAIN
cp "$bank" "$GAME/m.bin"
mkdir -p "$T/cli"
# what the command line makes of the same view (its title: the view's name)
expect() {
  cat "$VIEW/m.bin.yaml" > "$T/cli/m.bin.yaml" || fail "the view"
  "$ANIMFS" gltf "$T/cli/m.bin.yaml" -o "$T/cli/m.glb" || fail "animfs gltf"
  "$ANIMFS" plot "$T/cli/m.bin.yaml" -o "$T/cli/m.svg" || fail "animfs plot"
}
# reads KIND N: N callers at once read the plot (svg) or preview (glb); each result
# checked; MADE set to how many were made
reads() {
  local kind=$1 n=$2 dir what i made=0 pids=()
  if [ "$kind" = glb ]; then dir=gltf what=preview; else dir=plot what=plot; fi
  for i in $(seq "$n"); do
    cat "$VIEW/.animfs/$dir/m.bin.yaml.$kind" > "$T/out$i" 2> "$T/err$i" &
    pids+=($!)
  done
  for i in $(seq "$n"); do
    if wait "${pids[$((i - 1))]}"; then
      cmp -s "$T/out$i" "$T/cli/m.$kind" || fail "$what $i of $n differs from the command line's"
      made=$((made + 1))
    else
      grep -q "File too large" "$T/err$i" || fail "$what $i of $n: $(cat "$T/err$i")"
      grep -q "m.bin: its $what would take more than [0-9]* MiB.*--cache-mb=$cache_mb.*raise --cache-mb" \
        "$VIEW/.animfs/errors" || fail "a $what refused with no line in .animfs/errors"
    fi
  done
  MADE=$made
}
run() { # run CACHE_MB MIN_MADE: alone then 12 at once, each kind; VmHWM within the bound
  cache_mb=$1
  local min=$2 a b c d hwm
  ANIMFS_SIZE_CACHE=0 mount_view_fg --cache-mb="$cache_mb"
  local pid; pid=$(cat "$VIEW/.animfs/pid")
  [ -f "$T/cli/m.glb" ] || expect
  reads glb 1; a=$MADE
  reads svg 1; b=$MADE
  reads glb 12; c=$MADE
  reads svg 12; d=$MADE
  hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
  "$EXPECT_ANIMFS" umount "$VIEW"
  check_daemon
  echo "--cache-mb=$cache_mb: made $a of 1 and $c of 12 previews, $b of 1 and $d of 12 plots; daemon VmHWM $((hwm >> 10)) MiB (bound $((cache_mb + 64)))"
  [ "$hwm" -le $(((cache_mb + 64) << 10)) ] || fail "the daemon peaked at $((hwm >> 10)) MiB, over --cache-mb + 64 = $((cache_mb + 64)) MiB"
  [ $((a + b + c + d)) -ge "$min" ] || fail "only $((a + b + c + d)) of 26 made under --cache-mb=$cache_mb"
}
run 16 0
run 100 26
echo "output_bound: ok"
