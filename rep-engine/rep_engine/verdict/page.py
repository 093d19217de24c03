"""After the fetch: may this page's items be kept, its links followed, this file stored?
The one decision on a fetched resource (pure).

:func:`decide_page` takes the facts of the page (:class:`PageFacts`), the statements read
from the response (:class:`PageStatements`) and the crawl's settings that decide
(:class:`PageRules`), and answers one frozen :class:`PageVerdict`: the page's directives,
its usage decision for the crawl's purposes, and per action the refusal, if any (a
:class:`~rep_engine.verdict.decide.Refused`, the type of a request's refusal):

- keep the page's items: refused by ``noindex`` or an ``unavailable_after`` that has
  passed (SPEC §6), or by a "no" for a purpose of the crawl;
- follow its links: refused by ``nofollow`` (a link marked ``rel="nofollow"`` is the
  link's own fact, read by the crawl);
- store a downloaded file: refused by a "no" for a purpose of the crawl (with the file's
  own statements and, under ``REP_MEDIA_NOINDEX_MEANS_NO_AI``, its ``noindex`` /
  ``noimageindex``).

The statements are read by the rows of :data:`rep_engine.verdict.signals.PAGE_ROWS` and
folded by each row's rule: directives by the union of the restrictive ones, usage signals
by "any no wins", TDMRep by its precedence. The crawl's page pass and media gate,
``scrapy rep-robots --page`` / ``--purpose`` ask this function (docs/decisions.md, 'One
page, one verdict'); this module never reads the clock (``now``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Final, NamedTuple

from rep_engine.directives import EMPTY, PageDirectives, combine
from rep_engine.records import Reason
from rep_engine.usage.purpose import (
    UsageDecision,
    UsageSignal,
    file_index_signals,
    speaks_of_use,
    usage_decision,
)
from rep_engine.usage.tdmrep import NO_VALUES, TdmValues
from rep_engine.verdict.decide import Refused
from rep_engine.verdict.policy import NO_SIGNALS, NOTHING_BEFORE, Before, UsagePolicy
from rep_engine.verdict.signals import Binds, Field, Said, SignalRow, Where, rows_for

#: The document a page-level refusal names (:attr:`Refused.document`).
PAGE: Final = "page"


class PageFacts(NamedTuple):
    """What is known about one fetched resource besides what it says."""

    url: str
    #: The crawler tokens whose scoped statements apply (lowercased product tokens): every
    #: name its request was decided for, then ``REP_DIRECTIVE_TOKENS``.
    tokens: tuple[str, ...]
    #: What the origin's documents said before it was sent (``Allowed.before``).
    before: Before = NOTHING_BEFORE
    #: The response is an image (``Content-Type: image/*``): ``noimageai`` means ``noai``.
    image: bool = False
    #: The ``noimageai`` of the page that showed this image, as a sentence ("": none).
    embedded_by: str = ""
    #: A file a media pipeline downloaded (its ``noindex`` may be read as a no for AI).
    file: bool = False


class PageStatements(NamedTuple):
    """What one response says, as read for the table's page rows."""

    #: Its header fields that page rows read: ``(name lowercased, value)``, in order.
    headers: tuple[Field, ...] = ()
    #: Its meta tags that page rows read: ``(name lowercased, content)``, in order.
    meta: tuple[Field, ...] = ()
    #: The signals of the RSL licenses it names (purpose notes §9).
    licenses: tuple[UsageSignal, ...] = ()
    #: A file's own statements (XMP, C2PA), and the ``noimageai`` of the page that showed it.
    inside: tuple[UsageSignal, ...] = ()

    def also(
        self, licenses: tuple[UsageSignal, ...] = (), inside: tuple[UsageSignal, ...] = ()
    ) -> PageStatements:
        """The same statements, and ``licenses`` (a page's RSL licenses, known later) and
        ``inside`` (a file's own statements) too."""
        return PageStatements(
            self.headers, self.meta, (*self.licenses, *licenses), (*self.inside, *inside)
        )


#: A response that says nothing.
SAYS_NOTHING: Final = PageStatements()


@dataclass(frozen=True)
class PageRules:
    """The crawl's settings that decide a page (``REP_PURPOSE*``, the directive readings,
    ``REP_MEDIA_NOINDEX_MEANS_NO_AI``), read once."""

    policy: UsagePolicy = field(default_factory=UsagePolicy)
    #: A downloaded file's ``noindex`` / ``noimageindex`` is a no for the AI purposes.
    file_noindex_no_ai: bool = True

    @cached_property
    def rows(self) -> tuple[SignalRow, ...]:
        """The page rows this crawl reads (TDMRep's only with an AI purpose)."""
        return rows_for(self.policy.needs_tdmrep)


@dataclass(frozen=True, slots=True)
class PageVerdict:
    """What a fetched resource's statements allow, per action."""

    #: Its directives for our names, combined (SPEC §6).
    directives: PageDirectives
    #: Its usage decision for every purpose (the origin's signals and its own).
    usage: UsageDecision
    #: Its items must not be kept: ``noindex`` or a passed ``unavailable_after``.
    index: Refused | None = None
    #: It is denied for a purpose of the crawl (its items, or the file).
    purpose: Refused | None = None
    #: Its links must not be followed: ``nofollow``.
    follow: Refused | None = None
    #: The first name its statements were read for: the agent of its refusals.
    agent: str = ""


def decide_page(
    facts: PageFacts,
    statements: PageStatements,
    rules: PageRules,
    now: datetime | None = None,
) -> PageVerdict:
    """The verdict on one fetched resource (see the module docstring). ``now``: against
    which ``unavailable_after`` is held (``None``: the current time)."""
    said = _read(facts, statements, rules) if statements.headers or statements.meta else ()
    words: list[str] = []
    sources: list[str] = []
    usage: list[UsageSignal] = []
    tdm_header = tdm_meta = NO_VALUES
    for row, one in said:
        if one.words:
            words.extend(one.words)
            sources.append(one.source)
        if one.signal is not None:
            usage.append(one.signal)
        if one.tdm is not None:
            if row.where is Where.HEADER:
                tdm_header = one.tdm
            else:
                tdm_meta = one.tdm
    directives = combine(words, sources) if words else EMPTY
    decision = _usage(facts, statements, rules, directives, usage, (tdm_header, tdm_meta), now)
    agent = facts.tokens[0] if facts.tokens else ""
    purpose = None
    policy = rules.policy  # no signal refuses nothing, unless an unknown answer is a "no"
    refusal = (
        None if decision is NO_SIGNALS and not policy.unknown_denies else policy.refusal(decision)
    )
    if refusal is not None:
        purpose = Refused(
            Reason.PURPOSE,
            refusal.message,
            PAGE,
            agent,
            purpose=refusal.purpose,
            signal=refusal.signal,
            before=facts.before,
        )
    if directives is EMPTY:
        return PageVerdict(directives, decision, None, purpose, None, agent)
    return _with_directives(facts, said, directives, decision, purpose, agent, now)


def _usage(
    facts: PageFacts,
    statements: PageStatements,
    rules: PageRules,
    directives: PageDirectives,
    usage: list[UsageSignal],
    tdm: tuple[TdmValues, TdmValues],
    now: datetime | None,
) -> UsageDecision:
    """The page's usage decision: the origin's signals before it, its own usage signals,
    TDMRep (header, meta), directives, licenses and a file's own statements, folded."""
    policy = rules.policy
    before = facts.before
    tdm_header, tdm_meta = tdm
    indexing: tuple[UsageSignal, ...] = ()
    if facts.file and rules.file_noindex_no_ai:
        indexing = file_index_signals(directives, now)
    if (
        before is NOTHING_BEFORE
        and not usage
        and tdm_header is NO_VALUES
        and tdm_meta is NO_VALUES
        and not facts.embedded_by
        and not indexing
        and not statements.licenses
        and not statements.inside
        and (directives is EMPTY or not speaks_of_use(directives, readings=policy.readings))
    ):
        return NO_SIGNALS  # the usual page of a search crawl: nothing to fold
    signals = policy.fetched_signals(
        before, usage, tdm_header, tdm_meta, directives, facts.image, facts.embedded_by
    )
    return usage_decision((*signals, *indexing, *statements.licenses, *statements.inside))


def _with_directives(
    facts: PageFacts,
    said: Sequence[tuple[SignalRow, Said]],
    directives: PageDirectives,
    decision: UsageDecision,
    purpose: Refused | None,
    agent: str,
    now: datetime | None,
) -> PageVerdict:
    """The verdict of a page that has directives: its index and follow refusals too."""
    index = follow = None
    if directives.noindex or (
        directives.unavailable_after is not None and directives.is_expired(now)
    ):
        reason = Reason.NOINDEX if directives.noindex else Reason.UNAVAILABLE_AFTER
        message = f"{reason} by {_said_by(said, directives, reason, now)}"
        index = Refused(reason, message, PAGE, agent)
    if directives.nofollow:
        follow = Refused(Reason.NOFOLLOW, f"Not followed: {facts.url} says nofollow", PAGE, agent)
    return PageVerdict(directives, decision, index, purpose, follow, agent)


def _read(
    facts: PageFacts, statements: PageStatements, rules: PageRules
) -> list[tuple[SignalRow, Said]]:
    """What each page row reads from the response's fields, row by row (a meta row scoped
    to our names reads the meta tags named after them too). Loops, not comprehensions:
    this runs for every page that has a field to read."""
    tokens = facts.tokens
    said: list[tuple[SignalRow, Said]] = []
    for row in rules.rows:
        read = row.read
        if read is None:
            continue
        found: list[Field] = []
        if row.where is Where.HEADER:
            for one in statements.headers:
                if one[0] in row.fields:
                    found.append(one)
        else:
            scoped = row.binds is Binds.OUR_NAMES
            for one in statements.meta:
                if one[0] in row.fields or (scoped and one[0] in tokens):
                    found.append(one)
        if found:
            for one_said in read(found, tokens):
                said.append((row, one_said))
    return said


def _said_by(
    said: Sequence[tuple[SignalRow, Said]],
    directives: PageDirectives,
    reason: Reason,
    now: datetime | None,
) -> str:
    """Which of the page's statements said ``reason`` (``header X-Robots-Tag: none``,
    ``<meta name="robots" content="noindex">``), joined by "and" when several did (SPEC
    §6: they combine); if none can be told apart on its own, all."""
    saying = []
    for row, one in said:
        if not one.words:
            continue
        own = combine(one.words)
        if own.noindex if reason is Reason.NOINDEX else own.is_expired(now):
            saying.append(f"header {one.source}" if row.where is Where.HEADER else one.source)
    return " and ".join(saying) or "; ".join(directives.sources) or "the page"
