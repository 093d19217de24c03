"""Importing the engine stays light: no Scrapy or Twisted until a Scrapy-facing name is used.

Each check runs in a fresh interpreter, because this test process has Scrapy loaded. The
claims that a code loads none of some packages are checked together, one interpreter
running every such code of a test in turn (:func:`loaded_after_all`): if all of them
together load none, each of them alone loads none.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys

import pytest

HEAVY = ("scrapy", "twisted")


def report_loaded(heavy: tuple[str, ...]) -> str:
    """Code that prints, as JSON, the top-level packages among ``heavy`` that are in
    sys.modules at exit."""
    return (
        "import atexit, json, sys\n"
        f"heavy = {heavy!r}\n"
        "atexit.register(lambda: print('LOADED=' + json.dumps(sorted({m.split('.')[0] "
        "for m in sys.modules if m.split('.')[0] in heavy}))))\n"
    )


def loaded_after(code: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    """The ``heavy`` packages loaded by ``code`` run in a fresh interpreter."""
    result = subprocess.run(
        [sys.executable, "-c", report_loaded(heavy) + code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    marker = [line for line in result.stdout.splitlines() if line.startswith("LOADED=")]
    assert marker, (result.returncode, result.stdout, result.stderr)
    loaded: list[str] = json.loads(marker[-1].removeprefix("LOADED="))
    return loaded


@functools.cache
def loaded_after_all(codes: tuple[str, ...], heavy: tuple[str, ...]) -> list[str]:
    """:func:`loaded_after` every one of ``codes``, in turn, in one fresh interpreter."""
    return loaded_after("\n".join(codes), heavy)


ENGINE_CODES = [
    "import rep_engine.robotstxt",
    "import scrapy_rep",
    "from scrapy_rep import parse_robotstxt, Decision, RobotsTxt, ParseOptions",
    # python -m scrapy_rep check --example /x (exits 0: /x is allowed)
    "import runpy\n"
    "sys.argv = ['scrapy_rep', 'check', '--example', '/x']\n"
    "try:\n"
    "    runpy.run_module('scrapy_rep', run_name='__main__', alter_sys=True)\n"
    "except SystemExit as exit:\n"
    "    assert exit.code == 0, exit.code\n",
]
ENGINE_IDS = ["robotstxt", "package", "engine-names", "check-command"]


@pytest.mark.parametrize("code", ENGINE_CODES, ids=ENGINE_IDS)
def test_engine_import_loads_no_scrapy_or_twisted(code: str) -> None:
    assert code in ENGINE_CODES
    assert loaded_after_all(tuple(ENGINE_CODES), HEAVY) == []


def test_the_control_case_sees_scrapy_loaded() -> None:
    """The probe itself works: importing the middleware does load Scrapy and Twisted."""
    assert loaded_after("import scrapy_rep.crawl.requests.downloadermiddlewares") == [
        "scrapy",
        "twisted",
    ]


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("Addon", "scrapy_rep.crawl.addon"),
        ("RobotsTxtMiddleware", "scrapy_rep.crawl.requests.downloadermiddlewares"),
        ("PageDirectivesMiddleware", "scrapy_rep.crawl.page.spidermiddlewares"),
        ("RobotParser", "scrapy_rep.crawl.robotparser"),
        ("page_directives", "scrapy_rep.crawl.page.pagereader"),
    ],
)
def test_scrapy_facing_names_still_resolve(name: str, module: str) -> None:
    code = (
        "import importlib, scrapy_rep\n"
        f"value = getattr(scrapy_rep, {name!r})\n"
        f"assert value is getattr(importlib.import_module({module!r}), {name!r})\n"
        f"assert {name!r} in scrapy_rep.__all__ and {name!r} in dir(scrapy_rep)\n"
        f"from scrapy_rep import {name}\n"
    )
    assert "scrapy" in loaded_after(code)


def test_every_public_name_resolves_and_unknown_names_raise() -> None:
    import scrapy_rep

    for name in scrapy_rep.__all__:
        assert getattr(scrapy_rep, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = scrapy_rep.Nope


LXML_CODES = [
    "import scrapy_rep\nscrapy_rep.parse_robotstxt(b'User-agent: *\\nDisallow: /x\\n')",
    "import scrapy_rep.__main__",
    "import scrapy_rep.checker, rep_engine.usage.rsl.discovery",
    # python -m scrapy_rep check --example /x: reads no RSL document
    "import runpy\n"
    "sys.argv = ['scrapy_rep', 'check', '--example', '/x']\n"
    "try:\n"
    "    runpy.run_module('scrapy_rep', run_name='__main__', alter_sys=True)\n"
    "except SystemExit as exit:\n"
    "    assert exit.code == 0, exit.code\n",
]
LXML_IDS = ["engine", "checker", "rsl-modules", "check-command"]


@pytest.mark.parametrize("code", LXML_CODES, ids=LXML_IDS)
def test_engine_and_checker_load_no_lxml(code: str) -> None:
    """lxml is imported when an RSL document or a page is parsed, not before."""
    assert code in LXML_CODES
    assert loaded_after_all(tuple(LXML_CODES), ("lxml",)) == []


def test_parsing_an_rsl_document_loads_lxml() -> None:
    """The control case: the probe sees lxml once a document is parsed."""
    code = "from rep_engine.usage.rsl.document import parse_rsl\nparse_rsl(b'<rsl/>')"
    assert loaded_after(code, ("lxml",)) == ["lxml"]
