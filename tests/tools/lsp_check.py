#!/usr/bin/env python3
"""Drive a YAML language server over LSP stdio the way an editor does, on one document:
lsp_check.py SERVER FILE.yaml LINE COL
Opens FILE (its modeline names the schema), prints each diagnostic the server publishes
as 'diagnostic LINE:COL: message' (1-based), then asks for completions at LINE:COL
(1-based) and prints 'completion LABEL' for each item. Exit 2 when the server gives no
diagnostics in time."""
import os
import sys

from lsp_client import Server


def main():
    server, path, line, col = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    uri = "file://" + os.path.abspath(path)
    s = Server(server, os.path.dirname(os.path.abspath(path)))
    s.open(uri, open(path).read())
    s.pump(lambda: uri in s.diags, 60)
    diags = s.diags.get(uri, (0, []))[1]
    for d in diags:
        st = d["range"]["start"]
        print(f"diagnostic {st['line'] + 1}:{st['character'] + 1}: {d['message']}")
    comp = s.request("textDocument/completion", {
        "textDocument": {"uri": uri}, "position": {"line": line - 1, "character": col - 1}})
    s.pump(lambda: comp in s.replies, 30)
    res = s.replies.get(comp, {}).get("result") or []
    items = res.get("items", []) if isinstance(res, dict) else res
    for it in items:
        print(f"completion {it['label']}")
    s.stop()
    sys.exit(0 if diags else 2)


main()
