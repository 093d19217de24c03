"""What a crawl is for, and what the site's AI-usage signals say about it (pure).

A crawl has one or more purposes (:data:`PURPOSES`): ``search`` (building a search
index that links to the pages), ``ai-train`` (training AI models) and ``ai-input``
(feeding pages into a model at inference time: RAG, grounding). Each machine-readable
signal a site gives (aipref ``Content-Usage``, ``Content-Signal``, TDMRep, ``noai`` /
``noimageai``) is turned into a :class:`UsageSignal` through ONE table,
:data:`MAPPING`, whose rows name their source; a vocabulary that has no word for a
purpose says nothing about it. :func:`decide` combines the signals of one resource
into a :class:`UsageDecision`: for each purpose, any explicit "no" wins, then any
"yes", else unknown (the rule of draft-ietf-aipref-vocab-07 §5.1, applied across
vocabularies). See ``docs/purpose-notes.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, Literal

from scrapy_rep.directives import PageDirectives
from scrapy_rep.robotstxt import ContentSignals
from scrapy_rep.robotstxt.aipref import Attached, ContentUsageRule, UsagePrefs, parse_prefs_header

# Re-exported (``X as X``): this module is the public import path of these names.
from scrapy_rep.usage._purpose_table import MAPPING as MAPPING
from scrapy_rep.usage._purpose_table import PURPOSE_INDEX as PURPOSE_INDEX
from scrapy_rep.usage._purpose_table import PURPOSES as PURPOSES
from scrapy_rep.usage._purpose_table import ROWS as ROWS
from scrapy_rep.usage._purpose_table import Answers as Answers
from scrapy_rep.usage._purpose_table import MappingRow as MappingRow
from scrapy_rep.usage._purpose_table import Purpose as Purpose
from scrapy_rep.usage._purpose_table import Vocabulary as Vocabulary
from scrapy_rep.usage.tdmrep import TdmResolution

_NONE: Final[Answers] = (None, None, None)
#: Longest source text kept in a signal (header values can be long).
MAX_SOURCE_CHARS: Final = 200


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


def _merge(rows: Iterable[Answers]) -> Answers:
    """Several rows of one signal: per purpose, a "no" wins over a "yes"."""
    rows = tuple(rows)
    merged = [any_no_wins(row[index] for row in rows)[0] for index in range(3)]
    return (merged[0], merged[1], merged[2])


def _clip(text: str) -> str:
    return text if len(text) <= MAX_SOURCE_CHARS else text[: MAX_SOURCE_CHARS - 1] + "…"


@dataclass(frozen=True, slots=True)
class UsageSignal:
    """One statement a site made about one resource, mapped onto the purposes."""

    vocabulary: Vocabulary
    answers: Answers
    #: Where it was found: ``robots.txt line 12: Content-Usage: train-ai=n``,
    #: ``header Content-Usage: ...``, ``tdmrep.json entry 2 (location "/books/*")``,
    #: ``<meta name="robots" content="noai">``.
    source: str

    def answer(self, purpose: Purpose) -> bool | None:
        """``True`` allowed, ``False`` denied, ``None`` says nothing about ``purpose``."""
        return self.answers[_index(purpose)]

    def __str__(self) -> str:
        return self.source

    def to_dict(self) -> dict[str, Any]:
        """Compact JSON form: vocabulary, the purposes it answers, source."""
        answered = {p: a for p, a in zip(PURPOSES, self.answers, strict=True) if a is not None}
        return {"v": self.vocabulary, "a": answered, "src": self.source}


def _signal(vocabulary: Vocabulary, keys: Iterable[str], source: str) -> UsageSignal:
    return UsageSignal(
        vocabulary, _merge(MAPPING[(vocabulary, key)].answers for key in keys), _clip(source)
    )


# --------------------------------------------------------------------------- signals


def prefs_signal(prefs: UsagePrefs, source: str) -> UsageSignal:
    """An aipref statement (vocab §6) found at ``source``; unknown categories say nothing."""
    keys = []
    if prefs.train_ai is not None:
        keys.append("train-ai=y" if prefs.train_ai else "train-ai=n")
    if prefs.search is not None:
        keys.append("search=y" if prefs.search else "search=n")
    if prefs.ai_use is not None:
        keys.append("ai-use=y" if prefs.ai_use else "ai-use=n")
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


def content_usage_header_signal(values: Iterable[bytes | str] | bytes | str) -> UsageSignal:
    """The ``Content-Usage`` response header (attach §2), given all its values."""
    if isinstance(values, (str, bytes)):
        values = [values]
    texts = [v if isinstance(v, str) else bytes(v).decode("latin-1") for v in values]
    prefs = parse_prefs_header(texts)
    return prefs_signal(prefs, "header Content-Usage: " + ", ".join(t.strip() for t in texts))


def content_signal_signal(
    signals: ContentSignals, source: str = "robots.txt Content-Signal"
) -> UsageSignal:
    """The ``Content-Signal`` values of the robots.txt group that applies to us
    (:meth:`scrapy_rep.robotstxt.RobotsTxt.content_signals`)."""
    keys = [
        f"{name}={'yes' if value else 'no'}"
        for name, value in (
            ("search", signals.search),
            ("ai-train", signals.ai_train),
            ("ai-input", signals.ai_input),
        )
        if value is not None
    ]
    if signals.use is not None:
        keys.append(f"use={signals.use}")
    if source == "robots.txt Content-Signal" and keys:
        source = f"robots.txt Content-Signal: {', '.join(keys)}"
    return _signal("content-signal", keys, source)


def tdmrep_signal(resolution: TdmResolution) -> UsageSignal:
    """The TDMRep answer for one resource after its own precedence (file, header, meta:
    :func:`scrapy_rep.usage.tdmrep.resolve`)."""
    if resolution.reservation is None:
        return UsageSignal("tdmrep", _NONE, "TDMRep: no reservation stated")
    key = "tdm-reservation: 1" if resolution.reservation else "tdm-reservation: 0"
    return _signal("tdmrep", (key,), resolution.source or key)


def page_signals(directives: PageDirectives, *, image: bool) -> tuple[UsageSignal, ...]:
    """``noai`` / ``noimageai`` from the robots meta tags and ``X-Robots-Tag`` headers
    that apply to us (SPEC §6). ``image``: the response itself is an image
    (``Content-Type: image/*``), where ``noimageai`` means the same as ``noai``."""
    found = []
    if directives.noai:
        found.append(("noai", "noai"))
    if directives.noimageai:
        found.append(
            ("noimageai", "noimageai (image response)" if image else "noimageai (other response)")
        )
    return tuple(
        _signal("robots-meta", (key,), _directive_source(directives, word)) for word, key in found
    )


def embedded_image_signal(source: str) -> UsageSignal:
    """An image shown by a ``noimageai`` page (``source``: the page's directive and URL):
    the page's noimageai covers it as ``noai`` would (DeviantArt 2022; issue 22)."""
    return _signal("robots-meta", ("noimageai (image response)",), source)


def _directive_source(directives: PageDirectives, word: str) -> str:
    for source in directives.sources:
        if word in source.lower():
            return source
    return f"robots directive {word}"


# --------------------------------------------------------------------------- decision

Verdict = Literal["allowed", "denied", "unknown"]


class UsageDecision:
    """For each purpose: allowed, denied or unknown, the signal that decided, and every
    signal considered. Across signals any explicit "no" wins, then any "yes", else
    unknown; the deciding signal is the first such one in the order given."""

    __slots__ = ("_answers", "_by", "signals")

    def __init__(self, signals: Iterable[UsageSignal]) -> None:
        self.signals = tuple(signals)
        merged = [any_no_wins(s.answers[index] for s in self.signals) for index in range(3)]
        self._answers: Answers = (merged[0][0], merged[1][0], merged[2][0])
        self._by = tuple(by for _, by in merged)

    def allowed(self, purpose: Purpose) -> bool | None:
        """``True`` allowed, ``False`` denied, ``None`` unknown."""
        return self._answers[_index(purpose)]

    def verdict(self, purpose: Purpose) -> Verdict:
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
        return {
            "a": dict(zip(PURPOSES, self._answers, strict=True)),
            "by": {p: i for p, i in zip(PURPOSES, self._by, strict=True) if i is not None},
            "s": [signal.to_dict() for signal in self.signals],
        }


def decide(signals: Iterable[UsageSignal]) -> UsageDecision:
    """Combine the signals of one resource (see :class:`UsageDecision`)."""
    return UsageDecision(signals)


def allowed(signals: Iterable[UsageSignal], purpose: Purpose) -> bool | None:
    """The answer for one purpose without building a decision (the hot path)."""
    index = _index(purpose)
    return any_no_wins(signal.answers[index] for signal in signals)[0]
