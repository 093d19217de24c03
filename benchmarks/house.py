"""The size and shape of the four parts, counted in statements (not a timing).

Every figure is read from the source alone, nothing imported or run:

- **statements**: every ``ast.stmt`` of every module of each part (docstrings, imports and
  the statements inside functions and classes included), per part and in all;
- **modules by length**: how many modules have 250 to 300 lines, and how many more;
- **long functions**: each function (or method) over 50 lines, longest first;
- **import cycles**: each set of modules of the four parts that import each other in a
  ring (Tarjan's strongly connected components over every import, those inside
  functions too, a ``from package import name`` counted as the module ``name`` where it is
  one, else as ``package``).

``python benchmarks/house.py`` prints them; ``--root DIR`` counts another checkout (a
``git worktree`` of an older commit, for a before and after); ``--json`` prints them as one
JSON object.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Collection, Iterator
from pathlib import Path

#: Each part's import package, by the folder it is in.
PARTS = {
    "engine": Path("rep-engine/rep_engine"),
    "audit": Path("rep-audit/rep_audit"),
    "recheck": Path("rep-recheck/rep_recheck"),
    "add-on": Path("scrapy_rep"),
}
#: A module's length at which it is counted as near the old cut, and past it.
NEAR_CUT, PAST_CUT = 250, 300
#: A function longer than this is listed.
LONG_FUNCTION = 50


def modules(root: Path) -> Iterator[tuple[str, str, Path]]:
    """``(part, dotted module name, path)`` of every module of the four parts."""
    for part, folder in PARTS.items():
        for path in sorted((root / folder).rglob("*.py")):
            relative = path.relative_to(root / folder.parent).with_suffix("")
            names = relative.parts[:-1] if relative.name == "__init__" else relative.parts
            yield part, ".".join(names), path


def imports(module: str, path: Path, tree: ast.Module, known: Collection[str]) -> Iterator[str]:
    """The modules of ``known`` each import statement of ``module`` names (anywhere in it):
    ``from package import name`` names the module ``package.name`` where it is one, else
    ``package`` (whose ``__init__`` then runs for it)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def measure(root: Path) -> dict[str, object]:
    """Every figure of the module docstring, for the checkout at ``root``."""
    statements = dict.fromkeys(PARTS, 0)
    near = past = 0
    long_functions = []
    trees = {}
    for part, module, path in modules(root):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source, str(path))
        trees[module] = (path, tree)
        statements[part] += sum(isinstance(node, ast.stmt) for node in ast.walk(tree))
        lines = len(source.splitlines())
        near += NEAR_CUT <= lines <= PAST_CUT
        past += lines > PAST_CUT
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > LONG_FUNCTION:
                    long_functions.append((length, f"{path.relative_to(root)}:{node.name}"))
    graph = {
        module: {
            name for name in imports(module, path, tree, trees) if name in trees and name != module
        }
        for module, (path, tree) in trees.items()
    }
    return {
        "statements": statements,
        "statements_total": sum(statements.values()),
        "modules_250_300": near,
        "modules_over_300": past,
        "long_functions": sorted(long_functions, reverse=True),
        "import_cycles": cycles(graph),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = measure(args.root)
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    parts = figures["statements"]
    assert isinstance(parts, dict)
    by_part = ", ".join(f"{part} {count:,}" for part, count in parts.items())
    print(f"statements: {figures['statements_total']:,} ({by_part})")
    near, past = figures["modules_250_300"], figures["modules_over_300"]
    print(f"modules of {NEAR_CUT}-{PAST_CUT} lines: {near}; over {PAST_CUT}: {past}")
    long_functions = figures["long_functions"]
    cycles_found = figures["import_cycles"]
    assert isinstance(long_functions, list) and isinstance(cycles_found, list)
    print(f"functions over {LONG_FUNCTION} lines: {len(long_functions)}")
    for length, name in long_functions:
        print(f"  {length:4} {name}")
    print(f"import cycles: {len(cycles_found)}")
    for component in cycles_found:
        print("  " + " <-> ".join(component))
    return 0


if __name__ == "__main__":
    sys.exit(main())
