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
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache
from typing import Final

from rep_engine.directives import PageDirectives
from rep_engine.robotstxt import ContentSignals, parse_content_signal
from rep_engine.robotstxt.aipref import Attached, ContentUsageRule, UsagePrefs, parse_prefs_header

# Re-exported (``X as X``): this module is the public import path of these names.
from rep_engine.usage._purpose_table import MAPPING as MAPPING
from rep_engine.usage._purpose_table import PURPOSE_INDEX as PURPOSE_INDEX
from rep_engine.usage._purpose_table import PURPOSES as PURPOSES
from rep_engine.usage._purpose_table import ROWS as ROWS
from rep_engine.usage._purpose_table import Answers as Answers
from rep_engine.usage._purpose_table import Purpose as Purpose
from rep_engine.usage._purpose_table import Vocabulary as Vocabulary
from rep_engine.usage.decision import UsageDecision as UsageDecision
from rep_engine.usage.decision import UsageSignal as UsageSignal
from rep_engine.usage.decision import allowed as allowed
from rep_engine.usage.decision import any_no_wins as any_no_wins
from rep_engine.usage.decision import usage_decision as usage_decision
from rep_engine.usage.readings import ALL_READINGS as ALL_READINGS
from rep_engine.usage.readings import NOARCHIVE_INPUT_SETTING as NOARCHIVE_INPUT_SETTING
from rep_engine.usage.readings import NOARCHIVE_SETTING as NOARCHIVE_SETTING
from rep_engine.usage.readings import NOCACHE_SETTING as NOCACHE_SETTING
from rep_engine.usage.readings import NOINDEX_SETTING as NOINDEX_SETTING
from rep_engine.usage.readings import NOSNIPPET_SETTING as NOSNIPPET_SETTING
from rep_engine.usage.readings import DirectiveReadings as DirectiveReadings
from rep_engine.usage.tdmrep import TdmResolution

_NONE: Final[Answers] = (None, None, None)
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
        where = f"robots.txt line {signals.line}:" if signals.line else "robots.txt"
        source = f"{where} Content-Signal: {', '.join(keys)}"
    return _signal("content-signal", keys, source, conditions)


def content_signal_header_signal(values: Iterable[bytes | str] | bytes | str) -> UsageSignal:
    """The ``Content-Signal`` response header (Cloudflare sends
    ``content-signal: ai-train=yes, search=yes, ai-input=yes`` on the pages it converts),
    given all its values: read as a robots.txt ``Content-Signal`` line, a page-level
    signal like the ``Content-Usage`` header (one "no" wins across values)."""
    texts = _header_texts(values)
    source = "header Content-Signal: " + ", ".join(t.strip() for t in texts)
    return content_signal_signal(parse_content_signal(texts), source)


def tdmrep_signal(resolution: TdmResolution) -> UsageSignal:
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
