"""The shape of a row of the table of signals (:data:`rep_engine.verdict.signals.SIGNALS`):
where a statement is read, whose names it binds, what it may refuse, how its values
combine, and what a page row's reader says. Values only: :mod:`rep_engine.verdict.signals`
holds the readers and the table, and re-exports these names."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rep_engine.records import Action, Word
from rep_engine.usage.purpose import Purpose, UsageSignal
from rep_engine.usage.tdmrep import TdmValues

#: A field as the page gives it: ``(name, value)``, the name lowercased (a header's name,
#: or a meta tag's ``name``).
Field = tuple[str, str]


class Where(Word):
    """Where a statement is read."""

    ROBOTS_TXT = "robots.txt"
    TDMREP_JSON = "tdmrep.json"
    LICENSE = "RSL license"
    HEADER = "response header"
    META = "meta tag"
    #: The page that links to a resource (its ``noimageai`` covers the images it shows).
    LINKING_PAGE = "linking page"
    #: Inside the downloaded file (XMP, C2PA).
    FILE = "file"


class Binds(Word):
    """Whose behaviour a statement speaks to."""

    #: Every crawler.
    EVERYONE = "everyone"
    #: ``*`` (or no name) and the crawler names it scopes: only the names the request was
    #: decided for and ``REP_DIRECTIVE_TOKENS`` apply; another crawler's never becomes ours.
    OUR_NAMES = "our names"
    #: robots.txt's groups: the group of each name the request is held to.
    GROUPS = "robots.txt groups"


class Combine(Word):
    """How several values of one signal, and the signals of one resource, combine."""

    #: Directives: the union of the restrictive ones (SPEC §6; repext-03 §3.1.1).
    UNION = "union of the restrictive rules"
    #: Usage signals: any explicit "no" wins, then any "yes", else unknown
    #: (:func:`rep_engine.usage.purpose.any_no_wins`).
    ANY_NO = "any no wins"
    #: TDMRep: the file, then the header, then the meta tag (TDMRep §3).
    PRECEDENCE = "file, then header, then meta"
    #: robots.txt Allow/Disallow: the longest match (RFC 9309 §2.2.2).
    LONGEST_MATCH = "longest match"


@dataclass(frozen=True, slots=True)
class Said:
    """What one value of a row says: directives, a usage signal or TDMRep's values."""

    #: Where it was read, as logs and the trail quote it (``X-Robots-Tag: noindex``).
    source: str
    #: The directives that apply to our names (SPEC §6 words: ``noindex``, ``max-snippet:0``).
    words: tuple[str, ...] = ()
    signal: UsageSignal | None = None
    tdm: TdmValues | None = None


#: A page row's reader: the fields found for it and our crawler tokens -> what they say.
Reader = Callable[[Sequence[Field], tuple[str, ...]], tuple[Said, ...]]


@dataclass(frozen=True, slots=True)
class SignalRow:
    """One machine-readable statement."""

    name: str
    where: Where
    #: The header names (lowercase) or meta names it is read from (``()``: not a page field).
    fields: tuple[str, ...]
    binds: Binds
    actions: frozenset[Action]
    purposes: tuple[Purpose, ...]
    combine: Combine
    #: The standard and the clause it comes from.
    standard: str
    #: A page row's reader (``None``: read before the fetch, by :func:`~rep_engine.verdict.decide`).
    read: Reader | None = None
    #: Read only when the crawl has an AI purpose (TDMRep speaks of nothing else).
    ai_only: bool = False
