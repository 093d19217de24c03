"""The RSL licenses a trail record was decided with, re-derived from their snapshots
(``scrapy_rep trail verify``; docs/audit-trail.md, docs/purpose-notes.md §9). Pure.

A record's ``rsl`` signals name their license URL in their ``source`` (``RSL <url> …``)
and the snapshot of its body; a license given up on as unreachable has no snapshot
(nothing was read) and stands for the unreachable license: no AI use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from types import MappingProxyType
from typing import Any

from rep_engine.fetch.rsl_kind import licenses_to_wait_for
from rep_engine.records import text
from rep_engine.trail.read import SnapshotStore
from rep_engine.usage.rsl.document import ABSENT, UNREACHABLE, RslDocument, parse_rsl
from rep_engine.usage.rsl.terms import license_url_of


def page_license(signal: dict[str, Any], named: Iterable[str]) -> bool:
    """Whether ``signal`` is an RSL signal of a license the page named (not one of
    robots.txt's ``named`` licenses)."""
    if signal.get("vocabulary") != "rsl":
        return False
    return license_url_of(text(signal.get("source"))) not in licenses_to_wait_for(named)


def license_documents(
    signals: Iterable[dict[str, Any]],
    store: SnapshotStore,
    named: Iterable[str],
    checked: Mapping[str, str] = MappingProxyType({}),
    absent: Callable[[str, str], bool] = lambda sha, url: False,
    cut: Callable[[str, str], bool] = lambda sha, url: False,
) -> tuple[dict[str, RslDocument], str]:
    """The licenses of robots.txt (``named``: its ``License:`` URLs) that the recorded
    ``signals`` name, and those the record names as checked (``checked``, schema 2: license
    URL -> snapshot, ``""`` for one given up on), read from their snapshots; and a problem
    (``""``: none) when a snapshot cannot be read. ``absent(sha, license URL)``: whether
    that snapshot is of no license file (a 404: no terms); ``cut(sha, license URL)``:
    whether its download was cut, so read as cut, as the crawl read it (no AI use)."""
    documents: dict[str, RslDocument] = {}
    keys = licenses_to_wait_for(named)
    named_by_signals = [
        (license_url_of(text(signal.get("source"))), text(signal.get("snapshot")))
        for signal in signals
        if signal.get("vocabulary") == "rsl"
    ]
    for license_url, sha in [*checked.items(), *named_by_signals]:
        if license_url not in keys or license_url in documents:
            continue
        if sha and absent(sha, license_url):
            documents[license_url] = ABSENT
            continue
        truncated = bool(sha) and cut(sha, license_url)
        name, read = f"rsl{' cut' if truncated else ''}", partial(parse_rsl, truncated=truncated)
        document = store.parsed(sha, name, read) if sha else UNREACHABLE
        if document is None:
            return {}, f"RSL snapshot {sha[:12]}… {store.checked.get(sha, 'unreadable')}"
        documents[license_url] = document
    return documents, ""
