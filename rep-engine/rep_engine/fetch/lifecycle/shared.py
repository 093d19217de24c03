"""What a download or a give-up comes to (SPEC §4): the cache entries of
:class:`rep_engine.fetch.lifecycle.Lifecycle`, as pure functions of the document kind, the
policy and the time, and how often a process waiting for another one's download looks
at the shared store. No step changes here: the transitions are all in
:mod:`rep_engine.fetch.lifecycle.machine`."""

from __future__ import annotations

import hashlib
import re
import zlib
from typing import Final, TypeVar

from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import DocumentKind
from rep_engine.fetch.lifecycle.state import seconds
from rep_engine.fetch.procedure import Fetched
from rep_engine.fetch.rules import Effect, Policy

D = TypeVar("D")

#: How often a process waiting for another one's download looks at the store (seconds).
LEASE_POLL: Final = 0.2
#: What a give-up verdict's outcome says of the held requests, by whether they go on (a
#: recheck's document not had from a capture says it of its items: :mod:`rep_recheck.warc`).
GAVE_UP_FATE: Final = {
    True: "treated as allowed (REP_UNREACHABLE_ACTION)",
    False: "requests dropped",
}
#: A give-up verdict's outcome (:func:`gave_up_outcome`), wherever it is quoted, or a
#: recheck's of a capture (:func:`rep_recheck.warc.captured_as`: ``captured as 503
#: in record <urn:…> at … (503: …): requests dropped``).
_GAVE_UP_SAID: Final = re.compile(
    r"(?:unreachable for \S+ s|captured (?:as \S+ )?in record \S+ at .+?) \(.*\): ("
    + "|".join(re.escape(fate) for fate in GAVE_UP_FATE.values())
    + ")",
    re.DOTALL,
)


def downloaded_entry(
    kind: DocumentKind[D],
    policy: Policy,
    fetched: Fetched,
    now: float,
    body_zlib: bytes = b"",
    digest: bool = True,
) -> CacheEntry[D]:
    """The entry of the site's answer: the parsed document, or the absent stand-in (a
    4xx, SPEC §4 "unavailable"), fresh for its ``Cache-Control`` lifetime and usable
    while stale up to the stale limit. A request another component refused is not the
    site's answer: for a kind that ``ignored_gives_up``, the give-up verdict at once.
    ``body_zlib``: the body already as a zlib stream (a WARC's capture), not compressed
    again; ``digest``: its SHA-256 made (not by a recheck that writes no evidence: its
    :attr:`~rep_engine.fetch.cache.CacheEntry.sha256` is then ``""``)."""
    lifetime = policy.lifetime(fetched.cache_control)
    if fetched.kind == "ignored" and kind.ignored_gives_up:  # as after REP_UNREACHABLE_MAX_WAIT
        allow = policy.allows_after_giving_up(policy.max_wait)
        return stand_in_entry(kind, allow, fetched.outcome, lifetime, now)
    parsed = fetched.effect is Effect.PARSE
    rules = kind.read(fetched.body, fetched.truncated) if parsed else kind.absent
    body_zlib = (body_zlib or zlib.compress(fetched.body)) if parsed else b""
    return CacheEntry(
        rules, fetched.outcome, now, now + lifetime, now + lifetime + policy.stale_max,
        fetched.status, body_zlib, False, kind.size_of(rules, fetched.body) + len(body_zlib),
        hashlib.sha256(fetched.body).hexdigest() if parsed and digest else "", fetched.final_url,
        parsed and fetched.truncated,
    )  # fmt: skip


def gave_up_entry(
    kind: DocumentKind[D], allow: bool, waited: float, last: str, lifetime: float, now: float
) -> CacheEntry[D]:
    """The give-up verdict (SPEC §4 "unreachable") after ``waited`` seconds, the last
    attempt having come to ``last`` (:func:`stand_in_entry`)."""
    return stand_in_entry(kind, allow, gave_up_outcome(waited, last, allow), lifetime, now)


def gave_up_outcome(waited: float, last: str, allow: bool) -> str:
    """The outcome of a give-up verdict, as the log, the ``robotstxt_fetched`` signal and
    the audit trail's ``why`` say it: ``unreachable for 600 s (503 Service Unavailable):
    requests dropped``, or ``…: treated as allowed (REP_UNREACHABLE_ACTION)``."""
    return f"unreachable for {seconds(waited)} s ({last}): {GAVE_UP_FATE[allow]}"


def given_up_allowing(said: str) -> bool | None:
    """Whether the give-up verdict quoted in ``said`` (:func:`gave_up_outcome`, e.g. in a
    trail's ``why``: ``robots.txt unreachable for …``) let the held requests through;
    ``None`` when ``said`` quotes none. Only for text already written (trails of earlier
    runs): the crawl carries the verdict itself (:attr:`CacheEntry.unreachable` and the
    stand-in's rules)."""
    found = _GAVE_UP_SAID.search(said)
    return None if found is None else found.group(1) == GAVE_UP_FATE[True]


def stand_in_entry(
    kind: DocumentKind[D], allow: bool, outcome: str, lifetime: float, now: float
) -> CacheEntry[D]:
    """A give-up verdict: the kind's absent (``allow``) or unreachable stand-in, marked
    as given up on, for ``lifetime``, never stale (it is tried again when it expires)."""
    rules = kind.stand_in(allow)
    return CacheEntry(rules, outcome, now, now + lifetime, now + lifetime, None, b"", True)
