"""Each allowed request decided once: the early pass's verdict kept for the late check.

The spider middleware's early pass (:mod:`scrapy_rep.crawl.requests.early`) decides every
request whose origin's documents are cached (``RobotsTxtMiddleware.refusal_if_known``, with
:func:`rep_engine.verdict.decide.decide`). When it allows one, the middleware keeps the facts it
was decided on and the :class:`~rep_engine.verdict.decide.Allowed` verdict here, under a small
token in the request's state (:attr:`~scrapy_rep.crawl.requeststate.RequestState.early`).
``process_request`` takes the token out first of all, and reuses the verdict only when
nothing it was reached on has changed:

- the same facts (URL, origin, crawler's name, what is obeyed): a component that changed
  the request in between (a ``request_scheduled`` handler; a downloader middleware before
  ours turns the early pass off altogether) gets a fresh verdict;
- the very same document versions (``is``) that decide it now: a newer robots.txt,
  tdmrep.json or license (a refresh, another process's record, a copy parsed again after
  compression) decides afresh.

Everything a verdict means is done by the late check as for any other
(:mod:`scrapy_rep.crawl.requests.perform`). What is kept stays here, never in meta (a
request may be serialised: ``JOBDIR``, scrapy-redis). The store is bounded
(:data:`MAX_KEPT`, the oldest let go first): requests that never reach ``process_request``
(dropped by the dupefilter, the offsite filter, another middleware) cannot grow it without
bound; a request whose verdict was let go is decided afresh. A token names its run: one
read back from ``JOBDIR`` after a resume names nothing. The token only finds the verdict;
what makes reusing it sound is that every input it was decided on is checked again.
"""

from __future__ import annotations

import itertools
import secrets
from typing import TYPE_CHECKING, Final

from scrapy_rep.crawl.requeststate import decided_early

if TYPE_CHECKING:
    from scrapy import Request

    from rep_engine.verdict.decide import Allowed, RequestFacts

#: How many early verdicts are kept at most (the oldest let go first): a few MiB.
MAX_KEPT: Final = 10_000


class EarlyDecisions(dict[int, "tuple[RequestFacts, Allowed]"]):
    """The early verdicts of one crawl, each under a token in its request's state; the
    late check pops a request's verdict by its token (so it serves once: the token in the
    state is spent when the request is decided)."""

    def __init__(self, limit: int = MAX_KEPT) -> None:
        super().__init__()
        self._limit = limit
        #: This run's tokens: a random base (another run's name nothing), then a serial.
        self._serial = itertools.count(secrets.randbits(31) << 32)

    def keep(self, request: Request, facts: RequestFacts, verdict: Allowed) -> None:
        token = next(self._serial)
        self[token] = (facts, verdict)
        if len(self) > self._limit:
            del self[next(iter(self))]  # the oldest: its request may never come
        decided_early(request, token)
