"""The layering of ARCHITECTURE.md, enforced.

- Each subpackage imports only the floors below it (``LAYERS``), read from the source of
  every module, imports inside functions included.
- No modules import each other, in a cycle of any length, as their text reads: the
  imports for type checking only (``if TYPE_CHECKING:``) count too.
- The pure floors never load Scrapy, Twisted, asyncio or the adapters: every pure module is
  imported in a fresh interpreter (this test process has Scrapy loaded), which reports
  which of the forbidden modules each import brought into ``sys.modules``.
- Every refusal goes through the one performer (``crawl/refusals.py``): no other module
  sends ``request_refused`` or ``item_refused`` or counts a refusal's stats.
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import PACKAGE, PACKAGES

#: Each floor and the floors it may import, bottom up: the engine's (``rep_engine``: the
#: floors of the protocol, the trail's contract (``records``: its words and records,
#: above ``urls`` alone, below every floor that names a reason or a fate), the trail's
#: file; ``engine``, its ``__init__``), the
#: audit tools (``rep_audit``), the re-check (``rep_recheck``), and the Scrapy add-on's
#: (``scrapy_rep``: ``checker``, ``crawl``, and ``top``, a module outside both: the entry
#: points, the signals, the re-exports of the import paths Scrapy settings name).
_ENGINE = (
    "urls", "records", "robotstxt", "directives", "usage", "fetch", "verdict", "settings",
    "trail",
)  # fmt: skip
LAYERS: dict[str, set[str]] = {
    "urls": set(),
    "records": {"urls"},
    "robotstxt": {"urls", "records", "directives"},
    "directives": {"records"},
    "usage": {"urls", "records", "robotstxt", "directives"},
    "fetch": {"urls", "records", "robotstxt", "usage"},
    "verdict": {"urls", "records", "robotstxt", "directives", "usage", "fetch"},
    "settings": {"urls", "records", "robotstxt", "directives", "usage", "fetch", "verdict"},
    "trail": set(_ENGINE) - {"trail"},  # every floor of the protocol
    "engine": {*_ENGINE},
    "audit": {*_ENGINE, "engine"},
    "checker": {*_ENGINE, "engine"},
    "recheck": {*_ENGINE, "engine", "audit"},
    "crawl": {*_ENGINE, "engine", "audit", "checker", "recheck"},
    "top": {*_ENGINE, "engine", "audit", "checker", "recheck", "crawl"},
}
#: The floors that never import Scrapy, Twisted or asyncio: every one of the engine, the
#: audit tools and the re-check, and the add-on's checker.
PURE_FLOORS = (*_ENGINE, "engine", "audit", "checker", "recheck")
#: Pure modules at the top: the tools' door, the signals' names and the key directory.
PURE_TOP = ("scrapy_rep.__main__", "scrapy_rep.signals", "scrapy_rep.keydirectory")
#: The one top module the floors below may import: the signals' names, which import
#: nothing of the package (every component sends them).
TOP_LEAF = "scrapy_rep.signals"
FORBIDDEN = ("scrapy", "twisted", "asyncio", "scrapy_rep.crawl")
#: What a module of the three parts without Scrapy never loads: nothing of the add-on.
PART_FORBIDDEN = (*FORBIDDEN, "scrapy_rep")
#: The import packages of the four parts.
ROOTS = tuple(package.name for package in PACKAGES)


def modules() -> dict[str, Path]:
    """Every module of the four parts by dotted name."""
    found = {}
    for package in PACKAGES:
        for path in sorted(package.rglob("*.py")):
            parts = path.relative_to(package.parent).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def floor_of(module: str) -> str:
    """The floor of a dotted module name (``rep_engine.records``, a module: its own)."""
    root, _, rest = module.partition(".")
    first = rest.partition(".")[0]
    if root == "rep_engine":
        return first if first in _ENGINE else "engine"
    if root in ("rep_audit", "rep_recheck"):
        return root.removeprefix("rep_")
    if (first == "crawl" and (PACKAGE / first).is_dir()) or first == "checker":
        return first
    return "top"


def import_statements(module: str, path: Path) -> Iterator[tuple[str | None, list[str]]]:
    """Each import statement of ``module`` (anywhere in it), resolved to absolute names:
    ``(None, modules)`` for ``import``, ``(base, names)`` for ``from base import names``
    (a relative ``base`` made absolute)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield None, [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base, [alias.name for alias in node.names]


def imported_by(module: str, path: Path) -> set[str]:
    """The modules of the four parts ``module`` imports (absolute or relative, anywhere in
    it)."""
    names: set[str] = set()
    for base, imported in import_statements(module, path):
        if base is None:
            names.update(imported)
        else:
            names.add(base)
            names.update(f"{base}.{name}" for name in imported)
    return {name for name in names if name.partition(".")[0] in ROOTS}


def test_every_floor_imports_only_the_floors_below_it() -> None:
    known = modules()
    wrong = []
    for module, path in known.items():
        floor = floor_of(module)
        for name in imported_by(module, path):
            target = name if name in known else name.rpartition(".")[0]
            if target not in known or target == "scrapy_rep":  # its names are re-exports
                continue
            other = floor_of(target)
            if other != floor and other not in LAYERS[floor] and target != TOP_LEAF:
                wrong.append(f"{module} ({floor}) imports {target} ({other})")
    assert wrong == []


def test_the_pure_top_modules_import_no_crawl_module() -> None:
    """``check`` is handed the tools' crawl by ``python -m scrapy_rep`` (``__main__``): it
    imports nothing of ``crawl/``, not even inside a function (no cycle with the
    commands, which import the exit codes from ``checker/``)."""
    known = modules()
    wrong = [
        f"{module} imports {name}"
        for module in PURE_TOP
        for name in imported_by(module, known[module])
        if floor_of(name) == "crawl"
    ]
    assert wrong == []
    below = {floor_of(name) for name in imported_by(TOP_LEAF, known[TOP_LEAF])}
    assert below <= LAYERS["crawl"], below  # a leaf: no floor above one that imports it


#: Inside ``crawl/``: each subpackage and the subpackages it may import (ARCHITECTURE.md,
#: "crawl/"). The modules at ``crawl/`` level (``""``) are the shared basics, which import
#: no subpackage, except ``CRAWL_TOP``: the add-on and the re-exports of old import paths.
CRAWL_ROOMS: dict[str, set[str]] = {
    "": set(),
    "documents": set(),
    "requests": {"documents"},
    "audit": {"requests", "documents"},
    "page": {"requests", "documents"},
    "media": {"page", "requests", "documents"},
    "commands": {"media", "page", "requests", "documents"},
}
CRAWL_TOP = {"scrapy_rep.crawl.addon"}


def crawl_room_of(module: str) -> str:
    """The subpackage of ``crawl/`` a module is in, or ``""`` for the crawl/ level."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[2] in CRAWL_ROOMS:
        return parts[2]
    return ""


def test_every_crawl_subpackage_imports_only_the_ones_below_it() -> None:
    known = modules()
    wrong = []
    for module, path in known.items():
        if floor_of(module) != "crawl" or module in CRAWL_TOP:
            continue
        room = crawl_room_of(module)
        for name in imported_by(module, path):
            target = name if name in known else name.rpartition(".")[0]
            if target not in known or floor_of(target) != "crawl":
                continue
            other = crawl_room_of(target)
            if target == "scrapy_rep.crawl" or other in {room, ""}:
                continue
            if other not in CRAWL_ROOMS[room]:
                wrong.append(f"{module} ({room or 'crawl/'}) imports {target} ({other})")
    assert wrong == []


def test_the_crawl_rooms_are_the_subpackages() -> None:
    rooms = {path.name for path in (PACKAGE / "crawl").iterdir() if (path / "__init__.py").exists()}
    assert rooms == set(CRAWL_ROOMS) - {""}
    assert crawl_room_of("scrapy_rep.crawl.requests.downloadermiddlewares") == "requests"
    assert crawl_room_of("scrapy_rep.crawl.meta") == ""


def test_the_layering_check_sees_a_wrong_import() -> None:
    """The control case: an import of the crawl floor from the engine is caught."""
    assert floor_of("scrapy_rep.crawl.requests.downloadermiddlewares") == "crawl"
    assert "crawl" not in LAYERS[floor_of("rep_engine.robotstxt._parser")]
    assert floor_of("rep_engine.records") == "records"
    assert "verdict" not in LAYERS[floor_of("rep_engine.records")]
    assert floor_of("scrapy_rep.signals") == "top"


def import_graph() -> dict[str, set[str]]:
    """Each module and the modules of the package it imports, read from its text: every
    ``import`` and ``from ... import`` in it, inside functions and under ``if
    TYPE_CHECKING:`` too. ``from package import name`` is the module ``package.name``
    when there is one, else the package itself (its ``__init__.py``)."""
    known = modules()
    graph: dict[str, set[str]] = {}
    for module, path in known.items():
        names: set[str] = set()
        for base, imported in import_statements(module, path):
            if base is None:
                names.update(imported)
            else:
                for name in (f"{base}.{name}" for name in imported):
                    names.add(name if name in known else base)
        graph[module] = {name for name in names if name in known and name != module}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle of imports in each group of modules that import each other (a strongly
    connected component of more than one module), as the modules in import order, the
    first one again at the end."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in order:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], order[other])
        if low[module] == order[module]:
            group: set[str] = set()
            while not group or module not in group:
                group.add(stack.pop())
            if len(group) > 1:
                groups.append(group)

    for module in sorted(graph):
        if module not in order:
            visit(module)
    cycles = []
    for group in groups:
        start = min(group)
        paths = {start: [start]}
        queue = [start]
        while queue:  # the shortest way round from start back to itself, inside the group
            here = queue.pop(0)
            if start in graph[here]:
                cycles.append([*paths[here], start])
                break
            for other in sorted(graph[here] & group):
                if other not in paths:
                    paths[other] = [*paths[here], other]
                    queue.append(other)
    return cycles


def test_no_modules_import_each_other() -> None:
    """No cycle of imports, as a reader of the text draws them: imports made for type
    checking only (``if TYPE_CHECKING:``) and inside functions count, so that the
    layering within a subpackage is one way too (a lower module that names a higher
    one's type takes the narrow value it uses, or the type moves down)."""
    cycles = [" -> ".join(cycle) for cycle in import_cycles(import_graph())]
    assert not cycles, "modules that import each other:\n" + "\n".join(cycles)


def test_the_cycle_check_names_a_cycle() -> None:
    """The control case: a cycle is found and named, through a third module too."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}}
    assert import_cycles(graph) == [["a", "b", "c", "a"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []
    # documents.py names CrawlKind under ``if TYPE_CHECKING:`` only, and takes ``meta`` by
    # ``from scrapy_rep.crawl import meta``: the module, not the package
    imported = import_graph()["scrapy_rep.crawl.documents.documents"]
    assert {"scrapy_rep.crawl.documents.kinds", "scrapy_rep.crawl.meta"} <= imported
    assert "scrapy_rep.crawl" not in imported


REPORT = """
import importlib, json, sys
forbidden = {forbidden!r}
report = {{}}
for module in {modules!r}:
    before = set(sys.modules)
    importlib.import_module(module)
    report[module] = sorted(
        name for name in set(sys.modules) - before
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    )
print(json.dumps(report))
"""


def loaded_by(names: list[str]) -> dict[str, list[str]]:
    """What importing each of ``names`` in turn loads of ``FORBIDDEN`` (of
    ``PART_FORBIDDEN``, for a module of ``rep_engine``, ``rep_audit`` or ``rep_recheck``),
    in a fresh interpreter (a module that loads one is named: the ones after it cannot load
    it again, but the first one already fails)."""
    code = REPORT.format(modules=names, forbidden=PART_FORBIDDEN)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr
    report: dict[str, list[str]] = json.loads(result.stdout.strip().splitlines()[-1])
    return {
        module: [
            name
            for name in loaded
            if module.startswith("rep_")
            or any(name == f or name.startswith(f"{f}.") for f in FORBIDDEN)
        ]
        for module, loaded in report.items()
    }


def pure_modules() -> list[str]:
    return [module for module in modules() if floor_of(module) in PURE_FLOORS or module in PURE_TOP]


def test_the_pure_floors_are_many() -> None:
    names = pure_modules()
    assert {floor_of(name) for name in names} >= set(PURE_FLOORS)
    assert len(names) > 50


@functools.cache
def loaded_by_the_pure_modules() -> dict[str, list[str]]:
    """:func:`loaded_by` every pure module, floor by floor from the bottom, in one fresh
    interpreter: what a module loads is what it loads alone or after the floors below it
    (which it imports anyway), and a module that loads a forbidden one is named."""
    floors = [*PURE_FLOORS, "top"]
    names = sorted(pure_modules(), key=lambda name: floors.index(floor_of(name)))
    return loaded_by(names)


@pytest.mark.parametrize("floor", [*PURE_FLOORS, "top"])
def test_a_pure_module_loads_no_scrapy_twisted_asyncio_or_adapter(floor: str) -> None:
    names = [name for name in pure_modules() if floor_of(name) == floor]
    assert names
    report = loaded_by_the_pure_modules()
    assert {name: report[name] for name in names if report[name]} == {}


def test_the_check_finds_an_adapter_when_one_is_loaded() -> None:
    """The control case: the same check sees Scrapy and the adapters when they are used."""
    adapter = "scrapy_rep.crawl.requests.downloadermiddlewares"
    loaded = loaded_by([adapter])[adapter]
    assert "scrapy" in loaded and "twisted" in loaded
    assert "scrapy_rep.crawl" in loaded


def architecture_sections() -> dict[str, str]:
    """ARCHITECTURE.md's text under each ``## `floor/` `` (or ``## `floor.py` ``)
    heading, by floor."""
    text = (PACKAGE.parent / "ARCHITECTURE.md").read_text()
    sections: dict[str, str] = {}
    for part in text.split("\n## ")[1:]:
        heading, _, body = part.partition("\n")
        name = heading.split("`")[1].rstrip("/").removesuffix(".py") if "`" in heading else heading
        floor = {"scrapy_rep": "top", "rep_engine": "engine"}.get(name, name)
        floor = floor.removeprefix("rep_")
        sections[floor] = sections.get(floor, "") + body
    return sections


def test_architecture_md_names_every_module_under_its_floor() -> None:
    """The layout and its description cannot drift apart: a new module needs its line."""
    sections = architecture_sections()
    missing = []
    for module, path in modules().items():
        if path.name == "__init__.py" and not ast.parse(path.read_text()).body[1:]:
            continue  # a subpackage's docstring only
        floor = floor_of(module)
        text = sections.get(floor, "")
        nested = path.parent.parent not in PACKAGES and path.parent not in PACKAGES  # lifecycle/
        if f"`{path.name}`" not in text and not (nested and f"`{path.parent.name}/`" in text):
            missing.append(f"{module} ({floor})")
    assert missing == []


#: What reaches Twisted's reactor, its timers or its thread pool (none of which a crawl
#: without a reactor has, ``TWISTED_REACTOR_ENABLED = False``), and the asyncio calls
#: that stand in for them.
REACTOR_NAMES = (
    "twisted.internet.reactor", "twisted.internet.threads", "twisted.internet.task",
    "callLater", "deferToThread", "deferLater", "LoopingCall", "call_later", "to_thread",
    "run_in_executor",
)  # fmt: skip
#: The one module that chooses between the reactor and the asyncio loop.
TIMERS_AND_THREADS = "scrapy_rep.crawl.internals"


def reactor_uses(path: Path) -> set[str]:
    """The names of :data:`REACTOR_NAMES` a module imports or calls (an attribute or a
    name; in an import, the module ``twisted.internet`` with ``reactor``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            found.update(n for n in [node.module or "", *names] if n in REACTOR_NAMES)
            found.update(alias.name for alias in node.names if alias.name in REACTOR_NAMES)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in REACTOR_NAMES)
        elif isinstance(node, ast.Attribute) and node.attr in REACTOR_NAMES:
            found.add(node.attr)
        elif isinstance(node, ast.Name) and node.id in REACTOR_NAMES:
            found.add(node.id)
    return found


def test_every_timer_and_thread_goes_through_internals() -> None:
    """Only ``crawl/internals.py`` reaches the reactor's timers and threads (or the asyncio
    loop's): its ``call_later`` and ``in_thread`` run on whichever runs the crawl, so no
    other module can work on the reactor alone (a crawl without one refused each call:
    errors, and held requests never retried)."""
    uses = {name: reactor_uses(path) for name, path in modules().items()}
    assert uses[TIMERS_AND_THREADS] >= {"twisted.internet.reactor", "callLater", "to_thread"}
    outside = {name: sorted(found) for name, found in uses.items() if found}
    outside.pop(TIMERS_AND_THREADS)
    internal_users = {name for name, found in outside.items() if found == ["call_later"]}
    assert {name: found for name, found in outside.items() if name not in internal_users} == {}
    for name in internal_users:  # its call_later, imported from it
        assert TIMERS_AND_THREADS in imported_by(name, modules()[name]), name


#: The one performer of refusals, and the signals' module whose helper it calls.
PERFORMER = "scrapy_rep.crawl.refusals"
REFUSAL_SIGNALS = ("request_refused", "item_refused", "file_refused")
#: What sends a signal: Scrapy's signal manager's methods, the helper of ``signals.py``.
SENDERS = (
    "send_catch_log", "send_catch_log_deferred", "send_catch_log_async", "send_refused",
)  # fmt: skip
#: What counts a stat: scrapy_rep's ``inc`` and ``inc_each``, Scrapy's stats collector.
COUNTERS = ("inc", "inc_each", "inc_value", "set_value", "max_value", "min_value")


def _called(node: ast.Call) -> str:
    """The name a call calls: ``f(…)`` or ``x.f(…)`` is ``f``."""
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _names_read(node: ast.AST) -> set[str]:
    """Every name and attribute ``node`` reads."""
    return {
        inner.attr if isinstance(inner, ast.Attribute) else inner.id
        for inner in ast.walk(node)
        if isinstance(inner, (ast.Attribute, ast.Name))
    }


def _leading_text(node: ast.expr) -> str:
    """The text a string, or an f-string before its first ``{…}``, starts with."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        return _leading_text(node.values[0])
    return ""


@functools.cache
def refusal_stat_prefixes() -> tuple[str, ...]:
    """What every stat of a refusal starts with: each row of the one table of reasons
    (``rep/requests/dropped/``, ``robotstxt/forbidden``, ``rep/purpose/items_dropped/``,
    ``rep/media/refused/``…) and the performer's own of a file (a file marked, an item's
    image URL taken out before its download)."""
    from rep_engine.records import REASONS
    from scrapy_rep.crawl.refusals import FILE_URLS_REFUSED, MARKED_FILES

    stats = [stat for row in REASONS.values() for stat in row.stats]
    return tuple({stat.split("{")[0] for stat in (*stats, MARKED_FILES, FILE_URLS_REFUSED)})


def _formats_a_refusal_stat(node: ast.expr, prefixes: tuple[str, ...]) -> bool:
    """An f-string whose fixed start may be made one of a refusal's stats by what it
    formats after (``f"rep/media/{what}/{purpose}"``)."""
    text = _leading_text(node)
    return (
        isinstance(node, ast.JoinedStr)
        and len(node.values) > 1
        and text.endswith("/")
        and any(prefix.startswith(text) for prefix in prefixes)
    )


def refusals_performed(source: str) -> list[str]:
    """Every place ``source`` performs a refusal itself (line: what): sends
    ``request_refused``, ``item_refused`` or ``file_refused``, calls ``send_refused``, tells
    a URL ledger a refusal (``ledger.refused(…)``), or counts one of a refusal's stats (or
    one an f-string may format)."""
    found = []
    prefixes = refusal_stat_prefixes()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        called = _called(node)
        arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
        if called == "refused" and "ledger" in ast.unparse(node.func).lower():
            found.append(f"{node.lineno}: {ast.unparse(node.func)}")
        elif called in SENDERS:
            sent = set().union(*map(_names_read, arguments)) & set(REFUSAL_SIGNALS)
            if called == "send_refused" or sent:
                found.append(f"{node.lineno}: {called}({', '.join(sorted(sent))})")
        elif called in COUNTERS:
            for argument in arguments:
                elements = argument.elts if isinstance(argument, (ast.Tuple, ast.List)) else []
                for one in [argument, *elements]:
                    text = _leading_text(one)
                    if text and (
                        text.startswith(prefixes) or _formats_a_refusal_stat(one, prefixes)
                    ):
                        found.append(f"{node.lineno}: {called} {text!r}")
    return found


def test_every_refusal_goes_through_the_performer() -> None:
    """Only ``crawl/refusals.py`` (and the helper of ``signals.py`` it calls) sends
    ``request_refused``, ``item_refused`` or ``file_refused`` and counts a refusal's stats:
    a request refused before the fetch, a link or an item the page pass refuses, a file the
    media gate refuses or marks, an image URL an item carried that its page's noimageai
    takes out and a request dropped without a verdict are counted, logged and signalled in
    one place, from the one table of reasons (``rep-engine/rep_engine/records.py``), so
    that none can count what it does not signal, or signal what it does not count."""
    performed = {
        name: found
        for name, path in modules().items()
        if name not in {PERFORMER, TOP_LEAF}
        and (found := refusals_performed(path.read_text(encoding="utf-8")))
    }
    assert performed == {}
    assert refusals_performed(modules()[PERFORMER].read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "source",
    [
        "crawler.signals.send_catch_log(rep_signals.request_refused, request=r)",
        "crawler.signals.send_catch_log(signal=signals.item_refused, item=i)",
        "send_catch_log_async(crawler.signals, request_refused, request=r)",
        "rep_signals.send_refused(crawler, logger, request, reason, message)",
        'inc(self.stats, "rep/requests/dropped/spider_closed")',
        'inc(crawler.stats, f"rep/requests/dropped/{reason}", 3)',
        'self.stats.inc_value("robotstxt/forbidden")',
        'inc(self.stats, "rep/requests/internal_errors")',
        'inc_each(stats, ("rep/purpose/items_dropped/ai-train",))',
        # a file: what the media gate counted, logged and sent itself; an item's image URLs
        # the page's noimageai took out, counted without a signal or a record
        'inc(self.crawler.stats, f"rep/media/{what}/{refusal.purpose}")',
        'inc(self.crawler.stats, f"rep/media/refused/{refusal.purpose}")',
        'inc(self.stats, f"rep/purpose/image_urls_refused/{page.refused[0]}", len(covered))',
        "self.crawler.signals.send_catch_log(signals.file_refused, url=request.url)",
        "ledger_of(self.crawler).refused(request, reason, message)",
        "self._url_ledger.refused(request, verdict.reason, verdict.message, verdict)",
    ],
)
def test_the_check_sees_a_refusal_performed_elsewhere(source: str) -> None:
    """The control case: each way a module could perform a refusal itself is seen."""
    assert refusals_performed(source)


#: The engine's signals of a request on its way to the scheduler's queue.
QUEUE_SIGNALS = ("request_scheduled", "request_dropped")


def test_nothing_sends_the_engines_signals_on_its_behalf() -> None:
    """The early refusal sent ``request_scheduled`` and ``request_dropped`` itself, so
    that the audit trail opened its record there (a project's handlers heard a request
    the scheduler never had): a request refused before the scheduler is recorded by the
    performer of refusals, Scrapy's filters asked, never run on Scrapy's behalf."""
    sent = {
        name: lines
        for name, path in modules().items()
        if name.startswith("scrapy_rep")
        and (
            lines := [
                node.lineno
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.Call)
                and _called(node) in SENDERS
                and set().union(*map(_names_read, [*node.args, *(k.value for k in node.keywords)]))
                & set(QUEUE_SIGNALS)
            ]
        )
    }
    assert sent == {}


#: What decides a request or a page again: a policy's refusal, the verdict's decisions.
DECIDERS = ("refusal", "decide", "decide_page")


def decides_again(source: str) -> list[str]:
    """Every call of ``source`` that decides a refusal again (line: what)."""
    return [
        f"{node.lineno}: {_called(node)}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and _called(node) in DECIDERS
    ]


def test_the_tools_print_what_the_crawl_decided_never_their_own_refusal() -> None:
    """The tools' printer said "not for this crawl" of a page whose items the crawl marked
    by deciding it again from its usage decision (``policy.refusal``): a refusal of its own,
    outside the performer. The tools' crawl (its reader and its printer too) prints what the
    crawl decided (the page's verdict, the settled entries)."""
    tools = modules()["scrapy_rep.crawl.commands.toolcrawl"].read_text(encoding="utf-8")
    assert decides_again(tools) == []
    assert decides_again("denial = self.policy.refusal(decision)")


def test_the_check_lets_other_signals_and_stats_be() -> None:
    source = (
        "crawler.signals.connect(self._refused, signal=rep_signals.request_refused)\n"
        "crawler.signals.send_catch_log(rep_signals.request_held, request=r)\n"
        'inc(self.stats, "rep/requests/held")\n'
        'inc(self.stats, f"{prefix}/internal_errors")\n'
        'stats.get("rep/requests/dropped/forbidden", 0)\n'
        'inc(self.stats, "rep/rsl/pages_denied/licenses_not_read")\n'
    )
    assert refusals_performed(source) == []


#: The signals that tell what became of a request, a page's item or a file: a module
#: that listens to one keeps a record of a fate.
FATE_SIGNALS = (
    "request_refused", "item_refused", "item_scraped", "item_dropped", "response_received",
    "request_left_downloader", "request_dropped", "request_overridden", "file_checked",
    "file_refused", "request_held", "request_released",
)  # fmt: skip
#: The one bookkeeper of each request's fate: the URL ledger and its parts.
LEDGER_ROOM = "scrapy_rep.crawl.audit."
#: The listeners left outside it, each with what it keeps; this list only shrinks.
NOT_YET_LEDGER_READERS: dict[str, set[str]] = {}


def fate_listeners(source: str) -> set[str]:
    """The signals of :data:`FATE_SIGNALS` that ``source`` connects a receiver to."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _called(node) == "connect":
            arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
            found |= set().union(*map(_names_read, arguments)) & set(FATE_SIGNALS)
    return found


def test_no_module_but_the_ledger_listens_for_a_fate_to_record_it() -> None:
    """One bookkeeper of a request's fate: the URL ledger (``crawl/audit/``) listens to
    the signals that tell one, and every other reader (the trail, the report) reads its
    settled entries. The listeners still outside it are pinned, so that no new one is
    added (a new capability writes the ledger, its readers read it). A refusal is told to
    it by the one performer of refusals, never heard again as its ``request_refused``
    (no signal it must filter out)."""
    listening = {
        name: found
        for name, path in modules().items()
        if not name.startswith(LEDGER_ROOM)
        and (found := fate_listeners(path.read_text(encoding="utf-8")))
    }
    assert listening == NOT_YET_LEDGER_READERS
    ledger = modules()["scrapy_rep.crawl.audit.audit"].read_text(encoding="utf-8")
    assert fate_listeners(ledger) >= {"file_checked", "request_held"}
    assert "request_refused" not in fate_listeners(ledger)


def test_the_fate_listener_check_sees_a_receiver_connected() -> None:
    source = (
        "crawler.signals.connect(self._refused, signal=rep_signals.request_refused)\n"
        "connect(self._response, signals.response_received)\n"
        "crawler.signals.send_catch_log(rep_signals.request_held, request=r)\n"
        "connect(self._opened, signal=signals.spider_opened)\n"
    )
    assert fate_listeners(source) == {"request_refused", "response_received"}
