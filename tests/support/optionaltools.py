"""Which tests depend on an optional tool (redis-server, chromium, exiftool): the tests
``.ci/run`` runs again with those tools hidden (step 1b, ``-m optional_tools``).

A test depends on one when its module, or the module of a fixture it uses (a
``conftest.py``'s), looks a tool up on the PATH itself or imports a helper that does
(:data:`TOOL_HELPERS`); tests/conftest.py marks each such test ``optional_tools``. No
other module of tests/ looks a tool up (tests/project/test_layout.py): every other test
runs the same whether the tools are on the PATH or not, so step 1 has run it already."""

from __future__ import annotations

import inspect
import sys
from types import ModuleType
from typing import Final

import pytest

#: The helpers that look an optional tool up on the PATH.
TOOL_HELPERS: Final = (
    "tests.support.redisserver",
    "tests.support.browser",
    "tests.support.wholecrawl",
)
#: How a module looks a tool up itself.
LOOKUP: Final = "shutil" + ".which("

_seen: dict[str, bool] = {}


def looks_up_a_tool(module: ModuleType) -> bool:
    """Whether ``module`` looks a tool up, or imports a helper that does."""
    name = module.__name__
    if name not in _seen:
        try:
            source = inspect.getsource(module)
        except (OSError, TypeError):
            source = ""
        _seen[name] = LOOKUP in source or any(helper in source for helper in TOOL_HELPERS)
    return _seen[name]


def needs_an_optional_tool(item: pytest.Item) -> bool:
    """Whether the test ``item`` depends on an optional tool (its module's, or a fixture's)."""
    module = getattr(item, "module", None)
    if module is not None and looks_up_a_tool(module):
        return True
    info = getattr(item, "_fixtureinfo", None)
    for definitions in info.name2fixturedefs.values() if info is not None else ():
        for definition in definitions:
            where = sys.modules.get(getattr(definition.func, "__module__", ""))
            if where is not None and where.__name__.startswith("tests.") and looks_up_a_tool(where):
                return True
    return False
