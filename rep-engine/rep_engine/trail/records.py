"""A recheck's ``item`` line (docs/audit-trail.md, ``item``) as a typed value,
:class:`ItemRecord`, read by :func:`item_of` in one place for every command but ``audit
verify``, which re-derives the record itself (:mod:`rep_audit.items`). Pure. A
``url`` or ``file`` line's fate is read by :mod:`rep_audit.faterecord`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from rep_engine.trail.read import Line, items, mapping, text, whole
from rep_engine.trail.urlentry import RobotsPart
from rep_engine.urls.origins import origin_of

#: The statuses of an ``item`` line.
ITEM_STATUSES: Final = ("kept", "refused", "unknown")
#: ``refused_by`` of an item refused after the fetch: its page said no (``--pages``).
BY_PAGE: Final = "page"
#: The documents an item names (its ``robots`` and ``tdmrep`` parts; an RSL license by
#: its URL), as :attr:`ItemRecord.documents` names them.
BY_ROBOTS_TXT: Final = "robots.txt"
TDMREP_JSON: Final = "tdmrep.json"


def decider(usage: Any, purpose: str) -> dict[str, Any] | None:
    """The signal that decided ``purpose`` in a recorded usage decision (a ``url`` or
    ``item`` record's ``usage``)."""
    index = mapping(mapping(usage).get("decided_by")).get(purpose)
    signals = items(mapping(usage).get("signals"))  # a hand-edited record's may be anything
    if isinstance(index, int) and 0 <= index < len(signals) and isinstance(signals[index], dict):
        return signals[index]  # type: ignore[no-any-return]
    return None


def named(signal: dict[str, Any]) -> str:
    """What a deciding signal's site said (its ``source``: ``header Content-Usage:
    train-ai=n``), else its vocabulary (a record without its source)."""
    return str(signal.get("source") or signal.get("vocabulary"))


def denied_purposes(usage: Any, purposes: tuple[str, ...]) -> list[str]:
    """Of ``purposes`` (none: every purpose the decision answers), those it says no to."""
    answers = mapping(mapping(usage).get("answers"))
    return [p for p in purposes or tuple(map(str, answers)) if answers.get(p) is False]


@dataclass(frozen=True, slots=True)
class ItemRecord:
    """A recheck's ``item`` line, read (:func:`item_of`)."""

    #: Its line in the trail.
    number: int
    run: str
    time: str
    url: str
    #: The item's line or row in the dataset (``None``: not said), and the file it is in
    #: when the collection is several (its shard; ``""``: one file).
    line: int | None
    shard: str
    #: ``kept``, ``refused`` or ``unknown`` (:data:`ITEM_STATUSES`); as written when it is
    #: none of them (a hand-edited trail).
    status: str
    #: What refused it (``robots.txt``, ``purpose``, ``page``), or left it unknown
    #: (``unreachable``); ``""`` for a kept item.
    refused_by: str
    #: What its page said, for a refusal by its page (``noindex``, ``purpose``…).
    item_reason: str
    #: The record's own sentence (``Forbidden by … (line 2: Disallow: /private)``).
    why: str
    #: The signal that decided, in the trail's words: ``robots.txt`` (its Allow or
    #: Disallow line), what a usage signal's site said (``robots.txt line 3:
    #: Content-Usage: /train train-ai=n``, ``tdmrep.json entry 1 (location "/tdm/*")``),
    #: the page's own statement; ``""`` when no document spoke (no rule, not had).
    signal: str
    #: Its ``robots`` part (:meth:`RobotsPart.from_part`: the line that decided for the
    #: item's agent and its rule, or why none did; all ``""`` and ``None`` when it has none).
    robots: RobotsPart
    #: Each document version it names: (``robots.txt``, ``tdmrep.json`` or the RSL
    #: license's URL, its snapshot); ``""``: the document was not had.
    documents: tuple[tuple[str, str], ...]
    #: With a trail or an export as the recheck's input: its status then (``""``: not
    #: said) and whether it changed.
    then: str
    changed: bool | None
    #: The record as stored (its ``usage`` and ``page`` parts, for a re-derivation).
    record: dict[str, Any]

    @property
    def origin(self) -> str:
        """The item's origin (``(no origin)`` for a URL without one)."""
        return str(origin_of(self.url) or "(no origin)")

    @property
    def reason(self) -> str:
        """What refused it or left it unknown: ``refused_by``, or the page's
        ``item_reason`` for a refusal by its page (as ``audit list`` filters by)."""
        if self.refused_by == BY_PAGE:
            return self.item_reason or self.refused_by
        return "" if self.status == "kept" else self.refused_by

    @property
    def decided(self) -> str:
        """What decided it, in a few words: ``refused by robots.txt line 2 (Disallow:
        /private)``, ``refused by purpose (tdmrep.json entry 1 (location "/tdm/*"))``,
        ``allowed by robots.txt line 4 (Allow: /a)``, ``allowed: no rule matches`` (kept),
        ``not had: tdmrep.json`` (unknown)."""
        robots = self.robots
        if self.status == "refused":
            by = self.refused_by or "an unnamed check"
            if self.refused_by == BY_ROBOTS_TXT and robots.line is not None:
                return f"refused by robots.txt line {robots.line} ({robots.rule})"
            if self.refused_by == BY_PAGE:
                said = self.signal or self.item_reason
                return f"refused by its page ({said})" if said else "refused by its page"
            return f"refused by {by} ({self.signal})" if self.signal else f"refused by {by}"
        if self.status == "kept":
            if robots.overridden:
                return f"overridden by REP_OVERRIDES: {robots.overridden}"
            if robots.line is not None:
                return f"allowed by robots.txt line {robots.line} ({robots.rule})"
            return f"allowed: {robots.why or 'no rule'}"
        if self.status == "unknown":
            missing = [name for name, sha in self.documents if not sha]
            if missing:
                return f"not had: {', '.join(missing)}"
            return self.why or self.refused_by or "undecided"
        return f"status {self.status!r}"

    @property
    def snapshots(self) -> tuple[str, ...]:
        """The snapshots it names (each once, in its record's order)."""
        return tuple(dict.fromkeys(sha for _, sha in self.documents if sha))


def _documents(
    record: dict[str, Any], robots: dict[str, Any], status: str
) -> tuple[tuple[str, str], ...]:
    """The (name, digest) of each document an ``item`` record read: robots.txt,
    tdmrep.json, then each RSL document by its address."""
    documents: list[tuple[str, str]] = []
    if robots or status == "unknown":  # an unknown item without one: robots.txt not had
        documents.append((BY_ROBOTS_TXT, text(robots.get("snapshot"))))
    if "tdmrep" in record:
        documents.append((TDMREP_JSON, text(record.get("tdmrep"))))
    rsl = record.get("rsl")
    if isinstance(rsl, dict):
        documents += [(text(url), text(sha)) for url, sha in rsl.items()]
    return tuple(documents)


def _signal(
    record: dict[str, Any],
    purposes: tuple[str, ...],
    status: str,
    refused_by: str,
    robots_line: int | None,
) -> str:
    """The signal that refused (or kept by robots.txt) an ``item`` record ("": none)."""
    usage = record.get("usage")
    no = denied_purposes(usage, purposes)
    said = decider(usage, no[0]) if no else None
    if refused_by == BY_ROBOTS_TXT or (robots_line is not None and status == "kept"):
        return BY_ROBOTS_TXT if robots_line is not None else ""
    if said is not None and status != "kept":
        return named(said)
    if refused_by == BY_PAGE:
        return text(record.get("why"))
    return ""


def item_of(line: Line, purposes: tuple[str, ...] = ()) -> ItemRecord | None:
    """The ``item`` record of ``line`` (``None``: the line is no ``item`` line);
    ``purposes``: those of its run, of which the first a signal denied names the signal
    that refused it by purpose (none: the first its usage part denies)."""
    record = line.record
    if record is None or line.type != "item":
        return None
    robots = mapping(record.get("robots"))
    said = RobotsPart.from_part(robots)
    status = text(record.get("status")) or str(record.get("status"))
    refused_by = text(record.get("refused_by"))
    signal = _signal(record, purposes, status, refused_by, said.line)
    changed = record.get("changed")
    return ItemRecord(
        number=line.number,
        run=text(record.get("run")),
        time=text(record.get("time")),
        url=text(record.get("url")),
        line=whole(record.get("line")),
        shard=text(record.get("shard")),
        status=status,
        refused_by=refused_by,
        item_reason=text(record.get("item_reason")),
        why=text(record.get("why")),
        signal=signal,
        robots=said,
        documents=_documents(record, robots, status),
        then=text(record.get("then")),
        changed=changed if isinstance(changed, bool) else None,
        record=record,
    )
