#!/usr/bin/env python3
"""Validate YAML documents against a JSON Schema the way an editor reads them (YAML 1.2
core schema, as yaml-language-server does): schema_check.py [--engine=E] SCHEMA FILE...
or schema_check.py [--engine=E] --list LIST, LIST a file of lines "SCHEMA<TAB>FILE" (each
file against its own schema, in one process: a validator each, one node for Ajv; a
Python start with jsonschema costs half a CPU second, a node one about as much).
Prints 'FILE: ok' or 'FILE: INVALID at PATH: message' per file; exit 1 if any is invalid.
The engine validates the loaded document: jsonschema (python-jsonschema, the default),
ajv (Ajv in node, tests/tools/schema_ajv.js: 40x faster on a 14 MB view; a document
JSON cannot hold, such as one with .nan, goes to jsonschema), or both (each document
through both; a verdict they disagree on is INVALID).
SCHEMA_CHECK_COMPARE=1: also load each file with the full loader and fail when the two
documents differ (the check of load_fast).
--jsonschema-max=BYTES (with both): a file larger than that is still loaded here and
compared with yaml2json's document, but judged by Ajv alone (python-jsonschema takes
~1.2 CPU s a MB, Ajv a tenth of it).
ANIMFS_YAML2JSON=PROGRAM (the tests' tests/tools/yaml2json, 7x faster than load_fast):
with --engine=ajv the documents go from it straight to Ajv, unloaded here (a file it
does not convert is loaded here); with --engine=both each document it converts must
equal the one loaded here (the check of the converter, on every small view)."""
import json
import os
import re
import sys

import jsonschema
import yaml

Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Yaml12(Base):
    pass


Yaml12.yaml_implicit_resolvers = {}
for tag, rx, first in (
        ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
        ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
        ("float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                  r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
        ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""])):
    Yaml12.add_implicit_resolver("tag:yaml.org,2002:" + tag, re.compile(rx), list(first))


def yaml12_int(loader, node):
    v = loader.construct_scalar(node)
    if v.startswith("0x"):
        return int(v[2:], 16)
    if v.startswith("0o"):
        return int(v[2:], 8)
    return int(v, 10)


Yaml12.add_constructor("tag:yaml.org,2002:int", yaml12_int)


class Fallback(Exception):
    """The document uses what load_fast leaves to the full loader."""


_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULL = {"~", "null", "Null", "NULL", ""}


def _plain(v):
    """A plain scalar as Yaml12 resolves and constructs it (same expressions)."""
    if v in _NULL:
        return None
    if v in _BOOL:
        return _BOOL[v]
    if _INT.match(v):
        return int(v[2:], 16) if v.startswith("0x") else int(v[2:], 8) if v.startswith("0o") \
            else int(v, 10)
    if _FLOAT.match(v):
        w = v.lower()
        sign = -1.0 if w.startswith("-") else 1.0
        if w.lstrip("+-") == ".inf":
            return sign * float("inf")
        if w == ".nan":
            return float("nan")
        return float(w)
    return v


def load_fast(f):
    """yaml.load(f, Loader=Yaml12) built straight from the C parser's events, 7x faster
    on a 14 MB view; anything but plain or quoted scalars, sequences and mappings (tags,
    anchors, aliases, complex keys, more than one document) raises Fallback."""
    stack, keys, root, docs = [], [], None, 0
    nokey = keys  # a marker no key can be
    for ev in yaml.parse(f, Loader=Base):
        t = type(ev)
        if t is yaml.ScalarEvent:
            if ev.anchor is not None or ev.tag is not None:
                raise Fallback()
            v = _plain(ev.value) if ev.implicit[0] else ev.value
        elif t is yaml.SequenceStartEvent or t is yaml.MappingStartEvent:
            if ev.anchor is not None or ev.tag is not None:
                raise Fallback()
            v = [] if t is yaml.SequenceStartEvent else {}
        elif t is yaml.SequenceEndEvent:
            stack.pop()
            continue
        elif t is yaml.MappingEndEvent:
            stack.pop()
            keys.pop()
            continue
        elif t is yaml.DocumentStartEvent:
            docs += 1
            if docs > 1:
                raise Fallback()
            continue
        elif t is yaml.AliasEvent:
            raise Fallback()
        else:
            continue
        if stack:
            top = stack[-1]
            if type(top) is list:
                top.append(v)
            elif keys[-1] is nokey:
                if type(v) is list or type(v) is dict:
                    raise Fallback()
                keys[-1] = v
            else:
                top[keys[-1]] = v
                keys[-1] = nokey
        else:
            root = v
        if t is yaml.SequenceStartEvent:
            stack.append(v)
        elif t is yaml.MappingStartEvent:
            stack.append(v)
            keys.append(nokey)
    return root


def load(path):
    with open(path, "rb") as f:
        try:
            return load_fast(f)
        except Fallback:
            pass
    with open(path, "rb") as f:
        return yaml.load(f, Loader=Yaml12)


class Ajv:
    """One node process running tests/tools/schema_ajv.js, for any number of schemas:
    use() selects the one the documents after it are checked against."""

    def __init__(self):
        import subprocess
        here = os.path.dirname(os.path.abspath(__file__))
        env = dict(os.environ)
        env.setdefault("NODE_MODULES", os.path.join(here, "..", "..", ".tools", "node",
                                                    "node_modules"))
        self.proc = subprocess.Popen(["node", os.path.join(here, "schema_ajv.js")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                     text=True)
        self.schema = None

    def use(self, schema_path):
        if schema_path != self.schema:
            self.proc.stdin.write(json.dumps({"schema": os.path.abspath(schema_path)}) + "\n")
            self.schema = schema_path

    def check(self, path, doc):
        """'ok' or 'INVALID at PATH: message'; None when JSON cannot hold the document."""
        try:
            line = json.dumps([path, doc], allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError):
            return None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        out = self.proc.stdout.readline().rstrip("\n")
        if not out:
            sys.exit(f"{path}: INVALID at (top): the ajv validator died")
        return out

    def check_json(self, line):
        """check() of a line "[NAME,DOCUMENT]" of JSON made elsewhere."""
        self.proc.stdin.write(line)
        self.proc.stdin.flush()
        out = self.proc.stdout.readline().rstrip("\n")
        if not out:
            sys.exit(f"{line[:80]}: INVALID at (top): the ajv validator died")
        return out

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def converter(paths):
    """{path: its JSON line} from $ANIMFS_YAML2JSON for the files it converts ({} when
    there is none): lines read one at a time, each file's JSON held until it is checked."""
    prog = os.environ.get("ANIMFS_YAML2JSON")
    if not prog or not os.access(prog, os.X_OK):
        return {}
    return LazyLines(prog, paths)


class LazyLines:
    """The converter's output read as the files are asked for, in their order."""

    def __init__(self, prog, paths):
        import subprocess
        self.proc = subprocess.Popen([prog, *paths], stdout=subprocess.PIPE, text=True)
        self.left = list(paths)

    def get(self, path):
        if not self.left or self.left[0] != path:
            return None
        self.left.pop(0)
        line = self.proc.stdout.readline()
        if not line:
            sys.exit(f"{path}: INVALID at (top): yaml2json died")
        if line.startswith("FALLBACK\t"):
            return None
        return line


def jsonschema_verdict(v, doc):
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if not errs:
        return ["ok"]
    return ["INVALID at %s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)",
                                   e.message[:300]) for e in errs[:3]]


def jobs_of(args):
    """[(schema, file)] from the command line: SCHEMA FILE... or --list LIST."""
    if args[0] == "--list" and len(args) == 2:
        jobs = []
        with open(args[1]) as f:
            for line in f:
                line = line.rstrip("\n")
                if line:
                    schema, sep, path = line.partition("\t")
                    if not sep:
                        sys.exit(f"{args[1]}: not SCHEMA<TAB>FILE: {line}")
                    jobs.append((schema, path))
        return jobs
    if len(args) < 2:
        sys.exit(__doc__)
    return [(args[0], path) for path in args[1:]]


def main():
    args = sys.argv[1:]
    engine, js_max = "jsonschema", None
    while args and args[0].startswith(("--engine=", "--jsonschema-max=")):
        opt, val = args.pop(0).split("=", 1)
        if opt == "--engine":
            engine = val
        else:
            js_max = int(val)
    if not args or engine not in ("jsonschema", "ajv", "both"):
        sys.exit(__doc__)
    jobs = jobs_of(args)
    validators = {}
    for schema_path, _ in jobs:
        if schema_path not in validators:
            with open(schema_path) as f:
                schema = json.load(f)
            cls = jsonschema.validators.validator_for(schema)
            cls.check_schema(schema)
            validators[schema_path] = cls(schema)
    ajv = Ajv() if engine != "jsonschema" and jobs else None
    converted = converter([path for _, path in jobs]) if engine != "jsonschema" else {}
    bad = 0
    for schema_path, path in jobs:
        v = validators[schema_path]
        if ajv:
            ajv.use(schema_path)
        line = converted.get(path)
        if engine == "ajv" and line is not None:
            a = ajv.check_json(line)
            print(f"{path}: {a}")
            bad += a != "ok"
            continue
        doc = load(path)
        if line is not None and json.loads(line)[1] != json.loads(json.dumps(doc)):
            print(f"{path}: INVALID at (top): yaml2json's document differs from the loader's")
            bad += 1
            continue
        if os.environ.get("SCHEMA_CHECK_COMPARE"):
            with open(path, "rb") as f:
                full = yaml.load(f, Loader=Yaml12)
            if repr(full) != repr(doc):
                print(f"{path}: INVALID at (top): load_fast differs from the full loader")
                bad += 1
                continue
        a = ajv.check(path, doc) if ajv else None
        if a is not None and (engine == "ajv" or
                              (js_max is not None and os.path.getsize(path) > js_max)):
            verdict = [a]
        else:
            verdict = jsonschema_verdict(v, doc)
            if a is not None and (a == "ok") != (verdict == ["ok"]):
                verdict = ["INVALID at (top): the validators disagree: jsonschema says "
                           f"{verdict[0]}, ajv says {a}"]
        for line in verdict:
            print(f"{path}: {line}")
        if verdict != ["ok"]:
            bad += 1
    if ajv:
        ajv.close()
    sys.exit(1 if bad else 0)


main()
