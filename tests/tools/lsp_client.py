"""A YAML language server driven over LSP stdio the way an editor drives it: started,
initialised with the settings an editor sends (schema store off, no schemas but each
document's modeline), answering the server's configuration requests. For
lsp_check.py and lsp_time.py."""
import json
import os
import queue
import subprocess
import threading
import time


class Server:
    def __init__(self, server, root):
        self.p = subprocess.Popen([server, "--stdio"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.inbox = queue.Queue()
        self.ids = iter(range(1, 1 << 30))
        self.replies = {}
        self.diags = {}  # uri -> (time, diagnostics) of the last non-empty publication
        self.settings = {"yaml": {"validate": True, "completion": True, "hover": True,
                                  "schemaStore": {"enable": False}, "schemas": {}}}
        threading.Thread(target=self._read, daemon=True).start()
        init = self.request("initialize", {
            "processId": os.getpid(), "rootUri": "file://" + os.path.abspath(root),
            "capabilities": {"workspace": {"configuration": True},
                             "textDocument": {"publishDiagnostics": {},
                                              "completion": {"completionItem": {
                                                  "snippetSupport": False}}}}})
        self.pump(lambda: init in self.replies, 60)
        self.send({"method": "initialized", "params": {}})
        self.send({"method": "workspace/didChangeConfiguration",
                   "params": {"settings": self.settings}})

    def _read(self):
        f = self.p.stdout
        while True:
            head = {}
            while True:
                ln = f.readline()
                if not ln:
                    self.inbox.put(None)
                    return
                ln = ln.decode().strip()
                if not ln:
                    break
                k, v = ln.split(":", 1)
                head[k.lower()] = v.strip()
            self.inbox.put(json.loads(f.read(int(head["content-length"]))))

    def send(self, msg):
        msg["jsonrpc"] = "2.0"
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def request(self, method, params):
        i = next(self.ids)
        self.send({"id": i, "method": method, "params": params})
        return i

    def pump(self, until, timeout):
        end = time.time() + timeout
        while not until() and time.time() < end:
            try:
                m = self.inbox.get(timeout=0.05)
            except queue.Empty:
                continue
            if m is None:
                return
            if "method" in m and "id" in m:  # a request from the server
                result = None
                if m["method"] == "workspace/configuration":
                    result = [self.settings["yaml"] if it.get("section") == "yaml"
                              else self.settings for it in m["params"]["items"]]
                self.send({"id": m["id"], "result": result})
            elif m.get("method") == "textDocument/publishDiagnostics":
                if m["params"]["diagnostics"]:
                    self.diags[m["params"]["uri"]] = (time.time(), m["params"]["diagnostics"])
            elif "id" in m:
                self.replies[m["id"]] = m

    def open(self, uri, text):
        self.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1, "text": text}}})

    def close(self, uri):
        self.send({"method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}})
        self.diags.pop(uri, None)

    def cpu(self):
        """The server's CPU seconds so far (user + system), from /proc."""
        try:
            with open(f"/proc/{self.p.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            return 0.0

    def stop(self):
        shut = self.request("shutdown", None)
        self.pump(lambda: shut in self.replies, 10)
        self.send({"method": "exit"})
        try:
            self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.p.kill()
