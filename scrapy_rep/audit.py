"""The audit trail (``REP_AUDIT_FILE``): one JSON line per request the crawl met, saying
what the REP did with it and why, written as the crawl goes.

A record is written once its request's fate is known:

- refused by scrapy_rep (robots.txt, the crawl's purpose, nofollow, an unreachable
  document, the spider closing while it was held): when it is refused;
- downloaded: when the spider's output for its page has gone through scrapy_rep's spider
  middleware (items kept and dropped counted; it calls :meth:`AuditTrail.page_done`);
- redirected by Scrapy: when the next URL is scheduled (named in ``to``);
- failed to download: when it left the downloader without a response;
- anything else (another component ignored it, the crawl was stopped): when the spider
  closes, with the last thing known.

Record keys (short, for a 1M-URL crawl): ``url``; ``fate`` (``fetched``, ``dropped``,
``failed``, ``redirected`` with ``to``, ``unfinished``); ``reason`` and ``why`` for
drops; ``status``; ``items`` (kept, dropped) and ``item_reason``; ``held`` (times held);
``robots`` (the robots.txt that decided: ``origin``, ``sha256`` of the body, ``fetched``
(Unix time), ``status``, ``outcome``, and ``line``/``rule`` that decided or ``why`` none
did); ``usage`` (the AI-usage decision: answers per purpose, the deciding signal per
purpose, the signals with their sources); ``purpose`` and ``cfg`` (the settings that
applied).
"""

from __future__ import annotations

import hashlib
import json
import logging
import zlib
from functools import lru_cache
from itertools import count
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final
from weakref import WeakKeyDictionary

from scrapy import signals
from scrapy.exceptions import NotConfigured

from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.engine_fetch import ROBOTS_REQUEST_KEY
from scrapy_rep.crawl.usagegate import before_of
from scrapy_rep.settings import RepConfig
from scrapy_rep.usage import NOTHING_BEFORE

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

    from scrapy_rep.cache import CacheEntry
    from scrapy_rep.robotstxt import Decision

logger = logging.getLogger(__name__)

#: ``request.meta`` keys: ``(record number, url)`` of the request, and ``(url, origin,
#: entry, decision)``, the robots.txt verdict. Both are checked against the request's URL:
#: spiders often copy a page's meta into the requests they yield.
ID_KEY: Final = "_rep_audit"
ROBOTS_KEY: Final = "_rep_robots"


@lru_cache(maxsize=4096)
def _sha256(body_zlib: bytes) -> str:
    return hashlib.sha256(zlib.decompress(body_zlib)).hexdigest() if body_zlib else ""


def robots_record(origin: str, entry: CacheEntry[Any], decision: Decision) -> dict[str, Any]:
    """The robots.txt that decided a request, for the trail."""
    record: dict[str, Any] = {
        "origin": origin,
        "sha256": _sha256(entry.body_zlib),
        "fetched": round(entry.fetched_at, 3),
        "status": entry.status,
        "outcome": entry.outcome,
    }
    if decision.line is not None:
        record["line"] = decision.line
        record["rule"] = decision.line_text
    else:
        record["why"] = decision.reason
    return record


class AuditTrail:
    """Writes ``REP_AUDIT_FILE`` (JSON Lines) from the crawl's signals."""

    def __init__(self, crawler: Crawler) -> None:
        config = RepConfig.from_settings(crawler.settings)
        if not config.audit_file:
            raise NotConfigured  # no message: Scrapy would log it as a WARNING
        self.path = Path(config.audit_file)
        self.purpose = list(config.purpose)
        self.cfg = {
            "profile": config.profile,
            "unknown": config.purpose_unknown,
            "action": config.purpose_action,
            "agents": list(config.purpose_agents),
            "noindex": config.noindex_action,
            "nofollow": config.nofollow_action,
        }
        self._ids = count(1)
        self._open: dict[int, dict[str, Any]] = {}
        self._file: IO[bytes] | None = None
        #: The end of every line: the purpose and the settings, encoded once.
        self._tail = (
            ',"purpose":' + json.dumps(self.purpose) + ',"cfg":' + json.dumps(self.cfg) + "}\n"
        )
        #: Records written (for tests and for programs embedding a crawl).
        self.written = 0
        connect = crawler.signals.connect
        connect(self._opened, signal=signals.spider_opened)
        connect(self._scheduled, signal=signals.request_scheduled)
        connect(self._held, signal=rep_signals.request_held)
        connect(self._refused, signal=rep_signals.request_refused)
        connect(self._left, signal=signals.request_left_downloader)
        connect(self._received, signal=signals.response_received)
        connect(self._item_refused, signal=rep_signals.item_refused)
        connect(self._closed, signal=signals.spider_closed)
        _TRAILS[crawler] = self

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    # ------------------------------------------------------------------ signals

    def _opened(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Unbuffered: each record is one write() of one line, so a killed crawl keeps
        # every record written so far.
        self._file = self.path.open("ab", buffering=0)

    def _record(self, request: Request) -> dict[str, Any]:
        """The open record of ``request`` (a new one the first time it is seen; a
        throwaway one for scrapy_rep's own robots.txt and tdmrep.json downloads)."""
        if ROBOTS_REQUEST_KEY in request.meta:
            return {"fate": "ours"}
        known = request.meta.get(ID_KEY)
        if known is not None:
            record = self._open.get(known[0])
            if record is not None and known[1] == request.url:
                return record
            if record is not None and known[1] in request.meta.get("redirect_urls", ()):
                # Scrapy's redirect: the first URL's record ends here, naming the next.
                record.update(fate="redirected", to=request.url)
                del self._open[known[0]]
                self._emit(record)
        number = next(self._ids)
        request.meta[ID_KEY] = (number, request.url)
        record = self._open[number] = {"url": request.url}
        return record

    def _scheduled(self, request: Request, **_: Any) -> None:
        self._record(request)

    def _held(self, request: Request, **_: Any) -> None:
        record = self._record(request)
        record["held"] = record.get("held", 0) + 1

    def _refused(self, request: Request, reason: str, message: str, **_: Any) -> None:
        record = self._record(request)
        record.update(fate="dropped", reason=reason, why=message)
        self._write(request, record)

    def _left(self, request: Request, **_: Any) -> None:
        """The downloader is done with ``request``: with no answer (the HTTP handler sets
        ``download_latency`` when one arrives), it failed."""
        if "download_latency" in request.meta:
            return
        record = self._record(request)
        if "fate" not in record:
            record["fate"] = "failed"
            self._write(request, record)

    def _received(self, response: Response, request: Request, **_: Any) -> None:
        record = self._record(request)
        record.update(fate="fetched", status=response.status)

    def _item_refused(self, response: Response | None, reason: str, **_: Any) -> None:
        request = getattr(response, "request", None)
        if request is not None:
            self._record(request)["item_reason"] = reason

    def page_done(self, response: Response, kept: int, dropped: int) -> None:
        """scrapy_rep's spider middleware passed on the spider's whole output for a page:
        ``kept`` and ``dropped`` items. Called directly (a signal costs more per page)."""
        request = response.request
        if request is None:
            return
        record = self._record(request)
        record["fate"] = "fetched"
        record.setdefault("status", response.status)
        record["items"] = [kept, dropped]
        usage = response.meta.get("rep_usage")
        if usage is not None and usage.signals:
            record["usage"] = usage.to_dict()
        self._write(request, record)

    def _closed(self, spider: Any = None, reason: str = "") -> None:
        for record in list(self._open.values()):
            record.setdefault("fate", "unfinished")
            self._emit(record)
        self._open.clear()
        if self._file is not None:
            self._file.close()
            self._file = None
        logger.info("scrapy_rep: %d audit record(s) in %s", self.written, self.path)

    # ------------------------------------------------------------------ writing

    def _write(self, request: Request, record: dict[str, Any]) -> None:
        known = request.meta.get(ID_KEY)
        if known is None or self._open.pop(known[0], None) is None:
            return  # written already, or one of our own downloads
        robots = request.meta.get(ROBOTS_KEY)
        if robots is not None and robots[0] == request.url:
            record["robots"] = robots_record(*robots[1:])
        before = before_of(request)
        if before is not NOTHING_BEFORE and "usage" not in record:
            record["usage"] = before.decision().to_dict()
        self._emit(record)

    def _emit(self, record: dict[str, Any]) -> None:
        if self._file is not None:
            line = json.dumps(record, separators=(",", ":"), default=str)[:-1] + self._tail
            self._file.write(line.encode())
            self.written += 1


#: The trail of each running crawl, for its spider middleware (:func:`trail_of`).
_TRAILS: WeakKeyDictionary[Crawler, AuditTrail] = WeakKeyDictionary()


def trail_of(crawler: Crawler) -> AuditTrail | None:
    """The crawl's audit trail, if ``REP_AUDIT_FILE`` is set and the extension runs."""
    return _TRAILS.get(crawler)
