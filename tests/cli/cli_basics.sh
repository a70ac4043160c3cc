#!/usr/bin/env bash
# The command line's contract: help, version, formats, exit codes, error texts.
set -u
fails=0
t() { # t NAME EXPECTED_RC CMD... ; output in $out
	local name=$1 want=$2; shift 2
	out=$("$@" 2>&1); local rc=$?
	if [ "$rc" != "$want" ]; then echo "FAIL $name: exit $rc, wanted $want"; echo "$out"; fails=$((fails+1)); fi
}
has() { case "$out" in *"$1"*) ;; *) echo "FAIL: output lacks '$1':"; echo "$out"; fails=$((fails+1));; esac; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

t help 0 "$ANIMFS" --help; has "usage: animfs"; has "exit codes"
t version 0 "$ANIMFS" --version; has "animfs "
t noargs 2 "$ANIMFS"
t unknown 2 "$ANIMFS" frobnicate; has "unknown command 'frobnicate'"
t formats 0 "$ANIMFS" formats; has "FORMAT"
# every command of the table: `help CMD`, `CMD --help` and `CMD -h` print its usage; asked
# of $PLAIN (tests/samples.inc: the unsanitized build when it is up to date), 50 static
# texts, but for the first two commands, whose forms the sanitized build answers: each
# form's path is one for every command, only the text differs
. "${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}/tests/samples.inc"
extra=0 top=$("$ANIMFS" --help)
for cmd in $("$ANIMFS" help --commands); do
	for form in "help $cmd" "$cmd --help" "$cmd -h"; do
		who=$PLAIN
		[ $extra -lt 6 ] && who=$ANIMFS
		t "$form" 0 "$who" $form; has "usage: animfs $cmd"; extra=$((extra + 1))
	done
	grep -qE "^  $cmd( |\$)" <<<"$top" || { echo "FAIL: --help does not list $cmd"; fails=$((fails+1)); }
done
[ "$extra" -ge 30 ] || { echo "FAIL: help --commands lists $((extra / 3)) commands"; fails=$((fails+1)); }
t help-unknown 2 "$ANIMFS" help frobnicate; has "unknown command 'frobnicate'"; has "decode, encode"
t unknown-list 2 "$ANIMFS" frobnicate --help; has "the commands are: mount"
t decode-help-after 0 "$ANIMFS" decode some.file --help; has "--schema-ref DIR|none"
t decode-usage 2 "$ANIMFS" decode
t decode-badopt 2 "$ANIMFS" decode --bogus x
t encode-usage 2 "$ANIMFS" encode
t check-usage 2 "$ANIMFS" check
# one rule for a missing input path in every command: exit 1 (2 is for usage errors)
t check-missing 1 "$ANIMFS" check "$tmp/nope"
t convert-missing 1 "$ANIMFS" convert --to x64 "$tmp/nope"
t plot-missing 1 "$ANIMFS" plot "$tmp/nope.animation"
t encode-missing 1 "$ANIMFS" encode "$tmp/nope.animation.yaml"
t errors-missing 1 "$ANIMFS" errors "$tmp/nope"
t mount-missing-game 1 "$ANIMFS" mount "$tmp/nope" "$tmp"
mkdir "$tmp/game"
t mount-missing-view 1 "$ANIMFS" mount "$tmp/game" "$tmp/nope"
rmdir "$tmp/game"
t umount-missing 1 "$ANIMFS" umount "$tmp/nope"
printf 'hello\n' > "$tmp/readme.txt"
t decode-unclaimed 1 "$ANIMFS" decode "$tmp/readme.txt"; has "readme.txt: no codec recognises this file"
t decode-missing 1 "$ANIMFS" decode "$tmp/absent.animation"; has "absent.animation: cannot open"
t check-unclaimed 0 "$ANIMFS" check "$tmp"; has "not claimed: 1 file"
printf 'a: 1\n' > "$tmp/x.yaml"
t encode-noformat 1 "$ANIMFS" encode "$tmp/x.yaml"; has "x.yaml:1:1: no top-level 'format:' key"
printf '# x\nformat: nope\n' > "$tmp/y.yaml"
t encode-unknownformat 1 "$ANIMFS" encode "$tmp/y.yaml"; has "y.yaml:2:9: unknown format 'nope'"
t encode-noout 2 "$ANIMFS" encode "$tmp/readme.txt"
[ -e "$tmp/x" ] && { echo "FAIL: a failed encode left a file"; fails=$((fails+1)); }
# the one rule for which codec saves: the file's own, or for a new file its extension's
ex=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}/examples
"$ANIMFS" encode "$ex/re3_tiny.PLD.yaml" -o "$tmp/tiny.PLD" || echo "FAIL: encode of the RE example"
cp "$tmp/tiny.PLD" "$tmp/tiny.orig"
t encode-otherformat 1 "$ANIMFS" encode "$ex/walk.animation.yaml" -o "$tmp/tiny.PLD"
has "walk.animation.yaml:4:9: format diesel-animation, but tiny.PLD is a re-model file"
cmp -s "$tmp/tiny.PLD" "$tmp/tiny.orig" || { echo "FAIL: a refused encode changed the file"; fails=$((fails+1)); }
t encode-otherext 1 "$ANIMFS" encode "$ex/walk.animation.yaml" -o "$tmp/new.PLD"
has "format diesel-animation, but the extension of new.PLD is re-model's"
t encode-anyname 0 "$ANIMFS" encode "$ex/walk.animation.yaml" -o "$tmp/out.dat"
# -o names a device or a FIFO: written to, never replaced by a file (as root, a
# replaced /dev/null would be a plain file for every process on the machine)
"$ANIMFS" encode "$ex/walk.animation.yaml" -o "$tmp/w.animation"
mkfifo "$tmp/pipe"
timeout 60 cat "$tmp/pipe" > "$tmp/from-pipe" & reader=$!
t decode-to-fifo 0 "$ANIMFS" decode "$tmp/w.animation" -o "$tmp/pipe"
wait $reader
[ -p "$tmp/pipe" ] || { echo "FAIL: -o replaced the FIFO"; fails=$((fails+1)); }
grep -q '^format: diesel-animation' "$tmp/from-pipe" || { echo "FAIL: nothing came through the FIFO"; fails=$((fails+1)); }
if [ "$(id -u)" = 0 ]; then
  mknod -m 666 "$tmp/null" c 1 3
  t decode-to-device 0 "$ANIMFS" decode "$tmp/w.animation" -o "$tmp/null"
  [ -c "$tmp/null" ] || { echo "FAIL: -o replaced a character device"; fails=$((fails+1)); }
else
  echo "skipped: the device case needs root (mknod)"
fi
t decode-to-folder 1 "$ANIMFS" decode "$tmp/w.animation" -o "$tmp"; has "is a folder"
# check's summary: a file that does not decode is refused as damaged, not counted as
# a decoded file that differs
mkdir "$tmp/ck" && cp "$tmp/w.animation" "$tmp/ck/" && head -c 40 "$tmp/w.animation" > "$tmp/ck/cut.animation"
t check-damaged 1 "$ANIMFS" check "$tmp/ck"; has "1 of 1 decoded files identical, 1 refused as damaged"
has "FAIL $tmp/ck/cut.animation: decode:"
rm "$tmp/ck/cut.animation"
t check-clean 0 "$ANIMFS" check "$tmp/ck"; has "1 of 1 decoded files identical, 0 refused as damaged"
echo "$(( 37 + extra - fails )) passed, $fails failed"
[ $fails -eq 0 ]
