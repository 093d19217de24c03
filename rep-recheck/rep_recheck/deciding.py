"""Each item of a recheck decided (pure): its status now, its page's statements read
again (``--pages``), its ``then`` (older captures), its trail record and its evidence;
the robots.txt groups obeyed for an AI purpose, as the summary says them; and the
decisions of a crawl on a WARC's documents (:func:`warc_rechecker`, the pipeline step's).
"""

from __future__ import annotations

import gc
import logging
import re
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from rep_engine.fetch.rules import Policy
from rep_engine.records import ItemStatus
from rep_engine.settings.readers import RepSettingError
from rep_engine.urls.origins import origin_of
from rep_engine.usage.tdmrep import WELL_KNOWN_PATH
from rep_engine.verdict.decide import TDM
from rep_recheck.asof import Dated, Then, Timeline
from rep_recheck.datasets import UNREADABLE
from rep_recheck.documents import KINDS
from rep_recheck.fetching import PageAgain, PaymentAsked
from rep_recheck.files import warc_files
from rep_recheck.options import UsageError, read_settings
from rep_recheck.outputs import Evidence, EvidenceMemo
from rep_recheck.rechecker import Outcome, Rechecker
from rep_recheck.trail import RecheckTrail
from rep_recheck.warc import Capture, WarcDocuments

_LOG: Final = logging.getLogger(__name__)
#: The AI purposes, for which the groups of AI crawlers' names matter.
AI_PURPOSES: Final = frozenset({"ai-train", "ai-input"})
#: The collector's first threshold while a recheck decides its items (CPython's is 700):
#: see :func:`collector_paced`.
YOUNG_OBJECTS: Final = 100_000


@contextmanager
def collector_paced(young: int = YOUNG_OBJECTS) -> Iterator[None]:
    """CPython's cyclic garbage collector run after ``young`` new objects (at least; 700
    by default) while a recheck decides its items, its thresholds as they were after.

    Each origin met adds about 20 long-lived objects (its compiled rules, its shared
    outcomes), and each refers to its documents, which are out of the CPU's caches by
    then: a collection that walks them costs time the instruction count does not show.
    With 700 the collector walked every origin's documents again five times in a first
    pass over 20,000 origins, about a fifth of it (docs/recheck.md, "Scale"). With
    10,000 it still ran 59 young, 5 middle and 1 full collection in such a pass (1M
    URLs); with 100,000, 7 young ones and no other: each object it keeps is walked once,
    and the pass takes about 8 % less CPU (6.4-6.6 s against 5.9-6.0 s, interleaved,
    2026-11-28), though the instructions differ by 0.4 %. The loop's own garbage is
    freed by its reference counts (it makes no cycles); cycles others' code makes wait
    for up to that many new objects. A collector switched off (threshold 0) stays off.
    Only this loop: the thresholds are the process's."""
    before = gc.get_threshold()
    if before[0]:
        gc.set_threshold(max(before[0], young), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def agents_obeyed(rechecker: Rechecker) -> list[str]:
    """For an AI purpose, the robots.txt groups obeyed, as the summary says them: a site
    that blocks GPTBot or CCBot by name (the commonest AI opt-out) says no only when
    ``REP_PURPOSE_AGENTS`` names them."""
    if not AI_PURPOSES.intersection(rechecker.config.purpose):
        return []
    own = ", ".join(f"`{name}`" for name in rechecker.names if name)
    agents = rechecker.rules.agents
    if agents:
        named = ", ".join(f"`{agent}`" for agent in agents)
        return [f"robots.txt groups obeyed: the crawler's own ({own}, else `*`) and those of "
                f"{named} (REP_PURPOSE_AGENTS): their Disallow lines refuse items too"]  # fmt: skip
    return [f"robots.txt groups obeyed: the crawler's own ({own}, else `*`) only; no AI "
            "crawler's: a site that blocks GPTBot or CCBot by name alone is not read as a "
            "no (obey their groups with -s REP_PURPOSE_AGENTS=GPTBot,CCBot)"]  # fmt: skip


def scope_note(rechecker: Rechecker) -> list[str]:
    """What a run decided with ``--consult`` did not consult, as its summary's head and
    standard error say it (none: every kind its purpose needs was consulted)."""
    missing = rechecker.not_consulted
    if not missing:
        return []
    consulted = [kind for kind in KINDS if kind not in missing]
    return [f"Not consulted: {', '.join(missing)} (--consult {','.join(consulted)}): every "
            f"item was decided on {' and '.join(consulted)} alone; what the documents not "
            "consulted say may still refuse an item kept here"]  # fmt: skip


def never_captured(timeline: Timeline, rechecker: Rechecker) -> list[str]:
    """The kinds of document the items are decided on that the WARC holds no capture of
    at all (a Common Crawl robots.txt WARC holds no tdmrep.json; an RSL license is at
    whatever URL robots.txt names, which cannot be told)."""
    if rechecker.rules.needs_tdmrep and TDM not in rechecker.not_consulted:
        return [] if timeline.holds(WELL_KNOWN_PATH) else [TDM]
    return []


def choices_line(
    kinds: list[str], purposes: tuple[str, ...], choices: tuple[str, ...], kept: bool
) -> str:
    """What a run whose WARC holds no capture of ``kinds`` says at its start: every item
    they do not refuse will be unknown (``kept``: and kept, ``--keep-unknown``), and the
    three ``choices`` (fetch them, decide on robots.txt alone, keep the unknown), spelt
    as the command or the step takes them."""
    fetch, consult, keep = choices
    fate = f"kept unchecked ({keep})" if kept else "removed"
    return (f"the WARC holds no capture at all of {', '.join(kinds)}, which "
            f"{', '.join(purposes)} needs: every item its robots.txt does not refuse will be "
            f"unknown, and {fate}. Choose: {fetch}, {consult} (decide on robots.txt alone, "
            f"saying what was not consulted), or {keep} (keep them, counted as "
            "unknown)")  # fmt: skip


class Closing:
    """A dataset's writer, closed at the end of a ``with``."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer

    def __enter__(self) -> Any:
        return self.writer

    def __exit__(self, *exc: object) -> None:
        self.writer.close()


def origin_name(url: str) -> str:
    """The origin of ``url`` as the counts name it (``""``: none), remembered by the URL's
    start (``scheme://authority``: :data:`NAMES_MEMO` of them, then it starts again)."""
    found = _AUTHORITY(url)
    start = found.group() if found is not None else url
    name = _names.get(start)
    if name is None:
        origin = origin_of(url) if url else None
        name = str(origin) if origin is not None else ""
        if len(_names) >= NAMES_MEMO:
            _names.clear()
        _names[start] = name
    return name


#: A URL's start up to its path, query or fragment, when it has a ``//`` authority.
_AUTHORITY: Final = re.compile(r"[^:/?#]+://[^/?#]*").match
#: The origins' names :func:`origin_name` remembers, by the start of a URL.
NAMES_MEMO: Final = 65_536
_names: dict[str, str] = {}


def decide_item(
    item: Any,
    rechecker: Rechecker,
    pages: dict[str, PageAgain] | None,
    trail: RecheckTrail | None,
    memo: EvidenceMemo,
    shard: str = "",
    then: Then | None = None,
    dated: bool = False,
) -> tuple[Any, str, Evidence, Outcome | None]:
    """One item (its ``then`` filled in, whatever its status now, when ``then`` can say
    it: older captures), its status, evidence and outcome (``None``: its URL could not be
    read)."""
    if item.problem:
        return item, UNREADABLE, Evidence(signal=UNREADABLE, text=item.problem), None
    outcome = rechecker.decide(item.url)
    statements = None
    fetched_at = decided = 0.0
    if pages is not None and outcome.status is ItemStatus.KEPT:
        page = pages.get(item.url, "not fetched")
        if isinstance(page, str):
            outcome = rechecker.page_failed(outcome, page)
        elif isinstance(page, PaymentAsked):  # a price asked for the crawl, never paid
            outcome, fetched_at = rechecker.payment_asked(outcome, page.payment), page.time
        else:
            # Decided as the item is, not as the page was fetched: an unavailable_after
            # that passed since (during the run) removes it; the trail says when.
            statements, fetched_at = page.statements, page.time
            decided = max(page.time, time.time())
            outcome = rechecker.after_fetch(item.url, outcome, statements, decided, page.image)
    if then is not None and item.then is None:
        item = replace(item, then=then.of(item.url, item.date, dated))
    if trail is not None:
        trail.item(item, outcome, statements, decided, shard)
    return item, str(outcome.status), memo.of_item(item, outcome, fetched_at), outcome


def warc_rechecker(
    settings: Mapping[str, Any],
    warc: str | Path | Sequence[str | Path],
    consult: Collection[str] | None = None,
) -> tuple[Rechecker, list[str]]:
    """The decisions of a crawl with ``settings`` (its ``REP_PURPOSE`` set), on the
    documents of the WARCs at ``warc`` (a WARC, a folder of them or a list, read as
    ``--documents`` reads them, :func:`~rep_recheck.files.warc_files`) of the kinds
    ``consult`` names (``None``: all); and the kinds they need that the WARCs hold no
    capture of (:func:`never_captured`). Raises :class:`UsageError` and
    :class:`WarcError`."""
    rechecker, never, _ = dated_rechecker(settings, warc, consult)
    return rechecker, never


def dated_rechecker(
    settings: Mapping[str, Any],
    warcs: str | Path | Sequence[str | Path],
    consult: Collection[str] | None = None,
    as_of: str | None = None,
    by_date: bool = False,
    explain: bool = True,
    tolerance: str | None = None,
) -> tuple[Rechecker, list[str], Then | None]:
    """The decisions of a crawl with ``settings`` (its ``REP_PURPOSE`` set) on the
    documents of the WARCs at ``warcs`` (the pipeline step's, in each task: a WARC, a
    folder of them or a list), as ``recheck --documents`` reads them
    (:func:`~rep_recheck.files.warc_files`, :class:`~rep_recheck.asof.Dated`): each URL's
    newest capture at or before ``as_of`` (``--as-of``; ``None``: the newest), of the
    kinds ``consult`` names (``None``: all); the kinds they need that the WARCs hold no
    capture of (:func:`never_captured`); and what says an item's ``then`` (``by_date``:
    the items are dated, ``--date-column``; ``tolerance``: ``--then-tolerance``;
    ``None``: nothing older to say it), each crawl decided by a rechecker of the same
    settings. ``explain``: robots.txt's line kept for an item it allows (a trail names
    it). A folder's files that are not WARCs, its subfolders, and a WARC of no capture,
    are logged as WARNINGs. Raises :class:`UsageError`, :class:`WarcError` and :class:`ValueError`
    (``as_of``, ``tolerance``)."""
    try:
        config, identity, _ = read_settings(settings)
    except RepSettingError as error:
        raise UsageError(str(error)) from None
    rechecker = Rechecker(config, identity, lambda origin: None, explain).consulting(consult)
    policy = Policy(unreachable_action=config.unreachable_action)
    held = config.recheck_parsed_origins
    found = warc_files(warcs)
    for not_read in found.not_read():
        _LOG.warning("%s", not_read)
    dated = Dated(found.paths, as_of, by_date, held, tolerance)  # past `held` URLs: SQLite
    for said in dated.timeline.captureless:
        _LOG.warning("%s", said)

    def read(captured: Mapping[str, Capture]) -> WarcDocuments:
        return WarcDocuments(captured, rechecker.rules, rechecker.names, config.profile, policy,
                             held, rechecker.not_consulted, explain)  # fmt: skip

    rechecker.documents = read(dated.now())
    then = dated.then(
        lambda found: Rechecker(config, identity, read(found), False).consulting(consult)
    )
    return rechecker, never_captured(dated.timeline, rechecker), then
