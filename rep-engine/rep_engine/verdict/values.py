"""The verdict's values (pure): what :func:`rep_engine.verdict.decide.decide` is given,
the facts of one request (:class:`RequestFacts`, :class:`Obey`), the crawl's settings that
decide (:class:`RequestRules`, its :class:`Override` exceptions) and the per-origin
documents the process knows (:data:`Known`), and the one value it answers
(:data:`Verdict`): :class:`Allowed`, :class:`Refused` or :class:`Wait`.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final, NamedTuple, TypeAlias

from rep_engine.fetch.kinds import ROBOTS_TXT, TDMREP
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.records import Reason
from rep_engine.usage.rsl.terms import owned_licenses
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
