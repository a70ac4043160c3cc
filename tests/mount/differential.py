"""The differential test of acting as the caller (tests/mount/differential.sh): the
same table of operations, run by users A and B in the same order, on a plain folder
and on the view of a copy of it. Every operation's outcome (ok or its errno) and the
end state (names, types, owners, groups, modes, contents, link targets, and who of A
and B may read each file) must be the same on both sides; binaries are compared as
bytes (the view side saves YAML that encodes to them).

Then derived outputs of files a user may not read (views, their stat sizes, plots,
previews, .animfs/errors and .animfs/stats: DERIVED below), each against what the
plain folder shows of the binary.

One documented difference: an editor dropping (x~, sedXXXXXX) is kept in its user's
own 0700 scratch folder, so another user never sees it; for those the view may only
be stricter than the plain folder (nobody reads it there who could not before).

    differential.py ANIMFS EXAMPLE_YAML PLAIN GAME VIEW     (as root; env UA UB UG)
    differential.py --child JSON                            (one operation, as a user)
    differential.py --serve                                 (operations as JSON lines, as a user)
"""
import contextlib
import errno
import grp
import hashlib
import io
import json
import os
import pwd
import re
import stat
import subprocess
import sys
import tempfile


def child(spec):
    os.umask(spec["umask"])
    op, a = spec["op"], spec["args"]
    try:
        if op == "write":
            fd = os.open(a[0], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            try:
                os.write(fd, bytes.fromhex(a[1]))
            finally:
                os.close(fd)
        elif op == "read":
            with open(a[0], "rb") as f:
                f.read()
        elif op == "rename":
            os.rename(a[0], a[1])
        elif op == "mkdir":
            os.mkdir(a[0], a[1])
        elif op == "rmdir":
            os.rmdir(a[0])
        elif op == "symlink":
            os.symlink(a[0], a[1])
        elif op == "chmod":
            os.chmod(a[0], a[1])
        elif op == "truncate":
            os.truncate(a[0], a[1])
        elif op == "unlink":
            os.unlink(a[0])
        elif op == "stat":  # what a stat shows: size, mode, owner
            s = os.stat(a[0])
            print("ok %d %o %d" % (s.st_size, stat.S_IMODE(s.st_mode), s.st_uid))
            return
        elif op == "cat":  # what a read gives: its length and bytes (hex)
            with open(a[0], "rb") as f:
                data = f.read()
            print("ok %d %s" % (len(data), data.hex()))
            return
        elif op == "ls":
            print("ok " + json.dumps(sorted(os.listdir(a[0]))))
            return
        else:
            raise SystemExit("unknown op " + op)
        print("ok")
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)))


def is_bin(p):
    return p.endswith(".animation")


def is_dropping(p):
    base = os.path.basename(p)
    return base.endswith("~") or re.fullmatch(r"sed[A-Za-z0-9]{6}", base) is not None


def side_path(root, p, view):
    """The name p (a plain-folder name) has on one side."""
    if not view:
        return os.path.join(root, p)
    if is_bin(p):
        return os.path.join(root, p + ".yaml")
    if p.endswith(".animation~"):  # the backup of a view is named after the view
        return os.path.join(root, p[:-1] + ".yaml~")
    return os.path.join(root, p)


# (user, op, args...): binaries are *.animation; ("save", bin, k) writes version k
# (YAML on the view, its bytes on the plain folder); ("put", name, k) the same into a
# file of another name (an editor's temp file)
STEPS = [
    ("A", "umask", 0o022),
    ("B", "umask", 0o022),
    ("A", "save", "pub/a.animation", 1),        # own file
    ("B", "save", "pub/a.animation", 0),        # A's 0644: no
    ("A", "read", "pub/b.animation"),           # B's 0600: no
    ("A", "read", "pub/b.txt"),
    ("A", "save", "pub/g.animation", 1),        # root:G 0664, A in G: yes, stays root's
    ("A", "write", "pub/suid", "#!/bin/sh\necho A\n"),   # root 4755: no
    # 1. a dropping renamed onto root's setuid file: the file is A's now, no setuid
    ("A", "write", "pub/sedAbC123", "mine\n"),
    ("A", "rename", "pub/sedAbC123", "pub/suid"),
    # 2. B's 0600 file moved to a backup name and back: nobody else reads it
    ("A", "rename", "pub/b.txt", "pub/b.txt~"),
    ("A", "read", "pub/b.txt~"),
    ("A", "rename", "pub/b.txt~", "pub/b.txt"),
    ("A", "read", "pub/b.txt"),
    ("B", "read", "pub/b.txt"),
    ("A", "rename", "pub/b.animation", "pub/b.animation~"),
    ("A", "read", "pub/b.animation~"),
    ("A", "rename", "pub/b.animation~", "pub/b.animation"),
    ("A", "read", "pub/b.animation"),
    ("B", "read", "pub/b.animation"),
    # 5. A's text renamed onto B's view in a folder A may write: the binary is A's file
    ("A", "put", "pub/sedXyZ789", 1),
    ("A", "rename", "pub/sedXyZ789", "pub/b.animation"),
    ("B", "read", "pub/b.animation"),
    # ... but not in a sticky folder; writing into B's 0666 file there keeps it B's
    ("A", "put", "sticky/sedQwE456", 1),
    ("A", "rename", "sticky/sedQwE456", "sticky/b.animation"),
    ("A", "unlink", "sticky/sedQwE456"),
    ("A", "save", "sticky/b.animation", 1),
    ("A", "unlink", "sticky/b.txt"),
    ("A", "chmod", "sticky/b.txt", 0o600),
    ("B", "chmod", "sticky/b.txt", 0o640),
    ("A", "truncate", "sticky/b.txt", 0),
    ("B", "truncate", "sticky/b.txt", 1),
    # what each makes is theirs, with their umask
    ("A", "umask", 0o077),
    ("A", "write", "pub/new.txt", "hello\n"),
    ("A", "mkdir", "pub/dir", 0o777),
    ("A", "symlink", "new.txt", "pub/lnk"),
    ("A", "save", "pub/fresh.animation", 0),
    ("B", "write", "grp/b.txt", "bee\n"),       # a setgid folder: group G
    ("B", "mkdir", "grp/sub", 0o775),
    ("B", "read", "grp/x.txt"),                 # A:G 0640
    ("B", "read", "aonly/a.animation"),         # in A's 0700 folder
    ("B", "save", "grp/new.animation", 1),
    ("B", "save", "aonly/a.animation", 1),
    ("A", "rename", "pub/a.animation", "pub/c.animation"),
    ("A", "unlink", "pub/c.animation"),
    ("B", "unlink", "pub/fresh.animation"),     # not sticky: B may
    ("A", "chmod", "pub/new.txt", 0o4755),
    ("B", "write", "pub/new.txt", "x\n"),
    ("A", "chmod", "pub/new.txt", 0o4777),
    ("B", "write", "pub/new.txt", "b wrote\n"), # a write clears A's setuid
    ("A", "truncate", "pub/new.txt", 3),
    ("A", "chmod", "pub/g.animation", 0o600),   # root's: no
    ("A", "chmod", "grp/x.txt", 0o604),         # G may not, others may
    ("B", "read", "grp/x.txt"),
    ("A", "rename", "pub/dir", "pub/dir2"),
    ("B", "rmdir", "pub/dir2"),
    ("B", "unlink", "pub/lnk"),
]


def mk(root, p, mode, uid, gid):
    os.mkdir(os.path.join(root, p))
    os.chown(os.path.join(root, p), uid, gid)
    os.chmod(os.path.join(root, p), mode)


def putf(root, p, data, uid, gid, mode):
    with open(os.path.join(root, p), "wb") as f:
        f.write(data)
    os.chown(os.path.join(root, p), uid, gid)
    os.chmod(os.path.join(root, p), mode)


def build(root, bins, ids):
    A, B, G, users = ids
    def put(p, data, uid, gid, mode):
        putf(root, p, data, uid, gid, mode)

    os.chmod(root, 0o755)
    mk(root, "pub", 0o777, 0, 0)
    mk(root, "sticky", 0o1777, 0, 0)
    mk(root, "grp", 0o2775, 0, G)
    mk(root, "aonly", 0o700, A, users)
    put("pub/a.animation", bins[0], A, users, 0o644)
    put("pub/b.animation", bins[0], B, users, 0o600)
    put("pub/b.txt", b"b secret\n", B, users, 0o600)
    put("pub/suid", b"#!/bin/sh\necho root\n", 0, 0, 0o4755)
    put("pub/g.animation", bins[0], 0, G, 0o664)
    put("sticky/b.animation", bins[0], B, users, 0o666)
    put("sticky/b.txt", b"b\n", B, users, 0o666)
    put("grp/x.txt", b"x\n", A, G, 0o640)
    put("aonly/a.animation", bins[0], A, users, 0o644)


# Derived outputs of files a caller may not read (issue 42): B's 0600 binary, one in
# B's 0700 folder and a member of B's 0600 package, and the daemon's counters. What A
# is shown of them is what the plain folder shows of the binary: the open of its view,
# plot (.animfs/plot/V.svg) and preview (.animfs/gltf/V.glb) is refused as the open of
# the binary is (EACCES); the stat of its view shows the binary's own size (or EACCES
# where the binary's stat is refused: in a folder A may not search, and a member, whose
# package is a folder of the package's mode); the stat of a plot or a preview says what
# its open says (EACCES: its size, or whether the format has curves, is derived from
# the bytes); no line of .animfs/errors names the file. .animfs/stats is the mount's
# owner's, as a 0400 file of the daemon's user is (the plain side has one: der/stats).
# B and root get the real outputs, the same bytes, and stats whose size is the text's.
DERIVED = [  # (what, the binary on the plain side, its view)
    ("B's 0600 file", "der/b.animation", "der/b.animation.yaml"),
    ("in B's 0700 folder", "der/bonly/x.animation", "der/bonly/x.animation.yaml"),
    ("a member of B's 0600 package", "der/b.package", None),  # the member: listed by B
]


def build_derived(root, bins, pkg, ids, plain):
    A, B, G, users = ids
    mk(root, "der", 0o777, 0, 0)
    mk(root, "der/bonly", 0o700, B, users)
    putf(root, "der/b.animation", bins[0], B, users, 0o600)
    putf(root, "der/bonly/x.animation", bins[0], B, users, 0o644)
    putf(root, "der/b.package", pkg, B, users, 0o600)
    if plain:  # what .animfs/stats is: a 0400 file of the daemon's user
        putf(root, "der/stats", b"renders 0\n", os.getuid(), os.getgid(), 0o400)


def as_root(spec):
    """One operation as the test itself (root: the daemon's user)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        child(spec)
    return out.getvalue().strip()


def derived(animfs, example, plain, game, view, ids, user, bins):
    here = os.path.dirname(os.path.abspath(__file__))
    ex = os.path.dirname(os.path.abspath(example))
    bad = []
    with tempfile.TemporaryDirectory() as tmp:  # a package of a clip and a broken Jazz
        subprocess.run([animfs, "encode", os.path.join(ex, "clip_tiny.animation.yaml"),
                        "-o", os.path.join(tmp, "c.clip")], check=True)
        subprocess.run([animfs, "encode", os.path.join(ex, "wave_hello.jazz.yaml"),
                        "-o", os.path.join(tmp, "w.jazz")], check=True)
        with open(os.path.join(tmp, "w.jazz"), "rb") as f:  # a member that does not decode
            junk = f.read()[:120]
        with open(os.path.join(tmp, "junk.jazz"), "wb") as f:
            f.write(junk)
        subprocess.run([sys.executable, os.path.join(here, "mkpackage.py"),
                        os.path.join(tmp, "b.package"),
                        "6B20C4F3:1:" + os.path.join(tmp, "c.clip"),
                        "02D5DF13:2:" + os.path.join(tmp, "junk.jazz")], check=True)
        with open(os.path.join(tmp, "b.package"), "rb") as f:
            pkg = f.read()
    build_derived(plain, bins, pkg, ids, True)
    build_derived(game, bins, pkg, ids, False)
    os.sync()

    def run(who, op, path):
        spec = {"umask": 0o022, "op": op, "args": [path]}
        return as_root(spec) if who == "root" else run_as(user[who], spec)

    def code(out):
        return out.split()[0]

    def data(out):  # the bytes a "cat" gave
        w = out.split()
        return bytes.fromhex(w[2]) if w[0] == "ok" and len(w) > 2 else b""

    def check(ok, what):
        line = "%-3s %s" % ("ok" if ok else "BAD", what)
        print(line)
        if not ok:
            bad.append(line)

    members = run("B", "ls", os.path.join(view, "der/b.package"))
    clips = [m for m in json.loads(members[3:]) if m.endswith(".clip.yaml")] if code(members) == "ok" else []
    check(len(clips) == 1, "B lists its package: %s" % members)
    cases = [(w, b, v if v else "der/b.package/" + (clips[0] if clips else "none.clip.yaml"))
             for w, b, v in DERIVED]
    texts = {}
    for who in ("A", "B", "root", "A"):  # A again: with the texts in the cache
        for what, b, v in cases:
            pr, ps = run(who, "cat", os.path.join(plain, b)), run(who, "stat", os.path.join(plain, b))
            refused = code(pr) != "ok"
            vr = run(who, "cat", os.path.join(view, v))
            check(code(vr) == code(pr), "%s reads the view %s (%s): plain %s, view %s" %
                  (who, v, what, code(pr), code(vr)))
            vs = run(who, "stat", os.path.join(view, v))
            if refused:  # the binary's own size, or refused as the binary's stat
                want = code(pr) if b.endswith(".package") else code(ps)
                ok = code(vs) == want and (want != "ok" or vs.split()[1] == ps.split()[1])
                check(ok, "%s stats the view %s: %s (the binary: %s)" % (who, v, vs, ps))
            else:  # the text's size
                ok = code(vs) == "ok" and code(vr) == "ok" and vs.split()[1] == vr.split()[1]
                check(ok, "%s stats the view %s: %s (its text: %s bytes)" %
                      (who, v, vs, vr.split()[1] if code(vr) == "ok" else "-"))
            for kind, ext, magic in (("plot", ".svg", b"<svg"), ("gltf", ".glb", b"glTF")):
                d = os.path.join(view, ".animfs", kind, v + ext)
                dr, ds = run(who, "cat", d), run(who, "stat", d)
                if refused:  # as the binary's open, stat too: nothing derived
                    check(code(dr) == code(pr) and code(ds) == code(pr),
                          "%s's %s of %s: open %s, stat %s (the binary's open: %s)" %
                          (who, kind, v, code(dr), code(ds), code(pr)))
                    continue
                got = data(dr)
                ok = magic in got[:256] and code(ds) == "ok" and ds.split()[1] == str(len(got))
                check(ok, "%s's %s of %s: %s, %d bytes, stat %s" % (who, kind, v, code(dr),
                                                                   len(got), ds))
                if ok:
                    texts.setdefault((kind, v), set()).add(got)
            if not refused and code(vr) == "ok":
                texts.setdefault(("view", v), set()).add(vr.split()[2])
        # the lines about B's files: only for who may read them (the package's member
        # that does not decode has one once B listed it)
        er = run(who, "cat", os.path.join(view, ".animfs/errors"))
        lines = data(er).decode()
        about = [x for x in lines.splitlines() if "der/" in x]
        check(code(er) == "ok" and bool(about) == (who != "A"),
              "%s reads .animfs/errors: %s, %d lines about B's files" % (who, code(er), len(about)))
        # the counters: as the daemon's 0400 file
        pr, ps = run(who, "cat", os.path.join(plain, "der/stats")), run(who, "stat", os.path.join(plain, "der/stats"))
        vr, vs = run(who, "cat", os.path.join(view, ".animfs/stats")), run(who, "stat", os.path.join(view, ".animfs/stats"))
        ok = code(vr) == code(pr) and code(vs) == code(ps) == "ok" and vs.split()[2:] == ps.split()[2:]
        if ok and code(vr) == "ok":
            ok = b"renders " in data(vr) and vs.split()[1] == vr.split()[1]
        check(ok, "%s and .animfs/stats: read %s, stat %s (plain: read %s, stat %s)" %
              (who, code(vr), vs, code(pr), ps))
    for (kind, v), seen in sorted(texts.items()):
        check(len(seen) == 1, "B and root read the same %s of %s" % (kind, v))
    return bad


def serve():
    """One user's operations, one JSON line each on stdin, one answer line each."""
    for line in sys.stdin:
        child(json.loads(line))
        sys.stdout.flush()


# One process a user for the whole table (a Python start as the user costs more than the
# operation: ~200 of them were most of the test's CPU). Each operation still runs alone,
# in order, with its umask, and has closed its files before the next one starts.
servers = {}


def run_as(user, spec):
    srv = servers.get(user)
    if srv is None:
        srv = servers[user] = subprocess.Popen(
            ["setpriv", "--reuid=" + user, "--regid=users", "--init-groups",
             sys.executable, os.path.abspath(__file__), "--serve"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    srv.stdin.write(json.dumps(spec) + "\n")
    srv.stdin.flush()
    out = srv.stdout.readline()
    if not out:
        raise SystemExit("the child of %s failed (exit %s)" % (user, srv.wait(timeout=60)))
    return out.strip()


def stop_servers():
    for srv in servers.values():
        srv.stdin.close()
        srv.wait(timeout=60)


def state(root):
    """Every entry but the droppings: type, owner, group, mode, content or target."""
    st = {}
    for dirpath, dirs, files in os.walk(root):
        for n in dirs + files:
            full = os.path.join(dirpath, n)
            rel = os.path.relpath(full, root)
            if is_dropping(rel):
                continue
            s = os.lstat(full)
            if stat.S_ISLNK(s.st_mode):
                what = "-> " + os.readlink(full)
            elif stat.S_ISREG(s.st_mode):
                with open(full, "rb") as f:
                    what = hashlib.sha1(f.read()).hexdigest()[:12]
            else:
                what = "dir"
            st[rel] = "%s %d:%d %o %s" % (stat.filemode(s.st_mode)[0], s.st_uid, s.st_gid,
                                         stat.S_IMODE(s.st_mode), what)
    return st


def main(animfs, example, plain, game, view):
    ua, ub, ug = os.environ["UA"], os.environ["UB"], os.environ["UG"]
    ids = (pwd.getpwnam(ua).pw_uid, pwd.getpwnam(ub).pw_uid, grp.getgrnam(ug).gr_gid,
           grp.getgrnam("users").gr_gid)
    with open(example) as f:
        y0 = f.read()
    y1 = re.sub(r"^length: *\S+", "length: 7.25", y0, count=1, flags=re.M)
    assert y1 != y0
    bins = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, y in enumerate((y0, y1)):
            with open(os.path.join(tmp, "%d.yaml" % k), "w") as f:
                f.write(y)
            out = os.path.join(tmp, "%d.animation" % k)
            subprocess.run([animfs, "encode", os.path.join(tmp, "%d.yaml" % k), "-o", out],
                           check=True)
            with open(out, "rb") as f:
                bins.append(f.read())
    yamls = [y0.encode(), y1.encode()]
    build(plain, bins, ids)
    build(game, bins, ids)
    os.sync()
    umask = {"A": 0o022, "B": 0o022}
    user = {"A": ua, "B": ub}
    bad = []
    for step in STEPS:
        who, op, args = step[0], step[1], list(step[2:])
        if op == "umask":
            umask[who] = args[0]
            continue
        res = []
        for view_side, root in ((False, plain), (True, view)):
            o, a = op, []
            if op in ("save", "put"):
                o = "write"
                a = [side_path(root, args[0], view_side),
                     (yamls if view_side else bins)[args[1]].hex()]
            elif op == "write":
                a = [side_path(root, args[0], view_side), args[1].encode().hex()]
            elif op in ("rename",):
                a = [side_path(root, args[0], view_side), side_path(root, args[1], view_side)]
            elif op == "symlink":
                a = [args[0], side_path(root, args[1], view_side)]
            else:
                a = [side_path(root, args[0], view_side)] + args[1:]
            res.append(run_as(user[who], {"umask": umask[who], "op": o, "args": a}))
        # a dropping another user made is theirs alone on the view: stricter only
        other_dropping = op == "read" and is_dropping(args[0]) and res[0] == "ok"
        same = res[0] == res[1] or (other_dropping and res[1] in ("EACCES", "ENOENT"))
        line = "%-3s %s %-8s %-42s plain %-7s view %s" % ("ok" if same else "BAD", who, op,
                                                         " ".join(repr(x) if isinstance(x, str) and "\n" in x else str(x) for x in args),
                                                         res[0], res[1])
        print(line)
        if not same:
            bad.append(line)
    sp, sg = state(plain), state(game)
    for k in sorted(set(sp) | set(sg)):
        if sp.get(k) != sg.get(k):
            bad.append("state %s: plain %s, GAME %s" % (k, sp.get(k), sg.get(k)))
            print(bad[-1])
    # who of A and B may read each file (views through the view)
    for k in sorted(sp):
        if not sp[k].startswith("-"):
            continue
        for who in ("A", "B"):
            r = [run_as(user[who], {"umask": 0o022, "op": "read",
                                    "args": [side_path(root, k, v)]})
                 for v, root in ((False, plain), (True, view))]
            if r[0] != r[1]:
                bad.append("%s reads %s: plain %s, view %s" % (who, k, r[0], r[1]))
                print(bad[-1])
    bad += derived(animfs, example, plain, game, view, ids, user, bins)
    stop_servers()
    print("%d steps, %d entries compared, %d differences" % (len(STEPS), len(sp), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child(json.loads(sys.argv[2]))
    elif sys.argv[1] == "--serve":
        serve()
    else:
        sys.exit(main(*sys.argv[1:6]))
