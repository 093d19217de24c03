"""What a recheck says: the line per item (its status now and its evidence:
:mod:`~rep_recheck.evidence`), and the counts and Markdown summary of the whole
collection (:mod:`~rep_recheck.tally`, :mod:`~rep_recheck.summary`),
whose names are importable from here too (pure).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rep_recheck.datasets import Item, changed_since
from rep_recheck.evidence import (
    EVIDENCE_MEMO,
    Evidence,
    EvidenceMemo,
    evidence,
)
from rep_recheck.items import UNREADABLE
from rep_recheck.summary import (
    TOP_ORIGINS,
    cell,
    not_read,
    per_shard,
    summary_markdown,
)
from rep_recheck.tally import Tally

__all__ = [
    "EVIDENCE_MEMO",
    "TOP_ORIGINS",
    "UNREADABLE",
    "Evidence",
    "EvidenceMemo",
    "Tally",
    "cell",
    "encode",
    "evidence",
    "item_line",
    "not_read",
    "per_shard",
    "summary_markdown",
]


def item_line(
    item: Item,
    status: str,
    said: Evidence,
    why: str = "",
    shard: str = "",
    not_consulted: Sequence[str] = (),
) -> dict[str, Any]:
    """The report's line of one item (``--report``), as JSON (``shard``: the file it is
    in, when the collection is several; ``not_consulted``: the kinds of document a
    decided item was decided without, ``--consult``)."""
    line: dict[str, Any] = {"shard": shard} if shard else {}
    line |= {"line": item.number, "url": item.url or None, "status": status}
    if item.then is not None:
        line["then"] = item.then
        if (changed := changed_since(item.then, status)) is not None:
            line["changed"] = changed
    for name in Evidence.__slots__:
        value = getattr(said, name)
        if value not in ("", None):
            line[name] = value
    if why:
        line["why"] = why
    if not_consulted and status != UNREADABLE:
        line["not_consulted"] = list(not_consulted)
    return line


#: A line as JSON, compact: its characters as they are, or escaped (one encoder made).
_AS_IS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_ESCAPED = json.JSONEncoder(separators=(",", ":")).encode


def encode(line: dict[str, Any]) -> bytes:
    """One JSON line, UTF-8; a string no UTF-8 can hold (a lone surrogate, as JSON may
    escape one: ``"\\ud800"``) is written escaped, as JSON writes it."""
    try:
        return (_AS_IS(line) + "\n").encode()
    except UnicodeEncodeError:
        return (_ESCAPED(line) + "\n").encode()
