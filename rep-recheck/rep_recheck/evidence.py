"""The evidence of an item's status now (pure): the deciding signal (``robots.txt`` for
an Allow/Disallow line, a signal's vocabulary: ``aipref``, ``content-signal``,
``tdmrep``, ``rsl``; after the fetch the page's ``noindex``…), the document it is in (its
URL), the line (or tdmrep.json entry) and its text, the document's SHA-256, and when it
was fetched or captured (with the WARC-Record-ID of a capture).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from sys import intern
from typing import Final

from rep_engine.records import ItemStatus, Reason, iso_time
from rep_engine.usage.rsl.terms import license_url_of
from rep_engine.verdict.decide import LICENSE, ROBOTS, Allowed, Refused
from rep_engine.verdict.page import PAGE
from rep_recheck.documents import document_url
from rep_recheck.rechecker import Outcome

#: ``line 12: Content-Usage: train-ai=n`` or ``entry 2 (location "/x")`` in a source.
_PLACE: Final = re.compile(r"\b(?:line|entry) (\d+)\b:? ?(.*)")


@dataclass(frozen=True, slots=True)
class Evidence:
    """What decided an item, and where it is written."""

    #: The deciding signal (``""``: nothing said anything: kept with no rule).
    signal: str = ""
    #: The refusal's reason (``forbidden``, ``purpose``, ``noindex``…; ``""``: none).
    reason: str = ""
    #: The purpose denied (a refusal for a purpose).
    purpose: str = ""
    document: str = ""
    #: The line of the document (robots.txt's line, tdmrep.json's entry).
    document_line: int | None = None
    text: str = ""
    sha256: str = ""
    #: When the document was fetched or captured (ISO 8601 UTC).
    time: str = ""
    #: The WARC-Record-ID of its capture.
    record: str = ""
    #: The robots.txt group's agent whose line refused it (the crawler's name, or a
    #: ``REP_PURPOSE_AGENTS`` token such as ``GPTBot``).
    agent: str = ""


def evidence(url: str, outcome: Outcome, fetched_now: float = 0.0) -> Evidence:
    """The evidence of one item's status (``fetched_now``: when its page was fetched
    again, for a refusal after the fetch)."""
    documents = outcome.documents
    refusal = outcome.refusal
    if outcome.page_refusal is not None:
        return _said(refusal, url, fetched_now)
    verdict = outcome.verdict
    kind, key, entry = ROBOTS, None, None
    if verdict is not None and verdict.used:
        kind, key, entry = verdict.used[0]
    if isinstance(refusal, Refused) and refusal.document != ROBOTS:
        for used in refusal.used:
            if used[0] == refusal.document:
                kind, key, entry = used
        if refusal.document == LICENSE and refusal.signal is not None:
            key = license_url_of(refusal.signal.source) or key
    origin = documents.origin if documents is not None else None
    # one string per document and per line text, however many outcomes' evidence the
    # memo holds (its memory: 65,536 outcomes')
    document = intern(document_url(kind, key if key is not None else origin)) if origin else ""
    sha = entry.sha256 if entry is not None else ""
    when = iso_time(entry.fetched_at) if entry is not None and entry.fetched_at else ""
    record = documents.records.get((kind, key), "") if documents is not None else ""
    if outcome.status is ItemStatus.UNKNOWN:
        return Evidence("unknown", "", "", document, None, outcome.why, sha, when, record)
    if refusal is not None:
        said = _said(refusal, url, 0.0)
        return Evidence(said.signal, said.reason, said.purpose, document, said.document_line,
                        said.text, sha, when, record, said.agent)  # fmt: skip
    decision = verdict.robots if isinstance(verdict, Allowed) else None
    if decision is None or decision.line is None:
        text = decision.reason if decision is not None else ""
        return Evidence("", "", "", document, None, text, sha, when, record)
    text = intern(decision.line_text or "")
    return Evidence("robots.txt", "", "", document, decision.line, text, sha, when, record)


class EvidenceMemo:
    """:func:`evidence` remembered per outcome: the fast path hands the items of an
    origin one shared :class:`Outcome` (its allowed items, each refusing line's), whose
    evidence is the same for each (a refusal after the fetch names its page: not
    remembered). At most :data:`EVIDENCE_MEMO` outcomes, then it starts again."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Outcome, Evidence]] = {}
        #: A refused outcome's sentence (``--removed``), the same way.
        self._whys: dict[int, tuple[Outcome, str]] = {}

    def of(self, url: str, outcome: Outcome, fetched_now: float = 0.0) -> Evidence:
        if outcome.page_refusal is not None:
            return evidence(url, outcome, fetched_now)
        known = self._known.get(id(outcome))
        if known is not None and known[0] is outcome:
            return known[1]
        said = evidence(url, outcome, fetched_now)
        if len(self._known) >= EVIDENCE_MEMO:
            self._known.clear()
        self._known[id(outcome)] = (outcome, said)
        return said

    def refusal(self, outcome: Outcome) -> str:
        """The sentence of ``outcome``'s refusal, as ``--removed`` says it (its verdict,
        which a shared outcome decides when read and lets go, read once per outcome)."""
        known = self._whys.get(id(outcome))
        if known is not None and known[0] is outcome:
            return known[1]
        refusal = outcome.refusal
        said = refusal.message if refusal is not None else ""
        if outcome.page_refusal is None:  # a page's refusal is its item's alone
            if len(self._whys) >= EVIDENCE_MEMO:
                self._whys.clear()
            self._whys[id(outcome)] = (outcome, said)
        return said

    def clear(self) -> None:
        """The outcomes let go (each holds its origin's parsed documents)."""
        self._known.clear()
        self._whys.clear()


#: The most outcomes :class:`EvidenceMemo` keeps.
EVIDENCE_MEMO: Final = 65_536


def _said(refusal: Refused | None, url: str, fetched: float) -> Evidence:
    """A refusal's signal, line and text."""
    assert refusal is not None
    reason = str(refusal.reason)
    purpose = refusal.purpose or ""
    agent = ""
    if refusal.signal is not None:
        source = refusal.signal.source
        found = _PLACE.search(source)
        line, text = (int(found.group(1)), found.group(2) or source) if found else (None, source)
        signal: str = refusal.signal.vocabulary
    elif refusal.robots is not None and refusal.reason is Reason.FORBIDDEN:
        signal, line = "robots.txt", refusal.robots.line
        text = intern(refusal.robots.line_text or "")
        agent = refusal.agent
    else:
        signal, line, text = reason, None, refusal.message
    if refusal.document == PAGE:
        return Evidence(signal, reason, purpose, url, line, text, "", iso_time(fetched))
    return Evidence(signal, reason, purpose, document_line=line, text=text, agent=agent)
