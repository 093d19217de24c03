"""The one table that maps each AI-usage signal onto the purposes (pure).

Each row names the signal as written, what it means for ``search``, ``ai-train`` and
``ai-input``, and the text that justifies it; a vocabulary with no word for a purpose
says nothing about it (``None``). See ``docs/purpose-notes.md`` (its table is written
from this one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal

from rep_engine.usage._media_rows import CAWG_ROWS, CAWG_STD, IPTC_ROWS, IPTC_STD
from rep_engine.usage.rsl._rows import RSL_ROWS
from rep_engine.usage.standards import STANDARDS

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
