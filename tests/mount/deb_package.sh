# The Debian package (issue 46): `scripts/package` builds animfs_<version>_<arch>.deb,
# `dpkg -i` installs it into this system, and what a user then has is checked by name:
# `animfs --version`, `man animfs`, the bash completion offering commands, the JSON
# schemas in /usr/share/animfs/schema (the modeline of a decode names them), the declared
# dependencies, and a mount with an edit through it. `dpkg -r` removes it again in the
# EXIT trap, pass or fail. Needs root and dpkg; skipped when an animfs is already
# installed on the system (it is never replaced or removed by a test). It packs the
# build-release tree that scripts/test has just built (ANIMFS_PLAIN's, when it is as new
# as the sources: tests/samples.inc) and makes a Release build of its own
# (build-test/package) only when there is none.
if [ "$(id -u)" != 0 ] || ! command -v dpkg >/dev/null || ! command -v cpack >/dev/null; then
  echo "SKIP: needs root, dpkg and cpack"; exit 77
fi
. "$(dirname "$0")/common.inc"
SRC=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
if dpkg-query -W -f='${Status}' animfs 2>/dev/null | grep -q 'installed' || [ -e /usr/bin/animfs ]; then
  echo "SKIP: an animfs is already installed on this system"; exit 77
fi
# one such test at a time on the machine (another checkout's suite may run it too)
exec 9> "${TMPDIR:-/tmp}/animfs-deb-package-test.lock"
flock -w 900 9 || fail "another checkout's package test holds the lock"

from=
if [ "$PLAIN" = "${ANIMFS_PLAIN:-}" ] &&
  grep -qE '^CMAKE_SKIP_INSTALL_ALL_DEPENDENCY:[A-Z]+=(ON|TRUE|1)$' "$(dirname "$PLAIN")/CMakeCache.txt" 2>/dev/null &&
  [ -z "$(find "$SRC/CMakeLists.txt" "$SRC/cmake" -newer "$PLAIN" -print -quit)" ]; then
  from=$(dirname "$PLAIN")
else
  echo "note: no up-to-date build-release of scripts/test to pack: a Release build of its own"
fi
deb=$(ANIMFS_PACKAGE_FROM="$from" ANIMFS_PACKAGE_BUILD="$ANIMFS_BUILD_DIR/package" \
  "$SRC/scripts/package" "$T/pkg") || fail "scripts/package failed"
version=$("$ANIMFS" --version | awk '{ print $2 }')
case "$(basename "$deb")" in
  "animfs_${version}_$(dpkg --print-architecture).deb") ;;
  *) fail "the package is named $(basename "$deb"), not animfs_${version}_<arch>.deb" ;;
esac
# dpkg's lock may be held by apt in another checkout's setup for a while
dpkg_retry() {
  local out
  for _ in $(seq 60); do
    out=$(dpkg "$@" 2>&1) && return 0
    grep -q 'lock' <<<"$out" || { echo "$out" >&2; return 1; }
    sleep 2
  done
  echo "$out" >&2; return 1
}
installed=0
remove_package() {
  if [ $installed = 1 ]; then
    "$ANIMFS" umount "$VIEW" 2>/dev/null
    dpkg_retry -r animfs >/dev/null || echo "FAIL: dpkg -r animfs" >&2
    installed=0
  fi
}
trap 'remove_package; cleanup' EXIT
trap 'exit 1' INT TERM HUP # the EXIT trap removes the package on a kill too
installed=1 # set first: a failed dpkg -i may leave the package half-installed
dpkg_retry -i "$deb" >/dev/null || fail "dpkg -i $deb failed"
hash -r
ANIMFS=animfs # by name, from the PATH, from here on
[ "$(command -v animfs)" = /usr/bin/animfs ] || fail "animfs is not /usr/bin/animfs: $(command -v animfs)"
animfs --version | grep -qx "animfs $version" || fail "animfs --version: $(animfs --version)"

# the dependencies the package declares, and that dpkg says they are there
deps=$(dpkg-query -W -f='${Depends}' animfs)
for d in libfuse3 libyaml zlib1g fuse3 libc6; do
  grep -q "$d" <<<"$deps" || fail "Depends lacks $d: $deps"
done

# the man page
page=$(man -w animfs 2>/dev/null) || fail "man -w animfs finds no page"
case "$page" in /usr/share/man/man1/animfs.1*) ;; *) fail "man -w animfs: $page" ;; esac
MANPAGER=cat MANWIDTH=80 man animfs 2>/dev/null | grep -q 'overlay' || fail "man animfs shows no page"

# bash completion: the installed script completes the commands (as readline calls it)
comp=/usr/share/bash-completion/completions/animfs
[ -f "$comp" ] || fail "no bash completion at $comp"
[ -f /usr/share/zsh/site-functions/_animfs ] || fail "no zsh completion"
words=$(bash -c '. "$1"; COMP_WORDS=(animfs ""); COMP_CWORD=1; _animfs; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp")
for cmd in decode encode mount umount check; do
  grep -qx "$cmd" <<<"$words" || fail "bash completion does not offer '$cmd': $words"
done

# the schemas, one per format, where the decoder's modeline points
schema=/usr/share/animfs/schema
for fmt in $(animfs formats | awk 'NR == 1 { next } NF == 0 { exit } { print $1 }'); do
  python3 -m json.tool "$schema/$fmt.json" >/dev/null 2>&1 || fail "no valid $schema/$fmt.json"
done
animfs encode "$SRC/examples/walk.animation.yaml" -o "$T/walk.animation" || fail "encode"
head -1 <(animfs decode "$T/walk.animation") |
  grep -qx "# yaml-language-server: \$schema=file://$schema/diesel-animation.json" ||
  fail "the modeline does not name $schema: $(animfs decode "$T/walk.animation" | head -1)"

# a mount, an edit through it, the binary holds it
copy_samples
small=$(pick_small)
mount_view
v="$VIEW/$small.yaml"
grep -q '^format: diesel-animation' "$v" || fail "the view of $small shows no document"
old=$(length_of "$GAME/$small")
sed 's/^length: *[^ ]*/length: 7.25/' "$v" > "$T/edit.yaml"
cp "$T/edit.yaml" "$v" || fail "the save through the mount failed: $(cat "$VIEW/.animfs/errors")"
animfs umount "$VIEW" || fail "animfs umount"
[ "$(length_of "$GAME/$small")" = 7.25 ] || fail "the binary's length is $(length_of "$GAME/$small"), not 7.25 (was $old)"

remove_package
hash -r
[ ! -e /usr/bin/animfs ] && [ ! -e "$schema" ] && [ ! -e "$comp" ] || fail "dpkg -r left files behind"
dpkg-query -W -f='${Status}' animfs 2>/dev/null | grep -q 'install ok installed' && fail "still installed"
echo "ok: $(basename "$deb") installed, used and removed"
