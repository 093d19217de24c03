"""What a crawl is for, and what the site's AI-usage signals say about it (pure).

A crawl has one or more purposes (:data:`PURPOSES`): ``search`` (building a search
index that links to the pages), ``ai-train`` (training AI models) and ``ai-input``
(feeding pages into a model at inference time: RAG, grounding). Each machine-readable
signal a site gives (aipref ``Content-Usage``, ``Content-Signal``, TDMRep, ``noai`` /
``noimageai``, ``noml``, and the search directives read as AI opt-outs: ``noarchive``,
``nocache``, ``nosnippet`` / ``max-snippet:0``, :class:`DirectiveReadings`) is turned
into a :class:`UsageSignal` through ONE table, :data:`MAPPING`, whose rows name their
source; a vocabulary that has no word for a purpose says nothing about it.
:func:`usage_decision` combines the signals of one resource into a :class:`UsageDecision`: for
each purpose, any explicit "no" wins, then any "yes", else unknown (the rule of
draft-ietf-aipref-vocab-08 §5.1, applied across vocabularies). See
``docs/purpose-notes.md``.

Which search directives the crawl reads as AI opt-outs (docs/decisions.md): the
settings each reading is made under and :class:`DirectiveReadings`, the readings of a
crawl.

The one table (:data:`ROWS`): each row names the signal as written, what it means for
``search``, ``ai-train`` and ``ai-input``, and the text that justifies it; a vocabulary
with no word for a purpose says nothing about it (``None``). ``docs/purpose-notes.md``'s
table is written from this one. Its rows for the statements inside a downloaded file
(IPTC Data Mining values, XMP ``plus:DataMining``, and the CAWG training-and-data-mining
entries, C2PA) are read as docs/media.md says; its RSL rows are
:data:`rep_engine.usage.rsl._rows.RSL_ROWS`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Final, Literal

from rep_engine.directives import PageDirectives
from rep_engine.robotstxt import ContentSignals, parse_content_signal
from rep_engine.robotstxt._parser import USE_LEVELS
from rep_engine.robotstxt.aipref import Attached, ContentUsageRule, UsagePrefs, parse_prefs_header
from rep_engine.usage.rsl._rows import RSL_ROWS
from rep_engine.usage.standards import STANDARDS
from rep_engine.usage.tdmrep import TdmValues

Purpose = Literal["search", "ai-train", "ai-input"]
#: The purposes, in the order of :attr:`UsageSignal.answers`.
PURPOSES: Final[tuple[Purpose, ...]] = ("search", "ai-train", "ai-input")
#: Each purpose's position in :data:`PURPOSES` (and in every signal's answers).
PURPOSE_INDEX: Final[Mapping[str, int]] = MappingProxyType(
    {purpose: index for index, purpose in enumerate(PURPOSES)}
)

Vocabulary = Literal[
    "aipref", "content-signal", "tdmrep", "robots-meta", "robots-ai-control", "iptc", "cawg", "rsl"
]
#: Per purpose (in :data:`PURPOSES` order): ``True`` allowed, ``False`` denied, ``None``
#: the signal says nothing about it.
Answers = tuple[bool | None, bool | None, bool | None]
_NONE: Final[Answers] = (None, None, None)


#: The settings under which a search directive is read as an AI opt-out, named in the
#: source of each signal they give (the audit trail says which reading decided).
NOARCHIVE_SETTING: Final = "REP_NOARCHIVE_MEANS_NO_AI_TRAIN"
NOARCHIVE_INPUT_SETTING: Final = "REP_NOARCHIVE_MEANS_NO_AI_INPUT"
NOCACHE_SETTING: Final = "REP_NOCACHE_MEANS_NO_AI_TRAIN"
NOSNIPPET_SETTING: Final = "REP_NOSNIPPET_MEANS_NO_AI_INPUT"
NOINDEX_SETTING: Final = "REP_MEDIA_NOINDEX_MEANS_NO_AI"


@dataclass(frozen=True, slots=True)
class DirectiveReadings:
    """Which search directives are read as AI opt-outs, each under its own setting, all
    on by default (the reading that loses no "no": docs/decisions.md)."""

    #: ``REP_NOARCHIVE_MEANS_NO_AI_TRAIN``: ``noarchive`` is a no for ai-train (Bing,
    #: Amazon; docs/purpose-notes.md §4b).
    noarchive_no_train: bool = True
    #: ``REP_NOARCHIVE_MEANS_NO_AI_INPUT``: ``noarchive`` is a no for ai-input too (Bing's
    #: Webmaster Guidelines as rewritten in Feb 2026, read from a secondary source:
    #: NOARCHIVE keeps content out of Copilot responses and grounding results;
    #: docs/purpose-notes.md §4b).
    noarchive_no_input: bool = True
    #: ``REP_NOCACHE_MEANS_NO_AI_TRAIN``: ``nocache`` is read like ``noarchive``, a no for
    #: ai-train (Bing: of a NOCACHE page "only URLs, Titles and Snippets may be used in
    #: training"; docs/purpose-notes.md §4b).
    nocache_no_train: bool = True
    #: ``REP_NOSNIPPET_MEANS_NO_AI_INPUT``: ``nosnippet`` and ``max-snippet:0`` are a no
    #: for ai-input (Google's robots meta specification: nosnippet "will also prevent the
    #: content from being used as a direct input for AI Overviews and AI Mode";
    #: docs/purpose-notes.md §4b).
    nosnippet_no_input: bool = True


#: Every reading on: the defaults.
ALL_READINGS: Final = DirectiveReadings()


def _index(purpose: str) -> int:
    try:
        return PURPOSE_INDEX[purpose]
    except (KeyError, TypeError):
        raise ValueError(f"unknown purpose {purpose!r}; expected one of {PURPOSES}") from None


def any_no_wins(answers: Iterable[bool | None]) -> tuple[bool | None, int | None]:
    """The one merge of answers about one purpose, in order: the first explicit "no"
    wins, else the first "yes", else unknown (``None``); and the position of the answer
    that decided (the reading that loses no "no": SPEC, docs/purpose-notes.md)."""
    result: bool | None = None
    by: int | None = None
    for position, answer in enumerate(answers):
        if answer is False:
            return False, position
        if answer and result is None:
            result, by = True, position
    return result, by


@dataclass(frozen=True, slots=True)
class UsageSignal:
    """One statement a site made about one resource, mapped onto the purposes."""

    vocabulary: Vocabulary
    answers: Answers
    #: Where it was found: ``robots.txt line 12: Content-Usage: train-ai=n``,
    #: ``header Content-Usage: ...``, ``tdmrep.json entry 2 (location "/books/*")``,
    #: ``<meta name="robots" content="noai">``.
    source: str
    #: Conditions on use the signal states besides its answers, such as Content-Signal's
    #: ``use=reference`` (docs/purpose-notes.md §2): carried with the decision, never an
    #: answer about a purpose.
    conditions: tuple[str, ...] = ()

    def answer(self, purpose: Purpose) -> bool | None:
        """``True`` allowed, ``False`` denied, ``None`` says nothing about ``purpose``."""
        return self.answers[_index(purpose)]

    def __str__(self) -> str:
        return self.source

    def to_dict(self) -> dict[str, Any]:
        """Compact JSON form: vocabulary, the purposes it answers, source."""
        answered = {p: a for p, a in zip(PURPOSES, self.answers, strict=True) if a is not None}
        found: dict[str, Any] = {"v": self.vocabulary, "a": answered, "src": self.source}
        if self.conditions:
            found["c"] = list(self.conditions)
        return found


UsageAnswer = Literal["allowed", "denied", "unknown"]


class UsageDecision:
    """For each purpose: allowed, denied or unknown (:func:`any_no_wins`), the signal that
    decided (the first such one in the order given), and every signal considered."""

    __slots__ = ("_answers", "_by", "conditions", "signals")

    def __init__(self, signals: Iterable[UsageSignal]) -> None:
        self.signals = tuple(signals)
        merged = [any_no_wins(s.answers[index] for s in self.signals) for index in range(3)]
        self._answers: Answers = (merged[0][0], merged[1][0], merged[2][0])
        self._by = tuple(by for _, by in merged)
        #: The conditions on use of its signals (``("use=reference",)``), the most
        #: restrictive ``use=`` level when several signals state one; they decide no
        #: purpose (docs/purpose-notes.md §2).
        self.conditions = _conditions(self.signals)

    def allowed(self, purpose: Purpose) -> bool | None:
        """``True`` allowed, ``False`` denied, ``None`` unknown."""
        return self._answers[_index(purpose)]

    def verdict(self, purpose: Purpose) -> UsageAnswer:
        answer = self._answers[_index(purpose)]
        return "unknown" if answer is None else "allowed" if answer else "denied"

    def decided_by(self, purpose: Purpose) -> UsageSignal | None:
        """The signal that gave the answer for ``purpose`` (``None`` when unknown)."""
        position = self._by[_index(purpose)]
        return None if position is None else self.signals[position]

    def __repr__(self) -> str:
        shown = ", ".join(f"{p}={self.verdict(p)}" for p in PURPOSES)
        return f"<UsageDecision {shown} signals={len(self.signals)}>"

    def __str__(self) -> str:
        parts = []
        for purpose in PURPOSES:
            signal = self.decided_by(purpose)
            where = f" by {signal.source}" if signal is not None else ""
            parts.append(f"{purpose} {self.verdict(purpose)}{where}")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """Compact JSON audit record: ``a`` the answer per purpose (true / false /
        null), ``by`` the index in ``s`` of the deciding signal per decided purpose,
        ``s`` the signals considered (see :meth:`UsageSignal.to_dict`)."""
        found: dict[str, Any] = {
            "a": dict(zip(PURPOSES, self._answers, strict=True)),
            "by": {p: i for p, i in zip(PURPOSES, self._by, strict=True) if i is not None},
            "s": [signal.to_dict() for signal in self.signals],
        }
        if self.conditions:
            found["c"] = list(self.conditions)
        return found


def _conditions(signals: tuple[UsageSignal, ...]) -> tuple[str, ...]:
    """The signals' conditions, once each; of several ``use=`` levels the most
    restrictive (Cloudflare orders them "from least to most permissive")."""
    found: list[str] = []  # a loop, not a generator: a decision per page
    for signal in signals:
        for condition in signal.conditions:
            if condition not in found:
                found.append(condition)
    uses = [c for c in found if c.startswith("use=")]
    if len(uses) > 1:
        strictest = min(uses, key=lambda c: _USE_RANK.get(c[4:], len(USE_LEVELS)))
        found = [c for c in found if not c.startswith("use=") or c == strictest]
    return tuple(found)


_USE_RANK: Final = {level: rank for rank, level in enumerate(USE_LEVELS)}


def usage_decision(signals: Iterable[UsageSignal]) -> UsageDecision:
    """Combine the signals of one resource (see :class:`UsageDecision`)."""
    return UsageDecision(signals)


def allowed(signals: Iterable[UsageSignal], purpose: Purpose) -> bool | None:
    """The answer for one purpose without building a decision (the hot path)."""
    index = _index(purpose)
    return any_no_wins(signal.answers[index] for signal in signals)[0]


#: Longest source text kept in a signal (header values can be long).
MAX_SOURCE_CHARS: Final = 200
#: ``max-snippet:0`` as written in a source (``max-snippet: 00`` too): the nosnippet it is.
_NO_SNIPPET_LIMIT: Final = re.compile(r"max-snippet\s*:\s*0+(?![0-9])", re.IGNORECASE)


def _merge(rows: Iterable[Answers]) -> Answers:
    """Several rows of one signal: per purpose, a "no" wins over a "yes"."""
    rows = tuple(rows)
    merged = [any_no_wins(row[index] for row in rows)[0] for index in range(3)]
    return (merged[0], merged[1], merged[2])


def clip(text: str, most: int = MAX_SOURCE_CHARS) -> str:
    """``text`` cut to ``most`` characters, an ellipsis last where it was cut (a signal's
    source)."""
    return text if len(text) <= most else text[: most - 1] + "…"


def _read_under(source: str, setting: str) -> str:
    """``source`` naming the setting under which it was read, the name kept whole."""
    suffix = f" ({setting})"
    return clip(source, MAX_SOURCE_CHARS - len(suffix)) + suffix


def _signal(
    vocabulary: Vocabulary, keys: Iterable[str], source: str, conditions: tuple[str, ...] = ()
) -> UsageSignal:
    return UsageSignal(
        vocabulary,
        _merge(MAPPING[(vocabulary, key)].answers for key in keys),
        clip(source),
        conditions,
    )


# --------------------------------------------------------------------------- signals


def prefs_signal(prefs: UsagePrefs, source: str) -> UsageSignal:
    """An aipref statement (vocab §6) found at ``source``; unknown categories say nothing."""
    said = (("train-ai", prefs.train_ai), ("search", prefs.search), ("ai-use", prefs.ai_use))
    keys = [f"{name}={'y' if value else 'n'}" for name, value in said if value is not None]
    return _signal("aipref", keys, source)


@lru_cache(maxsize=4096)
def rule_signal(rule: ContentUsageRule) -> UsageSignal:
    """One robots.txt ``Content-Usage`` rule (attach §3), or a ``DisallowAITraining`` /
    ``AllowAITraining`` rule read as one, as a signal (cached per rule)."""
    if rule.key in ("DisallowAITraining", "AllowAITraining"):
        return _signal("robots-ai-control", (rule.key,), rule.source)
    return prefs_signal(rule.prefs, rule.source)


def content_usage_signals(attached: Attached) -> tuple[UsageSignal, ...]:
    """The robots.txt ``Content-Usage`` rules that apply to one path (one signal each,
    so the decision names the rule that said "n")."""
    return tuple(rule_signal(rule) for rule in attached.rules)


def _header_texts(values: Iterable[bytes | str] | bytes | str) -> list[str]:
    """A header's values (one, or all of them) as text."""
    if isinstance(values, (str, bytes)):
        values = [values]
    return [v if isinstance(v, str) else bytes(v).decode("latin-1") for v in values]


def content_usage_header_signal(values: Iterable[bytes | str] | bytes | str) -> UsageSignal:
    """The ``Content-Usage`` response header (attach §2), given all its values."""
    texts = _header_texts(values)
    prefs = parse_prefs_header(texts)
    return prefs_signal(prefs, "header Content-Usage: " + ", ".join(t.strip() for t in texts))


def content_signal_signal(
    signals: ContentSignals, source: str = "robots.txt Content-Signal"
) -> UsageSignal:
    """The ``Content-Signal`` values of one robots.txt line that applies to us
    (:meth:`rep_engine.robotstxt.RobotsTxt.content_signal_lines`: the source names the
    line, as a ``Content-Usage`` rule's does), or of the response header (``source`` then
    names it). ``use=`` is a condition on use, kept on the signal: it answers no purpose
    (Cloudflare changelog 2026-08-31: "the maximum level at which their content may be
    used"; docs/purpose-notes.md §2)."""
    keys = [
        f"{name}={'yes' if value else 'no'}"
        for name, value in (
            ("search", signals.search),
            ("ai-train", signals.ai_train),
            ("ai-input", signals.ai_input),
        )
        if value is not None
    ]
    conditions: tuple[str, ...] = ()
    if signals.use is not None:
        conditions = (f"use={signals.use}",)
        keys.append(conditions[0])
    if source == "robots.txt Content-Signal" and keys:
        # its line quoted as the site wrote it; merged lines (or a rule made without a
        # file) by what they say
        where = f"robots.txt line {signals.line}:" if signals.line else "robots.txt"
        source = f"{where} {signals.written or 'Content-Signal: ' + ', '.join(keys)}"
    return _signal("content-signal", keys, source, conditions)


def content_signal_header_signal(values: Iterable[bytes | str] | bytes | str) -> UsageSignal:
    """The ``Content-Signal`` response header (Cloudflare sends
    ``content-signal: ai-train=yes, search=yes, ai-input=yes`` on the pages it converts),
    given all its values: read as a robots.txt ``Content-Signal`` line, a page-level
    signal like the ``Content-Usage`` header (one "no" wins across values)."""
    texts = _header_texts(values)
    source = "header Content-Signal: " + ", ".join(t.strip() for t in texts)
    return content_signal_signal(parse_content_signal(texts), source)


def tdmrep_signal(resolution: TdmValues) -> UsageSignal:
    """The TDMRep answer for one resource after its own precedence (file, header, meta:
    :func:`rep_engine.usage.tdmrep.resolve`)."""
    if resolution.reservation is None:
        return UsageSignal("tdmrep", _NONE, "TDMRep: no reservation stated")
    key = "tdm-reservation: 1" if resolution.reservation else "tdm-reservation: 0"
    return _signal("tdmrep", (key,), resolution.source or key)


def page_signals(
    directives: PageDirectives, *, image: bool, readings: DirectiveReadings = ALL_READINGS
) -> tuple[UsageSignal, ...]:
    """``noai`` / ``noimageai`` / ``noml`` from the robots meta tags and ``X-Robots-Tag``
    headers that apply to us (SPEC §6), and the search directives ``readings`` reads as
    AI opt-outs (``noarchive``, ``nocache``, ``nosnippet`` / ``max-snippet:0``), each
    source naming its setting. ``image``: the response itself is an image
    (``Content-Type: image/*``), where ``noimageai`` means the same as ``noai``."""
    found = []
    if directives.noai:
        found.append(("noai", "noai"))
    if directives.noimageai:
        found.append(
            ("noimageai", "noimageai (image response)" if image else "noimageai (other response)")
        )
    if directives.noml:
        found.append(("noml", "noml"))
    signals = tuple(
        _signal("robots-meta", (key,), _directive_source(directives, word)) for word, key in found
    )
    return (*signals, *_read_signals(directives, readings))


def _read_signals(
    directives: PageDirectives, readings: DirectiveReadings
) -> tuple[UsageSignal, ...]:
    """The search directives read as AI opt-outs, each a reading its setting chose: the
    source names the setting (the audit trail says which reading decided)."""
    found: list[tuple[str, str, str]] = []  # (row, where it was said, setting)
    if directives.noarchive and readings.noarchive_no_train:
        found.append(("noarchive", _directive_source(directives, "noarchive"), NOARCHIVE_SETTING))
    if directives.noarchive and readings.noarchive_no_input:
        source = _directive_source(directives, "noarchive")
        found.append(("noarchive (ai-input)", source, NOARCHIVE_INPUT_SETTING))
    if directives.nocache and readings.nocache_no_train:
        found.append(("nocache", _directive_source(directives, "nocache"), NOCACHE_SETTING))
    if directives.nosnippet and readings.nosnippet_no_input:
        found.append((*_no_snippet(directives), NOSNIPPET_SETTING))
    return tuple(
        _signal("robots-meta", (row,), _read_under(source, setting))
        for row, source, setting in found
    )


def _no_snippet(directives: PageDirectives) -> tuple[str, str]:
    """The row and the source of a page's nosnippet: the word itself where it was said,
    else the ``max-snippet:0`` that means it (SPEC §6)."""
    if _said(directives, "nosnippet"):
        return "nosnippet", _directive_source(directives, "nosnippet")
    for source in directives.sources:
        if _NO_SNIPPET_LIMIT.search(source):
            return "max-snippet:0", source
    return "max-snippet:0", "robots directive max-snippet:0"


def speaks_of_use(
    directives: PageDirectives, *, readings: DirectiveReadings = ALL_READINGS
) -> bool:
    """Whether :func:`page_signals` finds anything in ``directives`` (the page pass reads
    no usage signals of a page that has none to give)."""
    return (
        directives.noai
        or directives.noimageai
        or directives.noml
        or (directives.noarchive and (readings.noarchive_no_train or readings.noarchive_no_input))
        or (directives.nocache and readings.nocache_no_train)
        or (directives.nosnippet and readings.nosnippet_no_input)
    )


def file_index_signals(
    directives: PageDirectives, now: datetime | None = None
) -> tuple[UsageSignal, ...]:
    """``noindex`` (``none``, an ``unavailable_after`` that has passed: SPEC §6) and
    ``noimageindex`` in the ``X-Robots-Tag`` of a file a media pipeline downloaded: a no
    for ``ai-train`` and ``ai-input``, as img2dataset reads them by default (the media
    gate asks only while ``REP_MEDIA_NOINDEX_MEANS_NO_AI`` is on; docs/media.md)."""
    found = []
    if directives.blocks_indexing(now):
        if directives.noindex:
            word = "noindex" if _said(directives, "noindex") else "none"
        else:
            word = "unavailable_after"
        found.append(("noindex (downloaded file)", _directive_source(directives, word)))
    if directives.noimageindex:
        found.append(
            ("noimageindex (downloaded file)", _directive_source(directives, "noimageindex"))
        )
    return tuple(
        _signal("robots-meta", (key,), _read_under(source, NOINDEX_SETTING))
        for key, source in found
    )


def embedded_image_signal(source: str) -> UsageSignal:
    """An image shown by a ``noimageai`` page (``source``: the page's directive and URL):
    the page's noimageai covers it as ``noai`` would (DeviantArt 2022; docs/purpose-notes.md
    §4a)."""
    return _signal("robots-meta", ("noimageai (image response)",), source)


def _said(directives: PageDirectives, word: str) -> bool:
    return any(word in source.lower() for source in directives.sources)


def _directive_source(directives: PageDirectives, word: str) -> str:
    for source in directives.sources:
        if word in source.lower():
            return source
    return f"robots directive {word}"


# -------------------------------------------------------- the one table of signals


@dataclass(frozen=True, slots=True)
class MappingRow:
    """One signal value and what it means for each purpose."""

    vocabulary: Vocabulary
    #: The signal as written: ``train-ai=n``, ``ai-input=yes``, ``tdm-reservation: 1``.
    signal: str
    answers: Answers
    #: The text that justifies the row.
    source: str
    #: The row's standard, a key of :data:`rep_engine.usage.standards.STANDARDS`.
    standard: str = "aipref-vocab"

    @property
    def revision(self) -> str:
        """The revision of the source this row follows (the one table of revisions)."""
        return STANDARDS[self.standard]


_AIPREF_TRAIN = (
    'draft-ietf-aipref-vocab-08 §4.1 "AI Training": "Using an asset to modify the learned '
    'parameters of a generative AI model" (§2: one "used to generate synthetic content", '
    'not one used "for classification, ranking, or scoring"); "The training of models '
    'that are used to perform exclusively non-generative tasks is not included". Our '
    "ai-train covers any model: an n denies it whatever the model (the reading that keeps "
    "the no), a y allows it"
)
_AIPREF_USE = (
    'draft-ietf-aipref-vocab-08 §4.2 "AI Use": "Using an asset as input to a generative AI '
    'model, where the asset is not directly provided by the user"; it "does not include '
    'any use that is included in the AI Training usage category"'
)
_AI_CONTROL = (
    "draft-canel-robots-ai-control-00 (Microsoft): DisallowAITraining / AllowAITraining "
    '"path" rules of a robots.txt group for "the usage of the content ... for AI training"; '
    "read as the train-ai=n / train-ai=y path rules of attach-05 §3"
)
_AIPREF_SEARCH = (
    'draft-ietf-aipref-vocab-08 §4.3 "Search": use "in an application where the primary '
    "purpose of the application is to select assets and direct users to the location of "
    'those assets", linking to the original and showing excerpts only to help judge '
    'relevance; "This category does not include the use of assets to generate summaries"; '
    'it "overrides any usage that falls into other categories" (a use inside search is '
    "answered by search; it lifts no other category's n for our other purposes)"
)
_CS_SEARCH = (
    'Cloudflare Content Signals Policy: "search: building a search index and providing '
    "search results (e.g., returning hyperlinks and short excerpts from your website's "
    'contents). Search does not include providing AI-generated search summaries."'
)
_CS_INPUT = (
    'Cloudflare Content Signals Policy: "ai-input: inputting content into one or more AI '
    "models (e.g., retrieval augmented generation, grounding, or other real-time taking of "
    'content for generative AI search answers)."'
)
_CS_TRAIN = 'Cloudflare Content Signals Policy: "ai-train: training or fine-tuning AI models."'
_CS_USE = (
    "Cloudflare changelog, 2026-08-31 (its /crawl endpoint): the use directive lets site "
    'owners "express the maximum level at which their content may be used"; levels '
    '"from least to most permissive" (reference, full; immediate, below reference, from a '
    "secondary source). A condition on how content may be used, kept with the decision; not "
    "a purpose opt-out: each purpose's own key decides"
)
_TDM = (
    "TDMRep report §2.1 (1: TDM rights are reserved, CDSM Directive Art. 4; 0: not "
    'reserved) and its docs/tdm-meaning.md: "the use of web content by AI solutions falls '
    'into the scope of the Articles 3 and 4 of the DSM Directive" (training and inference '
    'input alike); "search engines ... are not affected by the TDM reservation"'
)
_NOAI = (
    'DeviantArt (2022), who introduced the directives: content that "may not be used as '
    'input to AI models"; third parties that "train machine-learning models of any kind '
    "must ensure their training data set excludes all content for which either of these "
    'directives are present"; nothing about search'
)
_NOIMAGEAI_PAGE = (
    "DeviantArt (2022): noimageai on a page protects the images it shows; the page's own "
    "text is not an image, so for the page itself it says nothing (choice, see "
    "docs/purpose-notes.md)"
)
_NOML = (
    'Mojeek, NoML proposal (noml.info, 2023): noml in robots meta or X-Robots-Tag "could be '
    "used to instruct any service (e.g. a search engine or AI builder) that any data from that "
    'page should not be used in machine learning"; its signatories ask for a way to say '
    'whether content "can be utilized for machine learning training and applications": a no '
    "for ai-train and for ai-input (a model fed the page at inference is such an application); "
    "its table leaves the page in search, which is no yes: nothing about search"
)
_NOARCHIVE = (
    'Bing Webmaster Blog (Sep 2023): "for content in our Bing Index that is labeled '
    "NOARCHIVE, Bing will not use the content for training Microsoft's generative AI "
    'foundation models"; Amazon (developer.amazon.com/amazonbot): the page-level meta tag '
    'NOARCHIVE signals "that you do not want your crawled data to be used for training large '
    'language models". Its first meaning (no cached copy) speaks of no purpose of ours: a no '
    "for ai-train while REP_NOARCHIVE_MEANS_NO_AI_TRAIN is on, the default (docs/decisions.md, "
    "'noarchive is a no for AI training')"
)
_NOARCHIVE_INPUT = (
    "Bing Webmaster Guidelines as rewritten in Feb 2026 (read from a secondary source; the "
    "primary text was not read): NOARCHIVE keeps content out of Copilot responses and "
    "grounding results. Grounding is ai-input in our sense: a no for ai-input while "
    "REP_NOARCHIVE_MEANS_NO_AI_INPUT is on, the default, beside its ai-train reading "
    "(docs/decisions.md, 'noarchive is a no for AI input too')"
)
_NOCACHE = (
    'Bing Webmaster Blog (Sep 2023): "for content in our Bing Index that is labeled NOCACHE, '
    "only URLs, Titles and Snippets may be used in training Microsoft's generative AI "
    'foundation models" (the content itself not), and "If content has both NOCACHE and '
    'NOARCHIVE tags, we will treat it as NOCACHE". Its first meaning (no cached copy, as '
    "noarchive's) speaks of no purpose of ours: read like noarchive, a no for ai-train while "
    "REP_NOCACHE_MEANS_NO_AI_TRAIN is on, the default; Bing Chat may still show a NOCACHE "
    "page's URL, title and snippet, so nothing about ai-input (docs/decisions.md, 'nocache is "
    "read like noarchive')"
)
_NOSNIPPET = (
    "Google's robots meta tag specification: nosnippet \"applies to all forms of search "
    "results (at Google: web search, Google Images, Discover, AI Overviews, AI Mode) and will "
    "also prevent the content from being used as a direct input for AI Overviews and AI "
    'Mode"; max-snippet "will also limit how much of the content may be used as a direct '
    'input for AI Overviews and AI Mode", and max-snippet:0 (no snippet at all) is nosnippet. '
    "A no for ai-input while REP_NOSNIPPET_MEANS_NO_AI_INPUT is on, the default; a max-snippet "
    "above 0 is a length, no no; nothing about search (the crawl shows no snippet) nor "
    "ai-train (docs/decisions.md, 'nosnippet is a no for AI input')"
)
_INDEX_FILES = (
    'img2dataset (README; the default of --disallowed_header_directives): "Websites can pass '
    "the http headers X-Robots-Tag: noai, X-Robots-Tag: noindex, X-Robots-Tag: noimageai and "
    'X-Robots-Tag: noimageindex. By default img2dataset will ignore images with such headers"; '
    "Google's robots meta specification: noindex \"Do not show this page, media, or resource in "
    'search results", noimageindex "Do not index images on this page". A file kept out of '
    "every index is kept out of AI datasets: a no for ai-train and ai-input while "
    "REP_MEDIA_NOINDEX_MEANS_NO_AI is on, the default (docs/decisions.md, 'noindex on a "
    "downloaded file is a no for AI')"
)
_INDEX_PAGE_IMAGES = (
    _INDEX_FILES + "; a page's noimageindex speaks for the images it shows, as its noimageai "
    "does (docs/purpose-notes.md §4a)"
)
_SEARCH_BY_DIRECTIVES = (
    "; search: the directive itself decides (REP_NOINDEX_ACTION), not the purpose table"
)

_CS: Final = "content-signal"
_MS: Final = "robots-ai-control"
_NA_INPUT: Final = "noarchive-ai-input"


#: The standards of the rows (keys of :data:`rep_engine.usage.standards.STANDARDS`).
IPTC_STD: Final = "iptc-data-mining"
CAWG_STD: Final = "cawg-training-mining"
_IPTC = (
    'IPTC Photo Metadata Standard 2023.1 "Data Mining" (XMP plus:DataMining, values of the '
    "PLUS LDF vocabulary http://ns.useplus.org/ldf/vocab/): "
)
_IPTC_TDM = "; allowed data mining says nothing about search indexing (docs/media.md)"
_IPTC_ALL = (
    "; since DMI-PROHIBITED-EXCEPTSEARCHENGINEINDEXING exists to except search engine "
    "indexing, plain Prohibited covers it too: a no for search as well (docs/media.md)"
)
_IPTC_SEE = (
    "; the constraints are text a crawler cannot check: a no unless "
    "REP_MEDIA_CONSTRAINTS_MET says the crawl meets them (docs/media.md)"
)
_CAWG = (
    "CAWG Training and Data Mining assertion v1.1 (cawg.training-mining; C2PA 1.x "
    "c2pa.training-mining, same entries): "
)
_CAWG_CONSTRAINED = (
    '; "In the absence of additional information, constrained shall be treated as '
    'equivalent to notAllowed"'
)
_CAWG_ENTRIES: Final = (
    (
        "ai_generative_training",
        (None, True, None),
        "training data to an AI/ML model that could generate assets -> ai-train",
    ),
    ("ai_training", (None, True, None), "data to train non-generative AI/ML models -> ai-train"),
    (
        "ai_inference",
        (None, None, True),
        "input to a trained AI/ML model for the purposes of inferring a result -> ai-input",
    ),
    (
        "data_mining",
        (None, True, True),
        "extracted for determining patterns, trends, and "
        "correlations -> ai-train and ai-input (a no for both; its allowed says nothing: the "
        "training and inference entries speak for those)",
    ),
)


def _denied(answers: Answers) -> Answers:
    return (
        None if answers[0] is None else False,
        None if answers[1] is None else False,
        None if answers[2] is None else False,
    )


def _cawg_rows() -> tuple[tuple[str, Answers, str], ...]:
    """Per entry: allowed, notAllowed, constrained (a no), constrained with
    ``REP_MEDIA_CONSTRAINTS_MET`` (nothing)."""
    rows: list[tuple[str, Answers, str]] = []
    for entry, purposes, meaning in _CAWG_ENTRIES:
        source = _CAWG + f"cawg.{entry}: {meaning}"
        allowed = _NONE if entry == "data_mining" else purposes
        rows += [
            (f"{entry}=allowed", allowed, source),
            (f"{entry}=notAllowed", _denied(purposes), source),
            (f"{entry}=constrained", _denied(purposes), source + _CAWG_CONSTRAINED),
            (f"{entry}=constrained (constraints met)", _NONE, source),
        ]
    return tuple(rows)


def _iptc_rows() -> tuple[tuple[str, Answers, str], ...]:
    """IPTC Data Mining values (plain ``DMI-PROHIBITED`` and the ``SEE*`` forms also
    deny search: a separate value exists to except search engine indexing)."""
    all_no: Answers = (False, False, False)
    rows = (
        ("DMI-UNSPECIFIED", _NONE, '"Unspecified - no prohibition defined"'),
        ("DMI-ALLOWED", (None, True, True), '"Allowed"' + _IPTC_TDM),
        ("DMI-PROHIBITED-AIMLTRAINING", (None, False, None), '"Prohibited for AI/ML training"'),
        (
            "DMI-PROHIBITED-GENAIMLTRAINING",
            (None, False, None),
            '"Prohibited for Generative AI/ML training" (ai-train covers all training)',
        ),
        (
            "DMI-PROHIBITED-EXCEPTSEARCHENGINEINDEXING",
            (True, False, False),
            '"Prohibited except for search engine indexing"',
        ),
        (
            "DMI-PROHIBITED",
            all_no,
            '"Prohibited" (any DMI-PROHIBITED-* value we do not know reads as this)' + _IPTC_ALL,
        ),
        (
            "DMI-PROHIBITED-SEECONSTRAINT",
            all_no,
            '"Prohibited, see plus:OtherConstraints"' + _IPTC_SEE,
        ),
        (
            "DMI-PROHIBITED-SEEEMBEDDEDRIGHTSEXPR",
            all_no,
            '"Prohibited, see iptcExt:EmbdEncRightsExpr"' + _IPTC_SEE,
        ),
        (
            "DMI-PROHIBITED-SEELINKEDRIGHTSEXPR",
            all_no,
            '"Prohibited, see iptcExt:LinkedEncRightsExpr"' + _IPTC_SEE,
        ),
        (
            "DMI-PROHIBITED-SEE* (constraints met)",
            _NONE,
            "a Prohibited, see ... value whose constraints REP_MEDIA_CONSTRAINTS_MET says the "
            "crawl meets",
        ),
    )
    return tuple((value, answers, _IPTC + text) for value, answers, text in rows)


#: The IPTC Data Mining rows: ``(value, answers, source)``.
IPTC_ROWS: Final = _iptc_rows()
#: The CAWG training-and-data-mining rows: ``(entry=value, answers, source)``.
CAWG_ROWS: Final = _cawg_rows()


def _index_rows() -> tuple[MappingRow, ...]:
    """``noindex`` / ``noimageindex`` on a file a media pipeline downloaded (its own
    ``X-Robots-Tag``), a page's ``noimageindex`` for the images it shows, and both when
    ``REP_MEDIA_NOINDEX_MEANS_NO_AI`` is off."""
    both_ai: Answers = (None, False, False)
    std = "index-on-files"
    rows = (
        ("noindex (downloaded file)", both_ai, _INDEX_FILES + _SEARCH_BY_DIRECTIVES),
        ("noimageindex (downloaded file)", both_ai, _INDEX_FILES + _SEARCH_BY_DIRECTIVES),
        ("noimageindex (images of the page)", both_ai, _INDEX_PAGE_IMAGES),
        ("noindex / noimageindex (REP_MEDIA_NOINDEX_MEANS_NO_AI off)", _NONE, _INDEX_FILES),
    )
    return tuple(MappingRow("robots-meta", key, answers, text, std) for key, answers, text in rows)


#: Every signal value we understand and what it means per purpose (``search``,
#: ``ai-train``, ``ai-input``). Anything not in this table says nothing.
ROWS: Final[tuple[MappingRow, ...]] = (
    MappingRow("aipref", "train-ai=y", (None, True, None), _AIPREF_TRAIN),
    MappingRow("aipref", "train-ai=n", (None, False, None), _AIPREF_TRAIN),
    MappingRow("aipref", "search=y", (True, None, None), _AIPREF_SEARCH),
    MappingRow("aipref", "search=n", (False, None, None), _AIPREF_SEARCH),
    MappingRow("aipref", "ai-use=y", (None, None, True), _AIPREF_USE),
    MappingRow("aipref", "ai-use=n", (None, None, False), _AIPREF_USE),
    MappingRow("robots-ai-control", "DisallowAITraining", (None, False, None), _AI_CONTROL, _MS),
    MappingRow("robots-ai-control", "AllowAITraining", (None, True, None), _AI_CONTROL, _MS),
    MappingRow("content-signal", "search=yes", (True, None, None), _CS_SEARCH, _CS),
    MappingRow("content-signal", "search=no", (False, None, None), _CS_SEARCH, _CS),
    MappingRow("content-signal", "ai-train=yes", (None, True, None), _CS_TRAIN, _CS),
    MappingRow("content-signal", "ai-train=no", (None, False, None), _CS_TRAIN, _CS),
    MappingRow("content-signal", "ai-input=yes", (None, None, True), _CS_INPUT, _CS),
    MappingRow("content-signal", "ai-input=no", (None, None, False), _CS_INPUT, _CS),
    MappingRow("content-signal", "use=immediate", _NONE, _CS_USE, _CS),
    MappingRow("content-signal", "use=reference", _NONE, _CS_USE, _CS),
    MappingRow("content-signal", "use=full", _NONE, _CS_USE, _CS),
    MappingRow("tdmrep", "tdm-reservation: 1", (None, False, False), _TDM, "tdmrep"),
    MappingRow("tdmrep", "tdm-reservation: 0", (None, True, True), _TDM, "tdmrep"),
    MappingRow("robots-meta", "noai", (None, False, False), _NOAI, "noai"),
    MappingRow("robots-meta", "noimageai (image response)", (None, False, False), _NOAI, "noai"),
    MappingRow("robots-meta", "noimageai (other response)", _NONE, _NOIMAGEAI_PAGE, "noai"),
    MappingRow("robots-meta", "noml", (None, False, False), _NOML, "noml"),
    MappingRow("robots-meta", "noarchive", (None, False, None), _NOARCHIVE, "noarchive-ai"),
    MappingRow(
        "robots-meta",
        "noarchive (REP_NOARCHIVE_MEANS_NO_AI_TRAIN off)",
        _NONE,
        _NOARCHIVE,
        "noarchive-ai",
    ),
    MappingRow(
        "robots-meta", "noarchive (ai-input)", (None, None, False), _NOARCHIVE_INPUT, _NA_INPUT
    ),
    MappingRow(
        "robots-meta",
        "noarchive (REP_NOARCHIVE_MEANS_NO_AI_INPUT off)",
        _NONE,
        _NOARCHIVE_INPUT,
        _NA_INPUT,
    ),
    MappingRow("robots-meta", "nocache", (None, False, None), _NOCACHE, "nocache-ai"),
    MappingRow(
        "robots-meta",
        "nocache (REP_NOCACHE_MEANS_NO_AI_TRAIN off)",
        _NONE,
        _NOCACHE,
        "nocache-ai",
    ),
    MappingRow("robots-meta", "nosnippet", (None, None, False), _NOSNIPPET, "nosnippet-ai"),
    MappingRow("robots-meta", "max-snippet:0", (None, None, False), _NOSNIPPET, "nosnippet-ai"),
    MappingRow(
        "robots-meta",
        "nosnippet / max-snippet:0 (REP_NOSNIPPET_MEANS_NO_AI_INPUT off)",
        _NONE,
        _NOSNIPPET,
        "nosnippet-ai",
    ),
    *_index_rows(),
    *(MappingRow("iptc", value, answers, text, IPTC_STD) for value, answers, text in IPTC_ROWS),
    *(MappingRow("cawg", value, answers, text, CAWG_STD) for value, answers, text in CAWG_ROWS),
    *(MappingRow("rsl", signal, answers, source, "rsl") for signal, answers, source in RSL_ROWS),
)
#: :data:`ROWS` by (vocabulary, signal).
MAPPING: Final[Mapping[tuple[str, str], MappingRow]] = MappingProxyType(
    {(row.vocabulary, row.signal): row for row in ROWS}
)
