"""The RSL licenses the command-line tools fetch for an origin (checker/licenses.py)."""

from __future__ import annotations

import pytest

from scrapy_rep.checker import licenses as checker_licenses
from scrapy_rep.robotstxt import parse_robotstxt
from scrapy_rep.verdict import RequestRules


def test_more_licenses_than_the_bound_are_none_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in the crawl (docs/decisions.md, 'At most REP_RSL_MAX_LICENSES licenses are read
    per robots.txt'): no license is fetched, and the stand-in is what the tools read."""
    fetched: list[str] = []
    monkeypatch.setattr(
        checker_licenses, "fetch_document", lambda url, *a, **k: fetched.append(url)
    )
    lines = "".join(f"License: https://lic.example/{n}.xml\n" for n in range(3))
    rules = parse_robotstxt(f"User-agent: *\nAllow: /\n{lines}")
    request_rules = RequestRules.of(("search",), purpose_set=True, max_licenses=2)
    found = checker_licenses.origin_licenses(rules, request_rules, "mybot", 1.0)
    assert fetched == []
    [(url, document)] = found.documents
    assert url == "https://lic.example/2.xml"
    assert document.problem == (
        "licenses not read: robots.txt names 3 for this crawler, more than REP_RSL_MAX_LICENSES (2)"
    )
    assert found.lines == (f"RSL license {url}: {document.problem}",)
    assert not found.unreachable
