"""What scrapy_rep keeps on one request: one value under one ``request.meta`` key
(:data:`KEY`, docs/reference.md 'request.meta keys').

A request's :class:`RequestState` is an immutable tuple of small plain values: a request
may be serialised (``JOBDIR``'s disk queues, scrapy-redis's shared queue) and copied
(``request.replace``, redirects, retries: the copy shares the value, which is never
changed in place, only replaced). A state names the URL it was made for: a spider that
copies a page's meta into the requests it yields gives them its state, which is not
theirs (:func:`state_of` ignores it).

Our own document downloads (robots.txt, tdmrep.json, RSL licenses) carry a
:class:`FetchState` under the same key instead: never serialised, and changed in place
as the download goes.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from scrapy_rep.crawl.meta import STATE
from scrapy_rep.usage.policy import NOTHING_BEFORE, Before

if TYPE_CHECKING:
    from scrapy import Request

#: The ``request.meta`` key of scrapy_rep's state of a request.
KEY: Final = STATE


class RequestState(NamedTuple):
    """scrapy_rep's state of one request (every field optional but the URL)."""

    #: The URL the state was made for.
    url: str
    #: The id of the request's audit record (``""``: none).
    audit: str = ""
    #: ``(document kind, key, further keys)`` it was handed back to the engine to be held
    #: for (SPEC §4; further keys of the kind it waits for as well, whichever is known
    #: first waking it: RSL licenses): set by ``process_request``, taken when it is
    #: scheduled (or when it comes straight back, by ``process_request`` again, which
    #: then waits for the document in place).
    hold: tuple[str, Hashable, tuple[Hashable, ...]] | None = None
    #: ``((kind, token), …)``: the document versions a released request carries, kept by
    #: their documents under these tokens until it comes back (a token of another run, read
    #: back from ``JOBDIR``, names nothing).
    carried: tuple[tuple[str, str], ...] = ()
    #: A token naming the early pass's verdict on it (``0``: none; another run's: none).
    early: int = 0
    #: What the origin's documents said about it (the purposes' signals before the fetch),
    #: for the check of its page after the fetch; ``None``: nothing.
    before: Before | None = None
    #: The crawler names the verdict was reached for (the check before it is sent compares
    #: them with those of the User-Agent it is sent with; the page pass reads the page's
    #: directives for them); ``()``: not decided.
    names: tuple[str, ...] = ()
    #: The end-of-crawl report saw it scheduled: a request of the crawl, not an item
    #: pipeline's download (``REP_REPORT``).
    scheduled: bool = False
    #: It came back carrying a version past its freshness lifetime and is held for the
    #: current one: the version it is released with next decides it, whatever its age
    #: (decided afresh once: a queue slower than a document's lifetime, or a document that
    #: may not be cached, would otherwise send it round for ever).
    afresh: bool = False


def state_of(request: Request) -> RequestState | None:
    """The request's own state (``None``: none, or another request's in a copied meta)."""
    state = request.meta.get(KEY)
    if type(state) is RequestState and state.url == request.url:
        return state
    return None


def any_state(request: Request) -> RequestState | None:
    """The state in the request's meta, whichever URL it was made for (a redirect's
    previous URL, a copied meta)."""
    state = request.meta.get(KEY)
    return state if type(state) is RequestState else None


def update(request: Request, **changes: Any) -> RequestState:
    """Replace the request's state with one with ``changes`` (a new state if it had none)."""
    state = state_of(request)
    new = RequestState(request.url, **changes) if state is None else state._replace(**changes)
    request.meta[KEY] = new
    return new


def before_of(request: Request | None) -> Before:
    """What the origin's documents said about ``request`` before it was sent
    (:data:`~scrapy_rep.usage.policy.NOTHING_BEFORE`: nothing, or it was not checked)."""
    if request is None:
        return NOTHING_BEFORE
    state = request.meta.get(KEY)
    if type(state) is not RequestState or state.url != request.url or state.before is None:
        return NOTHING_BEFORE
    return state.before


@dataclass(slots=True)
class FetchState:
    """The state of one of our own document downloads (never serialised)."""

    #: The document kind whose fetcher sent it: only that fetcher counts its bytes.
    kind: str
    #: Bytes received so far (the 500 KiB stop, RFC 9309 §2.5).
    received: int = 0
    #: A compressed answer: an ``IgnoreRequest`` after it is the inflation cap.
    inflating: bool = False


def fetch_state_of(request: Request) -> FetchState | None:
    state = request.meta.get(KEY)
    return state if type(state) is FetchState else None
