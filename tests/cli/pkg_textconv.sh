#!/usr/bin/env bash
# `git diff` with `*.package diff=animfs`: `animfs decode X.package` prints one YAML
# document (the index and every member), so an edit inside a package shows as the
# changed YAML lines, and a package git decodes from a temporary file still works.
set -u
command -v git >/dev/null || { echo "SKIP: git not installed"; exit 77; }
src=${ANIMFS_SAMPLES:?}/sims3/echoweaver_WarriorCats/WarriorCats.package
[ -f "$src" ] || { echo "SKIP: ../shared/samples not found"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1
export GIT_CONFIG_NOSYSTEM=1 HOME=$tmp
git init -q repo && cd repo || fail "git init"
git config user.email t@example.com && git config user.name test
git config diff.animfs.textconv "$ANIMFS decode"
echo '*.package diff=animfs' > .gitattributes
cp "$src" W.package && chmod u+w W.package
"$ANIMFS" decode W.package > whole.yaml || fail "decode of a whole package"
python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); assert d["members"]["petgardening.jazz"]["format"] == "sims3-jazz"' whole.yaml 2>/dev/null ||
  { command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null && fail "the whole-package document is not one YAML document"; }
grep -q '^members:' whole.yaml && grep -q '^  petgardening.jazz:$' whole.yaml || fail "no members in the document"
git add .gitattributes W.package && git commit -q -m one || fail "commit one"
"$ANIMFS" decode W.package/petgardening.jazz > pg.yaml || fail "decode member"
sed -i 's/Loop Water/Loop Sprinkle/g' pg.yaml
"$ANIMFS" encode pg.yaml -o W.package/petgardening.jazz || fail "encode member"
git commit -q -am two || fail "commit two"
out=$(git diff HEAD~1 -- W.package) || fail "git diff failed"
case "$out" in *"Binary files"*) fail "git shows a binary diff: $out";; esac
printf '%s\n' "$out" | grep -q '^-.*Loop Water' || fail "no '-' line: $out"
printf '%s\n' "$out" | grep -q '^+ .*name: 0x' || fail "no '+' line: $out"
echo "ok: package textconv"
