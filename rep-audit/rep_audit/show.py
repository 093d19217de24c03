"""``audit show URL``: the whole story of one URL in a trail, in words (pure).

Every ``url``, ``file`` and ``item`` record of the URL (or of its request id), across
runs, in file order, told by :mod:`rep_audit.storylines`; the records redirected to
it; what the story may lack (a run without its end line, a repair); and, for a URL
without a record, why, and the page whose record names it as a link not followed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

from w3lib.url import canonicalize_url

from rep_audit.faterecord import FateRecord
from rep_audit.rederive import Rederiver
from rep_audit.runcontext import fold_setting
from rep_audit.storylines import file_lines, item_lines, purposes_of, record_lines
from rep_audit.summary import Summary, unended
from rep_engine.records import item_of
from rep_engine.trail.read import Trail


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
        elif kind == "url" and (asked.names(record.get("url")) or record.get("id") == url):
            told.append(str(record.get("run")))
            lines += record_lines(line.number, FateRecord.of(record), runs, rederiver)
        elif kind == "url" and asked.names(record.get("to")):
            lines.append(
                f"line {line.number}: {record.get('url')} was redirected here "
                f"(run {str(record.get('run'))[:8]})"
            )
        elif kind == "file" and asked.names(record.get("url")):
            told.append(str(record.get("run")))
            lines += file_lines(line.number, FateRecord.of(record))
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
