"""``audit verify`` on a recheck's ``item`` lines with the page part (``--pages``): the
page's own statements decided again, so that an item kept although its page says no, or
refused by its page for what the page does not say, is found."""

from __future__ import annotations

import hashlib
import json
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from rep_audit.verify import verify
from rep_engine.fetch.cache import CacheEntry
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.settings import RepConfig
from rep_engine.urls.origins import origin_of
from rep_engine.usage.tdmrep import NO_FILE
from rep_engine.verdict.decide import ROBOTS, TDM
from rep_engine.verdict.page import PageStatements
from rep_recheck.datasets import Item
from rep_recheck.documents import OriginDocuments
from rep_recheck.rechecker import Identity, Rechecker
from rep_recheck.trail import RecheckTrail
from tests.support.recheck import forged_item

BODY = b"User-agent: *\nDisallow: /private\n"
PAGES = {
    "https://a.example/plain": PageStatements(),
    "https://a.example/noindex": PageStatements((("x-robots-tag", "noindex"),)),
    "https://a.example/noai": PageStatements((("x-robots-tag", "noai"),)),
}


def _trail(path: Path) -> Path:
    origin = origin_of("https://a.example/")
    assert origin is not None
    entry = CacheEntry(parse_robotstxt(BODY), "200 (33 bytes)", time.time(), 1e20, 1e20, 200,
                       zlib.compress(BODY), sha256=hashlib.sha256(BODY).hexdigest())  # fmt: skip
    documents = OriginDocuments(origin, now=time.time())
    documents.add(ROBOTS, origin, entry)
    documents.add(TDM, origin, CacheEntry(NO_FILE, "404: no tdmrep.json", time.time(), 1e20,
                                          1e20, 404))  # fmt: skip
    config = RepConfig.from_settings({"REP_PURPOSE": "ai-train", "REP_AUDIT_FILE": "x"})
    rechecker = Rechecker(config, Identity("mybot"), lambda o: documents)
    trail = RecheckTrail(path, rechecker, {"dataset": "items.jsonl"}, "mybot")
    for number, (url, statements) in enumerate(PAGES.items(), 1):
        outcome = rechecker.after_fetch(url, rechecker.decide(url), statements, time.time())
        trail.item(Item(number, url), outcome, statements)
    trail.close()
    return path


def test_a_recheck_with_pages_verifies_clean(tmp_path: Path) -> None:
    result = verify(_trail(tmp_path / "recheck.jsonl"))
    assert result.clean, result.findings
    assert result.records == 3


@pytest.mark.parametrize(
    ("url", "changes", "found"),
    [
        ("https://a.example/noindex", {"status": "kept", "refused_by": None}, "its page says no"),
        ("https://a.example/noai", {"status": "kept", "refused_by": None}, "its page says no"),
        ("https://a.example/plain", {"status": "refused", "refused_by": "page",
                                     "item_reason": "noindex"}, "refuses nothing"),
        ("https://a.example/noai", {"item_reason": "noindex"}, "the page gives purpose"),
        ("https://a.example/noindex",
         {"page": {"names": ["mybot"], "headers": [["x-robots-tag", "index"]]}},
         "refuses nothing"),
    ],
)  # fmt: skip
def test_an_edited_page_decision_is_found(
    tmp_path: Path, url: str, changes: dict[str, Any], found: str
) -> None:
    trail = forged_item(_trail(tmp_path / "recheck.jsonl"), url, **changes)
    result = verify(trail)
    assert any(f.url == url and found in f.what for f in result.findings), result.findings


#: The User-Agent a recheck's requests are sent with, besides the declared ``advbot``.
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


def test_an_item_whose_page_names_were_cut_is_found(tmp_path: Path) -> None:
    """docs/audit-trail.md, ``item``: a page is read for every name its request was held
    to (the declared one, the one it was sent as) and ``REP_DIRECTIVE_TOKENS``, no fewer.
    A page sent as Googlebot that says ``<meta name="googlebot" content="noindex">``,
    its record edited to read it for ``advbot`` alone and to keep its item, is found."""
    origin = origin_of("https://a.example/")
    assert origin is not None
    entry = CacheEntry(parse_robotstxt(BODY), "200 (33 bytes)", time.time(), 1e20, 1e20, 200,
                       zlib.compress(BODY), sha256=hashlib.sha256(BODY).hexdigest())  # fmt: skip
    documents = OriginDocuments(origin, now=time.time())
    documents.add(ROBOTS, origin, entry)
    documents.add(TDM, origin, CacheEntry(NO_FILE, "404: no tdmrep.json", time.time(), 1e20,
                                          1e20, 404))  # fmt: skip
    config = RepConfig.from_settings({"REP_AUDIT_FILE": "x"})
    rechecker = Rechecker(config, Identity("advbot", GOOGLEBOT), lambda o: documents)
    path = tmp_path / "recheck.jsonl"
    trail = RecheckTrail(path, rechecker, {"dataset": "items.jsonl"}, "advbot")
    url = "https://a.example/gb"
    statements = PageStatements((), (("googlebot", "noindex"),))
    outcome = rechecker.after_fetch(url, rechecker.decide(url), statements, time.time())
    trail.item(Item(1, url), outcome, statements)
    trail.close()
    [honest] = [line for line in map(json.loads, path.read_text().splitlines())
                if line["type"] == "item"]  # fmt: skip
    assert honest["page"]["names"] == ["advbot", "googlebot"], honest
    assert honest["status"] == "refused" and honest["item_reason"] == "noindex", honest
    assert verify(path).clean
    page = {**honest["page"], "names": ["advbot"]}
    forged = forged_item(path, url, status="kept", refused_by=None, item_reason=None, why=None,
                     page=page)  # fmt: skip
    found = [f.what for f in verify(forged).findings if f.url == url]
    assert ("its statements were recorded as read for advbot, but its request was held to "
            "advbot, googlebot") in found, found  # fmt: skip
