#!/usr/bin/env bash
# Encoding onto a file warns only about what the edit introduced: a real file whose
# keys already run past its length encodes silently when unchanged, and the warning
# comes back once an edit adds such keys (a shorter length).
set -u
f=${ANIMFS_SAMPLES:?}/diesel/hh__shared_special_e_nl_cali_girls.animation
[ -f "$f" ] || { echo "SKIP: ../shared/samples not found"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cp "$f" "$tmp/a.animation" && chmod u+w "$tmp/a.animation"
"$ANIMFS" decode "$tmp/a.animation" > "$tmp/a.yaml" || fail "decode"
# the file itself holds keys past its length: a new file gets the warning
out=$("$ANIMFS" encode "$tmp/a.yaml" -o "$tmp/new.animation" 2>&1) || fail "encode to a new file"
case "$out" in *"is after the animation length"*) ;; *) fail "precondition: no warning for a new file: $out";; esac
out=$("$ANIMFS" encode "$tmp/a.yaml" -o "$tmp/a.animation" 2>&1) || fail "encode unchanged"
[ -z "$out" ] || fail "an unchanged encode warned: $out"
cmp -s "$f" "$tmp/a.animation" || fail "an unchanged encode changed the file"
sed 's/^length: *[^ ]*/length: 1.0/' "$tmp/a.yaml" > "$tmp/b.yaml"
out=$("$ANIMFS" encode "$tmp/b.yaml" -o "$tmp/a.animation" 2>&1) || fail "encode edit"
case "$out" in *"b.yaml:"*"is after the animation length 1.0"*) ;; *) fail "the edit's warning is missing: $out";; esac
echo "ok: warnings"
