"""One writer of a request's state ('One owner per record').

:mod:`scrapy_rep.crawl.requeststate` is the only module that writes a request's
``RequestState`` (under ``request.meta[KEY]``) or checks that a state is the request's own
(a ``RequestState`` made for its URL): every other module calls its functions. Read from
the source of every module (an AST scan), so that a new copy of the check or a new
writer is found the day it is written.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.paths import PACKAGE, PACKAGES, ROOT

OWNER = PACKAGE / "crawl" / "requeststate.py"
#: The modules that name the key: ``requeststate.KEY`` and ``crawl.meta.STATE``.
KEY_MODULES = {"scrapy_rep.crawl.requeststate": "KEY", "scrapy_rep.crawl.meta": "STATE"}
KEY_VALUE = "_rep"


def _key_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The names the module binds the key to, and the names of ``scrapy_rep.crawl.meta``
    (``meta.STATE``)."""
    names: set[str] = set()
    modules: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.module is None:
            continue
        for alias in node.names:
            if KEY_MODULES.get(node.module) == alias.name:
                names.add(alias.asname or alias.name)
            if node.module == "scrapy_rep.crawl" and alias.name == "meta":
                modules.add(alias.asname or alias.name)
    for statement in tree.body:  # KEY: Final = STATE
        target: ast.expr
        value: ast.expr
        if isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        else:
            continue
        if isinstance(target, ast.Name) and _is_key(value, names, modules):
            names.add(target.id)
    return names, modules


def _is_key(node: ast.expr, names: set[str], modules: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Constant):
        return node.value == KEY_VALUE
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "STATE"
        and isinstance(node.value, ast.Name)
        and node.value.id in modules
    )


def _is_meta(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "meta"


def _is_request_state(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "RequestState") or (
        isinstance(node, ast.Attribute) and node.attr == "RequestState"
    )


def _is_url(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "url"


def state_handling(source: str) -> list[str]:
    """What ``source`` does that only :mod:`scrapy_rep.crawl.requeststate` may: each as
    ``line: what``."""
    tree = ast.parse(source)
    names, modules = _key_names(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if (
                isinstance(target, ast.Subscript)
                and _is_meta(target.value)
                and _is_key(target.slice, names, modules)
            ):
                found.append(f"{target.lineno}: writes meta[KEY]")
        if isinstance(node, ast.Call):
            func = node.func
            if _is_request_state(func):
                found.append(f"{node.lineno}: constructs a RequestState")
            elif isinstance(func, ast.Attribute) and func.attr == "_replace":
                found.append(f"{node.lineno}: replaces a state's fields (_replace)")
            elif (
                isinstance(func, ast.Attribute)
                and func.attr in ("setdefault", "update", "pop", "__setitem__")
                and _is_meta(func.value)
                and node.args
                and _is_key(node.args[0], names, modules)
            ):
                found.append(f"{node.lineno}: writes meta[KEY] ({func.attr})")
            elif (
                isinstance(func, ast.Name)
                and func.id == "isinstance"
                and len(node.args) == 2
                and _is_request_state(node.args[1])
            ):
                found.append(f"{node.lineno}: checks a state's type (isinstance)")
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_is_request_state(operand) for operand in operands):
                found.append(f"{node.lineno}: checks a state's type")
            elif sum(_is_url(operand) for operand in operands) >= 2:
                found.append(f"{node.lineno}: compares a state's URL with the request's")
    return found


def test_requeststate_is_the_one_writer_and_the_one_check() -> None:
    """No module but crawl/requeststate.py writes ``request.meta[KEY]``, builds or
    replaces a ``RequestState``, or repeats the check that a state is the request's own
    (its type, its URL): they call ``state_of`` and the named transitions."""
    assert OWNER.exists()
    offences = {}
    for path in sorted(path for package in PACKAGES for path in package.rglob("*.py")):
        if path == OWNER:
            continue
        found = state_handling(path.read_text(encoding="utf-8"))
        if "/crawl/" not in path.as_posix():  # _replace: on another tuple outside crawl/
            found = [line for line in found if "_replace" not in line]
        if found:
            offences[str(path.relative_to(ROOT))] = found
    assert offences == {}


@pytest.mark.parametrize(
    ("source", "what"),
    [
        (
            "from scrapy_rep.crawl.requeststate import KEY\nrequest.meta[KEY] = s\n",
            "writes meta[KEY]",
        ),
        (
            "from scrapy_rep.crawl.meta import STATE as K\nr.meta.setdefault(K, s)\n",
            "writes meta[KEY] (setdefault)",
        ),
        ("from scrapy_rep.crawl import meta\nr.meta[meta.STATE] = s\n", "writes meta[KEY]"),
        ("r.meta['_rep'] = s\n", "writes meta[KEY]"),
        (
            "from scrapy_rep.crawl.meta import STATE\nK = STATE\nr.meta[K] = s\n",
            "writes meta[KEY]",
        ),
        ("s = RequestState(request.url)\n", "constructs a RequestState"),
        ("s = requeststate.RequestState(u, early=1)\n", "constructs a RequestState"),
        ("n = state._replace(hold=None)\n", "replaces a state's fields (_replace)"),
        ("ok = type(state) is not RequestState\n", "checks a state's type"),
        ("ok = isinstance(state, RequestState)\n", "checks a state's type (isinstance)"),
        ("ok = state.url == request.url\n", "compares a state's URL with the request's"),
    ],
)
def test_the_scan_finds_each_kind_of_state_handling(source: str, what: str) -> None:
    assert state_handling(source) == [f"{source.count(chr(10))}: {what}"]


def test_the_scan_leaves_readers_alone() -> None:
    source = (
        "from scrapy_rep.crawl.requeststate import KEY, state_of\n"
        "state = state_of(request)\n"
        "fetch = request.meta.get(KEY)\n"
        "meta = {KEY: FetchState('robots')}\n"
        "request.meta['download_maxsize'] = 1\n"
    )
    assert state_handling(source) == []


def test_the_owner_does_what_the_scan_looks_for() -> None:
    """The scan reads the owner's own writes and checks (it would find a copy)."""
    found = state_handling(Path(OWNER).read_text(encoding="utf-8"))
    kinds = {line.partition(": ")[2] for line in found}
    assert {
        "writes meta[KEY]",
        "constructs a RequestState",
        "checks a state's type",
        "compares a state's URL with the request's",
    } <= kinds
