"""The site a ``Host`` header names (scrapy_rep/crawl/requests/facts.py ``_named_site``;
docs/decisions.md, 'A request sent with another Host is decided by both sites'): a
server may read the value as a URL's authority (Starlette's ``request.url``, Node's
``new URL(path, "http://" + host)``), as a name-based server does (the name before
``:``, ``@``, ``,``), as the host after the last ``@``, or normalized (full-width
``＠``). When the readings differ, the one that names another site than the URL's is
asked, and the URL's site decides too: ``127.0.0.1:P@localhost:P`` for
``http://127.0.0.1:P/…`` is localhost's page for a server reading the authority, and
localhost's robots.txt refuses it."""

from __future__ import annotations

import pytest

from rep_engine.urls.origins import Origin, origin_of
from scrapy_rep.crawl.requests.facts import _named_site

#: (the request's URL, its Host value) -> the site addressed (besides the URL's own).
SITES = {
    ("http://a.test/x", "a.test@b.test"): "http://b.test",
    ("http://a.test:8080/x", "a.test:8080@b.test"): "http://b.test",
    ("http://a.test/x", "b.test@a.test"): "http://b.test",
    ("http://a.test/x", "a.test?@b.test"): "http://b.test",
    ("http://a.test:8080/x", "a.test?@b.test"): "http://b.test",
    ("http://a.test/x", "a.test#@b.test"): "http://b.test",
    ("http://a.test/x", "a.test[@b.test"): "http://b.test",
    ("http://[::1]/x", "[::1]@b.test"): "http://b.test",
    ("http://a.test/x", "[b.test]"): "http://b.test",
    ("http://a.test/x", "a.test\uff20b.test"): "http://b.test",
    ("http://a.test/x", "\uff42.test"): "http://b.test",
    ("http://a.test/x", "a.test\uff1a8081"): "http://a.test:8081",
    ("http://a.test/x", "a.test?b.test"): "http://a.test",
    ("http://a.test/x", "a.test"): "http://a.test",
    ("http://a.test:8080/x", "a.test:8080"): "http://a.test:8080",
    ("http://a.test/x", "b.test:8080"): "http://b.test:8080",
}


@pytest.mark.parametrize(("url", "value"), SITES, ids=[repr(value) for _, value in SITES])
def test_rfc9110_7_2_a_host_value_names_the_site_any_reading_names(url: str, value: str) -> None:
    origin = origin_of(url)
    assert origin is not None
    site: Origin = _named_site(origin, value)
    assert str(site) == SITES[url, value]
