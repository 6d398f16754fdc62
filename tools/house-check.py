#!/usr/bin/env python3
"""The house's rules that no compiler checks, run by `make check`.

1. No source file over 700 lines (Rust, TypeScript, Python, shell; tests too).
2. No module circle in a Rust crate: two modules (neither inside the other) that
   reach each other through `use crate::…` / `super::…` paths. The web has
   eslint's `import-x/no-cycle` for the same rule.
3. No Rust function over 80 lines outside tests, but for the few that are one
   declarative table (`TABLES`: a resource's routes, demo data), which read
   best whole.

Exit status 1 with one line per breach; a run on a clean tree prints nothing.
The debts not yet repaid are listed in `tools/house-debts.txt` (issue 40): a file
listed there may shrink but not grow, a circle listed may lose members but not
gain them, and a debt repaid must leave the list, so it only ever shortens.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 700
SOURCE_SUFFIXES = {".rs", ".ts", ".tsx", ".py", ".sh"}
# Generated or vendored text, not code anyone edits.
NOT_SOURCE = ("web/src/gen/",)


def tracked_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [line for line in out.splitlines() if line]


DEBTS = ROOT / "tools" / "house-debts.txt"
MAX_FUNCTION_LINES = 80
# Functions that are one table: each line an entry, nothing to name as a step.
TABLES = {
    ("gateway/src/rest/auth.rs", "endpoints"),
    ("gateway/src/rest/education.rs", "endpoints"),
    ("gateway/src/rest/wiki.rs", "endpoints"),
    ("gateway/src/rest/service_accounts.rs", "endpoints"),
    ("gateway/src/rest/reference.rs", "endpoints"),
    ("services/education/src/demo.rs", "load"),
    ("services/wiki/src/demo.rs", "load"),
}
FUNCTION = re.compile(
    r"^(\s*)(?:pub(?:\([^)]*\))? )?(?:async )?(?:const )?(?:unsafe )?fn (\w+)"
)


def long_functions(files: list[str]) -> list[tuple[str, str, int]]:
    """Rust functions (outside tests) longer than MAX_FUNCTION_LINES, by the
    lines from `fn` to the closing brace at its indentation (rustfmt's layout)."""
    found = []
    for name in files:
        if not name.endswith(".rs") or "/tests/" in name or "/benches/" in name:
            continue
        if name.endswith("/tests.rs"):
            continue
        path = ROOT / name
        if not path.is_file():
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        end = next(
            (i for i, line in enumerate(lines) if re.match(r"\s*#\[cfg\(test\)\]", line)),
            len(lines),
        )
        i = 0
        while i < end:
            match = FUNCTION.match(lines[i])
            if not match:
                i += 1
                continue
            indent = match.group(1)
            j = i
            while j < end and not lines[j].rstrip().endswith(("{", ";")):
                j += 1
            if j >= end or lines[j].rstrip().endswith(";"):
                i = j + 1
                continue
            k = j + 1
            while k < end and lines[k].rstrip() != indent + "}":
                k += 1
            length = k - i + 1
            if length > MAX_FUNCTION_LINES and (name, match.group(2)) not in TABLES:
                found.append((name, match.group(2), length))
            i = j + 1
    return found


def oversized(files: list[str]) -> list[tuple[str, int]]:
    breaches = []
    for name in files:
        path = ROOT / name
        if path.suffix not in SOURCE_SUFFIXES or name.startswith(NOT_SOURCE):
            continue
        if not path.is_file():
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").count("\n")
        if lines > MAX_LINES:
            breaches.append((name, lines))
    return breaches


def crate_roots(files: list[str]) -> list[Path]:
    """Each crate's `src` directory (its lib.rs or main.rs)."""
    roots = set()
    for name in files:
        if re.search(r"(^|/)src/(lib|main)\.rs$", name):
            roots.add((ROOT / name).parent)
    return sorted(roots)


def module_of(src: Path, file: Path) -> tuple[str, ...]:
    rel = file.relative_to(src).with_suffix("")
    parts = rel.parts
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


PATH = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
GROUP = re.compile(r"\b(crate|super)::\{([^;]*?)\};", re.S)


def referenced_paths(text: str, module: tuple[str, ...], is_mod_file: bool):
    """Module paths (as tuples from the crate root) this file's code names."""
    # A file `a/b.rs` is module a::b, and its `super` is `a`; `a/b/mod.rs` too.
    del is_mod_file
    text = re.sub(r"//[^\n]*", "", text)
    # A module's own tests may use any helper of the crate: not a dependency
    # of the module's code. They sit at the end of the file by convention.
    tests = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    if tests:
        text = text[: tests.start()]

    def absolute(head: str, rest: list[str]) -> tuple[str, ...]:
        if head == "crate":
            return tuple(rest)
        return module[:-1] + tuple(rest)

    for match in GROUP.finditer(text):
        head, body = match.group(1), match.group(2)
        for item in re.split(r"[,{}\s]+", body):
            item = item.strip()
            if item and item not in ("self",):
                yield absolute(head, item.split("::"))
    for match in PATH.finditer(text):
        head = match.group(1)
        rest = [p for p in match.group(2).split("::") if p]
        yield absolute(head, rest)


def cycles_in(src: Path) -> list[str]:
    files = [p for p in src.rglob("*.rs")]
    modules = {module_of(src, f): f for f in files}
    edges: dict[tuple[str, ...], set[tuple[str, ...]]] = {m: set() for m in modules}
    for module, file in modules.items():
        if module and module[-1] == "tests":
            continue  # a module's tests in a file of their own
        text = file.read_text(encoding="utf-8", errors="replace")
        for path in referenced_paths(text, module, file.name == "mod.rs"):
            # The longest prefix that is a module of this crate.
            target = None
            for cut in range(len(path), 0, -1):
                if path[:cut] in modules:
                    target = path[:cut]
                    break
            if target is None or target == module:
                continue
            # A module and the modules inside it are one unit: a parent
            # declares its children and a child may use its parent's items.
            if target[: len(module)] == module or module[: len(target)] == target:
                continue
            # Seen from their nearest common parent, `a::x` using `b::y` is
            # `a` using `b` (a re-export does not hide a circle).
            common = 0
            while module[common] == target[common]:
                common += 1
            edges.setdefault(module[: common + 1], set()).add(target[: common + 1])
            edges.setdefault(target[: common + 1], set())
    return [
        (str(src.relative_to(ROOT)), frozenset("::".join(m) or "crate" for m in c))
        for c in strongly_connected(edges)
        if len(c) > 1
    ]


def strongly_connected(edges):
    index: dict = {}
    low: dict = {}
    stack: list = []
    on_stack: set = set()
    found = []
    counter = [0]

    def visit(node):
        # Iterative Tarjan: crates have a few hundred modules at most, but
        # recursion depth should not depend on the tree.
        work = [(node, iter(sorted(edges[node])))]
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        while work:
            current, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter[0]
                    counter[0] += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(edges[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[current] = min(low[current], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[current])
            if low[current] == index[current]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == current:
                        break
                found.append(component)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def read_debts():
    """`oversized <path> <lines>` and `circle <crate> <module> <module> …` lines."""
    sizes: dict[str, int] = {}
    circles: list[tuple[str, frozenset[str]]] = []
    for line in DEBTS.read_text(encoding="utf-8").splitlines():
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if words[0] == "oversized" and len(words) == 3:
            sizes[words[1]] = int(words[2])
        elif words[0] == "circle" and len(words) > 3:
            circles.append((words[1], frozenset(words[2:])))
        else:
            raise SystemExit(f"{DEBTS.name}: cannot read {line!r}")
    return sizes, circles


def main() -> int:
    files = tracked_files()
    sizes, circles = read_debts()
    messages = []
    big = dict(oversized(files))
    for name, lines in sorted(big.items()):
        allowed = sizes.get(name)
        if allowed is None:
            messages.append(f"{name}: {lines} lines (the house's limit is {MAX_LINES})")
        elif lines > allowed:
            messages.append(f"{name}: grew to {lines} lines past its recorded debt of {allowed}")
    for name in sorted(set(sizes) - set(big)):
        messages.append(f"{DEBTS.name}: {name} is within {MAX_LINES} lines now; remove its line")
    found = [c for src in crate_roots(files) for c in cycles_in(src)]
    for crate, members in found:
        if not any(crate == c and members <= m for c, m in circles):
            names = " ↔ ".join(sorted(members))
            messages.append(f"{crate}: module circle {names}")
    for crate, members in circles:
        if not any(crate == c and m <= members for c, m in found):
            messages.append(f"{DEBTS.name}: the circle in {crate} of {' '.join(sorted(members))} is gone; remove its line")
    for name, function, length in long_functions(files):
        messages.append(
            f"{name}: fn {function} is {length} lines (the house's limit is {MAX_FUNCTION_LINES})"
        )
    for message in messages:
        print(message)
    return 1 if messages else 0


if __name__ == "__main__":
    sys.exit(main())
