"""The rows of the one mapping table (``_purpose_table.ROWS``) for the statements inside
a downloaded file, pure data: IPTC Data Mining values (XMP ``plus:DataMining``) and the
CAWG training-and-data-mining entries (C2PA). Each row: the signal as written, its
answers for (``search``, ``ai-train``, ``ai-input``), and the text that justifies it;
docs/media.md has every reading.
"""

from __future__ import annotations

from typing import Final

_Answers = tuple[bool | None, bool | None, bool | None]
_NONE: Final[_Answers] = (None, None, None)
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


def _denied(answers: _Answers) -> _Answers:
    return (
        None if answers[0] is None else False,
        None if answers[1] is None else False,
        None if answers[2] is None else False,
    )


def _cawg_rows() -> tuple[tuple[str, _Answers, str], ...]:
    """Per entry: allowed, notAllowed, constrained (a no), constrained with
    ``REP_MEDIA_CONSTRAINTS_MET`` (nothing)."""
    rows: list[tuple[str, _Answers, str]] = []
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


def _iptc_rows() -> tuple[tuple[str, _Answers, str], ...]:
    """IPTC Data Mining values (plain ``DMI-PROHIBITED`` and the ``SEE*`` forms also
    deny search: a separate value exists to except search engine indexing)."""
    all_no: _Answers = (False, False, False)
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
