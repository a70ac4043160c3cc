#!/usr/bin/env bash
# The modules of the mount (its core src/view, its FUSE face src/fs) call in one
# direction (docs/HACKING.md, "The mount's modules"): scripts/fs-callgraph finds no cycle
# in the source, and does find one put in on purpose (a low module calling back up), so a
# loop cannot come back unnoticed. And each face calls the core only: the WebDAV face
# (src/dav) names nothing of the FUSE face's, and a call put in on purpose is found.
set -u
src=${ANIMFS_SOURCE_DIR:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
out=$("$src/scripts/fs-callgraph" "$src/src/view" "$src/src/fs") || fail "a cycle in the mount:
$out"
case "$out" in *"no cycle"*) ;; *) fail "no verdict: $out";; esac
# the graph is real: commit calls folder
case "$out" in *"commit -> "*folder*) ;; *) fail "commit -> folder missing: $out";; esac
# a call back up from the render cache to view closes a loop: it must be reported
cp "$src"/src/view/*.c "$src"/src/fs/*.c "$tmp"/
printf '\nint af_back_up(struct af_fs *fs, const char *p, struct af_res *r)\n{\n\treturn af_view_resolve(fs, p, r);\n}\n' >> "$tmp/render.c"
out=$("$src/scripts/fs-callgraph" "$tmp") && fail "an injected cycle was not found: $out"
case "$out" in *"cycle:"*render*view*) ;; *) fail "the cycle is not named: $out";; esac
# the three folders by default; the WebDAV face serves the core's namespace
out=$("$src/scripts/fs-callgraph") || fail "the faces and the core:
$out"
case "$out" in *"davns -> "*nsnode*) ;; *) fail "davns -> nsnode missing: $out";; esac
# the WebDAV face calling the FUSE face's operation: reported
mkdir "$tmp/view" "$tmp/fs" "$tmp/dav"
cp "$src"/src/view/*.c "$tmp/view/"
cp "$src"/src/fs/*.c "$tmp/fs/"
cp "$src"/src/dav/*.c "$tmp/dav/"
printf '\nint af_across(const char *p, struct stat *st)\n{\n\treturn af_op_getattr(p, st, NULL);\n}\n' >> "$tmp/dav/davns.c"
out=$("$src/scripts/fs-callgraph" "$tmp/view" "$tmp/fs" "$tmp/dav") &&
  fail "a call from one face into the other was not found: $out"
case "$out" in *"a face calls another face: dav/davns -> fs/ops"*) ;;
  *) fail "the call across is not named: $out";; esac
echo "ok: fs_layers"
