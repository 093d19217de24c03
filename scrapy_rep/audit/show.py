"""``audit show URL``: the whole story of one URL in a trail, in words (pure).

Every ``url`` record of the URL (or of its request id), across runs, in file order: the
run it belongs to, its fate, the robots.txt line that decided it and the snapshot it was
read from, the usage signals and the answer per purpose, the items kept and dropped; the
records that were redirected to it; and what today's engine says when it re-derives the
decision from the snapshots (:mod:`scrapy_rep.audit.rederive`). A recheck's ``item``
records of the URL are told too (:class:`~scrapy_rep.audit.records.ItemRecord`): the
item's status now, the signal and line that decided it, the snapshot of each document
and the WARC record it was read from, and what verify says of it
(:mod:`scrapy_rep.audit.items`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

from w3lib.url import canonicalize_url

from scrapy_rep.audit.faterecord import FateRecord, FileFate, RobotsSaid
from scrapy_rep.audit.items import item_differences
from scrapy_rep.audit.read import Trail, items, text
from scrapy_rep.audit.records import BY_ROBOTS_TXT, ITEM_STATUSES, TDMREP_JSON, ItemRecord, item_of
from scrapy_rep.audit.rederive import Rederiver, RunContext
from scrapy_rep.urls.origins import origin_of
from scrapy_rep.verdict.fates import Fate
from scrapy_rep.verdict.reasons import Reason

_FATES: dict[Fate | None, str] = {
    Fate.FETCHED: "was fetched",
    Fate.REFUSED: "was refused",
    Fate.FAILED: "failed: no response after every attempt",
    Fate.REDIRECTED: "was redirected",
    Fate.UNFINISHED: "was left unfinished when the crawl ended",
}


def _plural(n: Any, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _fate(record: FateRecord) -> str:
    fate = record.fate
    text = _FATES.get(fate, f"has the unknown fate {record.written!r}")
    if fate is Fate.REFUSED:
        text += f" by {record.refused_by or 'an unnamed check'}"
    if fate is Fate.REDIRECTED:
        text += f" to {record.to or None}"
    extras = []
    if record.attempts == 0:
        extras.append("never downloaded")
    elif record.attempts is not None:
        extras.append(_plural(record.attempts, "attempt"))
    if record.status is not None:
        extras.append(f"HTTP {record.status}")
    text += f" ({', '.join(extras)})" if extras else ""
    return text + (f": {record.why}" if record.why else "")


def _robots(robots: RobotsSaid | None, url: str, rederiver: Rederiver) -> list[str]:
    if robots is None:
        return ["  robots.txt: not recorded"]
    origin = robots.origin or origin_of(url)
    agent = robots.agent or "?"
    if robots.line is not None:
        said = f'line {robots.line} ({robots.rule}) decided it for "{agent}"'
    else:
        said = f'no line decided it for "{agent}": {robots.why or "no reason given"}'
    lines = [f"  robots.txt of {origin}: {said}"]
    if robots.overridden:
        said = robots.overridden
        lines.append(f"    robots.txt disallows it; overridden by REP_OVERRIDES: {said}")
    if robots.override_expired:
        lines.append(f"    its override in REP_OVERRIDES had expired: {robots.override_expired}")
    meta = rederiver.meta(robots.snapshot, f"{origin}/robots.txt")
    if robots.snapshot:
        lines.append(f"    {_snapshot(robots.snapshot, meta)}")
    return lines


def _snapshot(sha: str, meta: dict[str, Any] | None) -> str:
    """A snapshot as its ``snapshot`` line describes it: the document's URL, when it was
    fetched (a WARC capture's date), its status, and the WARC record it was read from."""
    if meta is None:
        return f"snapshot {sha} (no snapshot line announces it)"
    said = (
        f"snapshot {sha}: {meta.get('url')} fetched {meta.get('fetched')}, "
        f"HTTP {meta.get('status')}, {meta.get('outcome')}, {meta.get('bytes')} bytes"
    )
    record = text(meta.get("warc_record"))
    return said + (f", from WARC record {record}" if record else "")


def _usage(usage: Any) -> list[str]:
    if not isinstance(usage, dict):
        return []
    lines = []
    signals = [s for s in items(usage.get("signals")) if isinstance(s, dict)]
    for signal in signals:
        answers = _dict(signal.get("answers"))
        said = ", ".join(f"{p} {'yes' if a else 'no'}" for p, a in answers.items() if a is not None)
        where = f" (snapshot {str(signal['snapshot'])[:12]}…)" if signal.get("snapshot") else ""
        lines.append(
            f"  usage signal [{signal.get('vocabulary')}] {signal.get('source')}: "
            f"{said or 'says nothing about these purposes'}{where}"
        )
    by = _dict(usage.get("decided_by"))
    for purpose, answer in _dict(usage.get("answers")).items():
        verdict = "unknown" if answer is None else "allowed" if answer else "denied"
        index = by.get(purpose)
        source = ""
        if isinstance(index, int) and 0 <= index < len(signals):
            source = f" by {signals[index].get('source')}"
        lines.append(f"  {purpose}: {verdict}{source}")
    conditions = [c for c in items(usage.get("conditions")) if isinstance(c, str)]
    if conditions:
        lines.append(f"  conditions on use: {', '.join(conditions)} (they decide no purpose)")
    return lines


def _dict(value: Any) -> dict[Any, Any]:
    """A part that must be an object: ``{}`` when a hand-edited record's is anything else."""
    return value if isinstance(value, dict) else {}


#: The item reasons a page's directives give (a header or a meta tag said them).
_DIRECTIVE_REASONS = frozenset({Reason.NOINDEX, Reason.UNAVAILABLE_AFTER})


def _items(record: FateRecord) -> list[str]:
    """The items kept and dropped, and why: what said the noindex (``noindex by header
    X-Robots-Tag: none``, ``noindex by <meta name="robots" content="noindex">``), from
    ``item_why``; a trail written before it was recorded says it does not know."""
    if record.items_kept is None and record.items_dropped is None:
        return []
    line = f"  items: {record.items_kept or 0} kept, {record.items_dropped or 0} dropped"
    reason = Reason.of(record.item_reason)  # as written: a hand-edited trail says anything
    if record.item_why:
        line += f" ({record.item_why})"
    elif reason in _DIRECTIVE_REASONS:
        line += f" ({reason}: whether a header or a meta tag said it is not recorded)"
    elif record.item_reason:
        line += f" ({record.item_reason})"
    return [line]


def _links(record: dict[str, Any]) -> list[str]:
    """The links the page's nofollow or ``rel="nofollow"`` kept from being requested: no
    records of their own (``not_followed`` names the first 20)."""
    count = record.get("links_not_followed")
    if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
        return []
    named = [str(url) for url in record.get("not_followed") or () if isinstance(url, str)]
    line = f"  links not followed (never requested, no records of their own): {count}"
    if named:
        line += f": {', '.join(named)}"
        if count > len(named):
            line += f" and {count - len(named)} more"
    return [line]


def _loose(url: str) -> str:
    """``url`` without its fragment and final ``/``, decoded, in lower case, its query's
    parts sorted: a cheap first comparison, before the canonical form (a w3lib call per
    record is dear: about 100 µs)."""
    path, _, query = unquote(url.partition("#")[0]).lower().partition("?")
    return f"{path.rstrip('/')}?{'&'.join(sorted(query.split('&')))}"


class _Asked:
    """The URL (or request id) a reader asked about, and the stored URLs that are it:
    the same string, or the same once canonicalised as the records' ids are (Scrapy's
    request fingerprint reads ``canonicalize_url``: scheme and host in lower case, no
    fragment, the query sorted, one percent-encoding); and those it is close to (a final
    ``/``, or letter case in the path), suggested when none is it."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._loose = _loose(url)
        self._canonical = canonicalize_url(url) if "://" in url else url

    def names(self, stored: Any) -> bool:
        if stored == self.url:
            return True
        if not isinstance(stored, str) or _loose(stored) != self._loose:
            return False
        return canonicalize_url(stored) == self._canonical

    def near(self, stored: Any) -> bool:
        """Close to ``stored`` without naming it."""
        return isinstance(stored, str) and _loose(stored) == self._loose and not self.names(stored)


def _kept_run(
    kind: str | None,
    record: dict[str, Any],
    number: int,
    runs: dict[str, dict[str, Any]],
    unended: dict[str, int],
    repairs: list[int],
) -> bool:
    """Note a ``run``, ``end`` or ``repair`` line in ``runs``, ``unended`` and
    ``repairs`` (``True``); any other line is left to the caller (``False``)."""
    if kind == "run":
        runs[str(record.get("run"))] = record
        unended[str(record.get("run"))] = 0
    elif kind == "end":
        unended.pop(str(record.get("run")), None)
    elif kind == "repair":
        repairs.append(number)
        cut = [run for run, repaired in unended.items() if not repaired]
        unended.update(dict.fromkeys(cut, number))
    else:
        return False
    return True


def story(path: str | Path, url: str) -> tuple[list[str], int]:
    """The lines that tell ``url``'s story (:class:`_Asked`: the records of the URL as
    stored, whichever way it is written), and how many records speak of it."""
    asked = _Asked(url)
    trail = Trail(path)
    rederiver = Rederiver(trail.snapshots)
    runs: dict[str, dict[str, Any]] = {}
    lines: list[str] = []
    found = 0
    #: Runs still without their end line; those a repair cut short (its line); the
    #: runs of the records told; the repairs' lines.
    unended: dict[str, int] = {}
    told: dict[str, None] = {}
    repairs: list[int] = []
    for line in trail.lines():
        record = line.record or {}
        kind = line.type
        if _kept_run(kind, record, line.number, runs, unended, repairs):
            continue
        if kind == "snapshot":
            rederiver.saw_snapshot(record)
        elif kind == "url" and (asked.names(record.get("url")) or record.get("id") == url):
            found += 1
            told[str(record.get("run"))] = None
            lines += _record(line.number, FateRecord.of(record), runs, rederiver)
        elif kind == "url" and asked.names(record.get("to")):
            lines.append(
                f"line {line.number}: {record.get('url')} was redirected here "
                f"(run {str(record.get('run'))[:8]})"
            )
        elif kind == "file" and asked.names(record.get("url")):
            found += 1
            told[str(record.get("run"))] = None
            lines += _file(line.number, FateRecord.of(record))
        elif kind == "item" and asked.names(record.get("url")):
            run = runs.get(str(record.get("run")), {})
            item = item_of(line, _purposes(run))
            if item is not None:
                found += 1
                told[item.run] = None
                lines += _item(item, run, rederiver)
    if found:
        lines += _not_whole(told, unended, repairs)
    return lines, found


def _not_whole(told: dict[str, None], unended: dict[str, int], repairs: list[int]) -> list[str]:
    """What the story may lack: a run of its records without its end line (cut short by
    a repair, or killed), a cut line a repair dropped."""
    notes = []
    for run in told:
        if run in unended:
            how = f"cut short, repaired at line {unended[run]}" if unended[run] else "killed or cut"
            notes.append(f"note: run {run[:8]} has no end line ({how}): a later record of this "
                         "URL may be lost; `audit verify` reports it")  # fmt: skip
    if repairs:
        notes.append(f"note: the trail was repaired after a cut (line(s) "
                     f"{', '.join(map(str, repairs))}): the line the cut took is lost, and it "
                     "may have been about this URL")  # fmt: skip
    return notes


#: How a file's fate is told.
_FILE_FATES: dict[FileFate | None, str] = {
    FileFate.STORED: "stored",
    FileFate.REFUSED: "not stored",
    FileFate.MARKED: "stored and marked",
    FileFate.FAILED: "not stored: the pipeline failed",
}


def _file(number: int, record: FateRecord) -> list[str]:
    """A file a media pipeline downloaded and read for its own statements."""
    said = _FILE_FATES.get(record.file_fate, f"has the unknown fate {record.written!r}")
    text = [f"line {number}: file read for its own statements; {said}"]
    text += [f"  why: {record.why}"] if record.why else []
    text += [f"  error: {record.error}"] if record.error else []
    return text + _usage(record.usage)


def _record(
    number: int,
    record: FateRecord,
    runs: dict[str, dict[str, Any]],
    rederiver: Rederiver,
) -> list[str]:
    run = runs.get(record.run, {})
    lines = [
        f"line {number}, {record.time}: {record.url} {_fate(record)}",
        f"  run {record.run} (spider {run.get('spider')}, started {run.get('time')}, "
        f"purposes {', '.join(_purposes(run)) or '-'}, profile {run.get('profile')})",
        f"  request id {record.id}",
        *_robots(record.robots, record.url, rederiver),
        *_usage(record.usage),
        *_items(record),
        *_links(record.record),
    ]
    differences = rederiver.differences(record.record, RunContext.of(run))
    if differences:
        lines += [f"  today's engine DIFFERS: {what}" for what in differences]
    elif record.robots is not None and record.robots.snapshot:
        lines.append("  today's engine, from the snapshots: the same decision")
    else:
        lines.append("  no robots.txt snapshot to re-derive it from (nothing was read)")
    return lines


def _purposes(run: dict[str, Any]) -> tuple[str, ...]:
    return tuple(map(str, items(run.get("purposes"))))


def _item(item: ItemRecord, run: dict[str, Any], rederiver: Rederiver) -> list[str]:
    """A stored item a recheck decided: its status, what decided it (the signal and its
    line), each document version (its snapshot, the WARC record it was read from), the
    status it had before and what today's engine says."""
    status = item.status if item.status in ITEM_STATUSES else f"status {item.status!r}"
    # a collection of several files names the item's (its shard)
    dataset = f"shard {text(item.record.get('shard'))}" if item.record.get("shard") else ""
    dataset = dataset or "the dataset"
    where = f"line {item.line} of {dataset}" if item.line is not None else dataset
    lines = [
        f"line {item.number}, {item.time}: {item.url}: item re-checked ({where}): {status}",
        f"  run {item.run} (spider {run.get('spider')}, started {run.get('time')}, "
        f"purposes {', '.join(_purposes(run)) or '-'}, profile {run.get('profile')})"
        + _rechecked(run),
        f"  decided: {item.decided}",
    ]
    if item.why:
        lines.append(f"  why: {item.why}")
    if item.then:
        lines.append(f"  before: {item.then}" + (" (changed)" if item.changed else " (the same)"))
    origin = str(origin_of(item.url) or "")
    robots = RobotsSaid.of(item.record.get("robots"))
    if robots is not None:
        lines += _robots(robots, item.url, rederiver)
    elif (BY_ROBOTS_TXT, "") in item.documents:
        lines.append("  robots.txt: not had")
    for name, sha in item.documents:
        if name == BY_ROBOTS_TXT:
            continue
        document = f"{origin}/.well-known/tdmrep.json" if name == TDMREP_JSON else name
        said = _snapshot(sha, rederiver.meta(sha, document)) if sha else "not had"
        lines.append(f"  {name}: {said}")
    lines += _usage(item.record.get("usage"))
    if item.item_reason:
        lines.append(f"  its page said: {item.item_reason}")
    differences = item_differences(item.record, RunContext.of(run), rederiver)
    if differences:
        lines += [f"  today's engine DIFFERS: {what}" for what in differences]
    elif item.snapshots:
        lines.append("  today's engine, from the snapshots: the same decision")
    else:
        lines.append("  no snapshot to re-derive it from (nothing was had)")
    return lines


def _rechecked(run: dict[str, Any]) -> str:
    """What a recheck's run re-checked: the dataset, and where the documents came from."""
    about = run.get("recheck")
    if not isinstance(about, dict):
        return ""
    documents = text(about.get("documents"))
    source = f"documents from {documents}" if documents not in ("", "fetched") else "fetched"
    return f", re-checking {text(about.get('dataset')) or '?'} ({source})"


def _named_by_pages(pages: list[tuple[str, int, str]]) -> list[str]:
    """The pages (trail, line, URL) whose records name a URL as a link not followed,
    each told once with its story."""
    lines = [
        "it is a link not followed: the page below said nofollow, or linked it only with "
        'rel="nofollow", so it was never requested; the page\'s record names it'
    ]
    # A page's story tells all its records: once per page, however many name the link
    # (a page downloaded twice, as a start URL its pages link back to).
    naming: dict[tuple[str, str], list[int]] = {}
    for path, number, page_url in pages:
        naming.setdefault((path, page_url), []).append(number)
    for (path, page_url), numbers in naming.items():
        where = f"line{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"
        lines += [f"{path}, {where}: the page {page_url}", *story(path, page_url)[0]]
    return lines


def no_record(paths: list[str], url: str) -> list[str]:
    """Why ``url`` has no record in the trails at ``paths``, and where it shows if it
    does: a record is a request sent (or refused). A link a page's nofollow or
    ``rel="nofollow"`` kept from being requested is none; it is named in the record of
    the page that held it (``not_followed``), whose story follows. A stored URL close to
    it (another final ``/``, or letter case in its path) is suggested."""
    asked = _Asked(url)
    where = ", ".join(paths)
    lines = [f"no record of {url} in {where}: the crawl neither sent nor refused a request for it"]
    pages: list[tuple[str, int, str]] = []
    unnamed: list[tuple[str, int, str]] = []
    near: dict[tuple[str, str], None] = {}
    for path in paths:
        for line in Trail(path).lines():
            record = line.record
            if line.type not in ("url", "file", "item") or not record:
                continue
            if len(near) < 5 and asked.near(record.get("url")):
                near[path, str(record.get("url"))] = None
            if not record.get("links_not_followed"):
                continue
            named = record.get("not_followed") or ()
            page = (path, line.number, str(record.get("url")))
            if any(asked.names(link) for link in named):
                pages.append(page)
            elif not isinstance(named, list) or len(named) < record["links_not_followed"]:
                unnamed.append(page)
    for path, stored in near:
        lines.append(f"did you mean {stored}? it has a record (`audit show {path} {stored}`)")
    if pages:
        return lines + _named_by_pages(pages)
    lines += [
        "why a URL has no record:",
        '- a link not followed (nofollow, rel="nofollow") was never requested: the record '
        "of the page that held it names it (`not_followed`); no page's record names this URL",
        "- a duplicate the dupefilter dropped is counted in its run's end line "
        "(`duplicates_dropped`), not recorded",
        "- a URL the crawl never met leaves no trace",
    ]
    if unnamed:
        shown = unnamed[:5]
        lines.append(
            f"{len(unnamed)} page(s) had links not followed that the trail does not name (a "
            "page names 20 at most, and trails written before `not_followed` was recorded "
            "name none); it may be one of theirs:"
        )
        lines += [f"  {path}, line {number}: {page_url}" for path, number, page_url in shown]
        if len(unnamed) > len(shown):
            lines.append(f"  … and {len(unnamed) - len(shown)} more")
    return lines
