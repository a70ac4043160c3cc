# Names stay: the tools people copy with, each run into a plain folder and into the
# view (GAME), must leave the same names, bytes, modes and (where the tool keeps them)
# times in GAME: a binary created under its own name keeps resolving by that name for
# stat, chmod, chown, utimens, rename and open, while listings show its view.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
S=$T/src P=$T/plain
mkdir -p "$S/sub" "$P"
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$S/a.animation" || fail "encode"
sed 's/^length: *[^ ]*/length: 3.25/' "$src/examples/walk.animation.yaml" > "$T/b.yaml"
"$ANIMFS" encode "$T/b.yaml" -o "$S/sub/b.animation" || fail "encode"
printf 'notes\n' > "$S/notes.txt"
chmod 640 "$S/a.animation"; chmod 600 "$S/sub/b.animation"; chmod 751 "$S/sub"
touch -d '2020-01-02 03:04:05.123456789' "$S/a.animation" "$S/sub/b.animation" "$S/notes.txt" "$S/sub"
mount_view_fg
listing() { # listing DIR TIMES: every entry; with times, files' mtimes too (folders'
  local ft='%P %y %m %s\n'     # times are the tools' business: cpio leaves them be)
  [ "$2" = times ] && ft='%P %y %m %s %T@\n'
  (cd "$1" && { find . -mindepth 1 -not -path './.git*' -not -type f -printf '%P %y %m\n'
                find . -not -path './.git*' -type f -printf "$ft"; } | sort
   cd "$1" && find . -type f -not -path './.git*' -exec md5sum {} + | sort -k2)
}
same() { # same TOOL TIMES: GAME/TOOL against the plain folder's
  local a b
  a=$(listing "$P/$1" "$2") b=$(listing "$GAME/$1" "$2")
  [ -n "$a" ] || fail "$1: nothing copied into the plain folder"
  [ "$a" = "$b" ] || { diff <(echo "$a") <(echo "$b") >&2; fail "$1: GAME differs from the plain folder"; }
  [ -f "$VIEW/$1/a.animation.yaml" ] || fail "$1: the copied binary is not shown as its view"
  ls "$VIEW/$1" | grep -q '\.animation$' && fail "$1: a binary's own name is listed"
  echo "ok: $1"
}
run() { # run TOOL TIMES COMMAND... (the command sees DEST)
  local tool=$1 times=$2; shift 2
  for dest in "$P/$tool" "$VIEW/$tool"; do
    DEST=$dest sh -c "$*" || fail "$tool into $dest"
  done
  same "$tool" "$times"
}
run copy no 'mkdir "$DEST" && python3 -c "import shutil,sys; shutil.copy(sys.argv[1], sys.argv[2])" "'"$S"'/a.animation" "$DEST/"'
run install no 'mkdir -p "$DEST" && install -m 644 "'"$S"'/a.animation" "$DEST/a.animation" && install -m 600 "'"$S"'/notes.txt" "$DEST/notes.txt"'
run cp-a times 'cp -a "'"$S"'" "$DEST"'
run cp-p times 'mkdir "$DEST" && cp -p "'"$S"'/a.animation" "'"$S"'/notes.txt" "$DEST/"'
run copy2 times 'mkdir "$DEST" && python3 -c "import shutil,sys; shutil.copy2(sys.argv[1], sys.argv[2]); shutil.copy2(sys.argv[3], sys.argv[2])" "'"$S"'/a.animation" "$DEST/" "'"$S"'/notes.txt"'
run copytree times 'python3 -c "import shutil,sys; shutil.copytree(sys.argv[1], sys.argv[2])" "'"$S"'" "$DEST"'
(cd "$S" && tar cf "$T/s.tar" .) && run tar times 'mkdir "$DEST" && tar xf "'"$T"'/s.tar" -C "$DEST"'
if command -v cpio >/dev/null; then
  (cd "$S" && find . -mindepth 1 | cpio -o --quiet > "$T/s.cpio") &&
    run cpio times 'mkdir "$DEST" && cd "$DEST" && cpio -idm --quiet < "'"$T"'/s.cpio"'
else echo "note: cpio missing, not tried"; fi
if command -v zip >/dev/null && command -v unzip >/dev/null; then
  (cd "$S" && zip -qr "$T/s.zip" .) && run unzip times 'unzip -q "'"$T"'/s.zip" -d "$DEST"'
else echo "note: zip or unzip missing, not tried"; fi
if command -v rsync >/dev/null; then
  run rsync times 'rsync -a "'"$S"'/" "$DEST/"'
else echo "note: rsync missing, not tried"; fi
if command -v git >/dev/null; then
  R=$T/repo
  git init -q "$R" && cp -a "$S/." "$R/" &&
    git -C "$R" -c user.name=t -c user.email=t@t add -A &&
    git -C "$R" -c user.name=t -c user.email=t@t commit -qm one &&
    git -C "$R" checkout -qb two && cp "$S/sub/b.animation" "$R/a.animation" &&
    git -C "$R" -c user.name=t -c user.email=t@t commit -qam two && git -C "$R" checkout -q - ||
    fail "the git repository"
  run git-clone no 'git clone -q "'"$R"'" "$DEST"'
  run git-checkout no 'git clone -q "'"$R"'" "$DEST" && git -C "$DEST" checkout -q two'
else echo "note: git missing, not tried"; fi
"$EXPECT_ANIMFS" umount "$VIEW" >/dev/null || fail "umount"
check_daemon
echo "tools: ok"
