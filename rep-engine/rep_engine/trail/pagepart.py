"""A fetched page's part of its ``url`` record (docs/audit-trail.md, ``page``): what the
page said, as the table of signals read it, and the facts it was decided on besides; a
part too long for its line names the snapshot that holds its statements (pure).
:mod:`rep_engine.trail.lines` builds the rest of the line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

#: The most characters of a page's statements a record keeps in its line: past it, they
#: are a snapshot of their own (kind ``page``), which the part names.
MAX_PAGE_PART_CHARS: Final = 16384
#: A run header's ``page_parts`` when every page part is whole (older runs wrote ``true``
#: and kept only ``omitted`` past :data:`MAX_PAGE_PART_CHARS`).
WHOLE_PAGE_PARTS: Final = 2


def page_part(
    names: Sequence[str],
    headers: Sequence[tuple[str, str]],
    meta: Sequence[tuple[str, str]],
    *,
    image: bool = False,
    embedded_by: str = "",
    decided: datetime | None = None,
    cached: datetime | bool | None = None,
) -> dict[str, Any]:
    """What a fetched page said, as the table of signals read it (``headers``: the fields
    of its header rows; ``meta``: its meta tags named after a meta row or our names), and
    the facts it was decided on besides: the crawler ``names`` they were read for, whether
    it is an ``image``, the ``noimageai`` of the page that showed it (``embedded_by``) and,
    when its verdict depends on the time (an ``unavailable_after``), when it was
    ``decided`` (ISO 8601 UTC, to the millisecond): the page's snapshot, from which
    ``audit verify`` decides the page again (:func:`rep_engine.verdict.page.decide_page`).
    A page Scrapy's HTTP cache replayed says when it was really fetched (``cached``: ISO
    8601 UTC, or ``true`` when the cache did not say).
    Statements past :data:`MAX_PAGE_PART_CHARS` go to a snapshot (:func:`page_snapshot`)."""
    part: dict[str, Any] = {"names": list(names)}
    if headers:
        part["headers"] = [[name, value] for name, value in headers]
    if meta:
        part["meta"] = [[name, content] for name, content in meta]
    if image:
        part["image"] = True
    if embedded_by:
        part["embedded_by"] = embedded_by
    if decided is not None:
        part["decided"] = _iso(decided)
    if cached is not None and cached is not False:
        part["cached"] = True if cached is True else _iso(cached)
    return part


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def page_snapshot(part: dict[str, Any]) -> bytes | None:
    """The body of ``part``'s statements when they are too long for the record's line
    (``None``: they fit): the part then names its snapshot instead (:func:`snapshotted`)."""
    size = 0  # loops, not comprehensions: every page's part is measured (the hot path)
    for key in ("headers", "meta"):
        for name, value in part.get(key, ()):
            size += len(name) + len(value)
    if size <= MAX_PAGE_PART_CHARS:
        return None
    said = {k: part[k] for k in ("headers", "meta") if k in part}
    return json.dumps(said, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def snapshotted(part: dict[str, Any], sha256: str) -> dict[str, Any]:
    """``part`` with its statements replaced by the snapshot that holds them."""
    kept = {k: v for k, v in part.items() if k not in ("headers", "meta")}
    return {**kept, "snapshot": sha256}
