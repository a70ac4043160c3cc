#!/usr/bin/env python3
"""Replays the exact save syscalls of common editors on FILE with the text of NEWTEXT
(used by tests/mount/editors.sh). Every call must succeed; exit 1 with the failing
step otherwise."""
import os
import sys


def write_file(path, data, flags=os.O_WRONLY | os.O_CREAT | os.O_TRUNC, sync=True):
    fd = os.open(path, flags, 0o644)
    try:
        os.write(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)  # a failed save raises here


def vim_backupcopy_yes(f, data):
    d, b = os.path.split(f)
    swp = os.path.join(d, "." + b + ".swp")
    write_file(swp, b"b0VIM swap")
    probe = os.path.join(d, "4913")  # vim's "can I create files here" probe
    write_file(probe, b"", os.O_WRONLY | os.O_CREAT | os.O_EXCL, sync=False)
    os.unlink(probe)
    write_file(f, data, os.O_WRONLY | os.O_TRUNC)
    os.unlink(swp)


def vim_backupcopy_no(f, data):
    d, b = os.path.split(f)
    swp = os.path.join(d, "." + b + ".swp")
    write_file(swp, b"b0VIM swap")
    os.rename(f, f + "~")
    write_file(f, data, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.unlink(f + "~")
    os.unlink(swp)


def emacs(f, data):
    d, b = os.path.split(f)
    lock = os.path.join(d, ".#" + b)
    os.symlink("user@host.1234:1", lock)
    os.rename(f, f + "~")  # backup by rename; the backup stays (as emacs leaves it)
    write_file(f, data, os.O_WRONLY | os.O_CREAT | os.O_EXCL, sync=False)
    os.unlink(lock)


def gedit(f, data):
    d, _ = os.path.split(f)
    tmp = os.path.join(d, ".goutputstream-A1B2C3")
    write_file(tmp, data)
    os.rename(tmp, f)


def sed_i(f, data):
    d, _ = os.path.split(f)
    tmp = os.path.join(d, "sedAbC123")
    write_file(tmp, data, sync=False)
    os.chmod(tmp, 0o644)
    os.rename(tmp, f)


EDITORS = {"vim-yes": vim_backupcopy_yes, "vim-no": vim_backupcopy_no, "emacs": emacs,
           "gedit": gedit, "sed": sed_i}


def main():
    editor, f, newtext = sys.argv[1:4]
    with open(newtext, "rb") as t:
        data = t.read()
    try:
        EDITORS[editor](f, data)
    except OSError as e:
        print(f"{editor}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
