"""Each allowed request decided once: the early pass's verdict kept for the late check.

The spider middleware's early pass (:mod:`scrapy_rep.crawl.requests.early`) decides every request
whose origin's documents are cached (``RobotsTxtMiddleware.refusal_if_known``), and
``process_request`` used to decide it again: robots.txt matched twice, the purpose
check run twice. When the early pass allows a request, the middleware now keeps what it
found (an :data:`EarlyDecision`, a plain tuple: this is the hot path) in
:class:`EarlyDecisions`, under a small token put in the request's meta
(:data:`~scrapy_rep.crawl.meta.DECIDED_EARLY`). ``process_request`` takes the token out
first of all, and reuses the verdict only when nothing it depended on has changed (it
compares the tuple's first four values itself; :func:`same_documents` the rest):

- the same URL, the same agent (``ROBOTSTXT_USER_AGENT`` or the ``User-Agent`` header, as
  read for the decision) and the same obey mode (``dont_obey_robotstxt``): a component
  that changed the request in between (a ``request_scheduled`` handler; a downloader
  middleware before ours turns the early pass off altogether) gets a fresh decision;
- the very same entry objects (``is``) that the documents give the late check: a newer
  robots.txt, tdmrep.json or license (a refresh, another process's record, a copy parsed
  again after compression) decides afresh.

Everything else the late check does for an allowed request is done as before, with the
kept verdict: the crawl-delay slot, the stats, the audit trail's record (with the trail
on, the early pass keeps robots.txt's :class:`~scrapy_rep.robotstxt.Decision`, not only
a boolean), the purpose check's trail calls and what it puts on ``request.meta``.

What is kept stays here, never in meta (a request may be serialised: ``JOBDIR``,
scrapy-redis); the entries only through weak references, so a kept verdict never keeps
an entry the cache let go of (the entry is then gone, and the request decided afresh).
The store is bounded (:data:`MAX_KEPT`, the oldest let go first): requests that never
reach ``process_request`` (dropped by the dupefilter, the offsite filter, another
middleware) cannot grow it without bound; a request whose verdict was let go is decided
afresh. A token names its run: one read back from ``JOBDIR`` after a resume names
nothing. The token only finds the verdict; what makes reusing it sound is that every
input it was decided from is checked again (a token that named another request's
verdict could only reuse a verdict on the same URL, agent and entries: the same one).
"""

from __future__ import annotations

import itertools
import secrets
import weakref
from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from scrapy_rep.crawl import meta

if TYPE_CHECKING:
    from scrapy import Request

    from scrapy_rep.crawl.requests.obey import Obey
    from scrapy_rep.fetch.cache import CacheEntry
    from scrapy_rep.robotstxt import Decision, RobotsTxt
    from scrapy_rep.usage.policy import Before

#: How many early verdicts are kept at most (the oldest let go first): a few MiB.
MAX_KEPT: Final = 10_000

#: Each further document that decided a request: ``((document name, key), its entry)``.
Documents: TypeAlias = "tuple[tuple[tuple[str, Hashable], weakref.ref[CacheEntry[Any]]], ...]"
#: What the early pass found for one request it allowed, a plain tuple (the hot path):
#: ``(url, agent, obey, robots.txt's entry, robots.txt's Decision (kept with the audit
#: trail on, else None), the further documents, before)``; ``before`` is what the purpose
#: check puts on the request's meta (``NOTHING_BEFORE``: nothing), ``None`` when it had
#: nothing to read (no trail call either).
EarlyDecision: TypeAlias = (
    "tuple[str, str, Obey, weakref.ref[CacheEntry[RobotsTxt]], Decision | None, Documents, "
    "Before | None]"
)


def same_documents(documents: Documents, decided: Mapping[tuple[str, Hashable], Any]) -> bool:
    """Whether the further documents that decide a request now are, each, the very entry
    that decided it early."""
    if len(decided) != len(documents):
        return False
    return all(decided.get(key) is kept() for key, kept in documents)


class EarlyDecisions(dict[int, "EarlyDecision"]):
    """The early verdicts of one crawl, each under a token in its request's meta; the
    late check takes a request's token out with :meth:`take`."""

    def __init__(self, limit: int = MAX_KEPT) -> None:
        super().__init__()
        self._limit = limit
        #: This run's tokens: a random base (another run's name nothing), then a serial.
        self._serial = itertools.count(secrets.randbits(31) << 32)

    def keep(self, request: Request, decision: EarlyDecision) -> None:
        token = next(self._serial)
        self[token] = decision
        if len(self) > self._limit:
            del self[next(iter(self))]  # the oldest: its request may never come
        request.meta[meta.DECIDED_EARLY] = token

    def take(self, request: Request) -> EarlyDecision | None:
        """The early verdict on ``request``, its token taken out of its meta (it does not
        travel on with a redirect, a retry or a held request), or ``None``."""
        token = request.meta.pop(meta.DECIDED_EARLY, None)
        return None if token is None else self.pop(token, None)
