#!/usr/bin/env bash
# Archives keep their indexes (issue 28): a pass over more packages than the mount keeps
# loaded (ls -lR, then cat of every member view and index.yaml) reads and parses each
# package once and renders each member once; a second pass opens no package and
# renders nothing, under the default cache and under a --cache-mb smaller than one
# member's YAML (the texts then come back from the spill file, the names-dependent
# ones too). The texts are the decode of each member, byte for byte, of the size the
# listing gave. A change of the user dictionary renders the names-dependent members
# again. The daemon's counters (.animfs/stats) say how many renders and opens ran. The
# packages are copies of a real one, its member views over 64 KiB but one over 1 MiB
# removed first (by the unsanitized build: setup).
. "$(dirname "$0")/common.inc"
need_samples
pkg=$(find "$ANIMFS_SAMPLES"/sims3* -name '*.package' -size +100k 2>/dev/null | head -1)
[ -n "$pkg" ] || { echo "SKIP: no Sims 3 package over 100 KB in the samples"; exit 77; }
export ANIMFS_SIZE_CACHE=0 ANIMFS_NAMES=$T/names.txt
printf 'nosuchname\n' > "$ANIMFS_NAMES"
copies=5 # the mount keeps 4 loaded
cp "$pkg" "$GAME/p1.package"
chmod u+w "$GAME/p1.package"
stat_of() { sed -n "s/^$1 //p" "$VIEW/.animfs/stats"; }
members() { (cd "$VIEW/p1.package" && ls) | grep -v '^index\.yaml$'; }
# The setup, by $PLAIN (the daemon under test runs the passes below): the package made
# lighter, each member view over 64 KiB removed but the smallest over 1 MiB (the
# sample's clips are 7 MB of YAML; the one kept is still more than --cache-mb=1), then
# copied; the decode of every member and of the index, once.
ANIMFS=$EXPECT_ANIMFS mount_view_fg
keep=$(cd "$VIEW/p1.package" && stat -c '%s %n' *.yaml | awk '$1 > 1048576' | sort -n | head -1 | cut -d' ' -f2)
[ -n "$keep" ] || fail "no member view over 1 MiB in $(basename "$pkg")"
for m in $(members); do
  [ "$m" = "$keep" ] || [ "$(stat -c %s "$VIEW/p1.package/$m")" -le 65536 ] || rm "$VIEW/p1.package/$m" ||
    fail "cannot remove $m"
done
mkdir "$T/want" "$T/index"
for m in $(members); do
  view_decode "$GAME/p1.package/${m%.yaml}" > "$T/want/$m" || fail "decode $m"
done
nviews=$(members | wc -l)
[ "$nviews" -ge 3 ] || fail "only $nviews member views"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
for i in $(seq 2 $copies); do cp "$GAME/p1.package" "$GAME/p$i.package"; done
for i in $(seq $copies); do # index.yaml names its package
  "$EXPECT_ANIMFS" decode --schema-ref none "$GAME/p$i.package/index.yaml" > "$T/index/p$i" || fail "decode index"
done

# the decodes' sizes (want: by member; index: by package), read once
declare -A want_size=() listed=()
while read -r size f; do want_size[${f##*/}]=$size; done < <(stat -c '%s %n' "$T"/want/* "$T"/index/*)
pass() { # pass N: ls -lR and every text checked against the decode, and its listed size
  local perm links user group size when name dir=
  ls -lR --time-style=+- "$VIEW" > "$T/ls$1" || fail "ls -lR"
  listed=()
  while read -r perm links user group size when name; do # (no process a file)
    case $perm in
      *:) dir=${perm%:} dir=${dir##*/} ;;
      -*) listed[$dir/$name]=$size ;;
    esac
  done < "$T/ls$1"
  for i in $(seq $copies); do
    cmp -s "$T/index/p$i" "$VIEW/p$i.package/index.yaml" || fail "pass $1: p$i.package/index.yaml differs"
    [ "${listed[p$i.package/index.yaml]:-}" = "${want_size[p$i]}" ] || fail "pass $1: the size of index.yaml"
    for f in "$T"/want/*; do
      m=${f##*/}
      cmp -s "$f" "$VIEW/p$i.package/$m" || fail "pass $1: p$i.package/$m differs from decode"
      [ "${listed[p$i.package/$m]:-}" = "${want_size[$m]}" ] || fail "pass $1: the listing's size of $m"
    done
  done
}
for cache in 256 1; do
  mount_view_fg --cache-mb=$cache
  r0=$(stat_of renders) o0=$(stat_of archive_opens)
  pass 1
  r1=$(stat_of renders) o1=$(stat_of archive_opens)
  [ $((r1 - r0)) = $((copies * nviews)) ] || fail "--cache-mb=$cache: pass 1 rendered $((r1 - r0)) times for $((copies * nviews)) member views"
  [ $((o1 - o0)) -le $((copies * 2)) ] || fail "--cache-mb=$cache: pass 1 opened packages $((o1 - o0)) times"
  pass 2
  r2=$(stat_of renders) o2=$(stat_of archive_opens)
  [ "$r2" = "$r1" ] || fail "--cache-mb=$cache: a second pass rendered $((r2 - r1)) member views"
  [ "$o2" = "$o1" ] || fail "--cache-mb=$cache: a second pass opened packages $((o2 - o1)) times"
  echo "--cache-mb=$cache: $(tr '\n' ' ' < "$VIEW/.animfs/stats")"
  if [ $cache = 1 ]; then
    [ "$(stat_of spill_reads)" -gt 0 ] || fail "nothing read back from the spill file"
    # a name learnt: what reads names is rendered again (the rest is not)
    printf 'anothername\n' >> "$ANIMFS_NAMES"
    cat "$VIEW"/p1.package/*.yaml > /dev/null || fail "cat after the dictionary changed"
    r3=$(stat_of renders)
    [ "$r3" -gt "$r2" ] || fail "a new user dictionary rendered nothing again"
    [ $((r3 - r2)) -le "$nviews" ] || fail "a new user dictionary rendered $((r3 - r2)) views of one package"
  fi
  "$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
  check_daemon
done
exit 0
