#!/usr/bin/env bash
# `animfs convert` on a mod folder tree made of the Diesel samples (copied into a
# temporary folder): -n writes nothing, -o writes a mirrored tree, in place keeps
# the mode, refusals are listed with the reason and set the exit code, a second
# run is a no-op, every converted file round-trips, and x32 brings the content back.
set -u
S=${ANIMFS_SAMPLES:-}/diesel
if [ -z "${ANIMFS_SAMPLES:-}" ] || [ ! -d "$S" ]; then
	echo "SKIP: ../shared/samples not found"
	exit 77
fi
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
content() { "$ANIMFS" decode "$1" | sed -n '/^length:/p;/^events:/,$p'; }

mod=$tmp/mod_overrides/MyMod
mkdir -p "$mod/anims/a" "$mod/anims/b"
n=0
for f in "$S"/*.animation; do
	n=$((n+1))
	cp "$f" "$mod/anims/$([ $((n % 2)) = 0 ] && echo a || echo b)/"
done
chmod u+w -R "$mod"
echo "not an animation" > "$mod/readme.txt"
kate=$mod/anims/$(cd "$mod/anims" && ls */phys808__shared_special_e_so_kate.animation)
chmod 640 "$kate"
owned=0
if [ "$(id -u)" = 0 ] && chown 65534:65534 "$kate" 2>/dev/null; then owned=1; fi
head -c 700 "$S/phys808__shared_special_e_so_kate.animation" > "$mod/anims/broken.animation"
"$ANIMFS" decode "$kate" | sed 's/^  magic: 0x0883CC85$/  magic: 0x85CC8308/' > "$tmp/swapped.yaml"
"$ANIMFS" encode "$tmp/swapped.yaml" -o "$mod/anims/swapped.animation" || fail "encode swapped"
cp -r "$tmp/mod_overrides" "$tmp/orig"

# 1. -n reports and writes nothing
out=$("$ANIMFS" convert --to x64 -n "$tmp/mod_overrides" 2>&1); rc=$?
[ $rc = 1 ] || fail "-n: exit $rc (two files are refused)"
diff -r "$tmp/orig" "$tmp/mod_overrides" >/dev/null || fail "-n changed files"
[ "$(printf '%s\n' "$out" | grep -c '^would convert ')" = "$n" ] || fail "-n: not $n 'would convert' lines: $out"
case "$out" in *"(dry run: nothing written)"*) ;; *) fail "-n: summary: $out";; esac

# 2. -o OUTDIR: a mirrored tree of converted files; the originals stay
"$ANIMFS" convert --to x64 -o "$tmp/out" "$tmp/mod_overrides" > "$tmp/o.txt" 2>&1
diff -r "$tmp/orig" "$tmp/mod_overrides" >/dev/null || fail "-o changed the input"
[ "$(find "$tmp/out" -name '*.animation' | wc -l)" = "$n" ] || fail "-o: not $n files in OUTDIR"
[ -f "$tmp/out/MyMod/anims/a/$(basename "$kate")" ] || [ -f "$tmp/out/MyMod/anims/b/$(basename "$kate")" ] ||
	fail "-o: the tree is not mirrored: $(cd "$tmp/out" && find . | head -5)"

# 3. in place: the summary, the refusals by reason, the exit code, the mode
out=$("$ANIMFS" convert --to x64 "$tmp/mod_overrides" 2>&1); rc=$?
[ $rc = 1 ] || fail "in place: exit $rc"
printf '%s\n' "$out" | grep -Eq "^  converted +$n\$" || fail "summary (converted): $out"
printf '%s\n' "$out" | grep -Eq '^  refused +2$' || fail "summary (refused): $out"
printf '%s\n' "$out" | grep -Eq '^    byte-swapped magic \(PD2ModelParser\) +1$' || fail "summary (reason): $out"
printf '%s\n' "$out" | grep -Eq '^    damaged or not an animation +1$' || fail "summary (damaged): $out"
printf '%s\n' "$out" | grep -Eq '^  other files \(not a convertible format\) +1$' || fail "summary (other): $out"
printf '%s\n' "$out" | grep -q "^REFUSED .*broken.animation: byte 0x" || fail "no placed reason for the broken file: $out"
[ "$(stat -c %a "$kate")" = 640 ] || fail "mode not kept: $(stat -c %a "$kate")"
[ $owned = 0 ] || [ "$(stat -c %u:%g "$kate")" = 65534:65534 ] || fail "owner not kept: $(stat -c %u:%g "$kate")"
cmp -s "$mod/anims/swapped.animation" "$tmp/orig/MyMod/anims/swapped.animation" || fail "a refused file was changed"
ls -a "$mod/anims/a" | grep -q animfs-tmp && fail "temp files left"
for f in $(find "$tmp/out" -name '*.animation'); do
	cmp -s "$f" "$tmp/mod_overrides/${f#$tmp/out/}" || fail "in place and -o differ: $f"
done

# 4. the converted files: 64-bit, raw, each one rebuilds byte for byte, content kept
"$ANIMFS" decode "$kate" > "$tmp/kate64.yaml" || fail "decode converted"
grep -q '^  layout: 64-bit ' "$tmp/kate64.yaml" || fail "not 64-bit"
grep -q '^  container: raw$' "$tmp/kate64.yaml" || fail "not raw"
grep -q '^# .*animfs convert --to x32' "$tmp/kate64.yaml" || fail "no conversion hint"
[ "$(stat -c %s "$kate")" = 7816 ] || fail "kate: $(stat -c %s "$kate") bytes, the converter writes 7816"
head -c 4 "$kate" | od -An -tx1 | grep -q '85 cc 83 08' || fail "kate: not a raw blob"
out=$("$ANIMFS" check "$mod/anims/a" "$mod/anims/b" 2>&1) || fail "check of the converted files: $out"
case "$out" in *"$n of $n decoded files identical, 0 refused as damaged"*) ;; *) fail "check: $out";; esac
for f in "$mod"/anims/[ab]/*.animation; do
	[ "$(content "$f")" = "$(content "$S/$(basename "$f")")" ] || fail "content changed: $f"
done

# 4b. bytes after the last key that are not padding: decode shows it read-only (exit 0)
ro=$tmp/ro.animation
cp "$kate" "$ro"; chmod u+w "$ro"
printf '\x11\x22\x33\x44\x55\x66\x77\x88' >> "$ro"
printf '\x90\x1e' | dd of="$ro" bs=1 seek=16 conv=notrunc 2>/dev/null   # size 7824
"$ANIMFS" decode "$ro" > "$tmp/ro.yaml" 2> "$tmp/ro.err" || fail "read-only decode: exit $?"
grep -q '^# READ-ONLY: ' "$tmp/ro.yaml" || fail "read-only: no header comment"
grep -q '^read_only: ' "$tmp/ro.yaml" || fail "read-only: no read_only key"
grep -q 'note: shown read-only.*byte 0x' "$tmp/ro.err" || fail "read-only: stderr: $(cat "$tmp/ro.err")"
out=$("$ANIMFS" encode "$tmp/ro.yaml" -o "$tmp/ro2.animation" 2>&1) && fail "a read-only view encoded"
case "$out" in *"ro.yaml:"*": read_only: this file is shown read-only"*) ;; *) fail "read-only encode: $out";; esac

# 5. a second run is a no-op
cp -r "$tmp/mod_overrides" "$tmp/once"
out=$("$ANIMFS" convert --to x64 "$mod/anims/a" "$mod/anims/b" 2>&1); rc=$?
[ $rc = 0 ] || fail "second run: exit $rc: $out"
printf '%s\n' "$out" | grep -Eq "^  already x64 \(left alone\) +$n\$" || fail "second run: $out"
diff -r "$tmp/once" "$tmp/mod_overrides" >/dev/null || fail "second run changed files"
# a 64-bit file in zlib (converter v1.0.0-1.0.1) is left alone and noted
mkdir "$tmp/wrapped"
for f in "$mod"/anims/a/*.animation; do
	python3 -c 'import sys, zlib; b = open(sys.argv[1], "rb").read(); sys.stdout.buffer.write(zlib.compress(b, 1) + len(b).to_bytes(4, "little"))' "$f" > "$tmp/wrapped/$(basename "$f")"
done 2>/dev/null
if [ -n "$(ls "$tmp/wrapped")" ] && [ -s "$(ls -d "$tmp"/wrapped/* | head -1)" ]; then
	out=$("$ANIMFS" convert --to x64 "$tmp/wrapped" 2>&1) || fail "wrapped: exit $?: $out"
	printf '%s\n' "$out" | grep -Eq '^    zlib-wrapped \(SuperBLT only\) +[0-9]+$' || fail "wrapped: no note: $out"
fi

# 6. --to x32 for the old build: the stock layout, the content of the originals
"$ANIMFS" convert --to x32 -o "$tmp/x32" "$mod/anims/a" > /dev/null || fail "x32 exit"
for f in "$tmp"/x32/*.animation; do
	[ "$(content "$f")" = "$(content "$S/$(basename "$f")")" ] || fail "x32 content: $f"
	"$ANIMFS" decode "$f" | grep -q '^  layout: 32-bit ' || fail "x32 layout: $f"
done
[ "$(ls "$tmp"/x32/*.animation | wc -l)" -gt 10 ] || fail "x32: too few files"

# 7. options after the PATHs; usage errors exit 2, before anything is converted
out=$("$ANIMFS" convert "$mod/anims/a" -n --to x64 2>&1) || fail "options after PATH: exit $?: $out"
case "$out" in *"already x64 (left alone)"*) ;; *) fail "options after PATH: $out";; esac
cp -r "$tmp/orig/MyMod/anims/b" "$tmp/b32"
"$ANIMFS" convert --to x64 "$tmp/b32" "$tmp/missing" >/dev/null 2>&1; [ $? = 1 ] || fail "missing PATH: not exit 1"
diff -r "$tmp/orig/MyMod/anims/b" "$tmp/b32" >/dev/null || fail "a usage error converted files"
"$ANIMFS" convert "$mod" >/dev/null 2>&1; [ $? = 2 ] || fail "no --to: not exit 2"
"$ANIMFS" convert --to x128 "$mod" >/dev/null 2>&1; [ $? = 2 ] || fail "bad --to: not exit 2"
"$ANIMFS" convert --to x32 --style native "$mod" >/dev/null 2>&1; [ $? = 2 ] || fail "native x32: not exit 2"

[ $fails = 0 ] && echo "ok: diesel convert"
exit $((fails > 0))
