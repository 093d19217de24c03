"""The one table of signals: every machine-readable statement scrapy_rep reads (pure).

Each :class:`SignalRow` says where a statement is read (:class:`Where`), whose names it
binds (:class:`Binds`), which purposes and actions it speaks to (what it may refuse), how
several values combine (:class:`Combine`), and the standard it comes from. :data:`SIGNALS`
is the table.

The rows of a fetched page (:data:`PAGE_ROWS`: response headers and meta tags) carry their
reader, a function from the values found to what they say (:class:`Said`): the crawl reads
the fields those rows name and nothing else (:data:`HEADER_FIELDS`, :func:`meta_names`),
and the page's decision (:func:`rep_engine.verdict.page.decide_page`) folds what the
readers said by the row's :class:`Combine`. A new page-level signal is one row here and its
reader (docs/decisions.md, 'One page, one verdict'). The rows read before the fetch are the
steps of :func:`rep_engine.verdict.decide.decide`, each naming its step; they are here so that one
table lists everything a crawl obeys (``docs/purpose-notes.md`` prints it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from rep_engine.directives import header_directives, meta_directives
from rep_engine.directives.robotstag import robots_tag_directives
from rep_engine.records import Action, Word
from rep_engine.usage.purpose import (
    PURPOSES,
    Purpose,
    UsageSignal,
    content_signal_header_signal,
    content_usage_header_signal,
)
from rep_engine.usage.tdmrep import TdmValues, header_values, meta_values

# --------------------------------------------------------------------------- a row

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
    #: A page row's reader (``None``: read before the fetch, by
    #: :func:`~rep_engine.verdict.decide.decide`).
    read: Reader | None = None
    #: Read only when the crawl has an AI purpose (TDMRep speaks of nothing else).
    ai_only: bool = False


# --------------------------------------------------------------------------- readers


def directive_header(label: str, words_of: Callable[[str, tuple[str, ...]], list[str]]) -> Reader:
    """The reader of a directives header (``X-Robots-Tag``, ``Robots-Tag``): each field
    line whose directives apply to our names, quoted as ``label: value``."""

    def read(found: Sequence[Field], tokens: tuple[str, ...]) -> tuple[Said, ...]:
        said = []  # a loop, not a generator: read per page
        for _name, value in found:
            if words := words_of(value, tokens):
                said.append(Said(f"{label}: {value.strip()}", tuple(words)))
        return tuple(said)

    return read


def _robots_meta(found: Sequence[Field], tokens: tuple[str, ...]) -> tuple[Said, ...]:
    """``<meta name="robots">`` and ``<meta name="OUR-TOKEN">`` (no crawler prefixes in
    meta: SPEC §6)."""
    said = []
    for name, content in found:
        if words := meta_directives(content):
            said.append(Said(f'<meta name="{name}" content="{content.strip()}">', tuple(words)))
    return tuple(said)


def _usage_header(signal_of: Callable[[list[str]], UsageSignal]) -> Reader:
    """The reader of a usage signal header (``Content-Usage``, ``Content-Signal``): one
    signal of all its values."""

    def read(found: Sequence[Field], tokens: tuple[str, ...]) -> tuple[Said, ...]:
        signal = signal_of([value for _name, value in found])
        return (Said(signal.source, signal=signal),)

    return read


def _tdm(source: str, values_of: Callable[..., TdmValues]) -> Reader:
    """The reader of TDMRep's header or meta fields (``tdm-reservation``, ``tdm-policy``)."""

    def read(found: Sequence[Field], tokens: tuple[str, ...]) -> tuple[Said, ...]:
        values = values_of(
            [value for name, value in found if name == "tdm-reservation"],
            [value for name, value in found if name == "tdm-policy"],
        )
        return (Said(source, tdm=values),)

    return read


# --------------------------------------------------------------------------- the table

_ALL: Final = PURPOSES
_AI: Final[tuple[Purpose, ...]] = ("ai-train", "ai-input")
_PAGE_ACTIONS: Final = frozenset({Action.KEEP, Action.FOLLOW, Action.STORE})
_USAGE_ACTIONS: Final = frozenset({Action.KEEP, Action.STORE})
_BEFORE_ACTIONS: Final = frozenset({Action.FETCH, Action.KEEP, Action.STORE})
_TDM_FIELDS: Final = ("tdm-reservation", "tdm-policy")

#: The statements of a fetched page, in the order their signals are listed in a decision
#: (and a trail record): directives first, then usage headers, then TDMRep.
PAGE_ROWS: Final[tuple[SignalRow, ...]] = (
    SignalRow(
        "X-Robots-Tag header",
        Where.HEADER,
        ("x-robots-tag",),
        Binds.OUR_NAMES,
        _PAGE_ACTIONS,
        _ALL,
        Combine.UNION,
        "Google's robots meta tag specification",
        directive_header("X-Robots-Tag", header_directives),
    ),
    SignalRow(
        "Robots-Tag header",
        Where.HEADER,
        ("robots-tag",),
        Binds.OUR_NAMES,
        _PAGE_ACTIONS,
        _ALL,
        Combine.UNION,
        "draft-illyes-repext-03 §3.1.1, §3.1.3",
        directive_header("Robots-Tag", robots_tag_directives),
    ),
    SignalRow(
        "robots meta tag",
        Where.META,
        ("robots",),  # and each of our names (Binds.OUR_NAMES: meta_names)
        Binds.OUR_NAMES,
        _PAGE_ACTIONS,
        _ALL,
        Combine.UNION,
        "Google's robots meta tag specification",
        _robots_meta,
    ),
    SignalRow(
        "Content-Usage header",
        Where.HEADER,
        ("content-usage",),
        Binds.EVERYONE,
        _USAGE_ACTIONS,
        _ALL,
        Combine.ANY_NO,
        "draft-ietf-aipref-attach-05 §2",
        _usage_header(content_usage_header_signal),
    ),
    SignalRow(
        "Content-Signal header",
        Where.HEADER,
        ("content-signal",),
        Binds.EVERYONE,
        _USAGE_ACTIONS,
        _ALL,
        Combine.ANY_NO,
        "Cloudflare Content Signals Policy (converted pages)",
        _usage_header(content_signal_header_signal),
    ),
    SignalRow(
        "tdm-reservation header",
        Where.HEADER,
        _TDM_FIELDS,
        Binds.EVERYONE,
        _USAGE_ACTIONS,
        _AI,
        Combine.PRECEDENCE,
        "W3C TDMRep Final Report §3.2",
        _tdm("header tdm-reservation", header_values),
        ai_only=True,
    ),
    SignalRow(
        "tdm-reservation meta tag",
        Where.META,
        _TDM_FIELDS,
        Binds.EVERYONE,
        _USAGE_ACTIONS,
        _AI,
        Combine.PRECEDENCE,
        "W3C TDMRep Final Report §3.3",
        _tdm("<meta name=tdm-reservation>", meta_values),
        ai_only=True,
    ),
)

#: The statements read before the fetch (each a step of :func:`rep_engine.verdict.decide.decide`)
#: or outside the page (a linking page, the file): listed, with no reader here.
OTHER_ROWS: Final[tuple[SignalRow, ...]] = (
    SignalRow(
        "robots.txt Allow / Disallow",
        Where.ROBOTS_TXT,
        (),
        Binds.GROUPS,
        frozenset({Action.FETCH}),
        _ALL,
        Combine.LONGEST_MATCH,
        "RFC 9309 §2.2 (decide, step 2; REP_PURPOSE_AGENTS, step 3)",
    ),
    SignalRow(
        "robots.txt Content-Usage / Content-Signal / DisallowAITraining",
        Where.ROBOTS_TXT,
        (),
        Binds.GROUPS,
        _BEFORE_ACTIONS,
        _ALL,
        Combine.ANY_NO,
        "draft-ietf-aipref-attach-05 §3; Content Signals; draft-canel-robots-ai-control-00 "
        "(decide, step 6)",
    ),
    SignalRow(
        "robots.txt License (file-wide, and in the groups of our names)",
        Where.ROBOTS_TXT,
        (),
        Binds.EVERYONE,
        _BEFORE_ACTIONS,
        _ALL,
        Combine.ANY_NO,
        "RSL 1.0 §4.4 and its robots.txt guide: global (decide, step 4)",
    ),
    SignalRow(
        "tdmrep.json",
        Where.TDMREP_JSON,
        (),
        Binds.EVERYONE,
        _BEFORE_ACTIONS,
        _AI,
        Combine.PRECEDENCE,
        "W3C TDMRep Final Report §3.1 (decide, steps 4-6)",
    ),
    SignalRow(
        "RSL license named by the page (Link header, `<link>`, inline)",
        Where.LICENSE,
        (),
        Binds.EVERYONE,
        _USAGE_ACTIONS,
        _ALL,
        Combine.ANY_NO,
        "RSL 1.0 §4.6-4.8; purpose notes §9",
    ),
    SignalRow(
        "noimageai of the page that shows an image",
        Where.LINKING_PAGE,
        (),
        Binds.OUR_NAMES,
        frozenset({Action.FETCH, Action.STORE}),
        _AI,
        Combine.ANY_NO,
        "DeviantArt noimageai (2022); docs/decisions.md",
    ),
    SignalRow(
        "IPTC Data Mining, C2PA / CAWG training-mining",
        Where.FILE,
        (),
        Binds.EVERYONE,
        frozenset({Action.STORE}),
        _AI,
        Combine.ANY_NO,
        "IPTC Photo Metadata 2023.1; CAWG training-mining v1.1",
    ),
)

#: Every statement scrapy_rep reads.
SIGNALS: Final = (*PAGE_ROWS, *OTHER_ROWS)

#: The response header names the page rows read (lowercase).
HEADER_FIELDS: Final = frozenset(
    name for row in PAGE_ROWS if row.where is Where.HEADER for name in row.fields
)
#: The same, as Scrapy's ``Headers`` keys them (``key.title()`` as bytes): the crawl finds
#: the fields a response has with one set intersection, no call per field.
HEADER_KEYS: Final = frozenset(name.encode("ascii").title() for name in HEADER_FIELDS)


def rows_for(ai: bool) -> tuple[SignalRow, ...]:
    """The page rows a crawl reads (``ai``: it has an AI purpose: TDMRep's rows too)."""
    return PAGE_ROWS if ai else tuple(row for row in PAGE_ROWS if not row.ai_only)


@lru_cache(maxsize=256)
def meta_names(tokens: tuple[str, ...], ai: bool) -> frozenset[str]:
    """The meta tag names the page rows read for a crawler with ``tokens``."""
    names: set[str] = set()
    for row in rows_for(ai):
        if row.where is Where.META:
            names.update(row.fields)
            if row.binds is Binds.OUR_NAMES:
                names.update(tokens)
    return frozenset(names)
