#!/usr/bin/env bash
# Issue 29, part 7: every real sample of a format that splits round-trips byte for byte
# through `animfs decode --split DIR` and `animfs encode DIR`, and each part and index it
# writes validates against the schema its modeline names (slow: the motion banks are
# 1342 parts each, of which a sixteenth is validated). Containers are decoded whole
# (decode --split refuses them).
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
S=${ANIMFS_SAMPLES:-}
if [ -z "$S" ] || [ ! -d "$S" ]; then
	echo "SKIP: ../shared/samples not found"
	exit 77
fi
# the parts on a tmpfs where there is one: a split writes each part as a temp file that
# it fsyncs and renames, with an fsync of the folder (two fsyncs a part, 10,000 parts
# here), which on the VM's ext4 cost more CPU than the splits themselves and, under load,
# most of the wall time; what is tested is the round trip and the parts, not the disk
tmp=$(mktemp -d /dev/shm/animfs-split.XXXXXX 2>/dev/null || mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; n=0; skipped=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
PY=""
for p in /usr/bin/python3 python3; do
	"$p" -c 'import jsonschema, yaml' 2>/dev/null && { PY=$p; break; }
done
"$ANIMFS" schema --all "$tmp/schema" || fail "schema --all"
# files over 64 KiB (the motion banks, the big clips and models) go through the unsanitized
# animfs when scripts/test has built one from the same tree (as cli/schema_big does): under
# ASan they cost more than every other sample together, and split.c's paths are the same
# for every size; the 81 smaller files stay under ASan
. "$src/tests/samples.inc"
DEC=$PLAIN; echo "files over 64 KiB split and joined by $DEC"
: > "$tmp/files"
i=0
while IFS= read -r f; do
	i=$((i + 1))
	d=$tmp/s$i.yaml
	if sample_variant "$f"; then
		echo "not split again: ${f#"$S"/}, a variant of ${VARIANT_OF#"$S"/}"
		continue
	fi
	A=$ANIMFS
	[ "$(stat -c %s "$f")" -gt 65536 ] && A=$DEC
	if ! "$A" decode --schema-ref "$tmp/schema" "$f" --split "$d" 2>"$tmp/err"; then
		# not a split format, a container, or no codec's file: said so, nothing written
		grep -qE "views are not split|not a container|no codec recognises|damaged|refused|not split" "$tmp/err" ||
			grep -q "^animfs decode: --split takes a file of one format" "$tmp/err" ||
			fail "$f: $(cat "$tmp/err")"
		[ -e "$d" ] && fail "$f: a refused split left $d"
		skipped=$((skipped + 1))
		continue
	fi
	"$A" encode "$d" -o "$tmp/out" 2>"$tmp/err" || { fail "$f: encode DIR: $(cat "$tmp/err")"; continue; }
	cmp -s "$f" "$tmp/out" && n=$((n + 1)) || fail "$f: encode DIR differs from the file"
	# a view of many parts: the index, the first and last part and every 8th between (every
	# 32nd in a bank of over 1000: the whole views are validated against the whole schema
	# in cli/schema and cli/schema_big; here the part schemas are what is tested, and
	# every part of a view of up to 48 parts is)
	ls "$d"/*.yaml | awk '{ a[NR] = $0 } END { k = NR > 1000 ? 32 : 8; for (i = 1; i <= NR; i++)
		if (NR <= 48 || i == 1 || i == NR || i % k == 0 || a[i] ~ /\/index\.yaml$/) print a[i] }' >> "$tmp/files"
	rm -f "$tmp/out"
done < <(find "$S" -type f ! -name '*.md' ! -name '*.txt' | sort)
echo "$n samples split and joined byte for byte, $skipped not split"
[ "$n" -ge 10 ] || fail "only $n samples split"
# every part and index against the schema its modeline names, one validator per schema
# (Ajv where scripts/setup put it in .tools/node: cli/schema checks it agrees with
# python-jsonschema, which takes minutes on the motion banks' parts)
eng=jsonschema
command -v node >/dev/null && [ -f "$src/.tools/node/node_modules/ajv/dist/2020.js" ] && eng=ajv
if [ -n "$PY" ]; then
	# each file against the schema its first line names, all in one validator run (a
	# Python and a node start for each of the 12 schemas cost a CPU second each)
	xargs -d '\n' awk -v dir="$tmp/schema/" 'FNR == 1 { s = $0
		if (!sub(/^# yaml-language-server: \$schema=.*\//, "", s)) s = ""
		print dir s "\t" FILENAME; nextfile }' < "$tmp/files" > "$tmp/by"
	awk -F '\t' 'NR == FNR { have[$0] = 1; next } ($1 in have) { print; next }
		{ print "FAIL: a modeline names '"'"'" substr($1, length(dir) + 1) "'"'"': " $2 > "/dev/stderr" }' \
		dir="$tmp/schema/" <(ls -d "$tmp/schema"/*.json) "$tmp/by" > "$tmp/by.ok" 2> "$tmp/named"
	[ -s "$tmp/named" ] && { head -3 "$tmp/named"; fails=$((fails + 1)); }
	"$PY" "$src/tests/tools/schema_check.py" --engine=$eng --list "$tmp/by.ok" > "$tmp/out.txt"
	# per schema: its files, and those valid
	awk -F '\t' 'NR == FNR { sch[$2] = $1; n[$1]++; next }
		{ f = $0; sub(/: ok$/, "", f) } (f in sch) && /: ok$/ { ok[sch[f]]++; next } { print "FAIL: " $0; bad++ }
		END { for (s in n) { m = split(s, p, "/"); print p[m] ": " ok[s] + 0 " of " n[s] " files valid"
			if (ok[s] != n[s]) bad++ }
		      exit bad > 0 }' "$tmp/by.ok" "$tmp/out.txt" > "$tmp/verdicts" || fail "files that do not validate"
	sort "$tmp/verdicts"
	echo "($eng)"
else
	echo "SKIP (part): no python3 with jsonschema and yaml: parts not validated"
fi
echo "$n passed, $fails failed"
[ $fails -eq 0 ]
