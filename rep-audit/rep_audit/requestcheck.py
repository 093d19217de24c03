"""A record's request decided again by the crawl's own decision (:func:`rep_engine.verdict.
decide`) on the documents it was decided with, and the verdict held against what the
record says: its fate, robots.txt's deciding line, its override, its usage signals (pure)."""

from __future__ import annotations

from collections.abc import Collection, Hashable
from typing import Any, Final

from rep_audit.documents import page_license, snapshot_entry
from rep_audit.runcontext import RunContext
from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.rules import Effect
from rep_engine.records import (
    SENT_FATES,
    USAGE_REFUSALS,
    Reason,
    RefusedBy,
    iso_time,
    mapping,
    text,
)
from rep_engine.robotstxt import RobotsTxt
from rep_engine.urls.origins import Origin, origin_of
from rep_engine.usage.purpose import PURPOSES, content_signal_signal
from rep_engine.usage.rsl.document import ABSENT
from rep_engine.usage.rsl.terms import license_url_of
from rep_engine.verdict.decide import (
    LICENSE,
    ROBOTS,
    TDM,
    Allowed,
    Obey,
    Refused,
    RequestFacts,
    RequestRules,
    Verdict,
    decide,
)
from rep_engine.verdict.policy import NOTHING_BEFORE, Before

#: The times a re-derivation decides at: after every override's expiry, before all.
_AFTER_ALL: Final = float("inf")
_BEFORE_ALL: Final = float("-inf")


def decided(
    documents: dict[tuple[str, Hashable], CacheEntry[Any]], robots: dict[str, Any],
    rules: RobotsTxt, effect: Effect, url: str, agent: str, origin: str, run: RunContext,
    obeyed: bool, names: tuple[str, ...], also: tuple[RobotsTxt, Effect] | None,
) -> Verdict:  # fmt: skip
    """The crawl's own verdict on the request, from its robots.txt (``rules``; ``also``:
    its URL's own origin's, when it was sent with a ``Host`` addressing ``origin``) and
    the other ``documents`` it was decided with, for every name it was held to."""
    request_rules = RequestRules.of(
        run.purposes, run.unknown, run.agents[1:], purpose_set=True, explain=True,
        rsl_licenses=run.rsl_licenses, overrides=run.overrides,
        max_licenses=run.rsl_max_licenses,
    )  # fmt: skip
    documents[ROBOTS, None] = snapshot_entry(rules, effect is Effect.UNREACHABLE)
    own = origin_of(url)
    if also is not None:
        documents[ROBOTS, own] = snapshot_entry(also[0], also[1] is Effect.UNREACHABLE)

    def known(kind: str, key: Hashable) -> CacheEntry[Any] | None:
        if also is not None and kind == ROBOTS and key == own:
            return documents[ROBOTS, own]
        found = documents.get((kind, key if kind == LICENSE else None))
        return found if found is not None or kind != LICENSE else snapshot_entry(ABSENT)

    target = own or Origin("", "", None)
    served_by = None
    addressed = origin_of(f"{origin}/") if origin != str(own or "") else None
    if addressed is not None:  # sent with a Host addressing another site
        target, served_by = addressed, (own if also is not None else None)
    facts = RequestFacts(
        url, target, agent, Obey.ALL if obeyed else Obey.USAGE, names, served_by=served_by
    )
    # The trail does not say when a request was decided: one whose record says its
    # host's override had expired is decided after it, any other while it held
    # (a request it let through says so: override_differences).
    expired = isinstance(robots.get("override_expired"), str)
    return decide(facts, request_rules, known, _AFTER_ALL if expired else _BEFORE_ALL)


def held_against(
    record: dict[str, Any], robots: dict[str, Any], verdict: Verdict, signals: list[dict[str, Any]],
    rules: RobotsTxt, url: str, agent: str, names: tuple[str, ...], obeyed: bool,
) -> tuple[list[str], Before | None]:  # fmt: skip
    """Every way the record differs from ``verdict`` (sentences), and what its documents
    said about it before the fetch (``None``: not allowed)."""
    fate, by = text(record.get("fate")), RefusedBy.of(record.get("refused_by"))
    found: list[str] = []
    if obeyed:
        found += robots_differences(record, robots, verdict, url, agent, rules)
        found += override_differences(robots, verdict)
    before = getattr(verdict, "before", NOTHING_BEFORE)
    found += _signal_differences(before, signals, verdict, rules, names or (agent,))
    refused = verdict if isinstance(verdict, Refused) and fate in SENT_FATES else None
    if refused is not None and refused.reason is Reason.PURPOSE:
        found.append(f"recorded {fate}, but {refused.message.removeprefix('Not fetched: ')} "
                     "(before the fetch)")  # fmt: skip
    if refused is not None and refused.reason is Reason.TDMREP_UNREACHABLE:
        found.append(f"recorded {fate}, but {refused.message}")
    if isinstance(verdict, Allowed) and fate == "refused" and by in USAGE_REFUSALS:
        found.append(f"recorded refused by {by}, but its snapshots deny no purpose of the run")
    return found, before if isinstance(verdict, Allowed) else None


def unnamed_documents(
    record: dict[str, Any],
    signals: list[dict[str, Any]],
    verdict: Verdict,
    skipped: Collection[str] = (),
) -> list[str]:
    """The tdmrep.json and RSL licenses ``verdict`` was decided with that a sent request's
    record (schema 2 on) does not name: its crawl names every document version it was
    decided against (docs/audit-trail.md, ``tdmrep`` and ``rsl``; ``""``: given up on),
    and one left out is read as none, which lets through what it refused; but those of
    the kinds ``skipped`` (a recheck's not consulted: read as none by its run)."""
    fate = text(record.get("fate"))
    if fate not in SENT_FATES:
        return []
    named = set(mapping(record.get("rsl")))
    named.update(license_url_of(text(one.get("source"))) for one in signals
                 if one.get("vocabulary") == "rsl")  # fmt: skip
    found: dict[str, None] = {}  # a request sent with a Host names one tdmrep.json
    for kind, key, _ in verdict.used:
        if kind in skipped:
            continue
        if (kind == TDM and "tdmrep" not in record) or (kind == LICENSE and key not in named):
            what = f"tdmrep.json of {key}" if kind == TDM else f"RSL license {key}"
            found[f"recorded {fate}, but names no {what}, which its request was decided "
                  "with: read as none"] = None  # fmt: skip
    return list(found)


def _signal_differences(
    before: Before, signals: list[dict[str, Any]], verdict: Verdict, rules: RobotsTxt,
    names: tuple[str, ...],
) -> list[str]:  # fmt: skip
    """The usage signals recorded from a snapshot held against what it says today."""
    derived = {signal.source: signal.answers for signal in before.every}
    for name in names:  # trails of earlier releases: one signal, no line
        legacy = content_signal_signal(rules.content_signals(name))
        derived.setdefault(legacy.source, legacy.answers)
    found = []
    for signal in signals if not _robots_refused(verdict) else ():
        if not signal.get("snapshot") or page_license(signal, rules.licenses):
            continue  # a page's own signal: taken as recorded
        source = str(signal.get("source", ""))
        if source not in derived:
            found.append(f"usage signal {source!r} is not in its snapshot")
        elif derived[source] != _answers(signal.get("answers")):
            found.append(f"usage signal {source!r} answers differently today")
    return found


def robots_differences(
    record: dict[str, Any], robots: dict[str, Any], verdict: Verdict, url: str, agent: str,
    rules: RobotsTxt,
) -> list[str]:  # fmt: skip
    """The recorded fate and deciding line held against robots.txt's part of the
    verdict (the crawler's own group, then those of ``REP_PURPOSE_AGENTS``)."""
    fate, by = text(record.get("fate")), RefusedBy.of(record.get("refused_by"))
    found = []
    if isinstance(verdict, Refused) and verdict.robots is not None and verdict.line:
        decision = verdict.robots
    elif (isinstance(verdict, (Allowed, Refused)) and verdict.robots_agent
          and verdict.robots is not None):  # fmt: skip
        decision = verdict.robots  # the line an override went past, of the sent-as name
    else:
        decision = rules.decide(url, agent)
    if fate in SENT_FATES and _robots_refused(verdict):
        assert isinstance(verdict, Refused) and verdict.robots is not None
        found.append(f"recorded {fate}, but robots.txt disallows it for {verdict.agent} "
                     f"({verdict.robots.explanation})")  # fmt: skip
    if fate == "refused" and by is RefusedBy.ROBOTS_TXT and not _robots_refused(verdict):
        found.append(f"recorded refused by robots.txt, but it allows it for {agent} "
                     f"({decision.explanation})")  # fmt: skip
    line = robots.get("line")
    if line != decision.line and (line is not None or fate != "unfinished"):
        said = f"line {line}" if line is not None else "no line"
        now = f"line {decision.line}" if decision.line is not None else "no line"
        found.append(f"recorded as decided by {said}, the snapshot gives {now} "
                     f"({decision.explanation})")  # fmt: skip
    return found


def override_differences(robots: dict[str, Any], verdict: Verdict) -> list[str]:
    """An override must be recorded where the run's ``REP_OVERRIDES`` let a request past
    robots.txt's Allow/Disallow (allowed, or refused by a later step), and only there."""
    recorded = text(robots.get("overridden"))
    override = verdict.overridden if isinstance(verdict, (Allowed, Refused)) else None
    if override is not None and not recorded:
        return ["robots.txt disallows it and the run's REP_OVERRIDES let it through, but "
                "the record does not say it was overridden"]  # fmt: skip
    if recorded and override is None:
        return [f"recorded as overridden ({recorded}), but no override of the run's "
                "REP_OVERRIDES covers it"]  # fmt: skip
    ends = text(robots.get("override_ends"))
    if override is not None and "override_ends" in robots and ends != iso_time(override.ends):
        return [f"recorded as let through by an override ending at {ends or 'no time'}, "
                f"but the run's REP_OVERRIDES ends it at {iso_time(override.ends)}"]  # fmt: skip
    expired = text(robots.get("override_expired"))
    if expired and not (isinstance(verdict, Refused) and verdict.expired is not None):
        return [f"recorded as past its override's expiry ({expired}), but no override of "
                "the run's REP_OVERRIDES covers it"]  # fmt: skip
    return []


def _robots_refused(verdict: Verdict) -> bool:
    """Whether robots.txt's Allow/Disallow refused it (for the crawler or a
    ``REP_PURPOSE_AGENTS`` token), or a robots.txt given up on."""
    return (
        isinstance(verdict, Refused)
        and verdict.document == ROBOTS
        and (verdict.reason is not Reason.PURPOSE)
    )


def _answers(value: Any) -> tuple[bool | None, ...]:
    """A recorded signal's answers (``{"ai-train": false}``) in :data:`PURPOSES` order."""
    if isinstance(value, dict):
        return tuple(value.get(p) for p in PURPOSES)
    if isinstance(value, list) and len(value) == len(PURPOSES):
        return tuple(value)
    return (None,) * len(PURPOSES)
