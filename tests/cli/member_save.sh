#!/usr/bin/env bash
# `animfs encode X.package/MEMBER` saves through the mount's save pipeline (issue 42):
# the saver's right to rewrite the container is proven first (a 0444 package in a
# folder its owner may write is refused, the package unchanged: the old replace renamed
# over it), an edit lands and reads back, an unchanged save says so and writes nothing,
# a new member is added, and none of it leaves anything behind (no scratch folder, size
# cache or spill file in the user's state and cache folders, nothing beside the
# package; the names it learns go to the user's dictionary, as every decode's do). Runs as an unprivileged user (root: as nobody, through setpriv), so that
# the proof is the kernel's. The package is made here (tests/mount/mkpackage.py).
set -u
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/animfs-member-save.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
as=()
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || { echo "SKIP: setpriv missing (root must act as nobody)"; exit 77; }
	as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
run() { "${as[@]}" env HOME="$tmp/home" XDG_STATE_HOME="$tmp/home/state" \
	XDG_CACHE_HOME="$tmp/home/cache" "$ANIMFS" "$@"; }
mkdir -p "$tmp/home" "$tmp/game"
"$ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$tmp/wave.jazz" || fail "encode the example"
python3 "$src/tests/mount/mkpackage.py" "$tmp/game/p.package" "02D5DF13:A52DACFA1A316A6C:$tmp/wave.jazz" ||
	fail "mkpackage"
[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$tmp/home" "$tmp/game"
chmod 755 "$tmp"
pkg=$tmp/game/p.package
m=S3_02D5DF13_00000000_A52DACFA1A316A6C.jazz # the s3pe name the package lists
run decode "$pkg/$m" > "$tmp/m.yaml" || fail "decode $m"
sed 's/^default_priority: Normal$/default_priority: NormalPlus/' "$tmp/m.yaml" > "$tmp/e.yaml"
cmp -s "$tmp/m.yaml" "$tmp/e.yaml" && fail "the edit changed nothing"
cp "$pkg" "$tmp/orig.package"

# the proof: a package its saver may not write is refused, though the folder is theirs
chmod 444 "$pkg"
if out=$(run encode "$tmp/e.yaml" -o "$pkg/$m" 2>&1); then
	fail "an encode into a read-only package went through: $out"
fi
[[ $out == *"not yours to write"* ]] || fail "the refusal does not say why: $out"
cmp -s "$pkg" "$tmp/orig.package" || fail "a refused save changed the package"
chmod 644 "$pkg"

# the edit lands, reads back, and leaves nothing behind
ls -A "$tmp/game" > "$tmp/before"
out=$(run encode "$tmp/e.yaml" -o "$pkg/$m" 2>&1) || fail "the edit was refused: $out"
[ -z "$out" ] || fail "an edit said: $out"
run decode "$pkg/$m" | cmp -s - "$tmp/e.yaml" || fail "the edit does not read back"
ls -A "$tmp/game" | cmp -s - "$tmp/before" || fail "the save left files: $(ls -A "$tmp/game")"
left=$(find "$tmp/home/state" "$tmp/home/cache" 2>/dev/null)
[ -z "$left" ] || fail "the save left state or cache: $left"

# unchanged: said, nothing written
cp "$pkg" "$tmp/edited.package"
out=$(run encode "$tmp/e.yaml" -o "$pkg/$m" 2>&1) || fail "an unchanged encode failed: $out"
[[ $out == *"unchanged; the package was not rewritten"* ]] || fail "no 'unchanged' note: $out"
cmp -s "$pkg" "$tmp/edited.package" || fail "an unchanged save changed the package"

# a new member, and a refused document (its line:col, the package unchanged)
out=$(run encode "$tmp/e.yaml" -o "$pkg/new.jazz" 2>&1) || fail "the add was refused: $out"
[[ $out == *"added to the package"* ]] || fail "no word of the add: $out"
run decode "$pkg/new.jazz" | cmp -s - "$tmp/e.yaml" || fail "the new member does not read back"
cp "$pkg" "$tmp/added.package"
sed 's/^format: sims3-jazz$/format: sims3-jazz\nbogus_key: 1/' "$tmp/e.yaml" > "$tmp/bad.yaml"
if out=$(run encode "$tmp/bad.yaml" -o "$pkg/$m" 2>&1); then fail "a bad document was saved"; fi
[[ $out == *"bad.yaml:"[0-9]*:[0-9]*:*bogus_key* ]] || fail "the refusal is not at its line:col: $out"
cmp -s "$pkg" "$tmp/added.package" || fail "a refused save changed the package"
left=$(find "$tmp/home/state" "$tmp/home/cache" 2>/dev/null)
[ -z "$left" ] || fail "the saves left state or cache: $left"
echo "ok: the command line's member save proves, verifies and leaves nothing behind"
