"""``audit show URL``: the whole story of one URL in a trail, in words (pure).

Every ``url``, ``file`` and ``item`` record of the URL (or of its request id), across
runs, in file order, told by :mod:`rep_audit.storylines`; the records redirected to
it; what the story may lack (a run without its end line, a repair); and, for a URL
without a record, why, and the page whose record names it as a link not followed. A URL
written in part (a bare path, no scheme) is read as the one recorded URL of its path
(:func:`read_as`); else the recorded URLs of its path it may mean are named, and the crawl
is never said to have not met it (:func:`no_record`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

from w3lib.url import canonicalize_url

from rep_audit.faterecord import FateRecord
from rep_audit.rederive import Rederiver
from rep_audit.runcontext import fold_setting
from rep_audit.storylines import file_lines, item_lines, purposes_of, record_lines
from rep_audit.summary import Summary, unended
from rep_engine.records import item_of, text
from rep_engine.trail.read import Trail
from rep_engine.urls.origins import DEFAULT_PORTS


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
        elif kind == "url":
            read = FateRecord.of(record)
            seen.redirects.saw(read)
            if asked.names(record.get("url")) or record.get("id") == url:
                told.append(str(record.get("run")))
                lines += record_lines(line.number, read, runs, rederiver)
            elif asked.names(record.get("to")):
                lines.append(
                    f"line {line.number}: {record.get('url')} was redirected here "
                    f"(run {str(record.get('run'))[:8]})"
                )
        elif kind == "file" and (
            asked.names(record.get("url"))
            or asked.names(seen.redirects.final(text(record.get("run")), text(record.get("url"))))
        ):
            told.append(str(record.get("run")))
            said = file_lines(line.number, FateRecord.of(record))
            if not asked.names(record.get("url")):  # the file of a download redirected here
                said.insert(1, f"  the file of {record.get('url')}, downloaded here by redirect")
            lines += said
        elif kind == "item" and asked.names(record.get("url")):
            run = runs.get(str(record.get("run")), {})
            item = item_of(line, purposes_of(run))
            if item is not None:
                told.append(item.run)
                lines += item_lines(item, run, rederiver)
    if told:
        lines += _not_whole(dict.fromkeys(told), seen)
    return lines, len(told)


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
    asked = _Asked(url)
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
    pages: list[tuple[str, int, str]] = []
    unnamed: list[tuple[str, int, str]] = []
    near = [(path, stored) for stored, (_, path) in could.items()]
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
