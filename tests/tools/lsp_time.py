#!/usr/bin/env python3
"""Time a YAML language server's first diagnostics on documents, as an editor opens them:
lsp_time.py SERVER TIMEOUT FILE.yaml...
One server for all files (started once, as an editor does). Each file is opened with one
line added at its end, `zz_not_a_key: 1`, which its schema refuses, so the first
diagnostics prove the schema was read and applied; then it is closed again. Prints
'start WALL CPU' for the server's start, then 'FILE WALL CPU N' per file: seconds from the
open to the first diagnostics, the server's CPU seconds meanwhile (what the load of a
shared machine moves least), N diagnostics; WALL 'none' when nothing came within
TIMEOUT. Exit 2 when a file got none."""
import os
import sys
import time

from lsp_client import Server


def main():
    server, timeout, files = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    t0 = time.time()
    s = Server(server, os.path.dirname(os.path.abspath(files[0])))
    print(f"start {time.time() - t0:.3f} {s.cpu():.3f}", flush=True)
    missing = 0
    for path in files:
        uri = "file://" + os.path.abspath(path)
        text = open(path).read()
        if not text.endswith("\n"):
            text += "\n"
        text += "zz_not_a_key: 1\n"
        t, c = time.time(), s.cpu()
        s.open(uri, text)
        s.pump(lambda: uri in s.diags, timeout)
        if uri in s.diags:
            print(f"{path} {s.diags[uri][0] - t:.3f} {s.cpu() - c:.3f} {len(s.diags[uri][1])}",
                  flush=True)
        else:
            print(f"{path} none {s.cpu() - c:.3f} 0", flush=True)
            missing += 1
        s.close(uri)
    s.stop()
    sys.exit(2 if missing else 0)


main()
