"""The swap race of tests/mount/race.sh, run as the untrusted user: one process
swaps GAME/pub/d with a link to a root-only folder (renameat2 RENAME_EXCHANGE) in a
tight loop while this one runs OP on VIEW/pub/d for SECONDS. Exits 1 (and says
what) when anything of the root-only folder shows through: its bytes read, its
names listed. What it may have changed is checked by the caller.

    race.py OP SECONDS GAME VIEW [VICTIM]

OP mkdir and symlink race a hard link (and a symlink) to VICTIM, a file outside GAME,
against the view's new folder or link of that name instead.
"""
import ctypes
import os
import sys
import time

AT_FDCWD, RENAME_EXCHANGE = -100, 2


def swapper(a, b, stop):
    libc = ctypes.CDLL(None, use_errno=True)
    while time.monotonic() < stop:
        libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), RENAME_EXCHANGE)
    os._exit(0)


def linker(name, victim, stop):
    """Swap a hard link to a file outside GAME (renameat2 RENAME_EXCHANGE) with the
    name the view makes a folder or a link under, over and over: whatever the daemon
    does to the new name by name afterwards would reach the file outside."""
    libc = ctypes.CDLL(None, use_errno=True)
    spare = name + ".spare"
    try:
        os.link(victim, spare)
    except OSError:
        os.symlink(victim, spare)
    a, b = name.encode(), spare.encode()
    while time.monotonic() < stop:
        # the new entry swapped out for the link a moment, then back, so the view's
        # loop goes on making and removing it
        if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0:
            libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
    os._exit(0)


def main(op, seconds, game, view, victim=None):
    stop = time.monotonic() + float(seconds)
    d, lnk = os.path.join(game, "pub", "d"), os.path.join(game, "pub", "lnk")
    pid = os.fork()
    if pid == 0:
        if op in ("mkdir", "symlink"):
            linker(os.path.join(d, "n"), victim, stop)
        swapper(d, lnk, stop)
    vd = os.path.join(view, "pub", "d")
    f = os.path.join(vd, "f.txt")
    bad, tries, ok = [], 0, 0
    while time.monotonic() < stop:
        tries += 1
        try:
            if op == "read":
                with open(f, "rb") as h:
                    data = h.read()
                if b"SECRET" in data:
                    bad.append("read the root-only file")
            elif op == "list":
                names = os.listdir(vd)
                if "only-secret.txt" in names:
                    bad.append("listed the root-only folder")
            elif op == "rename":
                drop = os.path.join(vd, "f.txt~")  # a dropping: its text moves onto f.txt
                with open(drop, "wb") as h:
                    h.write(b"dropped\n")
                os.rename(drop, f)
            elif op == "chmod":
                os.chmod(f, 0o666 if tries % 2 else 0o644)
            elif op == "truncate":
                os.truncate(f, 0)
            elif op in ("mkdir", "symlink"):
                n = os.path.join(vd, "n")
                for rm in (os.rmdir, os.unlink):  # whatever the swap left there
                    try:
                        rm(n)
                    except OSError:
                        pass
                if op == "mkdir":
                    os.mkdir(n, 0o700)
                else:
                    os.symlink("f.txt", n)
            ok += 1
        except OSError:
            pass
    os.waitpid(pid, 0)
    if op in ("mkdir", "symlink"):  # the swapped names go
        for n in (os.path.join(d, "n"), os.path.join(d, "n.spare")):
            try:
                os.rmdir(n) if os.path.isdir(n) and not os.path.islink(n) else os.unlink(n)
            except OSError:
                pass
    # leave d the real folder again
    if op not in ("mkdir", "symlink") and os.path.islink(d):
        ctypes.CDLL(None).renameat2(AT_FDCWD, d.encode(), AT_FDCWD, lnk.encode(), RENAME_EXCHANGE)
    print("%s: %d tries, %d went through" % (op, tries, ok))
    if bad:
        print("LEAK: %s (%d times)" % (bad[0], len(bad)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
