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

``--capabilities`` prints instead the house by capability: the statements of
each capability's modules beside those of the anchor that does the same job
(:data:`CAPABILITIES`, each anchor's figure a constant with its source), their ratio, and
whether it is within the yardstick (:data:`YARDSTICK` times the anchor).

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
from typing import NamedTuple

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


class Capability(NamedTuple):
    """One capability and the anchor it is measured against."""

    #: Its modules: a folder stands for every module under it.
    paths: tuple[str, ...]
    #: What an anchor does the same job with, and its statements (counted as here).
    anchor: str
    anchor_statements: int
    #: Where the anchor's figure comes from.
    source: str
    #: Modules under ``paths`` left out (another capability's).
    left_out: tuple[str, ...] = ()


#: The house by capability: each capability's
#: modules against an anchor's, the anchor's figure counted as :func:`statements_of`
#: counts (every ``ast.stmt``).
CAPABILITIES = {
    "robots.txt parse/match/explain": Capability(
        ("rep-engine/rep_engine/robotstxt", "rep-engine/rep_engine/urls"),
        "Protego 0.7.0",
        436,
        "protego/*.py of Protego 0.7.0 (its four modules and __init__)",
        left_out=("rep-engine/rep_engine/robotstxt/aipref.py",),
    ),
    "WARC captures": Capability(
        tuple(
            f"rep-recheck/rep_recheck/{name}.py"
            for name in ("warc", "captures", "capture_index", "payload", "asof")
        ),
        "a warcio script",
        200,
        "the project's plan's estimate of a script over warcio that reads a WARC's captures",
    ),
    "the add-on's document side": Capability(
        (
            "scrapy_rep/crawl/requests",
            "scrapy_rep/crawl/documents",
            "scrapy_rep/crawl/requeststate.py",
            "rep-engine/rep_engine/fetch",
        ),
        "Scrapy's robots.txt middleware, httpcache, scheduler and dupefilter",
        731,
        "the project's plan's figure for Scrapy 2.19's downloadermiddlewares/robotstxt.py, "
        "downloadermiddlewares/httpcache.py, extensions/httpcache.py, core/scheduler.py and "
        "dupefilters.py (those five count 694 here)",
    ),
    "tools": Capability(
        (
            "scrapy_rep/crawl/commands",
            "scrapy_rep/check.py",
            "scrapy_rep/checker.py",
            "scrapy_rep/__main__.py",
            "scrapy_rep/keydirectory.py",
        ),
        "Scrapy's fetch, parse and shell commands",
        364,
        "scrapy/commands/{fetch,parse,shell}.py of Scrapy 2.19.0 (59 + 231 + 74)",
    ),
}
#: A capability within this many times its anchor's statements meets the yardstick.
YARDSTICK = 2.5


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


def statements_of(path: Path) -> int:
    """Every ``ast.stmt`` of the module at ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return sum(isinstance(node, ast.stmt) for node in ast.walk(tree))


def capabilities(root: Path) -> dict[str, dict[str, object]]:
    """Each capability of :data:`CAPABILITIES` in the checkout at ``root``: its
    statements, its anchor's, their ratio and whether it meets the yardstick."""
    found = {}
    for name, capability in CAPABILITIES.items():
        paths = set()
        for named in capability.paths:
            path = root / named
            paths.update(path.rglob("*.py") if path.is_dir() else [path] if path.is_file() else [])
        paths -= {root / left_out for left_out in capability.left_out}
        count = sum(statements_of(path) for path in paths)
        found[name] = {
            "statements": count,
            "anchor": capability.anchor,
            "anchor_statements": capability.anchor_statements,
            "source": capability.source,
            "ratio": round(count / capability.anchor_statements, 2),
            "yardstick": int(YARDSTICK * capability.anchor_statements),
            "met": count <= YARDSTICK * capability.anchor_statements,
        }
    return found


def print_capabilities(found: dict[str, dict[str, object]]) -> None:
    """The capability table, then each anchor's source."""
    width = max(map(len, found))
    print(f"{'capability':<{width}}  statements  anchor  ratio  yardstick ({YARDSTICK:g}x)")
    for name, row in found.items():
        met = "met" if row["met"] else "NOT met"
        print(f"{name:<{width}}  {row['statements']:>10,}  {row['anchor_statements']:>6,}  "
              f"{row['ratio']:>4}x  {row['yardstick']:>6,} {met}")  # fmt: skip
    print("anchors:")
    for name, row in found.items():
        print(f"  {name}: {row['anchor']}; {row['source']}")


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
    parser.add_argument(
        "--capabilities", action="store_true", help="the house by capability, against anchors"
    )
    args = parser.parse_args(argv)
    if args.capabilities:
        found = capabilities(args.root)
        if args.json:
            print(json.dumps(found, indent=1))
        else:
            print_capabilities(found)
        return 0
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
