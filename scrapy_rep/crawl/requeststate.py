"""What scrapy_rep keeps on one request: one value under one ``request.meta`` key
(:data:`KEY`, docs/reference.md 'request.meta keys').

A request's :class:`RequestState` is an immutable tuple of small plain values: a request
may be serialised (``JOBDIR``'s disk queues, scrapy-redis's shared queue) and copied
(``request.replace``, redirects, retries: the copy shares the value, which is never
changed in place, only replaced). A state names the URL it was made for: a spider that
copies a page's meta into the requests it yields gives them its state, which is not
theirs (:func:`state_of` ignores it).

This module is the state's one writer: every other module reads it with :func:`state_of`
(the check that a state is the request's own: written out here only) and changes it with
the named transitions below (``tests/project/test_requeststate.py`` checks it). The
transitions write the new tuple positionally, with tuple's own constructor (one call of C
each on a request's usual path: ``benchmarks/calls.py`` counts them), or replace its
fields (a held request's). Calling the class reads a state back from a pickle, of this
layout or of the one before (:class:`RequestState`).

Our own document downloads (robots.txt, tdmrep.json, RSL licenses) carry a
:class:`FetchState` under the same key instead: never serialised, and changed in place
as the download goes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, NamedTuple, TypeVar

from rep_engine.verdict.policy import NOTHING_BEFORE, Before
from scrapy_rep.crawl.meta import STATE

if TYPE_CHECKING:
    from scrapy import Request
    from typing_extensions import Self

#: The ``request.meta`` key of scrapy_rep's state of a request.
KEY: Final = STATE
R = TypeVar("R")


class _Fields(NamedTuple):
    """The fields of a :class:`RequestState`, in order (every field optional but the URL)."""

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
    #: It came back carrying a version past its freshness lifetime (or reached its send
    #: past it) and is held for the current one: the version it is released with next
    #: decides it, whatever its age (decided afresh once: a queue slower than a
    #: document's lifetime, or a document that may not be cached, would otherwise send it
    #: round for ever).
    afresh: bool = False
    #: Until when its verdict holds as it leaves for the network (POSIX seconds): the end
    #: of the freshness of every document version it was decided with, and of the
    #: override it went past; sent later, it is decided again first (``0.0``: not
    #: decided, or decided by a version already past it).
    until: float = 0.0
    #: The last ``Host`` header it was decided with (``b""``: none): the check as sent
    #: compares it with the one it is sent with (a ``Host`` set after the verdict may
    #: address another site: :meth:`~scrapy_rep.crawl.requests.facts.FactsReader
    #: .addressed`).
    host: bytes = b""
    #: ``id()`` of the request object the verdict was reached on, in this process (``0``:
    #: not decided): the checks as it is sent read the state of that very request only
    #: (:func:`sent_state`), never the state a copied meta brought (a callback's
    #: ``download_async(Request(…, meta=response.meta))`` carries its page's).
    owner: int = 0
    #: An override of ``REP_OVERRIDES`` let it through at one of its decisions: counted
    #: then (``rep/requests/overridden``), never again for the same request (decided
    #: again after a hold, at its send, or retried: a retry's copy shares the state).
    overridden: bool = False


#: How many values a state has.
_LENGTH: Final = len(_Fields._fields)


class RequestState(_Fields):
    """scrapy_rep's state of one request.

    Calling the class reads any layout it was pickled with (``JOBDIR``'s disk queues and
    state file, scrapy-redis's shared queue: every value given in order, one call as the
    namedtuple's own constructor makes): a state pickled while the tuple had
    ``scheduled`` (its eighth value, never set: the end-of-crawl report reads the URL
    ledger's entries) reads back without it, so that the requests a paused crawl of an
    earlier version kept still resume. The transitions below make a state with tuple's
    own constructor (:data:`_new`), which a request's path pays no Python call for."""

    __slots__ = ()

    def __new__(cls, *values: Any, **fields: Any) -> Self:
        if len(values) == _LENGTH and not fields:  # unpickled: as ``tuple.__new__`` makes it
            return tuple.__new__(cls, values)
        if len(values) == _LENGTH + 1:  # pickled with ``scheduled``
            values = values[:7] + values[8:]
        return super().__new__(cls, *values, **fields)


#: A hold: ``(document kind, key, further keys)`` (:attr:`RequestState.hold`).
Hold = tuple[str, Hashable, tuple[Hashable, ...]]
#: Carried versions: ``((kind, token), …)`` (:attr:`RequestState.carried`).
Carried = tuple[tuple[str, str], ...]
#: A state's values, in the order of its fields (type-checked as they are).
_Values = tuple[
    str, str, Hold | None, Carried, int, Before | None, tuple[str, ...], bool, float, bytes,
    int, bool,
]  # fmt: skip
#: A state made of its values: ``_new(RequestState, (url, audit, …))``.
_new: Final[Callable[[type[RequestState], _Values], RequestState]] = tuple.__new__


def state_of(request: Request) -> RequestState | None:
    """The request's own state (``None``: none, or another request's in a copied meta).

    The one check of a state's validity: a :class:`RequestState` made for the request's
    URL. A spider that copies a page's meta into the requests it yields, and a redirect
    (``request.replace(url=…)``), give a request a state made for another URL, which says
    nothing about it. The functions of this module write the check out (on the request's
    path, a call each would cost); every other module calls this one."""
    state = request.meta.get(KEY)
    if type(state) is RequestState and state.url == request.url:
        return state
    return None


def any_state(request: Request) -> RequestState | None:
    """The state in the request's meta, whichever URL it was made for (a redirect's
    previous URL, a copied meta)."""
    state = request.meta.get(KEY)
    return state if type(state) is RequestState else None


def moved(state: RequestState, request: Request) -> bool:
    """Whether ``request``'s URL is no longer the one ``state`` was made for (changed in
    place by a downloader middleware, or a redirect's or a copied meta's state)."""
    return state.url != request.url


def decided_for_another(state: RequestState, request: Request) -> bool:
    """Whether ``state`` was decided on another request object than ``request``
    (:attr:`RequestState.owner`): a copy's (Scrapy's retry of it, or a copied meta: a
    callback's ``Request(response.url, meta=response.meta)``, a request read back from a
    queue on disk); ``False`` for a state never decided."""
    return state.owner != 0 and state.owner != id(request)


def record_id(request: Request | None) -> str:
    """The id of ``request``'s own audit record (``""``: none; :attr:`RequestState.audit`)."""
    if request is None:
        return ""
    state = request.meta.get(KEY)
    if type(state) is not RequestState or state.url != request.url:
        return ""
    return state.audit


def open_record(request: Request | None, records: Mapping[str, R]) -> R | None:
    """The audit trail's open record of ``request`` among ``records`` (by id), ``None``:
    none, or its state is not its own (one call: several times per request)."""
    if request is None:
        return None
    state = request.meta.get(KEY)
    if type(state) is not RequestState or state.url != request.url or not state.audit:
        return None
    return records.get(state.audit)


def before_of(request: Request | None) -> Before:
    """What the origin's documents said about ``request`` before it was sent
    (:data:`~rep_engine.verdict.policy.NOTHING_BEFORE`: nothing, or it was not checked)."""
    if request is None:
        return NOTHING_BEFORE
    state = request.meta.get(KEY)
    if type(state) is not RequestState or state.url != request.url or state.before is None:
        return NOTHING_BEFORE
    return state.before


# ---------------------------------------------------------------------- the transitions


def update(request: Request, **changes: Any) -> RequestState:
    """Replace the request's state with one with ``changes`` (a new state if it had none)."""
    state = state_of(request)
    new = RequestState(request.url, **changes) if state is None else state._replace(**changes)
    request.meta[KEY] = new
    return new


def decided_early(request: Request, token: int) -> None:
    """The early pass allowed ``request``: its verdict is kept under ``token``
    (:attr:`RequestState.early`)."""
    meta = request.meta
    state = meta.get(KEY)
    url = request.url
    if type(state) is RequestState and state.url == url:
        meta[KEY] = _new(RequestState, (
            url, state.audit, state.hold, state.carried, token, state.before, state.names,
            state.afresh, state.until, state.host, state.owner, state.overridden,
        ))  # fmt: skip
    else:
        meta[KEY] = _new(RequestState, (
            url, "", None, (), token, None, (), False, 0.0, b"", 0, False
        ))  # fmt: skip


def decided(
    request: Request,
    before: Before | None,
    names: tuple[str, ...],
    until: float,
    overridden: bool = False,
) -> bool:
    """``request`` goes on, decided for the crawler ``names`` with what the origin's
    documents said (``before``; ``None``: nothing), a verdict that holds ``until`` it is
    sent (:attr:`RequestState.until`), let through by an override or not (``overridden``):
    its early token is spent. Decided afresh once, it stays so
    (:attr:`RequestState.afresh`): its send decides it again at most once more for a
    version gone stale. The state is this request object's (:attr:`RequestState.owner`),
    decided with its ``Host`` header (:attr:`RequestState.host`). Whether an override let
    it through for the first time (:attr:`RequestState.overridden`)."""
    meta = request.meta
    state = meta.get(KEY)
    url = request.url
    headers = request.headers
    hosts = headers.getlist(b"Host") if headers else None
    host = hosts[-1] if hosts else b""
    if type(state) is RequestState and state.url == url:
        meta[KEY] = _new(RequestState, (
            url, state.audit, state.hold, state.carried, 0, before, names, state.afresh,
            until, host, id(request), state.overridden or overridden,
        ))  # fmt: skip
        return overridden and not state.overridden
    meta[KEY] = _new(RequestState, (
        url, "", None, (), 0, before, names, False, until, host, id(request), overridden
    ))  # fmt: skip
    return overridden


def sent_state(request: Request) -> RequestState | None:
    """The state ``request`` was decided with in this process, whichever URL it was made
    for (a downloader middleware may change the URL in place after the verdict): that of
    this very request object (:attr:`RequestState.owner`). ``None``: it was not decided
    here (not obeyed, no origin), and a state its meta brought from another request (a
    callback's ``meta=response.meta``) is that request's, not its own."""
    state = request.meta.get(KEY)
    if type(state) is RequestState and state.owner == id(request):
        return state
    return None


def recorded(request: Request, audit: str) -> None:
    """``request``'s audit record is ``audit`` (``""``: none; :attr:`RequestState.audit`)."""
    meta = request.meta
    state = meta.get(KEY)
    url = request.url
    if type(state) is RequestState and state.url == url:
        meta[KEY] = _new(RequestState, (
            url, audit, state.hold, state.carried, state.early, state.before, state.names,
            state.afresh, state.until, state.host, state.owner, state.overridden,
        ))  # fmt: skip
    else:
        meta[KEY] = _new(RequestState, (
            url, audit, None, (), 0, None, (), False, 0.0, b"", 0, False
        ))  # fmt: skip


def to_decide_afresh(request: Request) -> None:
    """``request`` carried a version past its freshness lifetime: the version it is
    released with next decides it (:attr:`RequestState.afresh`)."""
    update(request, afresh=True)


def follow_url(request: Request) -> RequestState | None:
    """A URL changed in place (by a downloader middleware) takes the state with it: the
    state made for the previous URL, now the new URL's (``None``: no state)."""
    state = any_state(request)
    if state is None:
        return None
    request.meta[KEY] = state._replace(url=request.url)
    return state


def mark_held(request: Request, hold: Hold) -> bool:
    """Mark ``request`` to be held for ``hold`` when it is scheduled (``True``); ``False``
    when it was marked for the same kind and key already, and came straight back: the
    mark is taken off (it waits in place)."""
    meta = request.meta
    state = meta.get(KEY)
    if type(state) is not RequestState or state.url != request.url:
        meta[KEY] = _new(RequestState, (
            request.url, "", hold, (), 0, None, (), False, 0.0, b"", 0, False
        ))  # fmt: skip
        return True
    mark = hold if state.hold is None or state.hold[:2] != hold[:2] else None
    meta[KEY] = state._replace(hold=mark)
    return mark is not None


def take_hold(request: Request) -> Hold | None:
    """The hold ``request`` is marked for, the mark taken off (``None``: not marked)."""
    meta = request.meta
    state = meta.get(KEY)
    if type(state) is not RequestState or state.hold is None or state.url != request.url:
        return None
    meta[KEY] = state._replace(hold=None)
    return state.hold


def add_carried(
    requests: Iterable[Request], pair: tuple[str, str], others: Callable[[Carried], Carried]
) -> None:
    """Each of ``requests`` carries the version named by ``pair`` (``(kind, token)``) too,
    and of those it carries already, ``others(carried)`` (a batch: one call)."""
    for request in requests:
        meta = request.meta
        state = meta.get(KEY)
        url = request.url
        if type(state) is not RequestState or state.url != url:
            meta[KEY] = _new(RequestState, (
                url, "", None, (pair,), 0, None, (), False, 0.0, b"", 0, False
            ))  # fmt: skip
            continue
        carried = (*others(state.carried), pair) if state.carried else (pair,)
        meta[KEY] = state._replace(carried=carried)


def take_carried(request: Request) -> Carried:
    """The versions ``request`` carries, taken off it (``()``: none); it carries again
    those of them :func:`carry_again` is given."""
    meta = request.meta
    state = meta.get(KEY)
    url = request.url
    if type(state) is not RequestState or state.url != url or not state.carried:
        return ()
    meta[KEY] = state._replace(carried=())
    return state.carried


def carry_again(request: Request, carried: Carried) -> None:
    """``request`` carries ``carried`` again: those of the versions :func:`take_carried`
    took off it that it keeps."""
    meta = request.meta
    state = meta.get(KEY)
    url = request.url
    if type(state) is not RequestState or state.url != url:
        meta[KEY] = _new(RequestState, (
            url, "", None, carried, 0, None, (), False, 0.0, b"", 0, False
        ))  # fmt: skip
        return
    meta[KEY] = state._replace(carried=carried)


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
