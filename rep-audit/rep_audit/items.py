"""A recheck's ``item`` record decided again from the documents it names (pure).

``python -m scrapy_rep recheck --trail`` writes one ``item`` line per stored item it
decided (docs/audit-trail.md, ``item``), with the parts of a crawl's ``url`` record its
decision depends on. ``audit verify`` holds each against the crawl's
own decisions on its snapshots, as it holds a crawl's records
(:class:`~rep_audit.rederive.Rederiver`):

- an item ``kept``, or refused after the fetch (``refused_by`` ``page``), must be allowed
  before the fetch, as a page the crawl sent for: robots.txt for every name, the line
  recorded, every usage signal drawn from a snapshot, no "no" for a purpose of the run;
- an item ``refused`` before the fetch must be refused by what its ``refused_by`` says
  (robots.txt's recorded line, a purpose's "no"), its ``refused_by`` and ``why`` those
  its snapshots give (:func:`_refusal_differences`: a ``Disallow`` is never a purpose's
  "no");
- an item ``unknown`` names a document not had (no robots.txt snapshot, ``tdmrep`` or
  an RSL license ``""``; never a robots.txt given up on as unreachable, whose requests
  were dropped: RFC 9309 §2.3.1.4's complete disallow refuses it), or one cut before
  500 KiB (RFC 9309 §2.5: its lines may refuse, never allow), and what was had neither
  allows it (it would be kept, unless its page could not be fetched again: only in a run
  that fetched pages, ``--pages``) nor refuses it (it would be refused); an item
  ``kept`` under a document cut before 500 KiB is the recheck's ``unknown``, not kept;
- every snapshot an item names is one its own run announced for its own origin's
  document, and ``tdmrep`` ``""`` is read as the crawl reads a tdmrep.json given up on
  (``REP_UNREACHABLE_ACTION``), or as none when what was had refuses the item before
  the fetch (a "no" had is not lost to a tdmrep.json not had: the recheck refuses it);
- with its ``page`` part (``--pages``), its ``names`` must be every name its request was
  held to and ``REP_DIRECTIVE_TOKENS`` (a cut name hides that name's ``noindex``); the
  page is decided again (:func:`rep_engine.verdict.page.decide_page`) at the record's
  time: a ``kept`` item's page refuses nothing (``noindex`` under
  ``REP_NOINDEX_ACTION = "drop"``, a purpose of the run), and a page refusal's
  ``item_reason`` is what the page says;
- a run records each dataset line once, in the dataset's order (:class:`ItemOrder`): a
  line decided twice, its end line's counts raised to match, is found.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from rep_audit.pages import _fields, moment_of, names_differences, read_for, recorded_signals
from rep_audit.rederive import Rederiver, why_differences, written_tdm
from rep_audit.runcontext import RunContext, held_to
from rep_engine.fetch.lifecycle.shared import given_up_allowing
from rep_engine.fetch.procedure import cut_before_limit
from rep_engine.records import (
    ITEM_NOT_HAD,
    ITEM_STATUSES,
    NO_CAPTURE_BEFORE,
    REFUSED_BY,
    Fate,
    ItemRecord,
    ItemStatus,
    Reason,
    RefusedBy,
    UrlEntry,
    items,
    mapping,
    named_origin,
    seconds_of,
    text,
)
from rep_engine.trail.lines import is_payment_part
from rep_engine.usage.tdmrep import WELL_KNOWN_PATH
from rep_engine.verdict.decide import LICENSE, TDM, Allowed, Refused
from rep_engine.verdict.page import PageFacts, PageStatements, decide_page
from rep_engine.verdict.policy import NOTHING_BEFORE, TDM_PURPOSES, Before

#: The ``why`` of an item unknown because its page could not be fetched again.
PAGE_NOT_FETCHED: Final = "page not fetched again"


def item_differences(item: ItemRecord, run: RunContext, rederiver: Rederiver) -> list[str]:
    """Every way an ``item`` record differs from what its snapshots (and its page part)
    say today (sentences)."""
    status, by, record = ItemStatus.of(item.status), item.refused_by, item.record
    if status is None:
        return [f"unknown status {record.get('status')!r}"]  # as written
    if status is ItemStatus.REFUSED and not by:
        return ["recorded refused, but not by what (no refused_by)"]
    after_fetch = status is ItemStatus.KEPT or by == RefusedBy.PAGE
    # Before the fetch it was allowed (kept, or refused by its page): held as a page the
    # crawl sent for; else as a request refused by what its refused_by says.
    fate = Fate.FETCHED if after_fetch else Fate.REFUSED
    held_as = replace(UrlEntry.from_line(record), fate=fate, refused_by=by, tdm=written_tdm(record))
    found, before = rederiver._request_differences(held_as, record, run, item=True)
    verdict = rederiver.verdict
    given_up = isinstance(verdict, Refused) and verdict.reason is Reason.TDMREP_UNREACHABLE
    if given_up and not after_fetch:
        # What was had may refuse it all the same (robots.txt's Content-Usage or
        # Content-Signal, a license): then it is refused, as the recheck decides it (a
        # "no" had is not lost to a tdmrep.json not had). Decided again with the
        # tdmrep.json not had read as none (it can only add a "no").
        again, _ = rederiver._request_differences(replace(held_as, tdm=None), record, run, True)
        refusal = rederiver.verdict
        if isinstance(refusal, Refused) and refusal.reason not in ITEM_NOT_HAD:
            found = again
        else:
            rederiver.verdict = verdict  # nothing had refuses it: not had, as recorded
    if isinstance(rederiver.verdict, Allowed) and not item.robots.sha256:
        rederiver.verdict = None  # its robots.txt not had: what was had does not allow it
    if after_fetch:
        if status is ItemStatus.KEPT and run.recheck_pages and held_as.page is None:
            found.append("recorded kept in a run that fetched each page again (--pages), "
                         "but the record keeps nothing its page said")  # fmt: skip
        found += _page_differences(item, run, before, status)
        if cut := _cut(item, rederiver):
            found.append(f"recorded {status}, but {cut}: what it allows is not known "
                         "(unknown)")  # fmt: skip
    elif status is ItemStatus.UNKNOWN:
        found += _unknown_differences(item, rederiver, run)
    else:
        found += _refusal_differences(item, rederiver)
    found += _scope_differences(record, run)
    found += _then_differences(record)
    return [f"item {what}" if what.startswith("recorded") else what for what in found]


#: What may follow an item's ``then`` of no capture and its date: ``--as-of`` came first.
_AS_OF_CAME_FIRST: Final = " (--as-of)"


def _then_differences(record: dict[str, Any]) -> list[str]:
    """An item's ``then`` and ``changed`` (docs/recheck.md, "Since when") held to each
    other and to its status, as the recheck writes them: ``then`` a status, or
    :data:`~rep_engine.records.NO_CAPTURE_BEFORE` and a date; ``changed`` said exactly
    when ``then`` was a decision (``kept``, ``refused``), and true exactly when the
    status now differs from it. A ``then`` of another word (which ``show`` prints as the
    item's status before), a ``changed`` that says otherwise or is said of nothing to
    compare, is found. What ``then`` says is not decided again here: the captures of
    the crawl then are not among the trail's snapshots."""
    if "then" not in record:
        return ["recorded changed, but no then"] if "changed" in record else []
    then, changed, status = record["then"], record.get("changed"), record.get("status")
    if not isinstance(then, str) or not (then in ITEM_STATUSES or _no_capture(then)):
        return [f"then {then!r} is neither a status nor {NO_CAPTURE_BEFORE}DATE"]
    if then in (ItemStatus.KEPT, ItemStatus.REFUSED):
        if changed is not (then != status):
            return [f"recorded {status}, {then} then, but changed {changed!r}"]
    elif "changed" in record:
        return [f"recorded changed {changed!r}, but its then {then!r} is no decision to "
                "compare with"]  # fmt: skip
    return []


def _no_capture(then: str) -> bool:
    """Whether ``then`` says no capture preceded the item's date: the words and a time."""
    if not then.startswith(NO_CAPTURE_BEFORE):
        return False
    date = then.removeprefix(NO_CAPTURE_BEFORE).removesuffix(_AS_OF_CAME_FIRST)
    return seconds_of(date) is not None


#: The kind of document each vocabulary of a usage signal before the fetch is read from,
#: when not robots.txt.
_KIND_OF: Final = {"tdmrep": TDM, "rsl": LICENSE}


def _scope_differences(record: dict[str, Any], run: RunContext) -> list[str]:
    """An item held to its run's declared scope (``--consult``: its header's
    ``recheck.not_consulted``): it names the same kinds not consulted, and no document of
    those kinds (a ``tdmrep``, an ``rsl`` license, a usage signal drawn from one)."""
    declared = run.recheck_not_consulted
    claimed = tuple(text(kind) for kind in items(record.get("not_consulted")))
    found = []
    if claimed != declared:
        said = ", ".join(claimed) or "none"
        found.append(f"claims {said} not consulted, but its run declared "
                     f"{', '.join(declared) or 'none'} (its header's recheck)")  # fmt: skip
    named = [TDM] * ("tdmrep" in record) + [LICENSE] * ("rsl" in record)
    named += [
        _KIND_OF.get(text(signal.get("vocabulary")), "") for signal in recorded_signals(record)
    ]
    outside = [kind for kind in dict.fromkeys(named) if kind in declared]
    if outside:
        found.append(f"decided with {', '.join(outside)}, which its run did not consult "
                     "(its header's recheck.not_consulted)")  # fmt: skip
    return found


def _refusal_differences(item: ItemRecord, rederiver: Rederiver) -> list[str]:
    """A ``refused`` item's ``refused_by`` and ``why`` held against what its snapshots
    refuse it by (the recheck writes the verdict's own): a ``Disallow`` relabelled a
    purpose's "no" (which ``summary`` counts as a usage signal) is found. Nothing when
    its snapshots do not refuse it (the request's checks say so)."""
    verdict = rederiver.verdict
    if not isinstance(verdict, Refused) or verdict.reason in ITEM_NOT_HAD:
        return []
    by, derived = item.refused_by, text(REFUSED_BY.get(verdict.reason))
    if derived and by != derived:
        return [f"recorded refused by {by}, but its snapshots refuse it by {derived}: "
                f"{verdict.message}"]  # fmt: skip
    return why_differences(item.why, verdict, rederiver.quotes)


def _unknown_differences(item: ItemRecord, rederiver: Rederiver, run: RunContext) -> list[str]:
    """An ``unknown`` item held against what its snapshots decide (nothing to hold it
    against when no robots.txt snapshot was had); one whose page was not fetched again
    only in a run that fetched pages (``--pages``), and without what its page said."""
    page_not_fetched = item.why.startswith(PAGE_NOT_FETCHED)
    if "payment" in item.record and any(p in TDM_PURPOSES for p in run.purposes):
        return ["recorded unknown, but its page answered 402 Payment Required, which refuses "
                "it for an AI purpose of its run (a price never paid grants nothing)"]  # fmt: skip
    if page_not_fetched:
        if not run.recheck_pages:
            return ["recorded unknown as its page was not fetched again, but its run "
                    "fetched no page (no --pages)"]  # fmt: skip
        if "page" in item.record:
            return ["recorded unknown as its page was not fetched again, but the record "
                    "keeps what its page said"]  # fmt: skip
    if given_up_allowing(item.robots.why) is False:
        return ["recorded unknown, but its robots.txt was given up on as unreachable and its "
                "requests dropped: refused (RFC 9309 §2.3.1.4, complete disallow)"]  # fmt: skip
    verdict = rederiver.verdict  # a tdmrep.json not had read as none (item_differences)
    if isinstance(verdict, Allowed):
        if page_not_fetched or _cut(item, rederiver):
            return []  # the page's fetch failed (as recorded), or a document it needs is cut
        return ["recorded unknown, but every document it needs was had and allows it "
                "(it is kept)"]  # fmt: skip
    if isinstance(verdict, Refused) and verdict.reason not in ITEM_NOT_HAD:
        return [f"recorded unknown, but its snapshots refuse it: {verdict.message}"]
    return []


class ItemOrder:
    """One record per dataset line per run: a recheck decides and records its items in
    the dataset's order, each line once, the shards one after another in the order its
    header lists them (each shard's lines from 1 again), each item naming its shard when
    there are several and only then. Held per run: its shards' places and the place so
    far (a few numbers a run, whatever its items)."""

    def __init__(self) -> None:
        self._at: dict[str, tuple[int, int]] = {}
        self._shards: dict[str, dict[str, int]] = {}

    def place(self, run: RunContext, item: ItemRecord) -> str:
        """Why ``item`` (of ``run``) is out of place (``""``: it is not): no dataset line,
        a shard its run did not read, or a dataset line its run recorded already, or
        recorded after one that comes after it."""
        line, shard = item.line, item.shard
        shards = self._shards.get(run.run)
        if shards is None:
            shards = self._shards[run.run] = {n: i for i, n in enumerate(run.recheck_shards)}
        if (shard or shards) and shard not in shards:
            if not shard:
                return "names no shard, but its run read several files (its header's shards)"
            return (f"names the shard {shard!r}, which is none of the files its run read "
                    "(its header's shards)")  # fmt: skip
        if line is None:
            return "names no dataset line (line): a recheck records each item's"
        place, last = (shards.get(shard, 0), line), self._at.get(run.run)
        self._at[run.run] = place
        if last is None or place > last:
            return ""
        of = f" of {shard}" if shard else ""
        return (f"dataset line {line}{of} recorded again, or out of the dataset's order "
                "(after a later line): a run records each line once, in order")  # fmt: skip


def _cut(item: ItemRecord, rederiver: Rederiver) -> str:
    """Which document the item was decided with was cut before 500 KiB, the least a
    crawler reads (RFC 9309 §2.5), as its snapshot line says (``""``: none was): an
    item it allows is not known to be allowed."""
    origin = named_origin(item.record, item.url)
    for name, sha in item.documents:
        document = document_url(name, origin)
        detail = text(mapping(rederiver.meta(sha, document)).get("detail"))
        if sha and cut_before_limit(detail):
            return f"its snapshot of {document} was cut before 500 KiB ({detail})"
    return ""


def document_url(name: str, origin: str) -> str:
    """The URL of a document an item names (:attr:`~rep_engine.records.ItemRecord.
    documents`): robots.txt and tdmrep.json of its ``origin``, an RSL license by its own."""
    if name == RefusedBy.ROBOTS_TXT:
        return f"{origin}/robots.txt"
    return f"{origin}{WELL_KNOWN_PATH}" if name == RefusedBy.TDMREP_JSON else name


def _page_differences(
    item: ItemRecord, run: RunContext, before: Before | None, status: ItemStatus
) -> list[str]:
    """The record held against its page's verdict, when it keeps what the page said (or
    the price it asked: :func:`_payment_differences`)."""
    if "payment" in item.record:
        return _payment_differences(item, run, status)
    part, rules, by = item.record.get("page"), run.page.rules, item.refused_by
    if not isinstance(part, dict) or "omitted" in part or rules is None:
        if by == RefusedBy.PAGE:
            return ["recorded refused by its page, but the record keeps nothing the page said"]
        return []
    names = read_for(held_to(item.robots, run), run.page)
    found = names_differences(part, names)  # decided for the names it was held to
    statements = PageStatements(_fields(part.get("headers")), _fields(part.get("meta")))
    facts = PageFacts(item.url, names, before or NOTHING_BEFORE)
    decided = moment_of(part.get("decided") or item.time)
    verdict = decide_page(facts, statements, rules, decided)
    index = verdict.index if verdict.index is not None and run.page.noindex_drops else None
    refusal = index or verdict.purpose
    if status is ItemStatus.KEPT and refusal is not None:
        return [*found, f"recorded kept, but its page says no: {refusal.message}"]
    if by == RefusedBy.PAGE:
        reason = Reason.of(item.item_reason)
        if refusal is None:
            found.append("recorded refused by its page, but what the page said refuses nothing")
        elif reason is not refusal.reason:
            found.append(
                f"recorded refused by its page for {reason}, the page gives {refusal.reason}"
            )
    return found


def _payment_differences(item: ItemRecord, run: RunContext, status: ItemStatus) -> list[str]:
    """An item whose page answered 402 Payment Required (its ``payment`` part): for an AI
    purpose of its run, refused by its page for that purpose (a price never paid grants
    nothing), never kept (docs/recheck.md, 'A page that answers 402')."""
    part, ai = item.record["payment"], [p for p in run.purposes if p in TDM_PURPOSES]
    if not is_payment_part(part):
        return [f"payment {part!r} is not as the recheck writes it (what a 402 said of its "
                "price: crawler-price or crawler-error, each a string, cut)"]  # fmt: skip
    if status is ItemStatus.KEPT:
        return ["recorded kept, but its page answered 402 Payment Required: a price never "
                "paid grants nothing"]  # fmt: skip
    if not ai:
        return ["recorded refused by its page answered 402 Payment Required, but its run "
                "has no AI purpose (unknown: what the page says is not known)"]  # fmt: skip
    if Reason.of(item.item_reason) is not Reason.PURPOSE:
        return [f"recorded refused by its page for {item.item_reason or 'nothing'}, but its "
                f"page answered 402 Payment Required: refused for {ai[0]}"]  # fmt: skip
    return []
