#!/usr/bin/env python3
"""Drive a YAML language server over LSP stdio the way an editor does, on one document:
lsp_check.py SERVER FILE.yaml LINE COL
Opens FILE (its modeline names the schema), prints each diagnostic the server publishes
as 'diagnostic LINE:COL: message' (1-based), then asks for completions at LINE:COL
(1-based) and prints 'completion LABEL' for each item. Exit 2 when the server gives no
diagnostics in time."""
import json
import os
import queue
import subprocess
import sys
import threading
import time


def main():
    server, path, line, col = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    text = open(path).read()
    uri = "file://" + os.path.abspath(path)
    p = subprocess.Popen([server, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    inbox = queue.Queue()

    def reader():
        f = p.stdout
        while True:
            head = {}
            while True:
                ln = f.readline()
                if not ln:
                    inbox.put(None)
                    return
                ln = ln.decode().strip()
                if not ln:
                    break
                k, v = ln.split(":", 1)
                head[k.lower()] = v.strip()
            inbox.put(json.loads(f.read(int(head["content-length"]))))

    threading.Thread(target=reader, daemon=True).start()
    ids = iter(range(1, 1000))

    def send(msg):
        msg["jsonrpc"] = "2.0"
        body = json.dumps(msg).encode()
        p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        p.stdin.flush()

    settings = {"yaml": {"validate": True, "completion": True, "hover": True,
                         "schemaStore": {"enable": False}, "schemas": {}}}
    diags = None
    replies = {}

    def pump(until, timeout):
        nonlocal diags
        end = time.time() + timeout
        while not until() and time.time() < end:
            try:
                m = inbox.get(timeout=0.2)
            except queue.Empty:
                continue
            if m is None:
                return
            if "method" in m and "id" in m:  # a request from the server
                result = None
                if m["method"] == "workspace/configuration":
                    result = [settings.get(it.get("section", ""), settings)
                              if it.get("section") != "yaml" else settings["yaml"]
                              for it in m["params"]["items"]]
                send({"id": m["id"], "result": result})
            elif m.get("method") == "textDocument/publishDiagnostics":
                if m["params"]["uri"] == uri and m["params"]["diagnostics"]:
                    diags = m["params"]["diagnostics"]
            elif "id" in m:
                replies[m["id"]] = m

    init = next(ids)
    send({"id": init, "method": "initialize", "params": {
        "processId": os.getpid(), "rootUri": "file://" + os.path.dirname(os.path.abspath(path)),
        "capabilities": {"workspace": {"configuration": True},
                         "textDocument": {"publishDiagnostics": {},
                                          "completion": {"completionItem": {"snippetSupport": False}}}}}})
    pump(lambda: init in replies, 30)
    send({"method": "initialized", "params": {}})
    send({"method": "workspace/didChangeConfiguration", "params": {"settings": settings}})
    send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "yaml", "version": 1, "text": text}}})
    pump(lambda: diags is not None, 60)
    for d in diags or []:
        s = d["range"]["start"]
        print(f"diagnostic {s['line'] + 1}:{s['character'] + 1}: {d['message']}")
    comp = next(ids)
    send({"id": comp, "method": "textDocument/completion", "params": {
        "textDocument": {"uri": uri}, "position": {"line": line - 1, "character": col - 1}}})
    pump(lambda: comp in replies, 30)
    res = replies.get(comp, {}).get("result") or []
    items = res.get("items", []) if isinstance(res, dict) else res
    for it in items:
        print(f"completion {it['label']}")
    shut = next(ids)
    send({"id": shut, "method": "shutdown"})
    pump(lambda: shut in replies, 10)
    send({"method": "exit"})
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
    sys.exit(0 if diags else 2)


main()
