"""A fetched page's record decided again from what the page said (pure).

A fetched page's ``url`` record keeps the statements the table of signals read from it and
the crawler names they were read for (its ``page`` part:
:func:`rep_engine.trail.lines.page_part`; one too long for its line is a snapshot).
``audit verify`` decides the page again with the crawl's own decision
(:func:`rep_engine.verdict.page.decide_page`), on what the origin's documents said before
the fetch (re-derived from their snapshots by :mod:`rep_audit.rederive`), under the
run's settings and at the time the crawl decided it (its part's ``decided``, else the
record's time), and holds against it every field of the record the decision gives:

- ``page.names``: :func:`read_for`;
- ``usage``: the whole usage decision (every signal with its answers, source and
  conditions, the answer per purpose and the deciding signal), not only its sources;
- ``items_kept``, ``items_not_kept``, ``item_reason`` and ``item_why``: a page whose
  verdict refuses its items (``noindex`` or a passed ``unavailable_after`` under
  ``REP_NOINDEX_ACTION = "drop"``, a "no" for a purpose of the run under
  ``REP_PURPOSE_ACTION = "drop"``) let none through, and dropped them for that reason
  with that sentence; a page whose verdict refuses nothing dropped none, unless a page
  its callback fetched itself (its part's ``fetched``, decided again the same way, with
  its own record before it in the run) refused them, with that page's reason and sentence;
- ``decided``: not before the run started nor the request was sent, not after the record;
- ``cached`` (a page Scrapy's HTTP cache replayed: when it was really fetched): not after
  the request was sent, the page was decided or the record was written. A replayed page
  is decided at ``decided``, the time of the replay: an ``unavailable_after`` that passed
  between the fetch and the replay refuses it (docs/decisions.md, 'A replayed page is
  decided when it is replayed').

The records of runs that wrote no ``page`` part (no ``page_parts`` in their header) are
taken as recorded; in a run that wrote them, a page's record without one has lost it, and
only a run from before whole parts (``page_parts: 2``) may have a part ``omitted`` (older
runs kept only that past 16,384 characters).

The record's times are read by the one reader of a time (:func:`rep_engine.records.
seconds_of`), a page decided at its own (:func:`moment_of`), and its recorded usage signals
read back as the decision's (:func:`recorded_signals`, :func:`recorded_signal`: the
re-derivation of its request's documents reads them too).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any, Final, TypeGuard

from rep_audit.runcontext import PageRun
from rep_engine.records import items, mapping, seconds_of, text, whole
from rep_engine.trail.lines import usage_part
from rep_engine.usage.purpose import PURPOSES, UsageSignal
from rep_engine.verdict.decide import Refused
from rep_engine.verdict.page import PageFacts, PageRules, PageStatements, PageVerdict, decide_page
from rep_engine.verdict.policy import Before

#: Reads a page part's snapshot (its SHA-256) as the JSON object it holds (``None``:
#: missing or unreadable).
PartReader = Callable[[str], "dict[str, Any] | None"]
#: Whether a record of the run before this one is of a fetched page at that URL with that
#: page part (a ``fetched`` sub-part's own record: :func:`said_key`).
RecordedPage = Callable[[str, "dict[str, Any]"], bool]


def said_key(run: str, url: str, part: dict[str, Any]) -> bytes:
    """What a page said, as a fetched page's record keeps it (its ``page`` part but the
    pages its callback fetched) or a page its callback fetched appears in its fetcher's
    (a ``fetched`` sub-part but its ``url``): the same 8 bytes for both in run ``run``."""
    said = {k: v for k, v in part.items() if k not in ("url", "fetched")}
    body = json.dumps([run, url, said], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8")).digest()[:8]


def says_something(part: Any) -> TypeGuard[dict[str, Any]]:
    """Whether a page part holds statements (a page saying nothing refuses nothing, and
    is never a ``fetched`` sub-part)."""
    return isinstance(part, dict) and any(k in part for k in ("headers", "meta", "snapshot"))


def page_differences(
    record: dict[str, Any],
    run: PageRun,
    agents: tuple[str, ...],
    before: Before | None = None,
    licenses: tuple[UsageSignal, ...] = (),
    read_part: PartReader = lambda sha: None,
    recorded: RecordedPage | None = None,
    answered: Callable[[str], Before | None] = lambda url: None,
) -> list[str]:
    """Every way a fetched page's record differs from its page's verdict (sentences).
    ``agents``: the names its request was held to (the declared one first); ``before``:
    what the origin's documents said about it, re-derived from their snapshots (``None``:
    not re-derived, its recorded document signals taken as they are); ``licenses``: the
    signals of the RSL licenses the page itself named, re-derived where they have a
    snapshot; ``recorded``: whether a page its callback fetched has its own record, as
    its sub-part says it (``None``: not asked); ``answered``: what its origin's documents
    say of a page its callback fetched that a downloader middleware before scrapy_rep's
    answered, re-derived from its own record (``None``: none such)."""
    part = record.get("page")
    if part is None and run.parts and "items_kept" in record:
        return ["the record has lost what its page said (no page part)"]
    if run.rules is None or not isinstance(part, dict) or ("omitted" in part and run.parts < 2):
        return []  # only a run from before whole parts omits a part
    if "omitted" in part:
        return ["the record omits what its page said, which this run never does"]
    expected = read_for(agents, run)
    found = names_differences(part, expected)
    said = _said(part, read_part)
    if said is None:
        return [*found, f"page part snapshot {text(part.get('snapshot'))[:12]}… is unreadable"]
    if run.parts < 2:  # a run of an earlier release: its documents' signals as recorded
        before = None
    found += when_decided(record, part, run)
    found += when_cached(record, part)
    verdict = _decided(record, part, said, expected, before, licenses, run.rules)
    fetched = _fetched_refusals(record, part, run, read_part, answered)
    if fetched is None:
        return [*found, "a page its callback fetched has an unreadable part"]
    if recorded is not None and run.parts >= 2:
        found += [
            f"a page its callback fetched, {text(sub.get('url'))}, has no record of its own "
            "in this run before it that says what its part says"
            for sub in items(part.get("fetched"))
            if isinstance(sub, dict) and not recorded(text(sub.get("url")), sub)
        ]
    found += _item_differences(record, verdict, run, fetched)
    found += usage_differences(record, verdict, before)
    return found


def read_for(agents: Sequence[str], run: PageRun) -> tuple[str, ...]:
    """The names a page is read for: every name its request was held to (``agents``, the
    declared one first), then the run's ``REP_DIRECTIVE_TOKENS`` (docs/audit-trail.md,
    ``page.names``; :class:`rep_engine.verdict.page.PageFacts`)."""
    return tuple(dict.fromkeys((*(a for a in agents if a), *run.extra_tokens)))


def names_differences(part: dict[str, Any], expected: tuple[str, ...]) -> list[str]:
    """A page part's ``names`` held to ``expected`` (:func:`read_for`): the same names in
    the same order. Fewer is a page read for a part of its names (a sent-as name's
    ``noindex`` cut), more or others a page read for names its request was not held to."""
    names = tuple(text(name) for name in items(part.get("names")))
    if names == expected:
        return []
    return [f"its statements were recorded as read for {_names(names)}, but its request "
            f"was held to {_names(expected)}"]  # fmt: skip


def _said(part: dict[str, Any], read_part: PartReader) -> dict[str, Any] | None:
    """The part's statements: itself, or the snapshot it names."""
    sha = part.get("snapshot")
    if sha is None:
        return part
    stored = read_part(text(sha))
    return stored if isinstance(stored, dict) else None


def _decided(
    record: dict[str, Any],
    part: dict[str, Any],
    said: dict[str, Any],
    names: tuple[str, ...],
    before: Before | None,
    licenses: tuple[UsageSignal, ...],
    rules: PageRules,
) -> PageVerdict:
    """The page's verdict, as the crawl's page pass decides it."""
    statements = PageStatements(
        _fields(said.get("headers")), _fields(said.get("meta")), licenses=licenses
    )
    facts = PageFacts(
        str(record.get("url", "")),
        names,
        before if before is not None else _recorded_before(record),
        part.get("image") is True,
        text(part.get("embedded_by")),
    )
    decided = moment_of(part.get("decided") or record.get("time"))
    return decide_page(facts, statements, rules, decided)


#: What the crawl adds to the sentence of a refusal a fetched page gave
#: (:meth:`scrapy_rep.crawl.page.pagestate.PageState.fetched`).
FETCHED_BY_CALLBACK: Final = " of {url}, which the page's callback fetched"


def _fetched_refusals(
    record: dict[str, Any],
    part: dict[str, Any],
    run: PageRun,
    read_part: PartReader,
    answered: Callable[[str], Before | None],
) -> list[tuple[str, str]] | None:
    """The reasons and sentences the pages the page's callback fetched itself give to drop
    its items (``None``: one of their parts is unreadable). Each is decided again from its
    own statements (a page whose documents said no was never fetched), and of one a
    downloader middleware before scrapy_rep's answered, what its origin's documents say of
    it (``answered``: re-derived from its own record, as its crawl decided it)."""
    found: list[tuple[str, str]] = []
    for sub in items(part.get("fetched")):
        if not isinstance(sub, dict) or "omitted" in sub:
            continue  # an earlier release's: as recorded
        said = _said(sub, read_part)
        if said is None:
            return None
        url = text(sub.get("url"))
        names = tuple(text(name) for name in items(sub.get("names")))
        fetched = {"url": url, "time": record.get("time")}  # unless the sub-part says when
        before = answered(url) or Before((), None)
        verdict = _decided(fetched, sub, said, names, before, (), run.rules)  # type: ignore[arg-type]
        of = FETCHED_BY_CALLBACK.format(url=url)
        found += [(refusal.reason, refusal.message + of) for refusal in _refusals(verdict, run)]
    return found


def _refusals(verdict: PageVerdict, run: PageRun) -> list[Refused]:
    """The verdict's refusals that drop the page's items under the run's settings."""
    refusals = []
    if verdict.index is not None and run.noindex_drops:
        refusals.append(verdict.index)
    if verdict.purpose is not None and run.purpose_drops:
        refusals.append(verdict.purpose)
    return refusals


def _recorded_before(record: dict[str, Any]) -> Before:
    """What the origin's documents said, as the record lists it (their signals are those
    with a snapshot), when it could not be re-derived."""
    signals = tuple(
        recorded_signal(s)
        for s in recorded_signals(record.get("usage"))
        if s.get("snapshot") and s.get("vocabulary") != "rsl"
    )
    return Before(signals, None, signals) if signals else Before((), None)


def _item_differences(
    record: dict[str, Any],
    verdict: PageVerdict,
    run: PageRun,
    fetched: Sequence[tuple[str, str]] = (),
) -> list[str]:
    """The items kept and dropped, and why, held against the verdict's refusals and those
    of the pages its callback fetched (``fetched``: reason and sentence)."""
    refusal = next(iter(_refusals(verdict, run)), None)
    allowed: list[tuple[str, str]] = (
        [(refusal.reason, refusal.message)] if refusal is not None else []
    )
    allowed += fetched
    kept, dropped = record.get("items_kept"), record.get("items_dropped")
    reason, why = text(record.get("item_reason")), text(record.get("item_why"))
    found = []
    # a page whose own verdict refuses its items lets none through: none kept, and none
    # a later component did not keep
    kept_some, not_kept = isinstance(kept, int) and kept > 0, whole(record.get("items_not_kept"))
    not_kept = not_kept if not_kept is not None and not_kept > 0 else 0
    if refusal is not None and (kept_some or not_kept):
        said = refusal.message if refusal is verdict.index else _denied(refusal)
        if kept_some:
            found.append(f"the page says {said}, but the record kept {kept} item(s)")
        if not_kept:
            found.append(f"the page says {said}, but the record let {not_kept} item(s) through "
                         "(items_not_kept: a later component did not keep them)")  # fmt: skip
    if not allowed and (reason or (isinstance(dropped, int) and dropped > 0)):
        found.append(
            f"the record drops its items for {reason or 'a reason it does not give'}, which "
            "its statements do not say"
        )
    elif reason and not any(
        reason == given and why in ("", sentence) for given, sentence in allowed
    ):
        given, sentence = allowed[0]
        found.append(
            f"the record drops its items for {reason} ({why}), but its page's verdict is "
            f"{given} ({sentence})"
        )
    return found


def _denied(refusal: Any) -> str:
    signal = refusal.signal
    by = f" by {signal.source}" if signal is not None else " (nothing allows it)"
    return f"no {refusal.purpose}{by}"


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(names) if names else "no name"


def _fields(value: Any) -> tuple[tuple[str, str], ...]:
    """A part's ``[[name, value], ...]`` as fields; anything else is skipped."""
    found = []
    for pair in items(value):
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) for v in pair):
            found.append((pair[0], pair[1]))
    return tuple(found)


def moment_of(value: Any) -> datetime | None:
    """A record's time as the page pass decides at it (``None``: none, or unreadable:
    then the current time; one without its zone is UTC's, as the page pass reads it)."""
    seconds = seconds_of(value, "utc")
    try:
        return None if seconds is None else datetime.fromtimestamp(seconds, timezone.utc)
    except (OverflowError, ValueError):  # a year 1 or 9999 taken past its end to UTC
        return None


def when_decided(record: dict[str, Any], part: dict[str, Any], run: PageRun) -> list[str]:
    """A page's ``decided`` time held between what bounds it: not before its run started
    nor before its request was sent (``sent_at``), not after its record was written."""
    written = text(part.get("decided"))
    if not written:
        return []
    decided = seconds_of(written)
    if decided is None:
        return [f"its page part's decided time {written!r} is no time"]
    bounds = (("its run started", run.start, False), ("its request was sent",
              text(record.get("sent_at")), False), ("its record was written",
              text(record.get("time")), True))  # fmt: skip
    for what, bound, after in bounds:
        moment = seconds_of(bound)
        if moment is None:
            continue
        if (decided > moment) if after else (decided < moment):
            return [f"its page part says it was decided at {written}, "
                    f"{'after' if after else 'before'} {what} ({bound})"]  # fmt: skip
    return []


def when_cached(record: dict[str, Any], part: dict[str, Any]) -> list[str]:
    """A replayed page's ``cached`` time (when its copy was really fetched): ``true``
    (the cache did not say), or a time not after its request was sent, it was decided,
    nor its record was written."""
    written = part.get("cached")
    if written is None or written is True:
        return []
    cached = seconds_of(written)
    if cached is None:
        return [f"its page part's cached time {written!r} is no time"]
    bounds = (("its request was sent", text(record.get("sent_at"))),
              ("it was decided", text(part.get("decided"))),
              ("its record was written", text(record.get("time"))))  # fmt: skip
    for what, bound in bounds:
        moment = seconds_of(bound)
        if moment is not None and cached > moment:
            return [f"its page part says it was replayed from a copy fetched at {written}, "
                    f"after {what} ({bound})"]  # fmt: skip
    return []


def usage_differences(
    record: dict[str, Any], verdict: PageVerdict, before: Before | None
) -> list[str]:
    """The recorded usage decision held against the verdict's, signal by signal and
    purpose by purpose (the snapshot each document signal names is checked by
    :mod:`rep_audit.rederive`)."""
    decision = verdict.usage
    recorded = record.get("usage") if isinstance(record.get("usage"), dict) else None
    derived = usage_part(decision, "", "") if decision.signals else None
    if derived is None and recorded is None:
        return []
    mine = [_without_snapshot(s) for s in items((derived or {}).get("signals"))]
    theirs = [_without_snapshot(s) for s in recorded_signals(record.get("usage"))]
    found = [
        f"the page says {signal.source}, which the record's usage decision does not list"
        for signal, entry in zip(decision.signals, mine, strict=True)
        if False in signal.answers and entry not in theirs
    ]
    if found:
        return found
    if mine != theirs:
        extra = [s for s in theirs if s not in mine]
        missing = [s for s in mine if s not in theirs]
        if extra:
            return [f"the record's usage decision lists {_source(extra[0])}, which neither the "
                    "page nor its documents say"]  # fmt: skip
        if missing:
            return [f"the record's usage decision lacks {_source(missing[0])}"]
        return ["the record's usage decision lists its signals in another order than the "
                "page's verdict"]  # fmt: skip
    # equal signals: none when a forged usage part lists none (or none that is an object)
    derived, recorded = derived or {}, recorded or {}
    for key in ("answers", "decided_by", "conditions"):
        if derived.get(key) != recorded.get(key):
            return [f"the record's usage decision gives {key} {_json(recorded.get(key))}, its "
                    f"signals give {_json(derived.get(key))}"]  # fmt: skip
    return []


def recorded_signals(usage: Any) -> list[dict[str, Any]]:
    """The signals of a record's ``usage`` part, each an object."""
    signals = mapping(usage).get("signals")
    return [s for s in items(signals) if isinstance(s, dict)]


def recorded_signal(entry: dict[str, Any]) -> UsageSignal:
    """A recorded signal (a ``usage.signals`` entry) as the decision's
    :class:`UsageSignal` (its answers in :data:`PURPOSES` order)."""
    answers = mapping(entry.get("answers"))
    given = tuple(answers.get(p) if isinstance(answers.get(p), bool) else None for p in PURPOSES)
    conditions = tuple(text(c) for c in items(entry.get("conditions")))
    return UsageSignal(
        text(entry.get("vocabulary")),  # type: ignore[arg-type]
        (given[0], given[1], given[2]),
        text(entry.get("source")),
        conditions,
    )


def _without_snapshot(entry: Any) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k != "snapshot"} if isinstance(entry, dict) else {}


def _source(entry: dict[str, Any]) -> str:
    answers = mapping(entry.get("answers"))  # a forged one's may be anything
    said = ", ".join(f"{p} {'yes' if a else 'no'}" for p, a in answers.items())
    return f"{text(entry.get('source'))!r} ({said or 'no answer'})"


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
