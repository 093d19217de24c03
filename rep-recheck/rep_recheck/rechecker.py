"""Each stored item decided now, by the crawl's own decisions (pure).

:class:`Rechecker` holds the settings a crawl would decide with (``REP_PURPOSE``,
``REP_PROFILE``, ``REP_OVERRIDES``, ``REP_PURPOSE_AGENTS``, ``REP_RSL_LICENSES``…, read
into :class:`~rep_engine.settings.RepConfig`, and the crawler's names) and decides one
URL with :func:`rep_engine.verdict.decide.decide` on its origin's documents
(:class:`~rep_recheck.documents.OriginDocuments`), as the crawl's downloader
middleware and ``check`` decide it; a page fetched again (``--pages``) is decided after
the fetch with :func:`rep_engine.verdict.page.decide_page`, as the crawl's page pass
decides it. The answer, :class:`Outcome`, is one of three statuses:

- ``kept``: allowed now (the item stays in the collection);
- ``refused``: the site says no now (robots.txt's Allow/Disallow, an AI-usage signal of
  robots.txt, tdmrep.json or an RSL license, or with ``--pages`` the page's own
  ``noindex``, ``X-Robots-Tag``, ``Content-Usage``, ``noai``…, or for an AI purpose its
  402 Payment Required: a price never paid grants nothing), or its robots.txt could
  not be had (a 5xx, a 429, a network failure, a capture that lost data): "the crawler
  MUST assume complete disallow" (RFC 9309 §2.3.1.4), unless ``REP_UNREACHABLE_ACTION
  = "allow"`` lets the crawl through;
- ``unknown``: the documents that decide it were not had (its origin's robots.txt not
  captured or not fetched; a tdmrep.json or license it needs not had, unless what was
  had refuses it already; a page that could not be fetched again, or that answered 402
  to a recheck without an AI purpose),
  or one that allows it was cut before 500 KiB, the least a crawler reads (RFC 9309
  §2.5: an archive's cut, not the crawl's own at 500 KiB): its lines before the cut may
  refuse an item, never allow one, as what the lines after it say is not known.

The hot path, per item: the item's ``scheme://authority`` looked up in a dict of the
spellings seen, each pointing at what is known of its origin (its
:class:`~rep_engine.urls.origins.Origin` and documents, made once per origin however many
ways its items spell it: ``http://user@a.example/x``, ``http://a.example?q``,
``HTTP://A.example:80/`` are one origin, as the crawl computes it), then the one decision.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass, fields, replace
from datetime import datetime, timezone
from typing import Any, ClassVar, Final

from rep_engine.directives import product_token
from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.procedure import cut_before_limit
from rep_engine.records import ITEM_NOT_HAD, NOT_HAD, ItemStatus, Reason, payment_said
from rep_engine.robotstxt import FIRST_DISALLOWED_STEP, Decision, RobotsTxt
from rep_engine.robotstxt.useragent import held_names
from rep_engine.settings import RepConfig
from rep_engine.settings.rules import page_rules, request_rules
from rep_engine.urls.encoding import ESCAPES_SPECIALS
from rep_engine.urls.origins import Origin, origin_of
from rep_engine.usage.tdmrep import NO_FILE
from rep_engine.verdict.decide import (
    TDM,
    Allowed,
    Obey,
    Refused,
    RequestFacts,
    RequestRules,
    Verdict,
    Wait,
    decide,
    obey_of,
)
from rep_engine.verdict.page import PAGE, PageFacts, PageStatements, PageVerdict, decide_page
from rep_engine.verdict.policy import TDM_PURPOSES
from rep_recheck.documents import KINDS, OriginDocuments, document_url, read_as_none

#: The most outcomes of refusing lines the fast path of a :class:`Rechecker` remembers,
#: over all its origins (for each, one per line refusing some items for a name; the
#: outcome of its allowed items is not counted), then it starts again: the memory a
#: recheck needs is its origins', whatever number of lines its items meet. An outcome
#: held holds no verdict past :data:`VERDICTS_HELD` (about 200 bytes each, with its URL
#: and its place in the memo; a verdict read, its sentence and its line, is about 600).
REFUSALS_MEMO: Final = 262_144
#: The most refusals' verdicts the outcomes of a :class:`Rechecker` hold once read (the
#: report's evidence reads one outcome's a few times in a row; the evidence memo holds
#: what it says), then they let them go and decide them again if read again.
VERDICTS_HELD: Final = 1_024
#: The most spellings of origins (``scheme://authority``) a :class:`Rechecker` remembers,
#: then it starts again: what is known of each origin is kept by the origin itself.
SPELLINGS_MEMO: Final = 65_536
#: A missing document's absent stand-in, to see whether what was had refuses already.
_NOT_HAD: Final = read_as_none("not had")
#: The same for a tdmrep.json given up on (its entry kept: the trail says it was not had;
#: a robots.txt given up on refuses: :data:`~rep_engine.records.ITEM_NOT_HAD`).
_GIVEN_UP: Final = {TDM: NO_FILE}


@dataclass(frozen=True, slots=True)
class Outcome:
    """An item's status now, and what decided it."""

    status: ItemStatus
    #: The verdict before the fetch (``None``: its origin's documents were not had).
    verdict: Verdict | None
    documents: OriginDocuments | None
    #: Why its status is unknown (``""``: it is not).
    why: str = ""
    #: The page's verdict after the fetch (``--pages``).
    page: PageVerdict | None = None
    #: The page's refusal (``noindex``, ``unavailable_after``, a purpose).
    page_refusal: Refused | None = None
    #: The name whose robots.txt group refuses the items of a refused outcome of the
    #: fast path (:class:`_Later`), known without its verdict where the crawler is held
    #: to its own name alone (``None``: any other outcome, whose verdict says it): its
    #: refusal is robots.txt's Disallow line for it, which a filter counts by this alone.
    refusing_agent: ClassVar[str | None] = None
    #: What the page said of the price it asked, answered 402 (``None``: it was not).
    payment: dict[str, str] | None = None

    @property
    def refusal(self) -> Refused | None:
        """What refused it: the page, or the verdict before the fetch."""
        if self.page_refusal is not None:
            return self.page_refusal
        return self.verdict if isinstance(self.verdict, Refused) else None


#: The slot that holds an :class:`Outcome`'s verdict (a :class:`_Later` fills it late).
_VERDICT: Final = Outcome.__dict__["verdict"]
#: The slot of an :class:`Outcome`'s documents.
_DOCUMENTS: Final = Outcome.__dict__["documents"]
#: The slot of an :class:`Outcome`'s ``why``: a :class:`_Later` is never unknown (its
#: ``why`` is its class's ``""``) and holds there the URL its verdict is decided for.
_URL: Final = Outcome.__dict__["why"]


class _Later(Outcome):
    """An outcome of the fast path (:meth:`Rechecker.decide`), shared by the items of an
    origin it holds for: its allowed items, or those one robots.txt line refuses. Its
    :attr:`status` is known from the match; its :attr:`verdict` (the
    :class:`~rep_engine.verdict.decide.Allowed` or :class:`~rep_engine.verdict.decide.Refused`, its
    sentence, its line) is decided on first read, for the first of its items, as the full
    decision makes it (the same for each). A filter reads only the status, and most
    refusals are never printed: none of it is built for them. A refusal's verdict read
    is held until :data:`VERDICTS_HELD` more are (then decided again if read again: the
    same verdict), so that the refusals an origin's memo holds stay small: the slots of
    an :class:`Outcome` and nothing more (its documents, its URL in the slot of ``why``,
    its verdict once read). Each :class:`Rechecker` makes two subclasses
    (:func:`_later_type`), whose class holds the status and what they decide with. It
    holds no reference to its :class:`Rechecker`; the refusals whose verdict it holds
    are in a list the :class:`Rechecker` empties when it forgets its origins."""

    __slots__ = ()
    #: What every outcome of a :class:`Rechecker` decides with: its rules for an allowed
    #: item, for a refused one (``explain``), its names, and the refusals whose verdict
    #: is held (set on the class :func:`_later_type` makes).
    _shared: tuple[RequestRules, RequestRules, tuple[str, ...], list[_Later]]
    # The same for every such outcome: read from the class, not set on each (the slots
    # of Outcome stay empty, fewer stores when one is made).
    why: str = ""
    page: PageVerdict | None = None
    page_refusal: Refused | None = None
    payment: dict[str, str] | None = None

    def __init__(self, url: str, documents: OriginDocuments) -> None:
        _DOCUMENTS.__set__(self, documents)
        _URL.__set__(self, url)

    @property
    def verdict(self) -> Verdict | None:
        try:
            return _VERDICT.__get__(self)  # type: ignore[no-any-return]
        except AttributeError:
            documents = self.documents
            assert documents is not None
            allowed_by, refused_by, names, held = self._shared
            kept = self.status is ItemStatus.KEPT
            url = _URL.__get__(self)
            facts = RequestFacts(url, documents.origin, names[0], Obey.ALL, names)
            rules = allowed_by if kept else refused_by
            verdict = decide(facts, rules, documents.known, documents.now)
            wanted = Allowed if kept else Refused
            assert type(verdict) is wanted and getattr(verdict, "reason", None) not in NOT_HAD
            _VERDICT.__set__(self, verdict)
            if not kept:  # an allowed items' outcome keeps its verdict (one an origin)
                if len(held) >= VERDICTS_HELD:
                    for outcome in held:
                        _VERDICT.__delete__(outcome)
                    held.clear()
                held.append(self)
            return verdict

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Outcome):
            return NotImplemented
        return _fields(self) == _fields(other)

    def __hash__(self) -> int:
        return hash(_fields(self))

    def __repr__(self) -> str:
        values = ", ".join(
            f"{name}={value!r}" for name, value in zip(_NAMES, _fields(self), strict=True)
        )
        return f"Outcome({values})"


#: The fields of an :class:`Outcome`, in order.
_NAMES: Final = tuple(field.name for field in fields(Outcome))


def _fields(outcome: Outcome) -> tuple[Any, ...]:
    return tuple(getattr(outcome, name) for name in _NAMES)


def _replaced(outcome: Outcome, **changes: Any) -> Outcome:
    """``dataclasses.replace`` for any outcome: a plain :class:`Outcome` (a
    :class:`_Later`'s verdict decided now)."""
    return Outcome(**{**dict(zip(_NAMES, _fields(outcome), strict=True)), **changes})


def _later_type(
    status: ItemStatus, shared: tuple[RequestRules, RequestRules, tuple[str, ...], list[_Later]]
) -> type[_Later]:
    """A :class:`_Later` whose outcomes have ``status`` and decide with ``shared``."""
    made = type("_Later", (_Later,), {"__slots__": (), "status": status, "_shared": shared})
    return made


class _Known:
    """What a :class:`Rechecker` knows of one origin, made on its first item: one object,
    its fields in its own slots (the hot path reads two of them per item, one object
    read where a list reads two, its items apart)."""

    __slots__ = ("documents", "kept", "matchers", "one", "origin", "outcomes", "plain")

    def __init__(
        self,
        origin: Origin | None,
        documents: OriginDocuments | None,
        plain: RobotsTxt | None,
        matchers: tuple[Any, ...],
        one: Any,
    ) -> None:
        self.origin = origin
        self.documents = documents
        #: Its parsed robots.txt when its Allow/Disallow lines alone tell its items apart
        #: (the fast path), else ``None``.
        self.plain = plain
        #: The compiled rules of the names held to: one per group set, however many names
        #: select it; ``one``: the only one, matched inline.
        self.matchers = matchers
        self.one = one
        #: By ``RobotsTxt.first_disallowed``'s number, the outcome of the items one line
        #: refuses for one name (and ``0``: the allowed items'), each made once; with
        #: ``explain``, those of the items each Allow line allows too (by its number, or
        #: by the :class:`~rep_engine.robotstxt.Decision` that names it).
        self.outcomes: dict[Hashable, Outcome] = {}
        #: The outcome its allowed items share (made on the first of them).
        self.kept: Outcome | None = None


@dataclass(frozen=True)
class Identity:
    """Who the recheck decides for: the crawler's declared name (``ROBOTSTXT_USER_AGENT``,
    else ``USER_AGENT``), the ``User-Agent`` its requests are sent with, and whether
    robots.txt is obeyed (``ROBOTSTXT_OBEY``) and a purpose set (``REP_PURPOSE``)."""

    declared: str
    sent: str = ""
    obey_robots: bool = True
    purpose_set: bool = True


class Rechecker:
    """Decides items as a crawl with ``config`` and ``identity`` would, on the documents
    ``documents`` gives for each origin (``None``: none had)."""

    def __init__(
        self,
        config: RepConfig,
        identity: Identity,
        documents: Callable[[Origin], OriginDocuments | None],
        explain: bool = True,
    ) -> None:
        self.config = config
        self.identity = identity
        #: The crawl's request rules; with ``explain``, robots.txt's deciding line kept
        #: for an item it allows too (the report and the trail name it; a refusal always
        #: names its line).
        self.rules = replace(request_rules(config, identity.purpose_set), explain=explain)
        self._explained = replace(self.rules, explain=True)
        self.names = held_names(identity.declared, identity.sent)
        self.agent = self.names[0]
        self.obey = obey_of(identity.obey_robots, identity.purpose_set)
        self.page_rules = page_rules(config)
        #: The tokens a page's scoped statements are read for: every name, then
        #: ``REP_DIRECTIVE_TOKENS``.
        extra = (product_token(token) for token in config.directive_tokens)
        self.tokens = tuple(dict.fromkeys((*(n for n in self.names if n), *extra)))
        self.noindex_drops = config.noindex_action == "drop"
        #: Each origin's documents (``None``: none had).
        self.documents = documents
        #: The URL's start (``scheme://authority``) -> what is known of its origin
        #: (:class:`_Known`), once per origin. The fast path: an origin whose items only
        #: its Allow/Disallow lines tell apart has its outcomes made once, not once per
        #: item (at most :data:`REFUSALS_MEMO` refusals over all the origins, then
        #: :meth:`_later` starts every origin's again).
        self._origins: dict[str, _Known] = {}
        #: The same by origin (``None``: a URL robots.txt does not apply to): one
        #: origin's documents are asked for once, however many ways it is spelt; at most
        #: ``REP_RECHECK_PARSED_ORIGINS`` of them, then it starts again.
        self._by_origin: dict[Origin | None, _Known] = {}
        #: The names whose robots.txt groups decide, in the order they are asked: the
        #: crawler's, then those of ``REP_PURPOSE_AGENTS``.
        self._held = (self.agent, *self.rules.agents)
        fast = self.obey is Obey.ALL and len(self.names) == 1
        self._fast = fast and not self.rules.overrides
        #: Whether an allowed item's outcome names robots.txt's line that allows it
        #: (``explain``: a report, a trail): then the fast path shares one outcome per
        #: allowing line (and one for no line) of an origin, not one per origin.
        self._lines = explain
        #: Decisions made (a load-independent count for the benchmark).
        self.decisions = 0
        #: Times the origins seen were forgotten (a holder of outcomes lets them go then).
        self.forgotten = 0
        #: Origins whose documents were asked for (``documents``): each origin once while
        #: its documents are held, once more each time it comes back after they were
        #: forgotten (a parse; a recheck groups its items by origin when these grow:
        #: :mod:`~rep_recheck.grouping`).
        self.asked = 0
        self._shared_outcomes()

    #: The kinds of document its decisions need that are not consulted (:meth:`consulting`).
    not_consulted: tuple[str, ...] = ()

    def consulting(self, kinds: Collection[str] | None) -> Rechecker:
        """Itself, deciding on the kinds of document ``kinds`` names (``--consult``:
        robots.txt, and tdmrep.json, rsl, as :data:`~rep_recheck.documents.KINDS` names
        them; ``None``: every kind the purpose needs), the others read as none."""
        self.not_consulted = tuple(k for k in self.rules.documents() if k not in (kinds or KINDS))
        return self

    def _shared_outcomes(self) -> None:
        """What the fast path's shared outcomes are made with: a class each for the
        allowed and the refused, the refusals whose verdict is held, the counts."""
        #: Outcomes the fast path made (a load-independent count for the benchmark).
        self.made = 0
        self._outcomes = 0  #: The refusals the origins' memos hold.
        #: The refusals whose verdict is held (at most :data:`VERDICTS_HELD`).
        self._verdicts_held: list[_Later] = []
        shared = (self.rules, self._explained, self.names, self._verdicts_held)
        self._kept = _later_type(ItemStatus.KEPT, shared)
        self._refused = _later_type(ItemStatus.REFUSED, shared)
        if len(set(self._held)) == 1:  # one name, one group set: the refusing name
            self._refused.refusing_agent = self.agent

    def _known(self, url: str, key: str) -> _Known:
        """What is known of ``url``'s origin, made on its origin's first item and
        remembered by ``key``, the URL's start up to the first ``/``, ``?`` or ``#`` after
        ``//`` (``scheme://authority``: the same start is the same origin, the value is
        made from the URL itself), and by the origin: another spelling of a known origin
        (userinfo, case, a default port) shares its documents."""
        origin = origin_of(url)
        known = self._by_origin.get(origin)
        if known is None:
            if len(self._by_origin) >= self.config.recheck_parsed_origins:
                self.forget()  # no more origins' documents held than the setting says
            documents = None
            if origin is not None:
                self.asked += 1
                documents = self.documents(origin)
            if documents is not None:
                documents.not_consulted = self.not_consulted
            if documents is not None and documents.origin == origin:
                origin = documents.origin  # one object per origin kept, not two
            plain: RobotsTxt | None = None
            matchers: tuple[Any, ...] = ()
            one = None
            # the fast path's outcomes decide on their documents' origin: the same one
            if self._fast and documents is not None and documents.origin is origin:
                plain = self._plain_rules(documents)
            if plain is not None:
                matchers = plain.matchers(self._held)
                one = matchers[0] if len(matchers) == 1 and _as_given(plain) else None
            known = _Known(origin, documents, plain, matchers, one)
            self._by_origin[origin] = known
        if len(self._origins) >= SPELLINGS_MEMO:
            self._origins.clear()
        self._origins[key] = known
        return known

    def forget(self) -> None:
        """Forget the origins seen (their documents changed, or too many are held)."""
        self.forgotten += 1
        self._origins.clear()
        self._by_origin.clear()
        self._outcomes = 0
        self._verdicts_held.clear()

    def decide(self, url: str) -> Outcome:
        """``url``'s status now, before any fetch of the page."""
        self.decisions += 1
        # The usual URL (http(s), a path): its start and its path by one match, as
        # _spelling and robots.txt's path_of find them (the hot path); the path in group
        # 2 when matched as it is (matched_as_given's first two tests), else in group 3.
        found = _START_PATH(url)
        if found is not None:
            key = found[1]
            given = found[2]
            path = given if given is not None else found[3]
        else:
            key = _spelling(url)
            path = given = None
        try:  # one lookup, no call (the hot path): a new spelling raises once
            known = self._origins[key]
        except KeyError:
            known = self._known(url, key)
        # One match per group set of the names held to: the first refusing name and its
        # line, as one number (0: every name allows it).
        one = known.one
        # A path matched as it is (``given``): ``one`` is set only where the profile
        # encodes no "*" or "$" (_as_given), matched_as_given's third test.
        kept = False
        if one is not None and given is not None:
            # RobotsTxt.first_disallowed_path inline for one group set and a path matched
            # as it is (the hot path): its number, position 1.
            code = one.match(path)
            if code >= 0:  # allowed: the outcome its allowed items share
                if not self._lines:
                    outcome = known.kept
                    return outcome if outcome is not None else self._later(url, known, 0, True)
                # explain: one outcome per allowing line (its number; 0: none), as
                # RobotsTxt.decide names it, but for robots.txt itself (RFC 9309 §2.2.2)
                if path == "/robots.txt":
                    return self._decide(url, known.origin, known.documents, self.rules)
                kept = True
            elif path == "/robots.txt":  # RFC 9309 §2.2.2: the file's own rules decide
                if self._lines:
                    return self._decide(url, known.origin, known.documents, self.rules)
                code = known.plain.first_disallowed_path(path, known.matchers)  # type: ignore[union-attr]
            else:
                code = 1 + code * FIRST_DISALLOWED_STEP
        else:
            rules = known.plain
            if rules is None:  # not the fast path: the full decision
                return self._decide(url, known.origin, known.documents, self.rules)
            if path is None:
                code = rules.first_disallowed(url, known.matchers)
            else:
                code = rules.first_disallowed_path(path, known.matchers)
            if code == 0 and self._lines:  # explain: one outcome per robots.txt decision
                return self._allowed_by(url, known, rules.decide(url, self.agent))
        outcomes = known.outcomes  # one memo for all the origin's spellings
        if code in outcomes:
            return outcomes[code]
        return self._later(url, known, code, kept)

    def _allowed_by(self, url: str, known: _Known, decision: Decision) -> Outcome:
        """The outcome of ``known``'s allowed items whose robots.txt decision (for the
        crawler's name, which an allowed item's verdict names) is ``decision``: its line,
        or why none decided (no rule, no group, robots.txt itself), one for them all."""
        outcome = known.outcomes.get(decision)
        return outcome if outcome is not None else self._later(url, known, decision, True)

    def _later(self, url: str, known: _Known, code: Hashable, kept: bool = False) -> Outcome:
        """The outcome :meth:`decide` gives the items of ``known``'s origin that
        :meth:`~rep_engine.robotstxt.RobotsTxt.first_disallowed` numbers ``code`` (``0``:
        allowed for every name), or that are allowed (``kept``) by the line ``code``
        numbers or the decision it is (``explain``), made on the first of them and
        remembered."""
        self.made += 1
        outcomes = known.outcomes
        documents = known.documents
        assert documents is not None  # the fast path's: its origin's documents were had
        if code == 0:  # one an origin: not counted, never let go before its origin
            outcome = known.kept = self._kept(url, documents)
        else:
            if self._outcomes >= REFUSALS_MEMO:
                self._let_refusals_go()
            self._outcomes += 1
            # Its verdict decided when first read (a filter reads only the status), with
            # the line kept (``explain``): the refusal is the same (it names its line
            # either way), its line found by one match instead of two; an allowed one's
            # (explain) names the line its items share.
            outcome = (self._kept if kept else self._refused)(url, documents)
        outcomes[code] = outcome
        return outcome

    def _let_refusals_go(self) -> None:
        """Every origin's memo starts again, its allowed items' outcome kept."""
        for known in self._by_origin.values():
            outcomes = known.outcomes
            kept = outcomes.get(0)
            outcomes.clear()
            if kept is not None:
                outcomes[0] = kept
        self._outcomes = 0

    def _plain_rules(self, documents: OriginDocuments) -> RobotsTxt | None:
        """The origin's robots.txt when its Allow/Disallow lines alone tell its items
        apart (for this crawler: no AI-usage line, no license, no tdmrep.json or none
        found, nothing given up on or cut before 500 KiB), else ``None``. Then every item
        it allows has the same verdict, made once (:meth:`decide`)."""
        robots = documents.robots
        if robots is None or robots.unreachable or any(map(_cut, documents.entries.values())):
            return None
        txt: RobotsTxt = robots.rules
        if not txt.states_no_usage or (self.rules.purpose_set and txt.licenses):
            return None
        if self.rules.needs_tdmrep:
            tdm = documents.known(TDM, documents.origin)
            if tdm is None or tdm.unreachable or tdm.rules is not NO_FILE:
                return None
        return txt

    def _decide(
        self,
        url: str,
        origin: Origin | None,
        documents: OriginDocuments | None,
        rules: RequestRules,
    ) -> Outcome:
        if documents is None or origin is None:
            since = getattr(self.documents, "not_had_since", None)  # a WARC's: --as-of
            later = since(origin) if since is not None and origin is not None else ""
            why = f"no robots.txt of {origin} was had{later}"
            return Outcome(ItemStatus.UNKNOWN, None, None, why)
        facts = RequestFacts(url, origin, self.agent, self.obey, self.names)
        verdict = decide(facts, rules, documents.known, documents.now)
        if type(verdict) is Allowed:
            cut = next((e for e in verdict.used if _cut(e[2])), None)
            if cut is not None:  # what its lost part says is not known: as if not had
                why = (f"{document_url(cut[0], cut[1])} was cut before 500 KiB "
                       f"({cut[2].outcome}): its lines before the cut allow it, what the "
                       "lines after it say is not known")  # fmt: skip
                return Outcome(ItemStatus.UNKNOWN, verdict, documents, why)
            return Outcome(ItemStatus.KEPT, verdict, documents)
        if isinstance(verdict, Wait):
            return self._missing(facts, rules, verdict, documents)
        assert isinstance(verdict, Refused)
        if verdict.reason in ITEM_NOT_HAD:
            return self._missing(facts, rules, verdict, documents)
        return Outcome(ItemStatus.REFUSED, verdict, documents)

    def _missing(
        self,
        facts: RequestFacts,
        rules: RequestRules,
        wait: Wait | Refused,
        documents: OriginDocuments,
    ) -> Outcome:
        """A document it needs was not had (not captured or fetched: ``wait``; given up
        on: its refusal): refused all the same if what was had refuses it (each further
        document can only add a "no": a ``Content-Usage``, ``Content-Signal`` or RSL
        "no" is not lost to a tdmrep.json given up on), else unknown."""
        what = (
            wait.message
            if isinstance(wait, Refused)
            else documents.missing.get(wait.document)
            or f"the {wait.document} of {wait.key} was not had"
        )

        def or_absent(kind: str, key: Hashable) -> CacheEntry[Any] | None:
            found = documents.known(kind, key)
            if found is None:
                return _NOT_HAD.get(kind)
            if found.unreachable and kind in _GIVEN_UP:  # read as none, still not had
                return replace(found, rules=_GIVEN_UP[kind])
            return found

        verdict = decide(facts, rules, or_absent, documents.now)
        if isinstance(verdict, Refused) and verdict.reason not in ITEM_NOT_HAD:
            return Outcome(ItemStatus.REFUSED, verdict, documents)
        return Outcome(ItemStatus.UNKNOWN, wait, documents, what)

    # ------------------------------------------------------------------ after the fetch

    def after_fetch(
        self,
        url: str,
        outcome: Outcome,
        statements: PageStatements,
        now: float,
        image: bool = False,
    ) -> Outcome:
        """A kept item's page fetched again: its own statements decide too, as the crawl's
        page pass decides them (``noindex`` and ``unavailable_after`` drop its items under
        ``REP_NOINDEX_ACTION = "drop"``; a "no" for a purpose of the recheck)."""
        verdict = outcome.verdict
        if outcome.status is not ItemStatus.KEPT or not isinstance(verdict, Allowed):
            return outcome
        facts = PageFacts(url, self.tokens, verdict.before, image)
        when = datetime.fromtimestamp(now, timezone.utc)
        page = decide_page(facts, statements, self.page_rules, when)
        refusal = page.index if page.index is not None and self.noindex_drops else None
        refusal = refusal or page.purpose
        status = ItemStatus.REFUSED if refusal is not None else ItemStatus.KEPT
        return _replaced(outcome, status=status, page=page, page_refusal=refusal)

    def payment_asked(self, outcome: Outcome, payment: dict[str, str]) -> Outcome:
        """A kept item's page answered 402 Payment Required (``payment``: what it said of
        its price): the site asks a price for the crawl, which is never paid. For an AI
        purpose a price not paid grants nothing, as an RSL license whose payment is not
        held (docs/purpose-notes.md §9): refused by its page, for the first AI purpose of
        the recheck, and ``--keep-unknown`` does not keep it. Without one, what the page
        says now is not known (its content was not served): unknown, as a page not
        fetched again (docs/recheck.md, 'A page that answers 402')."""
        if outcome.status is not ItemStatus.KEPT:
            return outcome
        asked = f"its page answered 402 Payment Required{_price(payment)}"
        purpose = next((p for p in self.rules.policy.purposes if p in TDM_PURPOSES), None)
        if purpose is None:
            why = f"page not fetched again: {asked}, never paid"
            return _replaced(outcome, status=ItemStatus.UNKNOWN, why=why, payment=payment)
        message = f"{purpose} denied: {asked}, a price for the crawl never paid"
        refusal = Refused(Reason.PURPOSE, message, PAGE, self.agent, purpose=purpose)
        return _replaced(outcome, status=ItemStatus.REFUSED, page_refusal=refusal, payment=payment)

    def page_failed(self, outcome: Outcome, why: str) -> Outcome:
        """A kept item's page could not be fetched again: what it says now is not known."""
        if outcome.status is not ItemStatus.KEPT:
            return outcome
        return _replaced(outcome, status=ItemStatus.UNKNOWN, why=f"page not fetched again: {why}")


def _price(payment: dict[str, str]) -> str:
    """What a 402 said of its price, as its sentence adds it (``""``: nothing)."""
    said = payment_said(payment)
    return f" ({said})" if said else ""


def _as_given(robots: RobotsTxt) -> bool:
    """Whether ``robots`` matches an ASCII path without ``%`` as it is: its percent-encoding
    does not escape ``*`` and ``$`` (as :meth:`RobotsTxt.first_disallowed_path` reads it)."""
    return robots.options.percent_encoding not in ESCAPES_SPECIALS


def _spelling(url: str) -> str:
    """``url``'s start up to its path, query or fragment (``scheme://authority``)."""
    found = _START(url)  # the usual URL: its first "/" starts "//"
    if found is not None:
        return found.group()
    start = url.find("//") + 2
    end = len(url)
    for mark in "/?#":
        found_at = url.find(mark, start, end)
        if found_at >= 0:
            end = found_at
    return url[:end]


#: A URL's start when its first ``/`` starts its first ``//``: up to the next ``/``,
#: ``?`` or ``#`` (what :func:`_spelling` finds, in one call).
_START: Final = re.compile(r"[^/]*//[^/?#]*").match
#: An http(s) URL's start (as :data:`_START` finds it) and its path, parameters and
#: query (as :data:`rep_engine.urls.encoding.HTTP_PATH` finds them): both by one match,
#: the path in group 2 when it holds only ASCII characters and no ``%`` (the first two
#: tests of :func:`~rep_engine.urls.encoding.matched_as_given`, made in the same scan),
#: else in group 3.
_START_PATH: Final = re.compile(
    r"(https?://[^/?;#]*)(?:(/[\x00-\x22\x24\x26-\x7f]*)(?![^#])|(/[^#]*))"
).match


def _cut(entry: CacheEntry[Any]) -> bool:
    """Whether ``entry``'s document was cut before 500 KiB (RFC 9309 §2.5): its lines
    may refuse an item, never allow one (docs/decisions.md, 'A document an archive cut
    before 500 KiB may refuse, never allow')."""
    return entry.truncated and cut_before_limit(entry.outcome)
