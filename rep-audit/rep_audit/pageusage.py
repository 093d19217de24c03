"""A fetched page's recorded usage decision held against its verdict's, signal by signal
and purpose by purpose, and the recorded signals read back as the decision's (pure), for
:mod:`rep_audit.pages` and :mod:`rep_audit.rederive`."""

from __future__ import annotations

import json
from typing import Any

from rep_engine.records import items, mapping, text
from rep_engine.trail.lines import usage_part
from rep_engine.usage.purpose import PURPOSES, UsageSignal
from rep_engine.verdict.page import PageVerdict
from rep_engine.verdict.policy import Before


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
    theirs = [_without_snapshot(s) for s in recorded_signals(record)]
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


def recorded_signals(record: dict[str, Any]) -> list[dict[str, Any]]:
    signals = mapping(record.get("usage")).get("signals")
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
