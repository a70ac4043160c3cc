#!/usr/bin/env python3
"""Validate YAML documents against a JSON Schema the way an editor reads them (YAML 1.2
core schema, as yaml-language-server does): schema_check.py SCHEMA FILE...
Prints 'FILE: ok' or 'FILE: INVALID at PATH: message' per file; exit 1 if any is invalid."""
import json
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


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    v = cls(schema)
    bad = 0
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            doc = yaml.load(f, Loader=Yaml12)
        errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if not errs:
            print(f"{path}: ok")
            continue
        bad += 1
        for e in errs[:3]:
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            print(f"{path}: INVALID at {where}: {e.message[:300]}")
    sys.exit(1 if bad else 0)


main()
