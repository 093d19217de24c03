"""May this request go? The one decision, on the facts of the request as it is sent (pure).

:func:`decide` takes what is known about one request (:class:`RequestFacts`: its URL and
origin, every crawler name it is held to, how much of robots.txt it obeys: :class:`Obey`),
the crawl's settings that decide (:class:`RequestRules`, its :class:`Override` exceptions)
and the version of each per-origin document the process knows (:data:`Known`), and
answers one value (:data:`Verdict`): :class:`Allowed`, :class:`Refused` or :class:`Wait`.

The crawl's downloader middleware (and its early pass before the scheduler), both
command-line tools, ``audit verify``'s re-derivation and the media gate ask this
function, so a request reads the same everywhere (docs/decisions.md, 'One request, one
verdict'). A new opt-out rule is one branch here.

The order (each step only for a request the previous ones allow):

1. no origin (``data:``, ``file:``, ``about:``; SPEC §3) or nothing obeyed
   (``ROBOTSTXT_OBEY = False`` without a purpose, Scrapy's ``dont_obey_robotstxt``):
   allowed, nothing checked;
2. robots.txt (SPEC §1, §5): its Allow/Disallow for every name the request is held to
   (the crawler's declared name, then the name it is sent as: docs/decisions.md, 'Every
   name a request can be held to'; the stricter answer wins), unless
   Allow/Disallow are not obeyed (then only a robots.txt given up on as unreachable
   refuses: its opt-outs are not known, docs/decisions.md 'Not obeying robots.txt keeps the
   purpose's opt-outs'), or the origin's host has an authorized override
   (``REP_OVERRIDES``: recorded as overridden) that has not expired when the request is
   sent (``now``, a number passed in: this module never reads the clock);
3. the groups of ``REP_PURPOSE_AGENTS`` (obeyed as the crawler's own; never overridden);
4. the further documents the purposes need: the origin's tdmrep.json for AI purposes,
   the RSL licenses of robots.txt's ``License:`` lines for a crawl with ``REP_PURPOSE``
   set (purpose-notes §9; RSL 1.0 §4.4): every one is asked for at once (so their
   fetches run together), and those known already may refuse before the others come;
   more than ``REP_RSL_MAX_LICENSES`` of them are none read and refuse every purpose
   (docs/decisions.md, 'At most REP_RSL_MAX_LICENSES licenses are read per robots.txt');
5. a tdmrep.json given up on as unreachable (``REP_UNREACHABLE_ACTION = "drop"``);
6. an explicit "no" for a purpose of the crawl in robots.txt (``Content-Usage``,
   ``Content-Signal``), tdmrep.json or those licenses (unknown never refuses before the
   fetch: the page may still say yes).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final, NamedTuple, TypeAlias

from rep_engine.fetch.kinds import ROBOTS_TXT, TDMREP, DocumentKind
from rep_engine.fetch.rsl_kind import RSL, licenses_not_read, licenses_to_wait_for
from rep_engine.records import Reason
from rep_engine.usage.rsl.terms import licenses_signals, owned_licenses
from rep_engine.usage.tdmrep import RESERVED_ALL
from rep_engine.verdict.policy import NOTHING_BEFORE, Before, UsagePolicy

if TYPE_CHECKING:
    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.robotstxt import Decision, RobotsTxt
    from rep_engine.urls.origins import Origin
    from rep_engine.usage.purpose import UsageSignal

#: The document kinds a request may need, by name (:class:`Wait`, :attr:`Used`).
ROBOTS: Final = ROBOTS_TXT.name
TDM: Final = TDMREP.name
LICENSE: Final = RSL.name
#: Each of them by its name: what a verdict's :attr:`Used` names (its record's field, its
#: URL, its parser).
KINDS: Final[Mapping[str, DocumentKind[Any]]] = {
    kind.name: kind for kind in (ROBOTS_TXT, TDMREP, RSL)
}

#: Every document version a verdict was reached with: ``(kind name, key, entry)``,
#: robots.txt first.
Used: TypeAlias = "tuple[tuple[str, Hashable, CacheEntry[Any]], ...]"
#: How a caller gives the documents it knows: the entry of ``(kind name, key)``, or
#: ``None`` when it has none usable now (the verdict is then :class:`Wait`).
Known: TypeAlias = "Callable[[str, Hashable], CacheEntry[Any] | None]"


class Obey(enum.Enum):
    """How much of robots.txt decides one request (``ROBOTSTXT_OBEY``,
    ``dont_obey_robotstxt`` and ``REP_PURPOSE``; docs/behaviour.md)."""

    #: Allow/Disallow, Crawl-delay and the purpose's opt-outs.
    ALL = "all"
    #: Only the purpose's opt-outs (robots.txt not obeyed, a purpose set).
    USAGE = "usage"
    #: Nothing (Scrapy's meaning: no purpose was set).
    NOTHING = "nothing"


def obey_of(obey_robots: bool, purpose_set: bool, dont_obey: bool = False) -> Obey:
    """How much of robots.txt decides a request: ``ROBOTSTXT_OBEY``, whether ``REP_PURPOSE``
    was set, and the request's ``dont_obey_robotstxt`` (docs/decisions.md, 'Not obeying
    robots.txt keeps the purpose's opt-outs')."""
    if obey_robots and not dont_obey:
        return Obey.ALL
    return Obey.USAGE if purpose_set else Obey.NOTHING


class RequestFacts(NamedTuple):
    """What is known about one request as it is sent."""

    url: str
    #: Its origin (``None``: ``data:``, ``file:``, ``about:``, no host; SPEC §3).
    origin: Origin | None
    #: The crawler's declared name: ``ROBOTSTXT_USER_AGENT``, else the crawler's name in
    #: ``USER_AGENT`` (:func:`rep_engine.robotstxt.useragent.crawler_name`).
    agent: str
    obey: Obey = Obey.ALL
    #: Every crawler name it is held to, :attr:`agent` first, then the name it is sent as
    #: when another (:func:`rep_engine.robotstxt.useragent.held_names`); empty:
    #: :attr:`agent` alone. Allowed only if allowed for every one; any one's "no" refuses.
    names: tuple[str, ...] = ()
    #: The origin of its URL, when its ``Host`` header addresses another site
    #: (:attr:`origin`; SPEC §3): the server at the URL's address answers it, so that
    #: origin's robots.txt and documents decide it too (docs/decisions.md, 'A request
    #: sent with another Host is decided by both sites'); ``None``: the same site.
    served_by: Origin | None = None


@dataclass(frozen=True, slots=True)
class Override:
    """An authorized exception to a host's robots.txt Allow/Disallow (``REP_OVERRIDES``,
    as Nutch's robots.txt allow-list): who authorized it, and until when."""

    #: As the crawl's URLs name it (lowercase, IDNA 2008).
    host: str
    reason: str
    #: When it expires, as ``REP_OVERRIDES`` gave it: a date (``2027-06-30``: through that
    #: day, UTC), or ISO 8601 date, time and zone
    #: (:func:`rep_engine.settings.overrides.override_expiry`).
    expires: str
    #: The instant it stops in POSIX seconds: a request sent then or later is not covered.
    ends: float

    @property
    def described(self) -> str:
        """Who authorized it and until when, as logs and the audit trail say it
        (``written permission of J. Doe, through 2027-06-30, UTC``)."""
        return f"{self.reason}, {expiry_words(self.expires)}"


def expiry_words(expires: str) -> str:
    """An override's expiry in words: a date holds through that day, UTC (``through
    2027-06-30, UTC``), a date and time until then (``until
    2026-11-25T01:00:00+14:00``). An expiry as earlier versions wrote a date (the next
    midnight, UTC) reads ``until 2027-07-01T00:00:00+00:00``, what it meant."""
    return f"through {expires}, UTC" if _DAY.fullmatch(expires) else f"until {expires}"


#: A date alone, as an override's expiry holds it.
_DAY: Final = re.compile(r"\d{4}-\d\d-\d\d", re.ASCII)


@dataclass(frozen=True)
class RequestRules:
    """The crawl's settings that decide a request (``REP_PURPOSE``, ``REP_PURPOSE_UNKNOWN``,
    ``REP_PURPOSE_AGENTS``, ``REP_RSL_LICENSES``, ``REP_RSL_MAX_LICENSES``,
    ``REP_OVERRIDES``), read once."""

    policy: UsagePolicy = field(default_factory=UsagePolicy)
    #: ``REP_PURPOSE_AGENTS``: further product tokens whose groups the crawl obeys.
    agents: tuple[str, ...] = ()
    #: ``REP_PURPOSE`` was set: its opt-outs hold even when robots.txt is not obeyed, and
    #: the RSL licenses of robots.txt's ``License:`` lines are read.
    purpose_set: bool = False
    #: ``REP_RSL_LICENSES``, normalised (:func:`rep_engine.usage.rsl.terms.owned_licenses`).
    rsl_owned: frozenset[str] = frozenset()
    #: Hosts (lowercase, IDNA) whose robots.txt Allow/Disallow an override lets through.
    overrides: Mapping[str, Override] = field(default_factory=dict)
    #: Keep robots.txt's deciding line for an allowed request too (the audit trail names
    #: it); without, an allowed request is matched without building a ``Decision``.
    explain: bool = False
    #: ``REP_RSL_MAX_LICENSES``: the most licenses read per robots.txt (``None``: no
    #: bound, as in the runs of trails written before the setting).
    max_licenses: int | None = None

    @classmethod
    def of(
        cls,
        purposes: Iterable[str] = ("search",),
        unknown: str = "allow",
        agents: Iterable[str] = (),
        purpose_set: bool = False,
        rsl_licenses: Iterable[str] = (),
        overrides: Iterable[Override] = (),
        explain: bool = False,
        max_licenses: int | None = None,
    ) -> RequestRules:
        return cls(
            UsagePolicy.of(purposes, unknown),
            tuple(agents),
            purpose_set,
            owned_licenses(rsl_licenses),
            {override.host: override for override in overrides},
            explain,
            max_licenses,
        )

    @cached_property
    def needs_tdmrep(self) -> bool:
        """Whether tdmrep.json decides requests (an AI purpose): read once."""
        return self.policy.needs_tdmrep

    def documents(self) -> tuple[str, ...]:
        """The kinds of document this crawl's requests may need, robots.txt first."""
        kinds = [ROBOTS]
        if self.policy.needs_tdmrep:
            kinds.append(TDM)
        if self.purpose_set:
            kinds.append(LICENSE)
        return tuple(kinds)


@dataclass(frozen=True, slots=True)
class Allowed:
    """The request may be sent."""

    #: The document versions it was decided with (robots.txt first; empty: nothing was
    #: checked).
    used: Used = ()
    #: robots.txt's verdict for the crawler's name (``None``: not matched: Allow/Disallow
    #: not obeyed, or kept only with :attr:`RequestRules.explain`).
    robots: Decision | None = None
    #: What the origin's documents said about it, for the check after the fetch.
    before: Before = NOTHING_BEFORE
    #: Allow/Disallow decided it (``False``: not obeyed, or nothing checked).
    obeyed: bool = False
    #: The override that let it through although robots.txt disallows it.
    overridden: Override | None = None
    #: The name whose group :attr:`robots` is, when not the crawler's declared name: the
    #: name it is sent as, whose ``Disallow`` alone the override let it past.
    robots_agent: str | None = None

    @property
    def checked(self) -> bool:
        """Whether any document was read for it."""
        return bool(self.used)

    @property
    def robots_entry(self) -> CacheEntry[RobotsTxt] | None:
        return self.used[0][2] if self.used else None


@dataclass(frozen=True, slots=True)
class Refused:
    """The request must not be sent, and why."""

    #: :attr:`~Reason.FORBIDDEN` (robots.txt disallows it, for the crawler or a
    #: ``REP_PURPOSE_AGENTS`` token), :attr:`~Reason.ROBOTSTXT_UNREACHABLE`,
    #: :attr:`~Reason.TDMREP_UNREACHABLE` (given up on) or :attr:`~Reason.PURPOSE` (an
    #: explicit "no" for a purpose of the crawl).
    reason: Reason
    #: One sentence, as logs, the ``request_refused`` signal and the audit trail say it.
    message: str
    #: The kind of the document that said no (``robots.txt``, ``tdmrep.json``, ``rsl``).
    document: str
    #: The agent whose robots.txt group decided (the crawler's declared name, the name the
    #: request is sent as, or a ``REP_PURPOSE_AGENTS`` token).
    agent: str
    #: The document versions it was decided with (robots.txt first).
    used: Used = ()
    #: robots.txt's verdict for :attr:`agent` (its deciding line): the refusing one when
    #: robots.txt refused, else the allowing one (kept with :attr:`RequestRules.explain`).
    robots: Decision | None = None
    #: The purpose denied (:attr:`Reason.PURPOSE`).
    purpose: str | None = None
    #: The signal that said no (:attr:`Reason.PURPOSE`).
    signal: UsageSignal | None = None
    #: What the origin's documents said (:attr:`Reason.PURPOSE`).
    before: Before = NOTHING_BEFORE
    #: The override of the origin's host that would have let it through, had it not
    #: expired (:attr:`Reason.FORBIDDEN`).
    expired: Override | None = None
    #: The override that let it past robots.txt's Allow/Disallow before a later step
    #: refused it (``tdmrep_unreachable``, ``purpose``): the record names it too.
    overridden: Override | None = None
    #: The name whose group :attr:`robots` is, when an override let the request past the
    #: ``Disallow`` of the name it is sent as alone (before a later step refused it).
    robots_agent: str | None = None

    @property
    def version(self) -> str:
        """The SHA-256 of the deciding document's body (``""``: a stand-in, no body)."""
        return next((entry.sha256 for kind, _key, entry in self.used if kind == self.document), "")

    @property
    def line(self) -> int | None:
        """The robots.txt line that refused it (1-based), if robots.txt did."""
        if self.document != ROBOTS or self.reason is Reason.PURPOSE or self.robots is None:
            return None
        return self.robots.line

    @property
    def statement(self) -> str | None:
        """What said no, in words: the robots.txt URL and its line, or the signal's
        source; ``None`` when nothing said it (a document given up on)."""
        if self.signal is not None:
            return self.signal.source
        if self.reason is Reason.FORBIDDEN and self.robots is not None and self.used:
            return f"{self.used[0][1]}/robots.txt {self.robots.explanation}"
        return None


@dataclass(frozen=True, slots=True)
class Wait:
    """A document the verdict needs is not known yet."""

    #: Its kind's name.
    document: str
    #: Its key: the origin (robots.txt, tdmrep.json) or the license URL (RSL).
    key: Hashable
    #: The document versions the verdict has used so far (robots.txt first).
    used: Used = ()
    #: Further keys of the same kind it waits for as well (RSL licenses, fetched
    #: together): whichever is known first may decide it.
    also: tuple[Hashable, ...] = ()


Verdict: TypeAlias = "Allowed | Refused | Wait"

#: A request nothing is checked for.
UNCHECKED: Final = Allowed()


#: The document a refusing signal before the fetch comes from, by its vocabulary: robots.txt's
#: ``Content-Usage`` and ``Content-Signal`` lines, tdmrep.json or an RSL license.
_DOCUMENT_OF: Final = {"tdmrep": TDM, "rsl": LICENSE}


def decide(
    facts: RequestFacts,
    rules: RequestRules,
    known: Known,
    now: float | None = None,
    robots: CacheEntry[RobotsTxt] | None = None,
) -> Verdict:
    """The verdict on one request (the order: the module's). ``now``: when it is sent (POSIX
    seconds), against which an override's expiry is held; ``None``: no override applies.
    ``robots``: the version of its origin's robots.txt ``known`` gives, when the caller has
    looked it up already (``None``: asked of ``known``)."""
    origin = facts.origin
    if origin is None or facts.obey is Obey.NOTHING:
        return UNCHECKED
    if facts.served_by is not None:
        return _decide_both(facts, rules, known, now)
    if robots is None:
        robots = known(ROBOTS, origin)
        if robots is None:
            return Wait(ROBOTS, origin)
    url, agent, names = facts.url, facts.agent, facts.names
    others = names[1:]  # the name it is sent as, when another (no call: the hot path)
    txt = robots.rules
    used: Used = ((ROBOTS, origin, robots),)
    decision: Decision | None = None
    overridden = None
    obeyed = facts.obey is Obey.ALL
    refusing = None  # the name it is sent as, when that one refuses it
    if obeyed:
        if rules.explain:
            decision = txt.decide(url, agent)
            allowed = decision.allowed
        else:  # the line that refused, from the one match (RobotsTxt.explain)
            code = txt.code(url, agent)
            allowed = code >= 0
            if not allowed:
                decision = txt.explain(code, agent)
        if allowed and others:  # stricter wins: any name's "no" refuses
            for other in others:
                if (code := txt.code(url, other)) < 0:
                    allowed, refusing, decision = False, other, txt.explain(code, other)
                    break
        if not allowed:
            found = _disallowed(facts, rules, robots, used, decision, refusing, now)
            if isinstance(found, Refused):
                return found
            overridden = found
    elif robots.unreachable and txt.verdict is False:
        return _robots_refusal(origin, robots, url, agent, used, None)
    # let through by an override: the line it went past (``decision``), and the name whose
    # group disallows it when only the name it is sent as does (``refusing``)
    past = refusing if overridden is not None else None
    for token in rules.agents:
        if (code := txt.code(url, token)) < 0:
            refused_by = txt.explain(code, token)
            return _robots_refusal(origin, robots, url, token, used, refused_by, named=True)
    if rules.needs_tdmrep or (rules.purpose_set and txt.licenses) or not txt.states_no_usage:
        return _after_robots(facts, rules, known, txt, used, decision, obeyed, overridden, past)
    return Allowed(used, decision, NOTHING_BEFORE, obeyed, overridden, past)  # nothing more


def _disallowed(
    facts: RequestFacts,
    rules: RequestRules,
    robots: CacheEntry[RobotsTxt],
    used: Used,
    decision: Decision | None,
    refusing: str | None,
    now: float | None,
) -> Refused | Override:
    """robots.txt disallows the request (for the name ``refusing`` alone, when it is
    not ``None``): refused, unless an override of its origin's host still applies at
    ``now`` to a robots.txt not given up on (the override returned, which lets it past).
    An override that has expired is named in the refusal."""
    origin = facts.origin
    assert origin is not None
    overridden = rules.overrides.get(origin.host) if rules.overrides else None
    expired = None
    if overridden is not None and (now is None or now >= overridden.ends):
        # no longer applies (None: no time known, so no override applies)
        expired, overridden = (overridden if now is not None else None), None
    if overridden is not None and not robots.unreachable:
        return overridden
    if refusing is not None:  # the refusing name's own line decides (``decision``)
        return _robots_refusal(
            origin, robots, facts.url, refusing, used, decision, expired, named=True
        )
    return _robots_refusal(origin, robots, facts.url, facts.agent, used, decision, expired)


def _after_robots(
    facts: RequestFacts, rules: RequestRules, known: Known, txt: RobotsTxt, used: Used,
    decision: Decision | None, obeyed: bool, overridden: Override | None, past: str | None,
) -> Verdict:  # fmt: skip
    """The verdict on a request robots.txt lets through, when more is read (steps 4 to 6
    of the module docstring; tdmrep.json's Wait first, a license's after any refusal)."""
    origin = facts.origin
    assert origin is not None
    tdm = None
    if rules.needs_tdmrep:
        tdm = known(TDM, origin)
        if tdm is None:
            return Wait(TDM, origin, used)
        used += ((TDM, origin, tdm),)
    licenses: list[tuple[str, Any]] = []
    pending: list[Hashable] = []
    if rules.purpose_set and txt.licenses:
        used = _licenses(txt, rules, known, used, licenses, pending)
    if tdm is not None and tdm.unreachable and tdm.rules is RESERVED_ALL:
        message = f"Dropped: tdmrep.json of {origin} {tdm.outcome}"
        return Refused(
            Reason.TDMREP_UNREACHABLE, message, TDM, facts.agent, used, decision,
            overridden=overridden, robots_agent=past,
        )  # fmt: skip
    before = NOTHING_BEFORE
    if tdm is not None or licenses or not txt.states_no_usage:
        rsl = licenses_signals(licenses, facts.url, rules.rsl_owned) if licenses else ()
        # for its crawler names, the name it is sent as and REP_PURPOSE_AGENTS' tokens
        others = facts.names[1:]
        further = (*others, *rules.agents) if others else rules.agents
        tdm_file = None if tdm is None else tdm.rules
        before = rules.policy.before_fetch(txt, facts.url, facts.agent, tdm_file, further, rsl)
        refusal = rules.policy.refuse_before(before) if before is not NOTHING_BEFORE else None
        if refusal is not None:
            signal = refusal.signal
            said = ROBOTS if signal is None else _DOCUMENT_OF.get(signal.vocabulary, ROBOTS)
            return Refused(
                Reason.PURPOSE, f"Not fetched: {refusal.message}", said,
                facts.agent, used, decision, purpose=refusal.purpose, signal=signal,
                before=before, overridden=overridden, robots_agent=past,
            )  # fmt: skip
    if pending:  # no license known so far refuses it: it waits for the others
        return Wait(LICENSE, pending[0], used, tuple(pending[1:]))
    return Allowed(used, decision, before, obeyed, overridden, past)


def documents_needed(
    origin: Origin, txt: RobotsTxt, rules: RequestRules
) -> list[tuple[str, Hashable]]:
    """The documents a request of ``origin`` needs besides its robots.txt (``txt``), in the
    order :func:`decide` reads them (``(kind name, key)``): its tdmrep.json for a purpose of
    TDMRep, then the RSL licenses robots.txt names for a purpose set, none when they are
    more than ``REP_RSL_MAX_LICENSES`` (the stand-in refuses then): what a re-check
    fetches, or finds in a WARC, for an origin's items."""
    needed: list[tuple[str, Hashable]] = [(TDM, origin)] if rules.needs_tdmrep else []
    if rules.purpose_set and txt.licenses:
        keys = licenses_to_wait_for(txt.licenses)
        if licenses_not_read(keys, rules.max_licenses) is None:
            needed += [(LICENSE, key) for key in keys]
    return needed


def _licenses(
    txt: RobotsTxt,
    rules: RequestRules,
    known: Known,
    used: Used,
    licenses: list[tuple[str, Any]],
    pending: list[Hashable],
) -> Used:
    """The RSL licenses robots.txt names (every crawler's: RSL's guide), each known one
    added to ``licenses`` (its rules) and to the versions ``used`` (returned), each not
    known yet to ``pending`` (:func:`~rep_engine.fetch.rsl_kind.licenses_not_read` past
    the bound)."""
    keys = licenses_to_wait_for(txt.licenses)
    beyond = licenses_not_read(keys, rules.max_licenses)
    if beyond is not None:
        licenses.append(beyond)
        keys = ()
    for key in keys:
        found = known(LICENSE, key)
        if found is None:
            pending.append(key)
            continue
        used += ((LICENSE, key, found),)
        licenses.append((key, found.rules))
    return used


def _decide_both(
    facts: RequestFacts, rules: RequestRules, known: Known, now: float | None
) -> Verdict:
    """The verdict on a request whose ``Host`` header addresses another site than its URL
    (:attr:`RequestFacts.served_by`): decided for the site addressed, then for the
    URL's own origin, whose server it reaches (SPEC §3: one robots.txt per origin; which
    one the site's owner meant is unclear, so the reading that refuses: docs/decisions.md,
    'A request sent with another Host is decided by both sites'). Either one's refusal
    refuses it (the refusal names that origin's document, its versions first); either
    one's document not known yet, it waits (carrying those read so far). Allowed by both:
    the addressed site's verdict (its robots.txt first, its ``Crawl-delay``, what its
    documents said for the page's check), with the versions of both (its verdict holds
    while both are fresh)."""
    addressed = decide(facts._replace(served_by=None), rules, known, now)
    if not isinstance(addressed, Allowed):
        return addressed
    served_by = facts.served_by
    assert served_by is not None
    own = decide(facts._replace(origin=served_by, served_by=None), rules, known, now)
    if isinstance(own, Wait):
        return Wait(own.document, own.key, addressed.used + own.used, own.also)
    if isinstance(own, Refused):
        return own
    before = addressed.before if addressed.before is not NOTHING_BEFORE else own.before
    overridden = addressed.overridden or own.overridden
    return replace(addressed, used=addressed.used + own.used, before=before, overridden=overridden)


def _robots_refusal(
    origin: Origin,
    robots: CacheEntry[RobotsTxt],
    url: str,
    agent: str,
    used: Used,
    decision: Decision | None,
    expired: Override | None = None,
    named: bool = False,
) -> Refused:
    """robots.txt refuses ``url`` for ``agent``: forbidden, or dropped as unreachable (a
    robots.txt given up on: its opt-outs are not known; SPEC §4). ``expired``: the
    override of its host that no longer applies, which the sentence names. ``named``:
    ``agent`` is not the crawler's declared name (a ``REP_PURPOSE_AGENTS`` token, or the
    name the request is sent as), which the sentence names."""
    if decision is None:
        decision = robots.rules.decide(url, agent)
    if robots.unreachable:
        message = f"Dropped: robots.txt of {origin} {robots.outcome}"
        return Refused(Reason.ROBOTSTXT_UNREACHABLE, message, ROBOTS, agent, used, decision)
    token = f" for {agent}" if named else ""
    line = decision.line  # Decision.explanation, inline (a refusal's path)
    explained = decision.reason if line is None else f"line {line}: {decision.line_text}"
    message = f"Forbidden by {origin.robots_url}{token} ({explained})"
    if expired is not None:
        authorized = expiry_words(expired.expires)
        message += f"; its override in REP_OVERRIDES has expired (authorized {authorized})"
    return Refused(Reason.FORBIDDEN, message, ROBOTS, agent, used, decision, expired=expired)
