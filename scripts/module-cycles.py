#!/usr/bin/env python3
"""Import circles between the files of one Rust crate.

Usage: scripts/module-cycles.py [--edges] SRC_DIR...

For each crate source folder (crates/kpca-core/src, xtask/src, ...) builds the
graph of file-to-file imports and prints its strongly connected components of
more than one file, then `N files in import circles (largest circle: M)`.

An edge a -> b is a path written in a that names an item or module of b:
`use crate::x::Y`, `use super::Y`, `use self::c::Y`, a `use` tree
(`use crate::{a::X, b::{Y, Z}}`), or a path in code (`crate::x::f()`,
`super::f()`, `child::f()` for a child module of the current one). A `mod`
declaration alone is no edge. A path through a re-export (`crate::Y` where
the root has `pub use x::Y`) is followed to the file that defines Y, and the
file is counted as one that imports through the crate root. A `pub use`
(re-export) makes an edge only when its file uses the name itself. Comments, doc comments and string
literals are ignored; inline modules (`mod tests { .. }`) belong to their file.
`--edges` also prints every edge. Python 3, standard library only.
"""

import re
import sys
from pathlib import Path

ITEM_KW = r"(?:fn|struct|enum|union|trait|type|const|static|mod)"
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_code(text):
    """Blanks comments, string and char literals (keeps offsets and newlines)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == "/" and nxt == "*":
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:]) and not re.match(r"\w", text[i - 1 : i] or " "):
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            j = n if end < 0 else end + 1 + len(hashes)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            m = re.match(r"'(?:\\.[^']*|[^\\'])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:  # a lifetime
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching_brace(code, open_at):
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code)


class File:
    def __init__(self, path, module):
        self.path = path
        self.module = module  # tuple of segments
        self.code = strip_code(path.read_text(encoding="utf-8"))
        # Inline modules: (start, end, name, depth-ordered).
        self.inline = []
        for m in re.finditer(r"\bmod\s+(" + IDENT + r")\s*\{", self.code):
            self.inline.append((m.end() - 1, matching_brace(self.code, m.end() - 1), m.group(1)))

    def context(self, pos):
        """The module path at an offset of the file (inline modules included)."""
        segs = list(self.module)
        for start, end, name in self.inline:
            if start < pos < end:
                segs.append(name)
        return tuple(segs)

    def defines(self, name):
        pat = r"\b" + ITEM_KW + r"\s+" + re.escape(name) + r"\b|macro_rules!\s*" + re.escape(name) + r"\b"
        return re.search(pat, self.code) is not None


def module_of(src, path):
    rel = path.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "mod" or (len(parts) == 1 and parts[0] in ("lib", "main")):
        parts = parts[:-1]
    return tuple(parts)


def expand_use_tree(tree, with_names=False):
    """`a::{b, c::{d, e as f}, self}` -> [[a, b], [a, c, d], [a, c, e], [a]];
    with_names: pairs (path, the name it brings into scope)."""
    tree = re.sub(r"\s*(::|[{},])\s*", r"\1", tree.strip())
    tree = re.sub(r"\s+", " ", tree)
    out = []

    def walk(prefix, s):
        depth, start, parts = 0, 0, []
        for i, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:i])
                start = i + 1
        parts.append(s[start:])
        for p in parts:
            if not p:
                continue
            if "{" in p:
                head, rest = p.split("{", 1)
                walk(prefix + [x for x in head.split("::") if x], rest[: rest.rfind("}")])
                continue
            path, _, alias = p.partition(" as ")
            segs = prefix + [x for x in path.split("::") if x]
            if segs and segs[-1] == "self":
                segs = segs[:-1]
            if segs:
                out.append((segs, alias.strip() or segs[-1]))

    walk([], tree)
    return out if with_names else [segs for segs, _ in out]


class Crate:
    def __init__(self, src):
        self.src = src
        files = sorted(p for p in src.rglob("*.rs"))
        has_lib = (src / "lib.rs").exists()
        self.files = {}
        for p in files:
            if has_lib and p == src / "main.rs":
                continue  # the binary is another crate over the library
            f = File(p, module_of(src, p))
            self.files[f.module] = f
        self.modules = {}  # module path -> File (file and inline modules)
        for f in self.files.values():
            self.modules[f.module] = f
            for start, _, _ in f.inline:
                self.modules[f.context(start + 1)] = f
        self.edges = {}
        self.through_root = set()

    def name(self, f):
        return str(f.path.relative_to(self.src))

    def reexports(self, f, name):
        """Paths (with their context) that module file f re-exports as `name`."""
        found = []
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", f.code):
            for segs in expand_use_tree(m.group(1)):
                raw = m.group(1)
                alias = None
                # `x as name` aliases
                am = re.search(r"(" + IDENT + r")\s+as\s+" + re.escape(name) + r"\b", raw)
                if am and segs and segs[-1] == am.group(1):
                    alias = name
                if segs and (segs[-1] == name or alias or segs[-1] == "*"):
                    found.append((segs, f.context(m.start())))
        return found

    def resolve(self, segs, ctx, depth=0):
        """The file a path names, or None (outside the crate)."""
        if depth > 8 or not segs:
            return None
        segs = list(segs)
        if segs[0] in ("crate", "$crate"):
            base, rest = (), segs[1:]
        elif segs[0] == "self":
            base, rest = ctx, segs[1:]
        elif segs[0] == "super":
            base = ctx
            while segs and segs[0] == "super":
                base, segs = base[:-1], segs[1:]
            rest = segs
        elif ctx + (segs[0],) in self.modules:
            base, rest = ctx, segs
        else:
            return None
        full = tuple(base) + tuple(rest)
        k = len(full)
        while k > 0 and full[:k] not in self.modules:
            k -= 1
        mod, remaining = full[:k], full[k:]
        f = self.modules.get(mod)
        if f is None:
            return None
        if not remaining or remaining[0] == "*" or f.defines(remaining[0]):
            return f
        for target, rctx in self.reexports(f, remaining[0]):
            if target[-1] == "*":
                got = self.resolve(target[:-1] + [remaining[0]], rctx, depth + 1)
            else:
                got = self.resolve(target, rctx, depth + 1)
            if got is not None and got is not f:
                if mod == () and depth == 0:
                    self.through_root_hit = True
                return got
        for g in self.files.values():  # #[macro_export] macros live at the root
            if re.search(r"macro_rules!\s*" + re.escape(remaining[0]) + r"\b", g.code):
                return g
        return f

    def add(self, f, segs, ctx):
        self.through_root_hit = False
        target = self.resolve(segs, ctx)
        if self.through_root_hit:
            self.through_root.add(f.module)
        if target is not None and target is not f:
            self.edges.setdefault(f.module, set()).add(target.module)

    def build(self):
        for f in self.files.values():
            code = f.code
            no_use = re.sub(r"\buse\s+[^;]+;", lambda m: " " * len(m.group(0)), code)
            for m in re.finditer(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", code):
                ctx = f.context(m.start())
                for segs, local in expand_use_tree(m.group(2), with_names=True):
                    if m.group(1) and not re.search(r"\b" + re.escape(local) + r"\b", no_use):
                        continue  # a re-export the file itself does not use
                    self.add(f, segs, ctx)
            path_re = r"(?<![\w:])\$?(" + IDENT + r"(?:\s*::\s*" + IDENT + r")+)"
            for m in re.finditer(path_re, no_use):
                segs = [s.strip() for s in m.group(1).split("::")]
                self.add(f, segs, f.context(m.start()))


def sccs(nodes, edges):
    """Tarjan's strongly connected components."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def report(src, show_edges):
    crate = Crate(Path(src))
    crate.build()
    name = lambda mod: crate.name(crate.files[mod])
    print(f"== {src}")
    if show_edges:
        for a in sorted(crate.edges):
            for b in sorted(crate.edges[a]):
                print(f"  {name(a)} -> {name(b)}")
    circles = [c for c in sccs(sorted(crate.files), crate.edges) if len(c) > 1]
    circles.sort(key=lambda c: (-len(c), sorted(c)))
    for c in circles:
        print(f"  circle of {len(c)}: " + ", ".join(sorted(name(m) for m in c)))
    total = sum(len(c) for c in circles)
    largest = max((len(c) for c in circles), default=0)
    print(f"{total} files in import circles (largest circle: {largest})")
    print(f"{len(crate.through_root)} files import through the crate root")


def main(argv):
    show_edges = "--edges" in argv
    dirs = [a for a in argv if a != "--edges"]
    if not dirs:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    for d in dirs:
        if not Path(d).is_dir():
            print(f"not a folder: {d}", file=sys.stderr)
            return 2
        report(d, show_edges)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
