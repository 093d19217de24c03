"""``audit show URL``: the whole story of one URL in a trail, in words (pure).

Every ``url``, ``file`` and ``item`` record of the URL (or of its request id), across
runs, in file order; the records redirected to it; what the story may lack (a run
without its end line, a repair); and, for a URL without a record, why, and the page whose
record names it as a link not followed. A URL written in part (a bare path, no scheme) is
read as the one recorded URL of its path (:func:`read_as`); else the recorded URLs of its
path it may mean are named, and the crawl is never said to have not met it
(:func:`no_record`).

How one record is told (:func:`record_lines`, :func:`file_lines`, :func:`item_lines`): a
``url`` record's fate, the robots.txt line that decided it and its snapshot, the usage
signals and the answer per purpose, the items kept and dropped, the links not followed
and what today's engine says when it re-derives the decision (:mod:`rep_audit.rederive`);
a ``file`` record's fate; and a recheck's ``item`` record: its status, what decided it,
each document version and what verify says of it (:mod:`rep_audit.items`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

from w3lib.url import canonicalize_url

from rep_audit.items import item_differences
from rep_audit.rederive import Rederiver
from rep_audit.runcontext import RunContext, fold_setting
from rep_audit.summary import Summary, unended
from rep_engine.records import (
    DOCUMENTS_FETCHED,
    FILE_FATE_ROWS,
    ITEM_REASONS,
    ITEM_STATUSES,
    NOT_KEPT,
    UNKNOWN_FATE,
    FateRecord,
    ItemRecord,
    Reason,
    RefusedBy,
    RobotsPart,
    answers_said,
    describe,
    item_of,
    items,
    mapping,
    named_origin,
    payment_said,
    text,
)
from rep_engine.trail.read import Line, Trail
from rep_engine.urls.origins import DEFAULT_PORTS, origin_of


def _loose(url: str) -> str:
    """``url`` without its fragment, its scheme's default port and final ``/``, decoded, in
    lower case, its query's parts sorted: a cheap first comparison, before the canonical
    form (a w3lib call per record is dear: about 100 µs)."""
    path, _, query = unquote(_default_port_dropped(url.partition("#")[0])).lower().partition("?")
    return f"{path.rstrip('/')}?{'&'.join(sorted(query.split('&')))}"


def _canonical(url: str) -> str:
    """``url`` canonicalised as the records' ids read it, without its scheme's default
    port (``http://a.example:80/`` is ``http://a.example/``: RFC 3986 §6.2.3); as written
    when w3lib cannot read it (an authority such as ``http://[x/``, a port past 65535): bad
    input is told, never a crash."""
    try:
        return _default_port_dropped(canonicalize_url(url))
    except ValueError:
        return url


#: A URL's scheme and authority, at its start.
_AUTHORITY: Final = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)")


def _default_port_dropped(url: str) -> str:
    """``url`` without the default port of its scheme written in its authority."""
    found = _AUTHORITY.match(url)
    if found is None:
        return url
    scheme, authority = found.groups()
    port = f":{DEFAULT_PORTS.get(scheme.lower())}"
    if not authority.endswith(port):
        return url
    return f"{scheme}://{authority[: -len(port)]}{url[found.end() :]}"


class _Asked:
    """The URL (or request id) a reader asked about, and the stored URLs that are it:
    the same string, or the same once canonicalised as the records' ids are (Scrapy's
    request fingerprint reads ``canonicalize_url``: scheme and host in lower case, no
    fragment, the query sorted, one percent-encoding); and those it is close to (a final
    ``/``, or letter case in the path), suggested when none is it."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._loose = _loose(url)
        self._canonical = _canonical(url) if "://" in url else url

    def names(self, stored: Any) -> bool:
        if stored == self.url:
            return True
        if not isinstance(stored, str) or _loose(stored) != self._loose:
            return False
        return _canonical(stored) == self._canonical

    def near(self, stored: Any) -> bool:
        """Close to ``stored`` without naming it."""
        return isinstance(stored, str) and _loose(stored) == self._loose and not self.names(stored)


class _Written:
    """What a reader wrote of a URL: maybe not all of it. A bare path
    (``/private/report.html``), a host and path without a scheme
    (``site.test/private/report.html``), or a whole URL whose scheme may not be the one
    the crawl requested (``https://`` for ``http://``): each stored URL of that path (on
    that host, with that port, when written) is what the reader may mean, the reader's
    URL filled in with the stored one's scheme and host, then compared as :class:`_Asked`
    compares (:meth:`meant`)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.whole = "://" in url
        #: A bare path names no host; anything else names one (``//`` added to read it).
        self.bare = url.startswith("/") and not url.startswith("//")
        self.parts = _split(url if self.whole or self.bare else f"//{url.lstrip('/')}")
        self._loose = _loose(self._rest(self.parts)) if self.parts else ""

    @staticmethod
    def _rest(parts: SplitResult) -> str:
        return urlunsplit(("", "", parts.path or "/", parts.query, ""))

    def meant(self, stored: Any) -> tuple[str, str] | None:
        """``(stored, how)`` when ``stored`` (a recorded URL) may be what was written:
        ``how`` ``""`` when it names it (the same URL once its missing parts are
        ``stored``'s), ``"near"`` when close to it (:meth:`_Asked.near`, or the same path
        on another host or port); else ``None``."""
        if self.parts is None or not isinstance(stored, str) or "://" not in stored:
            return None
        theirs = _split(stored)
        if theirs is None or _loose(self._rest(theirs)) != self._loose:
            return None
        default = DEFAULT_PORTS.get(theirs.scheme.lower())  # written or not: the same port
        port = _port(self.parts)
        elsewhere = not self.bare and (
            (self.parts.hostname or "") != (theirs.hostname or "")
            or (port is not None and port != (_port(theirs) or default))
        )
        asked = _Asked(urlunsplit((theirs.scheme, theirs.netloc, *self.parts[2:])))
        if asked.names(stored):
            return stored, "near" if elsewhere else ""
        return (stored, "near") if asked.near(stored) else None


def _split(url: str) -> SplitResult | None:
    try:
        return urlsplit(url)
    except ValueError:  # an unreadable authority ("http://[x/"): no URL to compare
        return None


def _port(parts: SplitResult) -> int | None:
    try:
        return parts.port
    except ValueError:  # not a number: compared as none
        return None


#: The recorded URLs a URL written in part may mean that ``audit show`` names at most.
MEANT_AT_MOST: Final = 10
#: The stored URLs close to it (``did you mean``) it names at most.
NEAR_AT_MOST: Final = 5


def meant(paths: list[str], url: str) -> dict[str, tuple[str, str]]:
    """The URLs recorded in the trails at ``paths`` (a ``url``, ``file`` or ``item``
    record's, a redirect's target) that ``url`` may mean, written otherwise than the
    crawl requested them (:class:`_Written`), each with how (``""``: it names it, once
    its missing scheme or host is read from it, at most :data:`MEANT_AT_MOST` and one
    more to say there are more; ``"near"``: close to it, at most :data:`NEAR_AT_MOST`)
    and the trail it is in."""
    written = _Written(url)
    found: dict[str, tuple[str, str]] = {}
    room = {"": MEANT_AT_MOST + 1, "near": NEAR_AT_MOST}
    for path in paths:
        for line in Trail(path).lines():
            record = line.record
            if line.type not in ("url", "file", "item") or not record:
                continue
            for stored in (record.get("url"), record.get("to")):
                if not isinstance(stored, str) or stored in found:
                    continue
                if (said := written.meant(stored)) is None:
                    continue
                if room[said[1]]:
                    room[said[1]] -= 1
                    found[said[0]] = (said[1], path)
    return found


def read_as(paths: list[str], url: str) -> str | None:
    """The one URL recorded in the trails at ``paths`` that ``url``, written without its
    scheme (a bare path, or a host and path), names (:func:`meant`), or ``None``: none,
    or several (each named by :func:`no_record`). A whole URL is never read as another:
    one of another scheme is named, never told as its story."""
    if _Written(url).whole:
        return None
    named = [stored for stored, (how, _) in meant(paths, url).items() if not how]
    return named[0] if len({_canonical(stored) for stored in named}) == 1 else None


def story(path: str | Path, url: str) -> tuple[list[str], int]:
    """The lines that tell ``url``'s story (:class:`_Asked`: the records of the URL as
    stored, whichever way it is written), and how many records speak of it."""
    asked = _Asked(url)
    trail = Trail(path)
    rederiver = Rederiver(trail.snapshots)
    runs: dict[str, dict[str, Any]] = {}
    lines: list[str] = []
    #: The runs without their end line, those a repair cut short and the repairs (read
    #: as ``audit summary`` reads them); the run of each record told.
    seen = Summary()
    told: list[str] = []
    for line in trail.lines():
        record = line.record or {}
        kind = line.type
        if kind in ("run", "end", "repair"):
            seen.feed(line)
            if kind == "run":
                runs[str(record.get("run"))] = record
        elif kind == "snapshot":
            rederiver.saw_snapshot(record)
        elif kind == "setting" and str(record.get("run")) in runs:
            fold_setting(runs[str(record.get("run"))], record)
        elif kind in ("url", "file", "item"):
            said, run = _told(line, asked, runs, rederiver, seen)
            lines += said
            told += [] if run is None else [run]
    if told:
        lines += _not_whole(dict.fromkeys(told), seen)
    return lines, len(told)


def _told(
    line: Line, asked: _Asked, runs: dict[str, dict[str, Any]], rederiver: Rederiver,
    seen: Summary,
) -> tuple[list[str], str | None]:  # fmt: skip
    """What a ``url``, ``file`` or ``item`` line says of the URL ``asked`` about, and the
    run of its record when it is one of the URL's (``None``: it is not; a record of a
    redirect to it is said, and a file downloaded by one told)."""
    record = line.record or {}
    if line.type == "item":  # read only when it is of the URL: a recheck's are many
        run = runs.get(str(record.get("run")), {})
        item = item_of(line, purposes_of(run)) if asked.names(record.get("url")) else None
        return ([], None) if item is None else (item_lines(item, run, rederiver), item.run)
    if line.type == "file":
        final = seen.redirects.final(text(record.get("run")), text(record.get("url")))
        if not (asked.names(record.get("url")) or asked.names(final)):
            return [], None
        read = FateRecord.of(record)
        said = file_lines(line.number, read)
        if not asked.names(record.get("url")):  # the file of a download redirected here
            said.insert(1, f"  the file of {read.entry.url}, downloaded here by redirect")
        return said, read.run
    read = FateRecord.of(record)
    seen.redirects.saw(read)
    if asked.names(record.get("url")) or record.get("id") == asked.url:  # as written
        return record_lines(line.number, read, runs, rederiver), read.run
    redirected = f"line {line.number}: {read.entry.url} was redirected here (run {read.run[:8]})"
    return ([redirected] if asked.names(record.get("to")) else []), None


def _not_whole(told: dict[str, None], seen: Summary) -> list[str]:
    """What the story may lack: a run of its records without its end line (cut short by
    a repair, or killed), a cut line a repair dropped."""
    notes = []
    repairs = [number for number, _ in seen.repairs]
    for run in told:
        if said := unended(seen, {"run": run}):  # "no end line[: cut short, repaired at…]"
            how = said.partition(": ")[2] or "killed or cut"
            notes.append(f"note: run {run[:8]} has no end line ({how}): a later record of this "
                         "URL may be lost; `audit verify` reports it")  # fmt: skip
    if repairs:
        notes.append(f"note: the trail was repaired after a cut (line(s) "
                     f"{', '.join(map(str, repairs))}): the line the cut took is lost, and it "
                     "may have been about this URL")  # fmt: skip
    return notes


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
    it (another final ``/``, or letter case in its path) is suggested. Recorded URLs of
    its path that it may mean, written without a scheme or host or with another scheme
    (:func:`meant`), are named: then it never says the crawl did not meet it."""
    where = ", ".join(paths)
    could = meant(paths, url)
    same = [stored for stored, (how, _) in could.items() if not how]
    if same:
        more = " (and more)" if len(same) > MEANT_AT_MOST else ""
        same = same[:MEANT_AT_MOST]
        lines = [
            f"no record of {url} as written in {where}; the crawl recorded {len(same)}{more} "
            "URL(s) of that path, which it may mean (another scheme or host is another URL: "
            "`audit show` of each tells its story):"
        ]
        return lines + [f"  {stored}: `audit show {' '.join(paths)} {stored}`" for stored in same]
    lines = [f"no record of {url} in {where}: the crawl neither sent nor refused a request for it"]
    lines += [f"did you mean {stored}? it has a record (`audit show {path} {stored}`)"
              for stored, (_, path) in could.items()]  # fmt: skip
    pages, unnamed = _naming_pages(paths, _Asked(url))
    return lines + (_named_by_pages(pages) if pages else _why_no_record(unnamed))


def _naming_pages(
    paths: list[str], asked: _Asked
) -> tuple[list[tuple[str, int, str]], list[tuple[str, int, str]]]:
    """The pages (trail, line, URL) whose records name the URL ``asked`` about as a link
    not followed, and those with links not followed they do not name (a page names 20
    at most)."""
    pages: list[tuple[str, int, str]] = []
    unnamed: list[tuple[str, int, str]] = []
    for path in paths:
        for line in Trail(path).lines():
            record = line.record
            if line.type not in ("url", "file", "item") or not record:
                continue
            if not record.get("links_not_followed"):
                continue
            named = record.get("not_followed") or ()
            page = (path, line.number, str(record.get("url")))
            if any(asked.names(link) for link in named):
                pages.append(page)
            elif not isinstance(named, list) or len(named) < record["links_not_followed"]:
                unnamed.append(page)
    return pages, unnamed


def _why_no_record(unnamed: list[tuple[str, int, str]]) -> list[str]:
    """Why a URL may have no record, and the pages whose links not followed the trail
    does not name (``unnamed``: trail, line, URL), which it may be one of."""
    lines = [
        "why a URL has no record:",
        '- a link not followed (nofollow, rel="nofollow") was never requested: the record '
        "of the page that held it names it (`not_followed`); no page's record names this URL",
        "- a duplicate the dupefilter dropped is counted in its run's end line "
        "(`duplicates_dropped`), not recorded",
        "- a link or a redirect to a host outside the spider's allowed_domains, which Scrapy's "
        "offsite filter dropped, is counted in its run's end line (`offsite_dropped`), not "
        "recorded",
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


def _fate(record: FateRecord, purposes: tuple[str, ...]) -> str:
    """What the record did (:func:`~rep_engine.records.describe`'s story), its attempts
    and status, and its own sentence."""
    status, why = record.entry.status, record.entry.why
    text = describe(record.entry, purposes).story or UNKNOWN_FATE.format(record.written)
    extras = []
    if record.attempts == 0:
        extras.append("never downloaded")
    elif record.attempts is not None:
        extras.append(f"{record.attempts} attempt{'' if record.attempts == 1 else 's'}")
    if status is not None:
        extras.append(f"HTTP {status}")
    text += f" ({', '.join(extras)})" if extras else ""
    return text + (f": {why}" if why else "")


def _robots(
    robots: RobotsPart | None,
    origin: str,
    rederiver: Rederiver,
    answered: bool = False,
    run: str = "",
    at: str = "",
) -> list[str]:
    """What robots.txt said of a record, and the snapshot line of the copy it was decided
    with: for a request of run ``run`` sent at ``at`` (or recorded then), the fetch of that
    copy in force then (:meth:`~rep_audit.documents.Documents.in_force`), not the first
    fetch of the same body; of one a downloader middleware answered before the verdict
    (``answered``), what it said then, deciding nothing."""
    if robots is None:
        return ["  robots.txt: not known when it was answered" if answered else
                "  robots.txt: not recorded"]  # fmt: skip
    agent = robots.agent or "?"
    decided = "applies to it (no verdict: answered before it)" if answered else "decided it"
    if robots.line is not None:
        said = f'line {robots.line} ({robots.rule}) {decided} for "{agent}"'
    elif answered:
        said = f'no line applies to it for "{agent}": {robots.why or "no reason given"}'
    else:
        said = f'no line decided it for "{agent}": {robots.why or "no reason given"}'
    lines = [f"  robots.txt of {origin or None}: {said}"]  # None: a URL without an origin
    if robots.overridden:
        said = robots.overridden
        lines.append(f"    robots.txt disallows it; overridden by REP_OVERRIDES: {said}")
    if robots.override_expired:
        lines.append(f"    its override in REP_OVERRIDES had expired: {robots.override_expired}")
    document = f"{origin}/robots.txt"
    meta = (
        rederiver.in_force(robots.sha256, document, run, at)
        if run
        else rederiver.meta(robots.sha256, document)
    )
    if robots.sha256:
        lines.append(f"    {_snapshot(robots.sha256, meta)}")
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
        answers = mapping(signal.get("answers"))
        said = ", ".join(f"{p} {'yes' if a else 'no'}" for p, a in answers.items() if a is not None)
        where = f" (snapshot {str(signal['snapshot'])[:12]}…)" if signal.get("snapshot") else ""
        lines.append(
            f"  usage signal [{signal.get('vocabulary')}] {signal.get('source')}: "
            f"{said or 'says nothing about these purposes'}{where}"
        )
    lines += [f"  {said}" for said in answers_said(usage)]
    conditions = [c for c in items(usage.get("conditions")) if isinstance(c, str)]
    if conditions:
        lines.append(f"  conditions on use: {', '.join(conditions)} (they decide no purpose)")
    return lines


def _items(record: FateRecord) -> list[str]:
    """The items kept and dropped, and why: what said the noindex (``noindex by header
    X-Robots-Tag: none``, ``noindex by <meta name="robots" content="noindex">``), from
    ``item_why``; a trail written before it was recorded says it does not know."""
    output = record.entry.output
    if output is None:
        return []
    line = f"  items: {output.kept} kept, {output.items_dropped} dropped"
    if output.not_kept:
        line += f", {output.not_kept} {NOT_KEPT}"
    reason = Reason.of(output.reason)  # as written: a hand-edited trail says anything
    if output.why:
        line += f" ({output.why})"
    elif reason in ITEM_REASONS:
        line += f" ({reason}: whether a header or a meta tag said it is not recorded)"
    elif output.reason:
        line += f" ({output.reason})"
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


def file_lines(number: int, record: FateRecord) -> list[str]:
    """A file a media pipeline downloaded and read for its own statements."""
    fate, outcome = record.file_fate, record.outcome
    said = FILE_FATE_ROWS[fate].story if fate else UNKNOWN_FATE.format(record.written)
    text = [f"line {number}: file read for its own statements; {said}"]
    text += [f"  why: {outcome.why}"] if outcome.why else []
    text += [f"  error: {outcome.error}"] if outcome.error else []
    return text + _usage(record.entry.usage)


#: What a record's ``sent_at`` is to a site's owner.
_ACCESS_LOG: Final = "the time its access log shows"


def record_lines(
    number: int,
    record: FateRecord,
    runs: dict[str, dict[str, Any]],
    rederiver: Rederiver,
) -> list[str]:
    run, url, robots = runs.get(record.run, {}), record.entry.url, record.entry.robots
    sent_at = text(record.record.get("sent_at"))
    sent = [f"  sent at {sent_at} (its last attempt left for the site then: {_ACCESS_LOG})"]
    lines = [
        # a field missing (a hand-edited trail) is said as before: None
        f"line {number}, {record.time or None}: {url or None} {_fate(record, purposes_of(run))}",
        _run_line(record.run or None, run),
        f"  request id {record.id or None}",
        *(sent if sent_at else []),
        *_payment(record.entry.payment),
        *_robots(
            robots,
            (robots.addressed if robots else "") or named_origin(record.record, url),
            rederiver,
            record.entry.answered,
            record.run,
            sent_at or record.time,
        ),
        *_usage(record.entry.usage),
        *_items(record),
        *_links(record.record),
    ]
    differences = rederiver.differences(record, RunContext.of(run))
    had = robots is not None and bool(robots.sha256)
    return lines + _rederived(differences, had, "robots.txt snapshot", "read")


def _payment(payment: dict[str, str] | None) -> list[str]:
    """What a 402 answer said of its price (docs/audit-trail.md, ``payment``)."""
    said = payment_said(payment)
    return [f"  the site asked a price for the crawl, never paid: {said}"] if said else []


def purposes_of(run: dict[str, Any]) -> tuple[str, ...]:
    return tuple(map(str, items(run.get("purposes"))))


def _run_line(run_id: str | None, run: dict[str, Any]) -> str:
    """The run of a record told: its spider, when it started, its purposes and profile."""
    return (
        f"  run {run_id} (spider {run.get('spider')}, started {run.get('time')}, "
        f"purposes {', '.join(purposes_of(run)) or '-'}, profile {run.get('profile')})"
    )


def _rederived(differences: list[str], had: bool, snapshot: str, verb: str) -> list[str]:
    """What today's engine says of a decision re-derived (``had``: from snapshots)."""
    if differences:
        return [f"  today's engine DIFFERS: {what}" for what in differences]
    if had:
        return ["  today's engine, from the snapshots: the same decision"]
    return [f"  no {snapshot} to re-derive it from (nothing was {verb})"]


def item_lines(item: ItemRecord, run: dict[str, Any], rederiver: Rederiver) -> list[str]:
    """A stored item a recheck decided: its status, what decided it (the signal and its
    line), each document version (its snapshot, the WARC record it was read from), the
    status it had before and what today's engine says."""
    status = item.status if item.status in ITEM_STATUSES else f"status {item.status!r}"
    dataset = f"shard {item.shard}" if item.shard else "the dataset"
    where = f"line {item.line} of {dataset}" if item.line is not None else dataset
    lines = [
        f"line {item.number}, {item.time}: {item.url}: item re-checked ({where}): {status}",
        _run_line(item.run, run) + _rechecked(run),
        f"  decided: {item.decided}",
    ]
    if item.why:
        lines.append(f"  why: {item.why}")
    if item.then:
        lines.append(f"  before: {item.then}" + (" (changed)" if item.changed else " (the same)"))
    origin = str(origin_of(item.url) or "")
    if isinstance(item.record.get("robots"), dict):
        lines += _robots(item.robots, named_origin(item.record, item.url), rederiver)
    elif (RefusedBy.ROBOTS_TXT, "") in item.documents:
        lines.append("  robots.txt: not had")
    for name, sha in item.documents:
        if name == RefusedBy.ROBOTS_TXT:
            continue
        document = f"{origin}/.well-known/tdmrep.json" if name == RefusedBy.TDMREP_JSON else name
        said = _snapshot(sha, rederiver.meta(sha, document)) if sha else "not had"
        lines.append(f"  {name}: {said}")
    lines += _usage(item.record.get("usage"))
    if item.item_reason:
        lines.append(f"  its page said: {item.item_reason}")
    differences = item_differences(item, RunContext.of(run), rederiver)
    return lines + _rederived(differences, bool(item.snapshots), "snapshot", "had")


#: The WARCs a recheck read that :func:`_rechecked` names, at most; the others counted.
_WARCS_NAMED: Final = 5


def _rechecked(run: dict[str, Any]) -> str:
    """What a recheck's run re-checked: the dataset, and where the documents came from
    (its header's ``documents``: ``fetched``, a WARC, or the list of the WARCs read)."""
    about = run.get("recheck")
    if not isinstance(about, dict):
        return ""
    documents = about.get("documents")
    warcs = [text(name) for name in items(documents) if text(name)] or [text(documents)]
    more = len(warcs) - _WARCS_NAMED
    named = ", ".join(warcs[:_WARCS_NAMED]) + (f" and {more:,} more" if more > 0 else "")
    source = f"documents from {named}" if named not in ("", DOCUMENTS_FETCHED) else "fetched"
    return f", re-checking {text(about.get('dataset')) or '?'} ({source})"
