"""Crawl-delay in Scrapy's download slots (SPEC §5): politeness can only go up.

When ``Crawl-delay`` is honoured, the gap between two requests to an origin is at least
the larger of its crawl-delay (capped by ``REP_CRAWL_DELAY_MAX``) and what the project
configured for that host:

- The origin gets a download slot of its own (``download_slot`` = the origin), so the
  delay never slows other origins of the same host; the slot starts from the host's
  ``DOWNLOAD_SLOTS`` entry (concurrency, delay, jitter) or ``DOWNLOAD_DELAY``. A request
  that names a slot already keeps it, and that slot gets the delay.
- One slot per origin, whenever the delay appears (a refreshed robots.txt that adds
  one): a request that was in the downloader before names the slot Scrapy keyed it by
  (the hostname, written in its meta as it entered), which is not a slot the project
  named: it goes to the origin's slot too (decided again after a hold; one decided
  again as it leaves the host's slot is handed back to go through the origin's:
  :mod:`scrapy_rep.crawl.requests.sentcheck`). Two slots sending to one server would
  each keep the floor, and together halve it (docs/decisions.md, 'One download slot per
  origin, whenever its Crawl-delay appears').
- Scrapy's jitter draws each gap from ``delay × (1 ± jitter)``; the slot's delay is set
  so that the shortest gap is still the crawl-delay: ``crawl_delay / (1 - jitter)``
  (with the usual ±50 %, twice the crawl-delay on average), and never below the delay
  the project configured.
- AutoThrottle adjusts slot delays after every response and may lower them to
  ``DOWNLOAD_DELAY``; for the slots with a crawl-delay the floor is put back right after.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Final

from scrapy import signals
from scrapy.settings import SETTINGS_PRIORITIES

from scrapy_rep.crawl.internals import DELAY_JITTER, running_engine, scrapys_slot_key
from scrapy_rep.crawl.loglimit import FirstFew
from scrapy_rep.crawl.meta import DOWNLOAD_SLOT

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from rep_engine.urls.origins import Origin

logger = logging.getLogger(__name__)

#: At most this many slots keep a crawl-delay floor (bounded memory in broad crawls).
MAX_SLOTS: Final = 10_000


class CrawlDelaySlots:
    """Applies each origin's crawl-delay to its download slot."""

    def __init__(self, crawler: Crawler, maximum: float) -> None:
        self.crawler = crawler
        self.maximum = maximum
        settings = crawler.settings
        self._host_slots: dict[str, dict[str, Any]] = settings.getdict("DOWNLOAD_SLOTS")
        self._delay = settings.getfloat("DOWNLOAD_DELAY")
        self._jitter = _default_jitter(settings)
        self._uses_jitter_key = DELAY_JITTER
        self._autothrottle = settings.getbool("AUTOTHROTTLE_ENABLED")
        #: Slot key -> the smallest delay it may have.
        self.floors: OrderedDict[str, float] = OrderedDict()
        self._watching = False
        #: The per-origin INFO line, said for the first few origins only.
        self._first = FirstFew()
        crawler.signals.connect(self._closed, signal=signals.spider_closed)

    def apply(self, request: Request, origin: Origin, crawl_delay: float | None) -> None:
        """Give ``request`` the slot of ``origin`` with its crawl-delay floor."""
        if not crawl_delay or crawl_delay <= 0:
            return
        engine = running_engine(self.crawler)
        if engine is None:
            return
        downloader = engine.downloader
        crawl_delay = min(crawl_delay, self.maximum)
        key = request.meta.get(DOWNLOAD_SLOT)
        if key is not None and key == scrapys_slot_key(downloader, request):
            key = None  # Scrapy's own key, written as it entered the downloader: not named
        base = self._host_slots.get(str(key) if key else origin.host, {})
        if key is None:
            key = request.meta[DOWNLOAD_SLOT] = str(origin)
        delay, jitter = float(base.get("delay", self._delay)), _jitter_of(base, self._jitter)
        floor = max(delay, crawl_delay / (1 - jitter) if jitter < 1 else 2 * crawl_delay)
        slot = downloader.slots.get(key)
        if slot is not None and slot.delay < floor:
            slot.delay = floor
        if self.floors.get(key, 0.0) >= floor:
            self.floors.move_to_end(key)
            return
        first = key not in self.floors
        self.floors[key] = floor
        settings = {**downloader.per_slot_settings.get(key, base), "delay": floor}
        if jitter >= 1:
            settings[self._jitter_key] = 0.5 if self._uses_jitter_key else True
        downloader.per_slot_settings[key] = settings  # for the slot made next
        if len(self.floors) > MAX_SLOTS:
            oldest, _ = self.floors.popitem(last=False)
            downloader.per_slot_settings.pop(oldest, None)
        if self._autothrottle and not self._watching:
            self._watching = True
            self.crawler.signals.connect(self._restore_floor, signal=signals.response_downloaded)
        if first:
            self._log_first(origin, floor, crawl_delay, key, jitter if floor > delay else 0.0)

    @property
    def _jitter_key(self) -> str:
        return "jitter" if self._uses_jitter_key else "randomize_delay"

    def _restore_floor(self, response: Response, request: Request, **_: Any) -> None:
        """Runs after AutoThrottle's own handler (it connected first)."""
        key = request.meta.get(DOWNLOAD_SLOT)
        engine = running_engine(self.crawler)
        if not isinstance(key, str) or engine is None:
            return
        floor = self.floors.get(key)
        if floor is None:
            return
        slot = engine.downloader.slots.get(key)
        if slot is not None and slot.delay < floor:
            slot.delay = floor

    def _log_first(
        self, origin: Origin, floor: float, crawl_delay: float, key: str, jitter: float
    ) -> None:
        """One line per origin: the crawl-delay as a shortest gap, and the slot delay that
        gives it (larger when Scrapy's jitter draws each gap around it); at INFO for the
        first origins of the crawl, then at DEBUG (:mod:`scrapy_rep.crawl.loglimit`)."""
        if self.crawler.stats is not None:
            self.crawler.stats.inc_value("rep/crawl_delay/origins")
        if jitter <= 0:
            how = f"download slot {key!r}, delay {floor:.3g} s"
        elif jitter < 1:
            how = (
                f"download slot {key!r}: delay {floor:.3g} s with ±{jitter:.0%} jitter, "
                f"so no gap is shorter than {crawl_delay:.3g} s"
            )
        else:
            how = f"download slot {key!r}: delay {floor:.3g} s, jitter turned down to ±50 %"
        logger.log(
            self._first.level("crawl-delay"),
            "Crawl-delay of %s: at least %.3g s between requests (%s)%s",
            origin,
            crawl_delay,
            how,
            self._first.note("crawl-delay"),
            extra={"spider": self.crawler.spider},
        )

    def _closed(self, **_: Any) -> None:
        """The count of origins with a crawl-delay, when not every one was said at INFO."""
        count = self._first.beyond("crawl-delay")
        if count:
            logger.info(
                "scrapy_rep: crawl-delay applied to %s origins (the first %d said at INFO)",
                f"{count:,}",
                self._first.limit,
                extra={"spider": self.crawler.spider},
            )


def _default_jitter(settings: Any) -> float:
    """The jitter Scrapy gives slots that set none, read as its downloader reads it (the
    floor must match the gaps Scrapy draws: assuming ±50 % that the project turned off
    doubled every crawl-delay). Before Scrapy 2.19: ``RANDOMIZE_DOWNLOAD_DELAY`` (±50 %
    when on). From 2.19 (``scrapy/core/downloader/__init__.py``, ``_default_jitter``):
    ``DOWNLOAD_DELAY_JITTER``, unless the deprecated ``RANDOMIZE_DOWNLOAD_DELAY`` was set
    above its default priority and above ``DOWNLOAD_DELAY_JITTER``'s, which then decides
    (±50 % or none)."""
    randomize = 0.5 if settings.getbool("RANDOMIZE_DOWNLOAD_DELAY", True) else 0.0
    if not DELAY_JITTER:
        return randomize
    randomize_priority = settings.getpriority("RANDOMIZE_DOWNLOAD_DELAY") or 0
    if randomize_priority > max(
        SETTINGS_PRIORITIES["default"], settings.getpriority("DOWNLOAD_DELAY_JITTER") or 0
    ):
        return randomize
    return max(0.0, float(settings.getfloat("DOWNLOAD_DELAY_JITTER")))


def _jitter_of(slot_settings: dict[str, Any], default: float) -> float:
    if "jitter" in slot_settings:
        return max(0.0, float(slot_settings["jitter"]))
    if "randomize_delay" in slot_settings:
        return 0.5 if slot_settings["randomize_delay"] else 0.0
    return default
