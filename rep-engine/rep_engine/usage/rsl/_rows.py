"""The RSL 1.0 rows of the one mapping table (``rep_engine.usage.purpose.ROWS``), pure data.

Each row: the signal as written, its answers for (``search``, ``ai-train``,
``ai-input``), and the text that justifies it. RSL 1.0 §3.4.1 (Usage and User
Classification Vocabularies, errata of 2026-01-16) has the usage tokens ``all``,
``ai-all``, ``ai-train``, ``ai-input``, ``ai-index`` and ``search``; its definitions were
not in any copy read, so each token is read by its name (paraphrased below, not quoted)
and every reading is in docs/purpose-notes.md §9.
"""

from __future__ import annotations

from typing import Final

_Answers = tuple[bool | None, bool | None, bool | None]
_RSL: Final = "RSL 1.0 §3.4.1 usage token, read by its name (definition not read): "
#: usage token -> (the purposes it names, why).
_TOKENS: Final[dict[str, tuple[_Answers, str]]] = {
    "all": ((True, True, True), '"all": every use of the asset -> all three purposes'),
    "ai-all": (
        (None, True, True),
        '"ai-all": every AI use (training, input, AI indexing) -> ai-train and ai-input; '
        "search (not an AI use) is not named",
    ),
    "ai-train": ((None, True, None), '"ai-train": training or fine-tuning AI models -> ai-train'),
    "ai-input": (
        (None, None, True),
        '"ai-input": input to AI models at inference (RAG, grounding, generated answers) '
        "-> ai-input",
    ),
    "search": (
        (True, None, None),
        '"search": building a search index and returning links and short excerpts '
        "(not AI-generated summaries) -> search",
    ),
}
_GUIDES: Final = "RSL guides, token outside the 1.0 list read as its namesake: "
#: Tokens the RSL guides themselves write (and earlier drafts had): a license that says
#: ``<prohibits type="usage">train-ai</prohibits>`` (the guides' "Prohibit AI training"
#: template) must not be read as saying nothing.
_ALIASES: Final[dict[str, tuple[_Answers, str]]] = {
    "train-ai": (
        (None, True, None),
        '"train-ai" (guides "RSL and AI Preferences" and "Getting Started", the IETF '
        "aipref category) -> ai-train",
    ),
    "train-genai": ((None, True, None), '"train-genai" (IETF aipref) -> ai-train'),
    "ai-use": ((None, None, True), '"ai-use" (IETF aipref vocab-08) -> ai-input'),
    "tdm": (
        (None, True, True),
        '"tdm" (guide "Authenticating Web Crawlers"): text and data mining, which covers '
        "AI training and AI input as TDMRep reads it -> ai-train and ai-input",
    ),
}
_AI_INDEX: Final = (
    _RSL + '"ai-index": building an AI-powered index that feeds AI answers; its prohibits '
    "is a no for ai-input (the index is AI input), its permits grants nothing we crawl "
    "for (neither search nor ai-input as a whole): docs/purpose-notes.md §9"
)


def _rows() -> tuple[tuple[str, _Answers, str], ...]:
    rows: list[tuple[str, _Answers, str]] = []
    for prefix, tokens in ((_RSL, _TOKENS), (_GUIDES, _ALIASES)):
        for token, (answers, why) in tokens.items():
            denied: _Answers = tuple(None if a is None else False for a in answers)  # type: ignore[assignment]
            rows.append((f"permits {token}", answers, prefix + why))
            rows.append((f"prohibits {token}", denied, prefix + why + "; prohibits wins"))
    rows.append(("permits ai-index", (None, None, None), _AI_INDEX))
    rows.append(("prohibits ai-index", (None, None, False), _AI_INDEX))
    return tuple(rows)


_NO_AI: Final[_Answers] = (None, False, False)
#: Every RSL row (see the module docstring).
RSL_ROWS: Final[tuple[tuple[str, _Answers, str], ...]] = (
    *_rows(),
    (
        "permits (purpose not listed)",
        (False, False, False),
        "RSL 1.0 <permits>: the license grants the uses it lists; a license with a usage "
        "<permits> that does not list a purpose does not grant it (a no for that purpose)",
    ),
    (
        "license required (not held)",
        (False, False, False),
        'RSL 1.0 <content server=…>: "clients must obtain a license for this asset, even '
        'if the license is free"; a paid <payment> or user/geo terms we cannot check read '
        "the same: a no for what the license would grant, unless REP_RSL_LICENSES holds it",
    ),
    (
        "license document unreachable",
        _NO_AI,
        "RSL 1.0 robots.txt License: the terms must be retrieved before processing the "
        "content; a document given up on is taken as no AI use for now (as tdmrep.json)",
    ),
    (
        "license document unreadable",
        _NO_AI,
        "RSL 1.0 <rsl>: the namespace is required and a document has one or more "
        "<content>; a body that is not such a document (or has a DTD, or is over 500 "
        "KiB) is terms we cannot read: no AI use (docs/purpose-notes.md §9)",
    ),
    (
        "licenses not read",
        (False, False, False),
        'RSL guide "Adding RSL to robots.txt": crawlers "must retrieve and comply with the '
        "defined terms before accessing or processing the site's content\"; a robots.txt "
        "naming more licenses for the crawler than REP_RSL_MAX_LICENSES (or a page naming "
        "more) has none read, and terms not retrieved may prohibit any use: a no for every "
        "purpose (docs/decisions.md)",
    ),
)
