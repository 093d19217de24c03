"""The lines of the audit trail, schema 3 (docs/audit-trail.md): the ``run`` header and
the ``setting`` lines after it, the ``snapshot`` of a document that decided, a ``url``'s
record and the ``end`` line (the file writes the ``site`` lines and the ``head`` after
it: :mod:`rep_engine.trail.file`). Pure: builds dicts from values; the Scrapy side
(:mod:`scrapy_rep.crawl.audit.audit`) writes them.

A ``url`` record's parts: the AI-usage decision (:func:`usage_part`), and a fetched
page's part (docs/audit-trail.md, ``page``: :func:`page_part`): what the page said, as
the table of signals read it, and the facts it was decided on besides; a part too long
for its line names the snapshot that holds its statements (:func:`page_snapshot`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import fields
from datetime import datetime
from importlib import metadata
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, NamedTuple
from urllib.parse import urlsplit

from rep_engine.fetch.kinds import ROBOTS_TXT, DocumentKind
from rep_engine.records import FATES, NOT_OBEYED, RobotsPart, SnapshotOutcome, iso_time
from rep_engine.robotstxt.useragent import crawler_name
from rep_engine.settings import SETTINGS, RepConfig, settings_in_force
from rep_engine.settings.readers import used_presets
from rep_engine.trail.file import EMPTY_SHA256, SCHEMA
from rep_engine.usage.purpose import PURPOSES
from rep_engine.usage.rsl.terms import license_url_of
from rep_engine.usage.standards import STANDARDS
from rep_engine.verdict.decide import KINDS, Refused, Used, Verdict, Wait

if TYPE_CHECKING:
    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.robotstxt import Decision
    from rep_engine.usage.purpose import UsageDecision


def package_version() -> str:
    try:
        return metadata.version("scrapy_rep")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


#: The settings whose entries each name a site (an override's host, a held license's URL):
#: the run header says how many, and each entry is a ``setting`` line of its own after it
#: (:func:`setting_lines`), so that a site's bundle (``audit bundle``) carries its own and
#: nothing of another site's.
SITE_SETTINGS: Final = {"REP_OVERRIDES": "overrides", "REP_RSL_LICENSES": "rsl_licenses"}


def run_line(
    run: str,
    config: RepConfig,
    settings: Any,
    spider: str,
    resumes: str | None,
    jobdir: str | None,
    resumes_trail: str | None = None,
    resumes_head: str | None = None,
    web_bot_auth: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The header of one run: what was crawled, by whom, under which rules. A run resumed
    from ``JOBDIR`` names the paused run (``resumes``), the trail it was written to
    (``resumes_trail``, as its ``REP_AUDIT_FILE`` said) and the SHA-256 of its end line
    (``resumes_head``), so that ``audit verify`` can tell when the paused run is not in
    the trails it is given, and that the one given ends as it did. ``web_bot_auth``: how
    the run signed its requests (its ``Signature-Agent``, key id and tag), ``None`` when
    it did not."""
    user_agent = str(settings.get("USER_AGENT") or "")
    robots_agent = str(settings.get("ROBOTSTXT_USER_AGENT") or user_agent)
    return {
        "type": "run",
        "schema": SCHEMA,
        "run": run,
        "time": iso_time(),
        "version": package_version(),
        "standards": dict(STANDARDS),
        "spider": spider,
        "agents": [crawler_name(robots_agent), *config.purpose_agents],
        # the crawler-name presets REP_PURPOSE_AGENTS named: each with its date and source
        "agent_presets": [p.header() for p in used_presets(settings, "REP_PURPOSE_AGENTS")],
        "user_agent": user_agent,
        "purposes": list(config.purpose),
        "profile": config.profile,
        "settings": _settings_said(config, settings),
        "resumes": resumes,
        "resumes_trail": resumes_trail if resumes else None,
        "resumes_head": resumes_head if resumes else None,
        "jobdir": jobdir,
        # which queue its requests came from: a shared one (scrapy-redis) makes workers
        # of one crawl, checked against each other by ``audit verify``; Scrapy's own is
        # this process's alone (rep_audit.across)
        "scheduler": class_path(settings.get("SCHEDULER")),
        "web_bot_auth": web_bot_auth,
        # Every fetched page's record keeps what the page said (its ``page`` part), whole
        # (a long one as a snapshot): a record of this run without one has lost it.
        "page_parts": WHOLE_PAGE_PARTS,
    }


def _settings_said(config: RepConfig, settings: Any) -> dict[str, Any]:
    """A run header's ``settings``: those in force, the site settings by their count (each
    entry a ``setting`` line of its own), a Redis store's password masked (no record of the
    crawl's: a bundle carries the header)."""
    in_force = settings_in_force(config, settings)
    for name, field in SITE_SETTINGS.items():
        in_force[name] = len(getattr(config, field))
    cache = urlsplit(str(in_force.get("REP_ROBOTSTXT_CACHE") or ""))
    if cache.password:
        in_force["REP_ROBOTSTXT_CACHE"] = cache._replace(
            netloc=f"{cache.username or ''}:***@{cache.netloc.rpartition('@')[2]}"
        ).geturl()
    return in_force


def class_path(value: Any) -> str | None:
    """A setting naming a class (``SCHEDULER``), as its import path: a class given
    itself by its module and name, a path as written (``None``: none set)."""
    if value is None or isinstance(value, str):
        return value
    name = getattr(value, "__qualname__", None)
    return f"{getattr(value, '__module__', '')}.{name}" if name else str(value)


assert {f.name for f in fields(RepConfig)} == {s.field for s in SETTINGS}


def setting_lines(run: str, config: RepConfig) -> list[dict[str, Any]]:
    """The ``setting`` lines that follow a run's header: one per entry of each of
    :data:`SITE_SETTINGS` (the header holds their counts)."""
    return [
        {"type": "setting", "run": run, "name": name,
         "entry": list(entry) if isinstance(entry, tuple) else entry}
        for name, field in SITE_SETTINGS.items()
        for entry in getattr(config, field)
    ]  # fmt: skip


def snapshot_line(
    run: str,
    sha256: str,
    kind: str,
    url: str,
    final_url: str,
    status: int | None,
    detail: str,
    fetched: float,
    size: int,
) -> dict[str, Any]:
    """A document body that decided something (stored as ``<trail>.d/<sha256>``):
    ``parsed`` (its rules decide), or ``absent`` (no file: nothing is reserved). The
    verdict of a document given up on as unreachable has no snapshot: nothing was read
    (the record's ``why`` says what happened)."""
    return {
        "type": "snapshot",
        "run": run,
        "time": iso_time(),
        "sha256": sha256 or EMPTY_SHA256,  # "" for no body: that of the empty body
        "kind": kind,
        "url": url,
        "final_url": final_url or None,
        "status": status,
        "outcome": SnapshotOutcome.PARSED if sha256 else SnapshotOutcome.ABSENT,
        "detail": detail,
        "fetched": iso_time(fetched),
        "bytes": size,
    }


class Named(NamedTuple):
    """The snapshots a record names of the documents a verdict was decided with
    (:func:`documents_of`)."""

    #: Its robots.txt's (the site its ``Host`` addressed, when another), and the URL's own
    #: origin's robots.txt's when that one decided too (``None``: no other).
    robots: str
    also: str | None
    #: Each other document's, by the record's field that names it
    #: (:attr:`~rep_engine.fetch.kinds.DocumentKind.record`): one a site (``tdmrep``), or
    #: each by its URL (``rsl``: a license URL -> its snapshot).
    fields: dict[str, Any]


#: Stores a document's body (once) and names its snapshot (``""``: none, a document
#: given up on): ``(kind, key, entry)``.
Snapshot = Callable[[DocumentKind[Any], Hashable, "CacheEntry[Any]"], str]


def documents_of(used: Used, snapshot: Snapshot, skipped: Collection[str] = ()) -> Named:
    """The snapshots of the documents of ``used`` (a verdict's, robots.txt first), as a
    ``url`` record and a re-check's ``item`` record name them, each stored by ``snapshot``
    in this order: robots.txt, another origin's robots.txt that decided too, then each
    other document as the verdict read it; the kinds ``skipped`` are not named (a
    re-check's not consulted: read as none)."""
    _, origin, entry = used[0]
    robots = snapshot(ROBOTS_TXT, origin, entry)
    rest = used[1:]  # no comprehension: a call more on the crawl's hot path
    also = None
    for name, key, found in rest:  # the URL's own origin's, a request sent with a Host
        if not KINDS[name].record and key != origin and name not in skipped:
            also = snapshot(KINDS[name], key, found)
    fields: dict[str, Any] = {}
    for name, key, found in rest:
        kind = KINDS[name]
        if not kind.record or name in skipped:
            continue
        if kind.path:  # one a site
            fields[kind.record] = snapshot(kind, key, found)
        else:  # each by its URL (an RSL license)
            fields.setdefault(kind.record, {})[str(key)] = snapshot(kind, key, found)
    return Named(robots, also, fields)


def robots_part_of(
    verdict: Verdict,
    decision: Decision | None,
    robots: CacheEntry[Any],
    sha: str,
    agent: str,
    names: tuple[str, ...] = (),
    not_obeyed: str = "",
    addressed: str = "",
    also: str | None = None,
) -> RobotsPart | None:
    """The ``robots`` part of a request (or a re-checked item) robots.txt decided
    (:func:`~rep_engine.records.robots_part`): the line of ``decision`` that decided it
    for ``agent`` (a product token) or why none did (its robots.txt ``robots`` given up on:
    its outcome), the override of ``verdict`` that let it through (and when it ends) or
    that had expired when it was refused, every name it was held to (``names``: more
    than one), the site its ``Host`` addressed and the URL's own origin's robots.txt when
    it decided too (``also``). ``not_obeyed``: its Allow/Disallow were not obeyed, for
    this cause (:data:`~rep_engine.records.NOT_OBEYED`): the snapshot whose AI-usage
    opt-outs were. ``None``: no decision to name (robots.txt obeyed and not read)."""
    if not_obeyed:
        why = NOT_OBEYED[not_obeyed]
        return RobotsPart(sha, agent, None, None, why, False, "", "", names, None, addressed, also)
    if decision is None:
        return None
    why = f"robots.txt {robots.outcome}" if robots.unreachable else decision.reason
    overridden = expired = ""
    ends = None
    if not isinstance(verdict, Wait) and verdict.overridden is not None:  # refused later
        overridden, ends = verdict.overridden.described, verdict.overridden.ends
    elif isinstance(verdict, Refused) and verdict.expired is not None:
        expired = verdict.expired.described
    return RobotsPart(
        sha, agent, decision.line, decision.line_text, why, True, overridden, expired, names,
        ends, addressed, also,
    )  # fmt: skip


def usage_part(
    decision: UsageDecision,
    robots_sha: str,
    tdm_sha: str,
    licenses: Mapping[str, str] = MappingProxyType({}),
) -> dict[str, Any]:
    """The AI-usage decision: the answer per purpose, the deciding signal's position per
    decided purpose, and the signals (with the snapshot of the document they came from;
    ``licenses``: an RSL license URL's snapshot), and the conditions on use they state
    (Content-Signal ``use=``, docs/purpose-notes.md §2)."""
    signals = []
    for signal in decision.signals:
        answered = dict(zip(PURPOSES, signal.answers, strict=True))
        entry: dict[str, Any] = {
            "vocabulary": signal.vocabulary,
            "answers": {p: a for p, a in answered.items() if a is not None},
            "source": signal.source,
        }
        if signal.conditions:
            entry["conditions"] = list(signal.conditions)
        if signal.source.startswith("robots.txt") and robots_sha:
            entry["snapshot"] = robots_sha
        elif signal.source.startswith("tdmrep.json") and tdm_sha:
            entry["snapshot"] = tdm_sha
        elif signal.vocabulary == "rsl" and licenses.get(license_url_of(signal.source)):
            entry["snapshot"] = licenses[license_url_of(signal.source)]
        signals.append(entry)
    deciding = {p: decision.decided_by(p) for p in PURPOSES}
    part: dict[str, Any] = {
        "answers": {p: decision.allowed(p) for p in PURPOSES},
        "decided_by": {p: decision.signals.index(s) for p, s in deciding.items() if s is not None},
        "signals": signals,
    }
    if decision.conditions:  # Content-Signal use=: a condition, not an answer
        part["conditions"] = list(decision.conditions)
    return part


def file_line(
    run: str, url: str, fate: str, decision: UsageDecision, media: dict[str, Any]
) -> dict[str, Any]:
    """A file that FilesPipeline / ImagesPipeline downloaded and read for its own
    statements (IPTC Data Mining, C2PA): ``fate`` is ``stored``, ``refused``, ``marked``
    or ``failed``; ``usage`` says which statement decided (docs/audit-trail.md)."""
    return {
        "type": "file",
        "run": run,
        "time": iso_time(),
        "url": url,
        "fate": fate,
        "usage": usage_part(decision, "", ""),
        "media": media,
    }


def end_line(run: str, reason: str, counts: dict[str, int], last_request: int) -> dict[str, Any]:
    """The end of one run: why it ended, its counts, and the highest request number the
    trail has given so far (the next crawl appending to the trail numbers after it)."""
    ordered = {"url": sum(counts.get(fate, 0) for fate in FATES)}
    ordered.update({fate: counts.get(fate, 0) for fate in FATES})
    ordered["duplicates_dropped"] = counts.get("duplicates_dropped", 0)
    ordered.update({k: v for k, v in counts.items() if k not in ordered})
    return {"type": "end", "run": run, "time": iso_time(), "reason": reason,
            "counts": ordered, "last_request": last_request}  # fmt: skip


# A fetched page's part of its ``url`` record.

#: The most characters of a page's statements a record keeps in its line: past it, they
#: are a snapshot of their own (kind ``page``), which the part names.
MAX_PAGE_PART_CHARS: Final = 16384
#: A run header's ``page_parts`` when every page part is whole (older runs wrote ``true``
#: and kept only ``omitted`` past :data:`MAX_PAGE_PART_CHARS`).
WHOLE_PAGE_PARTS: Final = 2


def page_part(
    names: Sequence[str],
    headers: Sequence[tuple[str, str]],
    meta: Sequence[tuple[str, str]],
    *,
    image: bool = False,
    embedded_by: str = "",
    decided: datetime | None = None,
    cached: datetime | bool | None = None,
) -> dict[str, Any]:
    """What a fetched page said, as the table of signals read it (``headers``: the fields
    of its header rows; ``meta``: its meta tags named after a meta row or our names), and
    the facts it was decided on besides: the crawler ``names`` they were read for, whether
    it is an ``image``, the ``noimageai`` of the page that showed it (``embedded_by``) and,
    when its verdict depends on the time (an ``unavailable_after``), when it was
    ``decided`` (ISO 8601 UTC, to the millisecond): the page's snapshot, from which
    ``audit verify`` decides the page again (:func:`rep_engine.verdict.page.decide_page`).
    A page Scrapy's HTTP cache replayed says when it was really fetched (``cached``: ISO
    8601 UTC, or ``true`` when the cache did not say).
    Statements past :data:`MAX_PAGE_PART_CHARS` go to a snapshot (:func:`page_snapshot`)."""
    part: dict[str, Any] = {"names": list(names)}
    if headers:
        part["headers"] = [[name, value] for name, value in headers]
    if meta:
        part["meta"] = [[name, content] for name, content in meta]
    if image:
        part["image"] = True
    if embedded_by:
        part["embedded_by"] = embedded_by
    if decided is not None:
        part["decided"] = _iso(decided)
    if cached is not None and cached is not False:
        part["cached"] = True if cached is True else _iso(cached)
    return part


#: The response fields a 402 answer says its price with (Cloudflare's pay per crawl:
#: ``crawler-price``, what the crawl of the page costs; ``crawler-error``, why a payment
#: offered was refused), as a ``payment_required`` record's ``payment`` part names them.
#: scrapy_rep never sends the fields that offer to pay (``crawler-exact-price``,
#: ``crawler-max-price``).
PAYMENT_FIELDS: Final = ("crawler-price", "crawler-error")
#: The characters of each kept in the record; a longer value is cut and ends in ``…``, so
#: that a site's header cannot bloat the trail.
PAYMENT_VALUE_KEPT: Final = 256
#: The bytes of each field read: enough for that many characters of UTF-8.
_PAYMENT_BYTES: Final = 4 * PAYMENT_VALUE_KEPT + 4


def payment_part(fields: Mapping[str, Sequence[bytes]]) -> dict[str, str]:
    """What a 402 answer said of its price (``fields``: the lines of each of
    :data:`PAYMENT_FIELDS` it sent): each field's lines joined by ``", "`` (RFC 9110
    §5.3), decoded as UTF-8 (a byte that is not: U+FFFD), at most
    :data:`PAYMENT_VALUE_KEPT` characters of it kept (cut: it ends in ``…``); only the
    bytes that may be kept are read. ``{}``: it sent neither."""
    part: dict[str, str] = {}
    for name in PAYMENT_FIELDS:
        lines = fields.get(name) or ()
        if not lines:
            continue
        read = b""
        for line in lines:
            read += (b", " if read else b"") + line[:_PAYMENT_BYTES].strip()
            if len(read) > _PAYMENT_BYTES:
                break
        value = read.decode("utf-8", "replace")
        part[name] = value if len(value) <= PAYMENT_VALUE_KEPT else f"{value[:PAYMENT_VALUE_KEPT]}…"
    return part


def is_payment_part(part: Any) -> bool:
    """Whether ``part`` is a ``payment`` part as :func:`payment_part` writes it: an
    object of one or both of :data:`PAYMENT_FIELDS`, each a string of at most
    :data:`PAYMENT_VALUE_KEPT` characters (and ``…`` when cut)."""
    return (
        isinstance(part, dict)
        and bool(part)
        and all(
            name in PAYMENT_FIELDS
            and isinstance(value, str)
            and len(value) <= PAYMENT_VALUE_KEPT + 1
            for name, value in part.items()
        )
    )


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def page_snapshot(part: dict[str, Any]) -> bytes | None:
    """The body of ``part``'s statements when they are too long for the record's line
    (``None``: they fit): the part then names its snapshot instead (:func:`snapshotted`)."""
    size = 0  # loops, not comprehensions: every page's part is measured (the hot path)
    for key in ("headers", "meta"):
        for name, value in part.get(key, ()):
            size += len(name) + len(value)
    if size <= MAX_PAGE_PART_CHARS:
        return None
    said = {k: part[k] for k in ("headers", "meta") if k in part}
    return json.dumps(said, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def snapshotted(part: dict[str, Any], sha256: str) -> dict[str, Any]:
    """``part`` with its statements replaced by the snapshot that holds them."""
    kept = {k: v for k, v in part.items() if k not in ("headers", "meta")}
    return {**kept, "snapshot": sha256}
