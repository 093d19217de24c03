"""What ``ROBOTSTXT_OBEY = False`` and ``dont_obey_robotstxt`` switch off (docs/decisions.md,
'Not obeying robots.txt keeps the purpose's opt-outs').

They are Scrapy's switches for robots.txt's Allow/Disallow rules, and they keep that
meaning: no Allow/Disallow, no Crawl-delay. A purpose set in ``REP_PURPOSE`` is another
promise, about what the pages are used for: its opt-outs (robots.txt ``Content-Usage``
and ``Content-Signal``, tdmrep.json, the groups of ``REP_PURPOSE_AGENTS``, the pages'
own signals) are honoured whatever those switches say, and the crawl says so once.
Without ``REP_PURPOSE`` in the settings, the switches turn everything off, as in Scrapy.
See docs/behaviour.md, "ROBOTSTXT_OBEY and dont_obey_robotstxt".
"""

from __future__ import annotations

import enum
import logging
from typing import TYPE_CHECKING, Any, Final

from scrapy.exceptions import NotConfigured
from scrapy.settings import SETTINGS_PRIORITIES

from scrapy_rep.crawl.meta import DONT_OBEY_ROBOTSTXT, ROBOTS_REQUEST

if TYPE_CHECKING:
    from scrapy import Request

    from scrapy_rep.settings import RepConfig

#: Named as before ``crawl/`` had subpackages: log settings name it.
logger = logging.getLogger("scrapy_rep.crawl.obey")

#: Said once per crawl, the first time a request carries ``dont_obey_robotstxt``.
_DONT_OBEY_NOTE: Final = (
    "scrapy_rep: %s has dont_obey_robotstxt: robots.txt Allow/Disallow is not obeyed for "
    "it (nor for other such requests), but the opt-outs for REP_PURPOSE (%s) still are"
)


class Obey(enum.Enum):
    """How much of robots.txt decides one request."""

    #: Allow/Disallow, Crawl-delay and the purpose's opt-outs.
    ALL = "all"
    #: Only the purpose's opt-outs.
    USAGE = "usage"
    #: Nothing (Scrapy's meaning; no purpose was set).
    NOTHING = "nothing"


def purpose_is_set(settings: Any) -> bool:
    """Whether ``REP_PURPOSE`` is in the project's (or the spider's, or the command
    line's) settings: above the priority at which the add-on writes its defaults."""
    priority = settings.getpriority("REP_PURPOSE")
    return priority is not None and priority > SETTINGS_PRIORITIES["addon"]


class ObeyMode:
    """``ROBOTSTXT_OBEY``, ``REP_PURPOSE`` and a request's ``dont_obey_robotstxt``."""

    def __init__(self, settings: Any, config: RepConfig) -> None:
        self.obey_robots = settings.getbool("ROBOTSTXT_OBEY")
        #: ``REP_PURPOSE`` is in the project's (or the spider's, or the command line's)
        #: settings: above the priority at which the add-on writes its defaults.
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

    def of(self, request: Request) -> Obey:
        """How much of robots.txt decides ``request``."""
        if not request.meta.get(DONT_OBEY_ROBOTSTXT):
            return Obey.ALL if self.obey_robots else Obey.USAGE
        if not self.purpose_set or ROBOTS_REQUEST in request.meta:
            return Obey.NOTHING  # Scrapy's meaning; and our own document requests
        if not self._noted:
            self._noted = True
            logger.info(_DONT_OBEY_NOTE, request, self._purposes)
        return Obey.USAGE
