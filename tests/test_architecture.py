"""The rule of ARCHITECTURE.md: the pure modules never import Scrapy, Twisted, asyncio or
the adapters.

Each module is imported in a fresh interpreter (this test process has Scrapy loaded),
which then reports which of the forbidden modules ended up in ``sys.modules``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PURE = (
    "robotstxt",
    "profiles",
    "_parser",
    "_compile",
    "_matching",
    "_encoding",
    "_wildcards",
    "useragent",
    "origins",
    "fetchpolicy",
    "fetchprocedure",
    "lifecycle",
    "lifecycle.events",
    "lifecycle.machine",
    "lifecycle.shared",
    "lifecycle.state",
    "cache",
    "records",
    "directives",
    "_dates",
    "settings",
    "setting_names",
    "aipref",
    "_aipref_vocab",
    "tdmrep",
    "_tdm_values",
    "_json_array",
    "purpose",
    "_purpose_table",
    "usage",
    "verdicts",
    "urlfetch",
    "check",
    "standards",
    "imageusage",
    "_xmp",
    "_xmp_scan",
    "_xmp_walkers",
    "_c2pa",
    "mediausage",
)
#: Scrapy's side: what a pure module must never load.
ADAPTERS = (
    "scrapy_rep.addon",
    "scrapy_rep.crawl",
    "scrapy_rep.commands",
    "scrapy_rep.downloadermiddlewares",
    "scrapy_rep.crawl.pagereader",
    "scrapy_rep.report",
    "scrapy_rep.robotparser",
    "scrapy_rep.spidermiddlewares",
)
FORBIDDEN = ("scrapy", "twisted", "asyncio", *ADAPTERS)

REPORT = """
import json, sys
import scrapy_rep.{module}
forbidden = {forbidden!r}
print(json.dumps(sorted(
    name for name in sys.modules
    if any(name == f or name.startswith(f + ".") for f in forbidden)
)))
"""


def loaded_by(module: str) -> list[str]:
    code = REPORT.format(module=module, forbidden=FORBIDDEN)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    loaded: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize("module", PURE)
def test_a_pure_module_loads_no_scrapy_twisted_asyncio_or_adapter(module: str) -> None:
    assert loaded_by(module) == []


def test_the_check_finds_an_adapter_when_one_is_loaded() -> None:
    """The control case: the same check sees Scrapy and the adapters when they are used."""
    loaded = loaded_by("downloadermiddlewares")
    assert "scrapy" in loaded and "twisted" in loaded
    assert "scrapy_rep.crawl" in loaded
