#!/usr/bin/env bash
# `animfs decode --review` as git's textconv of a Sims 3 package (issue 46): one value
# changed in one state machine of a real package is a diff of a few lines (the value,
# the member's size and flags), not the offsets and stored sizes of every resource the
# rebuild moved; index.yaml still shows them (lossless), and a plain decode too.
set -u
A=${ANIMFS:?set ANIMFS to the animfs binary}
S=${ANIMFS_SAMPLES:-$(dirname "$0")/../../../shared/samples}
P=$S/sims3/echoweaver_WarriorCats/WarriorCats.package
[ -f "$P" ] || { echo "SKIP: ../shared/samples not found ($P)"; exit 77; }
command -v git >/dev/null || { echo "SKIP: git missing"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
r=$tmp/repo
git init -q "$r" || fail "git init"
g() { git -C "$r" -c user.name=t -c user.email=t@t -c core.pager=cat "$@"; }
cp "$P" "$r/p.package" && chmod u+w "$r/p.package"
echo '*.package diff=animfs' > "$r/.gitattributes"
g add . && g commit -qm base || fail "commit"
m=petgardening.jazz
"$A" decode "$r/p.package/$m" > "$tmp/j0.yaml" || fail "decode $m"
sed '0,/^\( *\)speed: 1.0$/s//\1speed: 1.25/' "$tmp/j0.yaml" > "$tmp/j.yaml"
[ "$(diff "$tmp/j0.yaml" "$tmp/j.yaml" | grep -c '^[<>]')" = 2 ] || fail "no speed: 1.0 to edit in $m"
"$A" encode "$tmp/j.yaml" -o "$r/p.package/$m" || fail "encode $m into the package"
changed() { grep -E '^[-+]' | grep -vE '^(\+\+\+|---) '; }
g -c diff.animfs.textconv="'$A' decode --review" diff > "$tmp/review.diff" || fail "git diff"
g -c diff.animfs.textconv="'$A' decode" diff > "$tmp/full.diff" || fail "git diff (full)"
n=$(changed < "$tmp/review.diff" | wc -l) full=$(changed < "$tmp/full.diff" | wc -l)
changed < "$tmp/review.diff"
grep -qE '^\+ +speed: 1.25$' "$tmp/review.diff" || fail "the diff lacks the change: $(cat "$tmp/review.diff")"
[ "$n" -le 5 ] || fail "one value changed, $n changed lines with --review: $(changed < "$tmp/review.diff")"
changed < "$tmp/review.diff" | grep -qE 'offset:|stored:' && fail "--review shows where members lie"
# lossless where it must be: index.yaml and a plain decode keep every offset and stored size
"$A" decode "$r/p.package/index.yaml" | grep -c 'offset: .*stored: ' > "$tmp/n" || fail "index.yaml lost its offsets"
[ "$(cat "$tmp/n")" = "$("$A" decode "$r/p.package/index.yaml" | grep -c '^  - {')" ] ||
  fail "index.yaml lacks offsets or stored sizes"
[ "$full" -gt "$n" ] || fail "a plain decode should show the moved offsets ($full lines)"
echo "ok: one changed value is $n changed lines through decode --review ($full without)"
