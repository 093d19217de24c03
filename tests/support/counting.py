"""Counters of what the engine does, set on a test's ``monkeypatch``."""

from __future__ import annotations

import gc
import types
from collections import Counter
from typing import Any, Final

import pytest

from rep_engine.robotstxt import RobotsTxt
from rep_engine.verdict.policy import UsagePolicy


def counted_matches(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, str]]:
    """Every robots.txt match (``code``, which ``allowed`` calls, or ``decide``) and every
    reading of the purposes' signals (``before_fetch``), counted by (what, URL path)."""
    counted: Counter[tuple[str, str]] = Counter()
    code, decide, refusal = RobotsTxt.code, RobotsTxt.decide, UsagePolicy.before_fetch

    def path(url: str) -> str:
        return "/" + url.split("/", 3)[3]

    def counting_code(self: RobotsTxt, url: str, agent: str) -> int:
        counted["robots", path(url)] += 1
        return code(self, url, agent)

    def counting_decide(self: RobotsTxt, url: str, agent: str) -> Any:
        counted["robots", path(url)] += 1
        return decide(self, url, agent)

    def counting_refusal(self: UsagePolicy, rules: Any, url: str, *args: Any) -> Any:
        counted["purpose", path(url)] += 1
        return refusal(self, rules, url, *args)

    monkeypatch.setattr(RobotsTxt, "code", counting_code)
    monkeypatch.setattr(RobotsTxt, "decide", counting_decide)
    monkeypatch.setattr(UsagePolicy, "before_fetch", counting_refusal)
    return counted


def tracked_under(root: Any) -> int:
    """The objects the collector tracks among those reachable from ``root`` (after a
    collection, which stops tracking tuples and dicts of atoms), ``root`` included,
    walking only containers and scrapy_rep's own objects: never into a function, a
    module or a class, whose globals would lead to the whole process."""
    gc.collect()
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or not gc.is_tracked(obj):
            continue
        module = type(obj).__module__
        if isinstance(obj, _NOT_WALKED) or (
            module not in _WALKED and not module.startswith("scrapy_rep")
        ):
            continue
        seen.add(id(obj))
        assert len(seen) < 100_000, "the walk left the object's own state"
        stack.extend(gc.get_referents(obj))
    return len(seen)


#: The modules whose types :func:`tracked_under` walks into besides scrapy_rep's: the
#: containers; and what it never walks into although its type is a builtin.
_WALKED: Final = ("builtins", "collections", "array")
_NOT_WALKED: Final = (
    type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
    types.CodeType, types.FrameType, types.CellType,
)  # fmt: skip
