#!/usr/bin/env python3
"""The Sims 3's rule for which package wins, applied to a Mods folder (tests only).

    resource_cfg.py MODS LOWER HIGHER

MODS/Resource.cfg as the game reads it (simswiki.info "Sims 3:Resource.cfg": `Priority N`
sets the priority of the lines after it; `PackedFile GLOB` loads the packages the glob
names, relative to the file's folder, a `*` never crossing a folder; a higher priority
overrides a lower one, resource by key). Prints each loaded package's priority; exits 0
when both LOWER and HIGHER (paths below MODS) are loaded and HIGHER's priority is the
higher, else 1. How two packages of one priority are ordered no source says: equal is 1.
"""
import fnmatch
import os
import sys

mods, lower, higher = sys.argv[1:4]
prio, where = None, {}
for ln in open(os.path.join(mods, "Resource.cfg")):
    w = ln.split()
    if w and w[0] == "Priority":
        prio = int(w[1])
    elif w and w[0] == "PackedFile":
        for root, _, files in os.walk(mods):
            for f in files:
                rel = os.path.relpath(os.path.join(root, f), mods)
                if fnmatch.fnmatch(rel, w[1]) and rel.count("/") == w[1].count("/"):
                    where[rel] = max(where.get(rel, prio), prio)
print("priorities:", where)
lo, hi = where.get(lower), where.get(higher)
sys.exit(0 if lo is not None and hi is not None and hi > lo else 1)
