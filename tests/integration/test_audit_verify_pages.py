"""``audit verify`` re-derives every field of a fetched page's record:
a real crawl's trail, edited by a forger who recomputes the hash chain (so that only
``verify --head`` would catch the edit otherwise), fails for each edit; the honest trail,
with a page part too long for its line kept whole in a snapshot, is clean."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request
from twisted.internet import reactor
from twisted.web.server import Site

from tests.support.audittrail import kept_anyway
from tests.support.robotsite import HeaderPages, ItemSpider, crawl
from tests.support.tools import audit_tool
from tests.support.trailfactory import encode

#: A page whose meta tags run past the 16,384 characters a record's line keeps.
LONG_META = "".join(f'<meta name="robots" content="max-snippet:{n}">' for n in range(1000))
PAGES = {
    "/cu": ({"Content-Usage": "train-ai=n"}, "denied"),
    "/plain": ({}, "plain"),
    "/sentas": ({}, "sent as googlebot"),
    "/long": ({}, f"{LONG_META}<p>long</p>"),
}
SENT_AS = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


class OneSentAsGooglebotSpider(ItemSpider):
    """One item per page; ``/sentas`` is requested as Googlebot."""

    async def start(self) -> Any:
        for url in self.urls:
            headers = {"User-Agent": SENT_AS} if url.endswith("/sentas") else {}
            yield Request(url, callback=self.parse, errback=self.failed, headers=headers)


@pytest.fixture(scope="module")
def honest_trail(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The honest trail of one crawl (built once for the module's tests)."""
    return tmp_path_factory.mktemp("trail") / "trail.jsonl"


async def _crawl_the_pages(path: Path) -> None:
    site = HeaderPages(PAGES)
    port = reactor.listenTCP(0, Site(site), interface="127.0.0.1")  # type: ignore[attr-defined]
    base = f"http://127.0.0.1:{port.getHost().port}"
    try:
        settings = {"REP_PURPOSE": "ai-train", "REP_AUDIT_FILE": str(path)}
        await crawl([base + page for page in PAGES], settings, OneSentAsGooglebotSpider)
    finally:
        await port.stopListening()


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _forged_copy(path: Path, to: Path, edit: Callable[[dict[str, dict[str, Any]]], None]) -> Path:
    """``path``'s trail with ``edit`` applied to its url records (by path) and the chain
    recomputed, at ``to`` (its snapshots copied)."""
    records = _records(path)
    by_path = {r["url"].split("/", 3)[3]: r for r in records if r["type"] == "url"}
    edit({f"/{key}": value for key, value in by_path.items()})
    for record in records:
        record.pop("prev", None)
    to.write_bytes(b"".join(encode(records)))
    shutil.copytree(path.with_name(path.name + ".d"), to.with_name(to.name + ".d"))
    return to


def _flipped(record: dict[str, Any]) -> None:
    kept_anyway(record)
    for signal in record["usage"]["signals"]:
        signal["answers"] = {p: True for p in signal["answers"]}
    record["usage"]["answers"]["ai-train"] = True


EDITS: list[tuple[str, Callable[[dict[str, dict[str, Any]]], None], str]] = [
    ("a denied page edited to keep its item", lambda r: kept_anyway(r["/cu"]),
     "the page says no ai-train by header Content-Usage: train-ai=n, but the record kept 1"),
    ("its usage answers flipped to yes", lambda r: _flipped(r["/cu"]),
     "the page says header Content-Usage: train-ai=n, which the record's usage decision does "
     "not list"),
    ("page.names edited to another crawler",
     lambda r: r["/plain"]["page"].update(names=["otherbot"]),
     "its statements were recorded as read for otherbot, but its request was held to testbot"),
    ("the sent-as name removed", lambda r: r["/sentas"]["page"].update(names=["testbot"]),
     "its statements were recorded as read for testbot, but its request was held to "
     "testbot, googlebot"),
    ("a short page part replaced by omitted",
     lambda r: r["/cu"].update(page={"names": ["testbot"], "omitted": "too long"}),
     "the record omits what its page said, which this run never does"),
    ("item_reason purpose on a page nothing denies",
     lambda r: r["/plain"].update(items_kept=0, items_dropped=1, item_reason="purpose"),
     "the record drops its items for purpose, which its statements do not say"),
]  # fmt: skip


@pytest_twisted.ensureDeferred
async def test_every_forged_field_of_a_fetched_page_fails_verify(
    honest_trail: Path, tmp_path: Path
) -> None:
    await _crawl_the_pages(honest_trail)
    by_url = {r["url"].rsplit("/", 1)[1]: r for r in _records(honest_trail) if r["type"] == "url"}
    assert by_url["cu"]["items_kept"] == 0 and by_url["cu"]["item_reason"] == "purpose"
    assert by_url["sentas"]["page"]["names"] == ["testbot", "googlebot"]
    long = by_url["long"]["page"]
    assert set(long) == {"names", "snapshot"}, long  # whole, in a snapshot of its own
    snapshot = json.loads((honest_trail.parent / "trail.jsonl.d" / long["snapshot"]).read_bytes())
    assert len(snapshot["meta"]) == 1000
    status, out = audit_tool("verify", str(honest_trail))
    assert status == 0, out
    for number, (what, edit, finding) in enumerate(EDITS):
        forged = _forged_copy(honest_trail, tmp_path / f"forged{number}.jsonl", edit)
        status, out = audit_tool("verify", str(forged))
        assert status == 1 and finding in out, f"{what}:\n{out}"
