"""The facts of a Scrapy request that its verdict is reached on
(:class:`scrapy_rep.verdict.RequestFacts`): its URL and origin, the crawler's name as the
request presents it, and how much of robots.txt it obeys.

- **The crawler's name** (SPEC §1): ``ROBOTSTXT_USER_AGENT`` when set, else the name in
  the ``User-Agent`` the request carries, else in the project's ``USER_AGENT``; in a
  Mozilla-style string, the name after ``compatible;``, as Google's crawlers present
  themselves (:func:`scrapy_rep.robotstxt.useragent.crawler_name`). A browser's string
  names no crawler: said once at start (WARNING).
- **What is obeyed** (docs/decisions.md, 'Not obeying robots.txt keeps the purpose's
  opt-outs'): ``ROBOTSTXT_OBEY = False`` and ``dont_obey_robotstxt`` are Scrapy's switches
  for robots.txt's Allow/Disallow and keep that meaning; a purpose set in ``REP_PURPOSE``
  is another promise, whose opt-outs are honoured whatever they say, and the crawl says
  so once. Without ``REP_PURPOSE`` in the settings they turn everything off, as in Scrapy.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Final

from scrapy.exceptions import NotConfigured
from scrapy.settings import SETTINGS_PRIORITIES

from scrapy_rep.crawl.meta import DONT_OBEY_ROBOTSTXT, ROBOTS_REQUEST
from scrapy_rep.robotstxt.useragent import crawler_name, is_browser
from scrapy_rep.urls.origins import OriginMemo
from scrapy_rep.verdict import Obey, RequestFacts

if TYPE_CHECKING:
    from scrapy import Request

    from scrapy_rep.settings import RepConfig

logger = logging.getLogger(__name__)

#: Said once per crawl, the first time a request carries ``dont_obey_robotstxt``.
_DONT_OBEY_NOTE: Final = (
    "scrapy_rep: %s has dont_obey_robotstxt: robots.txt Allow/Disallow is not obeyed for "
    "it (nor for other such requests), but the opt-outs for REP_PURPOSE (%s) still are"
)
#: Distinct User-Agent strings whose crawler names are remembered (a rotator's few).
_MAX_NAMES: Final = 1024


def purpose_is_set(settings: Any) -> bool:
    """Whether ``REP_PURPOSE`` is in the project's (or the spider's, or the command
    line's) settings: above the priority at which the add-on writes its defaults."""
    priority = settings.getpriority("REP_PURPOSE")
    return priority is not None and priority > SETTINGS_PRIORITIES["addon"]


class FactsReader:
    """Reads the facts of each request of one crawl."""

    def __init__(self, settings: Any, config: RepConfig) -> None:
        self.obey_robots = settings.getbool("ROBOTSTXT_OBEY")
        #: ``REP_PURPOSE`` is in the project's (or the spider's, or the command line's)
        #: settings.
        self.purpose_set = purpose_is_set(settings)
        self._purposes = ", ".join(config.purpose)
        self._noted = False
        if not self.obey_robots and not self.purpose_set:
            raise NotConfigured("ROBOTSTXT_OBEY is False")
        if not self.obey_robots:
            logger.info(
                "scrapy_rep: ROBOTSTXT_OBEY is False: robots.txt Allow/Disallow and "
                "Crawl-delay are not obeyed, but the opt-outs for REP_PURPOSE (%s) still "
                "are: robots.txt Content-Usage and Content-Signal, tdmrep.json, the groups "
                "of REP_PURPOSE_AGENTS and the pages' own signals",
                self._purposes,
            )
        #: ``ROBOTSTXT_USER_AGENT``: the one name robots.txt is read for, whatever is sent.
        self.fixed_name = crawler_name(str(settings.get("ROBOTSTXT_USER_AGENT") or ""))
        project_agent = str(settings.get("USER_AGENT") or "")
        #: The name of the project's ``USER_AGENT`` (or ``ROBOTSTXT_USER_AGENT``).
        self.default_name = self.fixed_name or crawler_name(project_agent)
        #: The crawler's name in each ``User-Agent`` header seen (a rotator's few).
        self.names: dict[bytes, str] = {}
        self.origins = OriginMemo()
        self._obey_default = Obey.ALL if self.obey_robots else Obey.USAGE
        if not self.fixed_name and is_browser(project_agent):
            logger.warning(
                "scrapy_rep: USER_AGENT %r is a browser's, with no crawler's name after "
                "'compatible;': robots.txt groups, robots meta tags and X-Robots-Tag are "
                "read for 'mozilla'. Name the crawler in ROBOTSTXT_USER_AGENT (or write "
                "USER_AGENT as 'Mozilla/5.0 (compatible; yourbot/1.0; +https://…)')",
                project_agent,
            )

    def obey(self, request: Request) -> Obey:
        """How much of robots.txt decides ``request``."""
        if not request.meta.get(DONT_OBEY_ROBOTSTXT):
            return Obey.ALL if self.obey_robots else Obey.USAGE
        if not self.purpose_set or ROBOTS_REQUEST in request.meta:
            return Obey.NOTHING  # Scrapy's meaning; and our own document requests
        if not self._noted:
            self._noted = True
            logger.info(_DONT_OBEY_NOTE, request, self._purposes)
        return Obey.USAGE

    def name(self, request: Request) -> str:
        """The crawler's name ``request`` presents (see the module docstring)."""
        if self.fixed_name:
            return self.fixed_name
        headers = request.headers
        header = headers.get(b"User-Agent") if headers else None
        if not header:  # usual: Scrapy's UserAgentMiddleware runs after ours
            return self.default_name
        name = self.names.get(header)
        if name is None:
            if len(self.names) >= _MAX_NAMES:
                self.names.clear()
            name = self.names[header] = crawler_name(header.decode("latin-1"))
        return name

    def of(self, request: Request) -> RequestFacts:
        """The facts of ``request`` as it is now (:meth:`obey`, :meth:`name` and the
        origin, inline: the hot path, twice per request)."""
        url = request.url
        meta = request.meta
        if not meta.get(DONT_OBEY_ROBOTSTXT):
            obey = self._obey_default
        else:
            obey = self.obey(request)
            if obey is Obey.NOTHING:
                return RequestFacts(url, None, self.default_name, obey)
        name: str | None = self.fixed_name
        if not name:
            headers = request.headers
            header = headers.get(b"User-Agent") if headers else None
            name = self.names.get(header) if header else self.default_name
            if name is None:
                name = self.name(request)
        return RequestFacts(url, self.origins.get(url), name, obey)
