"""Which search directives the crawl reads as AI opt-outs (docs/decisions.md): the
settings each reading is made under and :class:`DirectiveReadings`, the readings of a
crawl. Values only: :mod:`rep_engine.usage.purpose` reads under them and re-exports
these names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

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
