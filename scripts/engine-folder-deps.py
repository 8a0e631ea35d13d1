#!/usr/bin/env python3
"""Folder-level import graph of storage-engine/src: the check that no import cycle runs between its folders.

A node is a top-level folder of src/, or "root" for the files directly in
src/ (lib.rs, engine.rs, models.rs: the one place that assembles the shared
parts and the models). An edge A -> B: a non-test,
non-comment line of a file in A names `crate::B...`, or a crate-root
re-export defined in B (resolved through lib.rs's `pub use`). Test modules
(from `#[cfg(test)]` to the end of a file, and tests.rs / *_tests.rs files)
are left out. Prints each folder's imports and any cycle; exits 1 if there
is one (nothing may import the root, and no folders may import each other
in a circle), which is how `.ci/run` uses it.
"""
import os, re, sys
args = [a for a in sys.argv[1:] if not a.startswith("-")]
src = args[0] if args else "storage-engine/src"
skip = {"server"}
PER_MODULE = "--modules" in sys.argv
def node_of(rel):
    parts = rel.split(os.sep)
    if len(parts) == 1:
        return parts[0][:-3] if PER_MODULE and parts[0] != "lib.rs" else "root"
    return parts[0]
def code(text):
    m = re.search(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*mod\s+\w+\s*\{", text)
    if m:
        text = text[:m.start()]
    return "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("//"))
# root re-exports: name -> first module of the path
lib = open(os.path.join(src, "lib.rs")).read()
exports = {}
for m in re.finditer(r"pub(?:\(crate\))?\s+use\s+([a-z_][a-z0-9_]*)((?:::[A-Za-z_0-9]+)*)::(\{[^}]*\}|[A-Za-z_0-9]+)\s*;", lib, re.S):
    first = m.group(1)
    names = re.findall(r"[A-Za-z_][A-Za-z_0-9]*", m.group(3))
    for n in names:
        exports[n] = first
for m in re.finditer(r"pub(?:\(crate\))?\s+use\s+([a-z_][a-z0-9_]*)((?:::[a-z_0-9]+)*)\s+as\s+([a-z_0-9]+)\s*;", lib):
    exports[m.group(3)] = m.group(1)
modules = set()
for m in re.finditer(r"^\s*(?:pub(?:\(crate\))?\s+)?mod\s+([a-z_0-9]+)\s*;", lib, re.M):
    modules.add(m.group(1))
root_files = {f[:-3] for f in os.listdir(src) if f.endswith(".rs")}
def target(name):
    if name in modules:
        return "root" if name in root_files and not PER_MODULE else name
    if name in exports:
        return target(exports[name]) if exports[name] != name else "root"
    return None
edges = {}
for dirpath, dirs, files in os.walk(src):
    rel_dir = os.path.relpath(dirpath, src)
    if rel_dir.split(os.sep)[0] in skip:
        continue
    for f in files:
        if not f.endswith(".rs") or f == "tests.rs" or f.endswith("_tests.rs"):
            continue
        rel = os.path.normpath(os.path.join(rel_dir, f))
        a = node_of(rel)
        text = code(open(os.path.join(dirpath, f)).read())
        names = re.findall(r"crate::([A-Za-z_][A-Za-z_0-9]*)", text)
        for group in re.findall(r"crate::\{([^}]*)\}", text, re.S):
            names += [g.split("::")[0].strip() for g in group.split(",") if g.strip()]
        for n in names:
            b = target(n)
            if b and b != a and b not in skip:
                edges.setdefault(a, {}).setdefault(b, set()).add(f"{rel}: {n}")
nodes = sorted(set(edges) | {b for d in edges.values() for b in d})
verbose = "-v" in sys.argv
for a in nodes:
    print(f"{a} -> {', '.join(sorted(edges.get(a, {}))) or '(nothing)'}")
    if verbose:
        for b, why in sorted(edges.get(a, {}).items()):
            print(f"    {b}: {'; '.join(sorted(why))}")
def sccs(exclude):
    g = {a: sorted(b for b in d if b not in exclude) for a, d in edges.items() if a not in exclude}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    def strong(v):
        index[v] = low[v] = counter[0]; counter[0] += 1
        stack.append(v); on.add(v)
        for w in g.get(v, []):
            if w not in index:
                strong(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(set(g) | {b for d in g.values() for b in d}):
        if v not in index:
            strong(v)
    return out
cycles = False
for label, ex in (("all nodes", set()), ("between folders (root left out)", {"root"})):
    found = sccs(ex)
    print(f"import cycles, {label}:", "none" if not found else " | ".join("{" + ", ".join(c) + "}" for c in found))
    if found:
        cycles = True
if cycles:
    sys.exit(1)
