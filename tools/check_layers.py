#!/usr/bin/env python3
"""Checks that the modules of each crate are layered without circles.

No module may use, directly or through other modules, a module that uses it (see "The shape of
a format crate" in docs/architecture.md). The check reads the code as text, the way a newcomer
follows it: a module uses another when it names it (`crate::a::b::Item`, `super::Item`, a child
module's `child::item`, or an item that the crate root re-exports from it). The crate root
(`lib.rs`, `main.rs`) only declares and re-exports, a module's `pub use` of its own children
declares them too, and `#[cfg(test)] mod ...` blocks are left out: tests may reach anywhere.

    python3 tools/check_layers.py            # every crate of the workspace, and python/
    python3 tools/check_layers.py crates/tracecap-arrow

Exits 1 and prints each circle, with what ties each step, when there is one.
"""

import re
import sys
from pathlib import Path

ROOTS = ("lib.rs", "main.rs")


def strip(text):
    """The code of `text` without comments, string and char literals, and test modules."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'r(#*)".*?"\1', '""', text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text, flags=re.S)
    text = re.sub(r"'(?:\\.|[^'\\])'", "' '", text)
    out, at = [], 0
    test_mod = r"#\[cfg\([^\]]*\btest\b[^\]]*\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{"
    for m in re.finditer(test_mod, text):
        if m.start() < at:
            continue
        out.append(text[at:m.start()])
        at = block_end(text, m.end())
    out.append(text[at:])
    return "".join(out)


def block_end(text, i):
    """Where the block whose `{` ends just before `i` ends."""
    depth = 1
    while i < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return i


def inline_modules(code):
    """The spans of the modules written inline in a file (`mod name { ... }`)."""
    return [(m.end(), block_end(code, m.end())) for m in re.finditer(r"\bmod\s+\w+\s*\{", code)]


def module_of(src, path):
    """The module path of a file under `src`: () for the root."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "mod" or (len(parts) == 1 and parts[0] + ".rs" in ROOTS):
        parts = parts[:-1]
    return tuple(parts)


def expand(group):
    """The paths of a `use` group `a::{b, c::{d, e}}` (its text inside the outer braces)."""
    items, depth, cur = [], 0, ""
    for ch in group:
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        cur += ch
    items.append(cur)
    paths = []
    for item in (i.strip() for i in items):
        m = re.match(r"([\w:]*?)::\{(.*)\}$", item, flags=re.S)
        if m:
            paths += [m.group(1) + "::" + p for p in expand(m.group(2))]
        elif item:
            paths.append(re.split(r"\s+as\s+", item)[0])
    return paths


def references(code):
    """The paths the code names, each as (head, path): head is 'crate', 'self', '' (a path
    that starts with a name) or 'super' repeated once per step up from the file's module (a
    `super` inside an inline module first leaves that module)."""
    inline = inline_modules(code)

    def head_of(head, at):
        if not head.startswith("super"):
            return head
        ups = head.count("super::") - sum(1 for a, b in inline if a <= at < b)
        return "super" * ups if ups > 0 else "self"

    refs = []
    group = r"\b((?:super::)+|crate::|self::)\{([^;]*?)\}\s*;"
    for m in re.finditer(group, code, flags=re.S):
        refs += [(head_of(m.group(1), m.start()).rstrip(":"), p) for p in expand(m.group(2))]
    code = re.sub(group, lambda m: " " * len(m.group(0)), code, flags=re.S)
    for m in re.finditer(r"\b((?:super::)+|crate::|self::)?((?:\w+::)*\w+)", code):
        head = m.group(1) or ""
        if head:
            refs.append((head_of(head, m.start()).rstrip(":"), m.group(2)))
        elif "::" in m.group(2):
            refs.append(("", m.group(2)))
    return refs


def check(src):
    files = sorted(src.rglob("*.rs"))
    modules = {module_of(src, f): f for f in files}
    codes = {module_of(src, f): strip(f.read_text()) for f in files}
    # Names the crate root re-exports: `pub use a::b::Name` -> the module (a, b).
    reexports = {}
    for root in ROOTS:
        if (src / root).exists():
            code = codes[()]
            for m in re.finditer(r"pub\s+use\s+([\w:]+)::\{([^}]*)\}", code):
                for name in m.group(2).split(","):
                    reexports[name.strip().split(" as ")[-1]] = tuple(m.group(1).split("::"))
            for m in re.finditer(r"pub\s+use\s+([\w:]+)::(\w+)\s*;", code):
                reexports[m.group(2)] = tuple(m.group(1).split("::"))

    def resolve(base, segments):
        """The longest module path that `base + segments` starts with."""
        path = tuple(base) + tuple(segments)
        for n in range(len(path), len(base) - 1, -1):
            if path[:n] in modules:
                if n == 0 and segments and segments[0] in reexports:
                    target = reexports[segments[0]]
                    return target if target in modules else None
                return path[:n]
        return None

    edges = {}
    for mod, code in codes.items():
        if mod == ():
            continue
        children = {m[-1] for m in modules if len(m) == len(mod) + 1 and m[:-1] == mod}
        # A module re-exporting its own children declares them, as the crate root does.
        reexport = r"pub(?:\([^)]*\))?\s+use\s+(?:self::)?(\w+)::[^;]*;"
        code = re.sub(reexport, lambda m: "" if m.group(1) in children else m.group(0), code)
        for head, path in references(code):
            segments = [s for s in path.split("::") if s]
            if head == "crate":
                target = resolve((), segments)
            elif head.startswith("super"):
                target = resolve(mod[: len(mod) - head.count("super")], segments)
            elif head == "self":
                target = resolve(mod, segments)
            elif segments and segments[0] in children:
                target = resolve(mod, segments)
            else:
                continue
            if target is not None and target != mod and target != ():
                edges.setdefault(mod, {}).setdefault(target, set()).add(segments[-1] if segments else "")
    return modules, edges


def circles(edges):
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, groups, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in list(edges):
        if v not in index:
            visit(v)
    return groups


def main(args):
    here = Path(__file__).resolve().parent.parent
    crates = [Path(a) for a in args] or sorted(
        [p for p in (here / "crates").iterdir() if (p / "src").is_dir()] + [here / "python"])
    failed = False
    for crate in crates:
        src = crate / "src"
        modules, edges = check(src)
        found = circles(edges)
        name = crate.name
        if not found:
            print(f"ok   {name}: {len(modules)} modules, no circle")
            continue
        failed = True
        for group in found:
            print(f"FAIL {name}: a circle of {len(group)} modules:")
            members = set(group)
            for a in group:
                for b, names in sorted(edges.get(a, {}).items()):
                    if b in members:
                        print(f"       {'::'.join(a)} -> {'::'.join(b)}: {', '.join(sorted(names))}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
