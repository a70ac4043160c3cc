#!/usr/bin/env bash
# `animfs encode X.yaml -o FILE` of a loose game file saves through the mount's save
# pipeline (issue 42), as `encode X.package/MEMBER` does (cli/member_save): the saver's
# right to write FILE is proven first (a 0444 file in a folder its owner may write is
# refused and unchanged: the old replace renamed over it), an edit lands and reads back
# with FILE's mode kept, a save of the same bytes writes nothing (the inode and mtime
# stay), a bad document is refused at its line:col with FILE unchanged, a new
# file is made as its saver's, and with --overlay the copy goes to MODDIR with GAME's
# mode (and none at all when the text is GAME's). Nothing is left behind. Runs as an
# unprivileged user (root: as nobody, through runuser), so that the proof is the
# kernel's. The binary is made here from examples/.
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/animfs-file-save.XXXXXX")
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
as=()
if [ "$(id -u)" = 0 ]; then
	command -v runuser >/dev/null || { echo "SKIP: runuser missing (root must act as nobody)"; exit 77; }
	as=(runuser -u nobody --)
fi
run() { "${as[@]}" env HOME="$tmp/home" XDG_STATE_HOME="$tmp/home/state" \
	XDG_CACHE_HOME="$tmp/home/cache" "$ANIMFS" "$@"; }
id_of() { stat -c '%i %y %a %U' "$1"; } # inode, mtime (ns), mode, owner
mkdir -p "$tmp/home" "$tmp/game" "$tmp/mod" "$tmp/in"
"$ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$tmp/game/walk.animation" || fail "encode the example"
[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$tmp/home" "$tmp/game" "$tmp/mod" "$tmp/in"
chmod 755 "$tmp"
f=$tmp/game/walk.animation
run decode "$f" > "$tmp/in/w.yaml" || fail "decode"
sed 's/^length: *[^ #]*/length: 2.5/' "$tmp/in/w.yaml" > "$tmp/in/e.yaml"
cmp -s "$tmp/in/w.yaml" "$tmp/in/e.yaml" && fail "the edit changed nothing"
chmod -R a+rX "$tmp/in"
cp "$f" "$tmp/orig.animation"

# the proof: a file its saver may not write is refused, though the folder is theirs
chmod 444 "$f"
if out=$(run encode "$tmp/in/e.yaml" -o "$f" 2>&1); then
	fail "an encode into a read-only file went through: $out"
fi
[[ $out == *"not yours to write"* ]] || fail "the refusal does not say why: $out"
cmp -s "$f" "$tmp/orig.animation" || fail "a refused save changed the file"
[ "$(stat -c %a "$f")" = 444 ] || fail "a refused save replaced the file: $(stat -c %a "$f")"

# the edit lands, reads back, keeps the mode, and leaves nothing behind
chmod 640 "$f"
ls -A "$tmp/game" > "$tmp/before"
out=$(run encode "$tmp/in/e.yaml" -o "$f" 2>&1) || fail "the edit was refused: $out"
[ -z "$out" ] || fail "an edit said: $out"
run encode "$tmp/in/e.yaml" -o - | cmp -s - "$f" || fail "the file is not the edit's encode"
[ "$(run decode "$f" | sed -n 's/^length: *\([^ ]*\).*/\1/p')" = 2.5 ] || fail "the edit does not read back"
[ "$(stat -c %a "$f")" = 640 ] || fail "the save did not keep the mode: $(stat -c %a "$f")"
ls -A "$tmp/game" | cmp -s - "$tmp/before" || fail "the save left files: $(ls -A "$tmp/game")"
left=$(find "$tmp/home/state" "$tmp/home/cache" 2>/dev/null)
[ -z "$left" ] || fail "the save left state or cache: $left"

# unchanged: nothing written (the same inode and mtime), nothing said (cli/warnings)
cp "$f" "$tmp/edited.animation"
was=$(id_of "$f")
out=$(run encode "$tmp/in/e.yaml" -o "$f" 2>&1) || fail "an unchanged encode failed: $out"
[ -z "$out" ] || fail "an unchanged encode said: $out"
[ "$(id_of "$f")" = "$was" ] || fail "an unchanged save rewrote the file: $was -> $(id_of "$f")"

# a refused document: its line:col, the file unchanged
sed 's/^format: diesel-animation$/format: diesel-animation\nbogus_key: 1/' "$tmp/in/e.yaml" > "$tmp/in/bad.yaml"
cmp -s "$tmp/in/e.yaml" "$tmp/in/bad.yaml" && fail "no format line to follow"
if out=$(run encode "$tmp/in/bad.yaml" -o "$f" 2>&1); then fail "a bad document was saved"; fi
[[ $out == *"bad.yaml:"[0-9]*:[0-9]*:*bogus* ]] || fail "the refusal is not at its line:col: $out"
[ "$(id_of "$f")" = "$was" ] || fail "a refused save touched the file"
cmp -s "$f" "$tmp/edited.animation" || fail "a refused save changed the file"

# a new file: made, its saver's
out=$(run encode "$tmp/in/e.yaml" -o "$tmp/game/new.animation" 2>&1) || fail "a new file was refused: $out"
cmp -s "$tmp/game/new.animation" "$f" || fail "the new file is not the edit"
[ "$(id -u)" = 0 ] && { [ "$(stat -c %U "$tmp/game/new.animation")" = nobody ] || fail "the new file is not its saver's"; }

# `animfs import G.glb --into FILE` (in place) saves the same way: refused on a 0444
# file, else the bytes `import -o` gives, the mode kept
if command -v python3 >/dev/null; then
	cp "$tmp/orig.animation" "$f"
	chmod 444 "$f"
	run gltf "$f" -o "$tmp/in/w.glb" || fail "gltf"
	python3 "$src/tests/tools/glb_edit.py" "$tmp/in/w.glb" "$tmp/in/g.glb" set Hips rotation 1 0 0 -0.2 0.98 ||
		fail "glb_edit"
	chmod a+r "$tmp/in/"*
	run import "$tmp/in/g.glb" --into "$f" -o "$tmp/in/imported.animation" > /dev/null || fail "import -o"
	if out=$(run import "$tmp/in/g.glb" --into "$f" 2>&1); then fail "an import into a read-only file went through: $out"; fi
	[[ $out == *"not yours to write"* ]] || fail "the import's refusal does not say why: $out"
	cmp -s "$f" "$tmp/orig.animation" || fail "a refused import changed the file"
	chmod 600 "$f"
	run import "$tmp/in/g.glb" --into "$f" > /dev/null || fail "the import in place was refused"
	cmp -s "$f" "$tmp/in/imported.animation" || fail "the import in place is not import -o's bytes"
	[ "$(stat -c %a "$f")" = 600 ] || fail "the import did not keep the mode: $(stat -c %a "$f")"
else
	echo "note: python3 missing; the import in place not tested"
fi

# --overlay: GAME is only read; the copy lands in MODDIR with GAME's mode and the
# owner's write; the text as GAME has it makes no copy
rm "$tmp/game/new.animation"
cp "$tmp/orig.animation" "$f"
chmod 444 "$f"
chmod 555 "$tmp/game"
sum=$(cd "$tmp/game" && sha256sum ./*)
out=$(run encode "$tmp/in/w.yaml" -o "$f" --overlay "$tmp/mod" --game "$tmp/game" 2>&1) ||
	fail "the unedited text into the overlay: $out"
[ ! -e "$tmp/mod/walk.animation" ] || fail "a copy of GAME's own bytes was made"
out=$(run encode "$tmp/in/e.yaml" -o "$f" --overlay "$tmp/mod" --game "$tmp/game" 2>&1) ||
	fail "the edit into the overlay: $out"
cmp -s "$tmp/mod/walk.animation" "$tmp/edited.animation" || fail "MODDIR's copy is not the edit"
[ "$(stat -c %a "$tmp/mod/walk.animation")" = 644 ] || fail "the copy's mode: $(stat -c %a "$tmp/mod/walk.animation")"
[ "$(cd "$tmp/game" && sha256sum ./*)" = "$sum" ] || fail "GAME changed"
was=$(id_of "$tmp/mod/walk.animation")
out=$(run encode "$tmp/in/e.yaml" -o "$f" --overlay "$tmp/mod" --game "$tmp/game" 2>&1) ||
	fail "the same edit into the overlay again: $out"
[ "$(id_of "$tmp/mod/walk.animation")" = "$was" ] || fail "an unchanged overlay save rewrote the copy"
left=$(find "$tmp/home/state" "$tmp/home/cache" 2>/dev/null)
[ -z "$left" ] || fail "the saves left state or cache: $left"
echo "ok: the command line's save of a loose file proves, verifies, skips and keeps its mode"
