"""Captures dated: the documents of one or several WARCs as they stood at a date, and
what the capture nearest before an item's date said of it (pure).

A :class:`Timeline` holds every capture of every WARC given, by URL, oldest first. Its
:meth:`~Timeline.at` is the view of them as they stood at a date (``--as-of``): for each
URL, the newest capture at or before it (a URL captured only after it is not captured),
which :class:`~rep_recheck.warc.WarcDocuments` reads as it reads one WARC's
latest captures. :class:`Then` says, for an item, the status the capture of its origin's
robots.txt nearest before the item's date gives it, decided by the one decision of a
recheck (:meth:`~rep_recheck.rechecker.Rechecker.decide`) on the documents of that
capture's crawl (:meth:`~Timeline.crawl_end`: the captures nearer it than its origin's
next robots.txt capture, as a crawl fetches its tdmrep.json seconds beside its
robots.txt, never the crawl before's); an item dated before every capture has none
(:func:`no_capture_before`), and one whose date cannot be read is ``unknown``.
"""

from __future__ import annotations

import bisect
import math
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timezone
from itertools import chain
from pathlib import Path
from typing import Any, Final

from rep_engine.records import NO_CAPTURE_BEFORE, ItemStatus, seconds_of
from rep_engine.urls.origins import origin_of
from rep_recheck.capture_index import CaptureFile, capture_date, indexed, split
from rep_recheck.captures import (
    KEPT_BYTES,
    Capture,
    Ref,
    WarcFiles,
    alike,
    capture_time,
    no_capture,
    of_one_date,
    present,
    records,
    revisited,
)
from rep_recheck.names import PARSED_ORIGINS, names_held
from rep_recheck.rechecker import Rechecker

#: The most dated recheckers a :class:`Then` keeps (one per capture date met), then it
#: starts again.
THEN_MEMO: Final = 4_096
#: A plain number at or above this is an epoch in milliseconds, not seconds.
_MILLISECONDS: Final = 1e11
#: How far after an item's date its origin's first robots.txt capture may come and still
#: be counted among the items that ``--then-tolerance`` would give a ``then`` (a crawl
#: fetches a host's robots.txt once in a while, Common Crawl once a day: its capture can
#: come hours after the pages it let through).
NEAR_MISS: Final = 86_400.0
#: ``--then-tolerance``'s units.
_UNITS: Final = {"s": 1, "m": 60, "h": 3_600, "d": 86_400}


class DateError(ValueError):
    """``--as-of`` or ``--date-column`` given wrong: one line naming the option."""


def parse_as_of(text: str) -> float:
    """``--as-of``'s DATE, an ISO 8601 date or date and time, as POSIX seconds (UTC unless
    it names its offset; a date alone is its midnight). Raises :class:`ValueError`."""
    if (seconds := seconds_of(text.strip(), "utc")) is None:
        raise ValueError(f"not an ISO 8601 date or time: {text!r}")
    return seconds


def item_date(value: Any) -> float | None:
    """An item's date column as POSIX seconds: an ISO 8601 string (UTC unless it names
    its offset), or an epoch in seconds or milliseconds (a number, or its digits); a
    :class:`datetime` (Parquet's timestamps). ``None``: missing or not a date."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, datetime):
        zoned = value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
        return zoned.timestamp()
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        text = str(value).strip()
        if not text:
            return None
        try:
            number = float(text)
        except ValueError:
            return seconds_of(text, "utc")
    if not math.isfinite(number):
        return None
    return number / 1000 if abs(number) >= _MILLISECONDS else number


def parse_tolerance(text: str) -> float:
    """``--then-tolerance``'s DURATION as seconds: a number of seconds, or of minutes,
    hours or days with ``m``, ``h`` or ``d`` after it (``90m``, ``6h``, ``1d``). Raises
    :class:`ValueError`."""
    text = text.strip().lower()
    unit = _UNITS.get(text[-1:], 0) if text else 0
    number = float(text[:-1] if unit else text)  # ValueError: not a number
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"not a duration: {text!r}")
    return number * (unit or 1)


def no_capture_before(when: float) -> str:
    """An item's ``then`` when no capture precedes its date: said, never made up."""
    return f"{NO_CAPTURE_BEFORE}{capture_time(when)}"


class Timeline:
    """Every capture of every WARC given, by URL, oldest first (:func:`read`): in memory,
    or beyond ``REP_RECHECK_PARSED_ORIGINS`` URLs in an SQLite file
    (:mod:`~rep_recheck.capture_index`)."""

    def __init__(
        self, by_url: Mapping[str, list[Capture | Ref]] | CaptureFile, files: WarcFiles
    ) -> None:
        """``files``: the WARCs the :class:`~rep_recheck.captures.Ref` of each response
        record is read again from."""
        self.files = files
        self.file = by_url if isinstance(by_url, CaptureFile) else None
        #: Each URL's dated captures, oldest first (captures of one date in the files'
        #: order); and those whose ``WARC-Date`` cannot be read, in the files' order:
        #: never a capture as of a date, read for the present only as
        #: :func:`~rep_recheck.captures.present` reads them.
        self.by_url, self.undated = split(by_url)
        #: Every capture in memory by its record ID, with its URL, made when a revisit
        #: first names one (a :class:`CaptureFile` looks them up).
        self._ids: dict[str, tuple[str, Capture | Ref]] | None = None
        #: What is said of each WARC read that held no capture (:func:`read`).
        self.captureless: list[str] = []

    @classmethod
    def of(
        cls,
        captured: Iterable[tuple[str, Capture | Ref]],
        held: int = PARSED_ORIGINS,
        files: WarcFiles | None = None,
    ) -> Timeline:
        """``captured``'s, in an SQLite file when they are of more than ``held`` URLs
        (``files``: the WARCs its :class:`~rep_recheck.captures.Ref`\\ s are of)."""
        return cls(indexed(captured, held), files or WarcFiles([]))

    @classmethod
    def read(cls, paths: Iterable[str | Path], held: int = PARSED_ORIGINS) -> Timeline:
        """The captures of the WARCs at ``paths``, indexed in one pass
        (:attr:`captureless`: what is said of each that held none). Raises
        :class:`~rep_recheck.captures.WarcError`."""
        files = WarcFiles(list(paths))
        captureless: list[str] = []
        room = [KEPT_BYTES]  # the records kept as inflated, over every WARC

        def captured() -> Iterator[tuple[str, Capture | Ref]]:
            for number, path in enumerate(files.paths):
                kinds: Counter[str] = Counter()
                count = 0
                for found in records(path, number, kinds, room):
                    count += 1
                    yield found
                if not count:
                    captureless.append(no_capture(path, kinds))

        timeline = cls.of(captured(), held, files)
        timeline.captureless = captureless
        return timeline

    def at(self, when: float = math.inf) -> AsOf:
        """The captures as they stood at ``when`` (the newest of each URL at or before
        it; without ``when``, the newest)."""
        return AsOf(self, when)

    def holds(self, path: str) -> bool:
        """Whether some capture's URL ends with ``path`` (``/.well-known/tdmrep.json``)."""
        return any(url.endswith(path) for url in chain(self.by_url, self.undated))

    def dated(self) -> bool:
        """Whether some URL was captured at two dates: there is a before to look at."""
        if self.file is not None:
            return self.file.two_dates()
        return any(found[0].date != found[-1].date for found in self.by_url.values())

    def newest(self, url: str, when: float) -> Capture | None:
        """``url``'s newest capture at or before ``when`` (``None``: none); at no date
        (``inf``: the present), as :func:`~rep_recheck.captures.present` reads the
        captures of an unreadable date beside it."""
        found = self.by_url.get(url) or []
        if (
            len(found) == 1
            and found[0].date <= when  # type: ignore[operator]  # dated: by_url's
            and (when != math.inf or url not in self.undated)
        ):
            return self.answer(found[0])  # the usual URL: one capture, dated, at or before
        place = bisect.bisect_right(found, when, key=capture_date)
        newest = None
        if place:  # its captures in that second: dated alike (:func:`alike`)
            second = alike(capture_date(found[place - 1]))
            first = bisect.bisect_left(found, second, key=capture_date)
            newest = of_one_date([self.answer(one) for one in found[first:place]])
        if when == math.inf and url in self.undated:
            return present(newest, [self.answer(one) for one in self.undated[url]])
        return newest

    def load(self, entry: Capture | Ref) -> Capture:
        """A capture of the index as read: a response record's read again from its WARC."""
        return self.files.load(entry) if isinstance(entry, Ref) else entry

    def answer(self, entry: Capture | Ref, seen: frozenset[str] = frozenset()) -> Capture:
        """``capture``'s answer: a revisit's is the record's it refers to
        (:func:`~rep_recheck.captures.revisited`, a revisit of a revisit followed;
        ``seen``: the revisits followed to it), that record found by its
        ``WARC-Refers-To`` among the captures of every WARC given, else by its URI
        (:meth:`_by_uri`). The record found must be the one the revisit says: of the
        payload digest it gives, or without one of the URI it names."""
        if isinstance(entry, Ref):
            return self.files.load(entry)
        capture = entry
        if not capture.refers_uri:
            return capture
        if capture.record_id in seen:
            return revisited(capture, None, "a revisit of itself through other revisits")
        referred: Capture | None
        if capture.refers_to:
            uri, named = self._by_id(capture.refers_to) or ("", None)
            referred = None if named is None else self.load(named)
        else:
            uri, referred = capture.refers_uri, self._by_uri(capture)
        if referred is None:
            return revisited(capture, None)
        if capture.digest and referred.digest:  # the payload it repeats: by its digest
            other = capture.digest != referred.digest
        else:
            other = uri != capture.refers_uri
        if other:
            return revisited(capture, None, f"which is not the record {referred.record_id} "
                             f"of {uri} (another URI or payload digest)")  # fmt: skip
        return revisited(capture, self.answer(referred, seen | {capture.record_id}))

    def _by_id(self, record_id: str) -> tuple[str, Capture | Ref] | None:
        """The capture of ``record_id`` and its URL (``None``: none)."""
        if self.file is not None:
            return self.file.by_id(record_id)
        if self._ids is None:
            self._ids = {one.record_id: (url, one) for held in (self.by_url, self.undated)
                         for url, found in held.items() for one in found}  # fmt: skip
        return self._ids.get(record_id)

    def _by_uri(self, revisit: Capture) -> Capture | None:
        """The capture ``revisit`` refers to without naming it: of its URI, with its
        payload digest and of its ``WARC-Refers-To-Date`` where it says them, the newest
        at or before it (a ``server-not-modified`` revisit that says neither: the
        capture it was not modified since)."""
        digest, date = revisit.digest, revisit.refers_date
        second = alike(date) if date is not None else None

        def said(one: Capture) -> bool:  # of the digest and date it says, no revisit
            if one.refers_uri or (digest and one.digest != digest):
                return False
            return second is None or (one.date is not None and alike(one.date) == second)

        entries = [one for held in (self.by_url, self.undated)
                   for one in held.get(revisit.refers_uri) or ()]  # fmt: skip
        found = [one for one in map(self.load, entries) if said(one)]
        when = revisit.date if revisit.date is not None else math.inf
        before = [one for one in found if one.date is not None and one.date <= when]
        named = found if digest or second is not None else []  # that record, whenever it is
        chosen = before or named
        return chosen[-1] if chosen else None

    def before(self, url: str, when: float) -> float | None:
        """The date of ``url``'s newest dated capture at or before ``when`` (``None``:
        none)."""
        found = self.by_url.get(url) or []
        place = bisect.bisect_right(found, when, key=capture_date)
        return found[place - 1].date if place else None

    def oldest(self, url: str) -> float | None:
        """The date of ``url``'s oldest capture (``None``: never captured)."""
        found = self.by_url.get(url)
        return found[0].date if found else None

    def crawl_end(self, url: str, when: float, until: float = math.inf) -> float:
        """Until when the crawl of ``url``'s capture at ``when`` is read (its robots.txt's:
        :class:`Then`): halfway to ``url``'s next capture at or before ``until``, the
        captures of the origin nearer this one than the next being of its crawl; with
        none, ``until`` (never ``inf``: :meth:`newest` reads no capture of an unreadable
        date for a date)."""
        found = self.by_url.get(url) or []
        place = bisect.bisect_right(found, when, key=capture_date)
        if place < len(found) and capture_date(found[place]) <= until:
            return (when + capture_date(found[place])) / 2
        return min(until, sys.float_info.max)


def captures(path: str | Path) -> dict[str, Capture]:
    """The newest capture of each URL of the WARC at ``path`` (its revisits read), as a
    recheck reads them. Raises :class:`~rep_recheck.captures.WarcError`."""
    return dict(Timeline.read([path]).at())


class AsOf(Mapping[str, Capture]):
    """The captures of a :class:`Timeline` as they stood at a date: for each URL, its
    newest capture at or before it (read, as a WARC's, by
    :class:`~rep_recheck.warc.WarcDocuments`)."""

    def __init__(self, timeline: Timeline, when: float) -> None:
        self.timeline = timeline
        self.when = when

    def __getitem__(self, url: str) -> Capture:
        capture = self.timeline.newest(url, self.when)
        if capture is None:
            raise KeyError(url)
        return capture

    def get(self, url: str, default: Capture | None = None) -> Capture | None:  # type: ignore[override]
        """``url``'s capture as of :attr:`when` (``None``: none), without the
        ``KeyError`` :meth:`Mapping.get` makes and catches."""
        capture = self.timeline.newest(url, self.when)
        return default if capture is None else capture

    def __iter__(self) -> Iterator[str]:
        urls = dict.fromkeys(chain(self.timeline.by_url, self.timeline.undated))
        return (url for url in urls if url in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, url: object) -> bool:
        return isinstance(url, str) and self.timeline.newest(url, self.when) is not None

    def captured_later(self, url: str) -> float | None:
        """The date of ``url``'s first capture when every capture of it is after
        :attr:`when` (``--as-of``), else ``None`` (captured by then, or never)."""
        first = self.timeline.oldest(url)
        return first if first is not None and first > self.when else None


class Then:
    """What the capture nearest before an item's date said of it: its status then,
    decided by a :class:`~rep_recheck.rechecker.Rechecker` that ``dated`` makes
    on the captures of that capture's crawl (as they stood at its
    :meth:`~Timeline.crawl_end`; one per crawl, remembered)."""

    def __init__(
        self,
        timeline: Timeline,
        dated: Callable[[AsOf], Rechecker],
        until: float = math.inf,
        tolerance: float = 0.0,
    ) -> None:
        """``until``: ``--as-of`` (no capture after it is looked at); ``tolerance``:
        ``--then-tolerance``, how long after an item's date a capture is still its
        crawl's."""
        self.timeline = timeline
        self.dated = dated
        self.until = until
        self.tolerance = tolerance
        self._recheckers: dict[float, Rechecker] = {}
        #: Items whose date could not be read (their ``then`` is ``unknown``).
        self.undated = 0
        #: Items dated before their origin's first capture, and those of them whose first
        #: capture came at most :data:`NEAR_MISS` after their date (plus the tolerance).
        self.before_first = self.near_first = 0

    def undated_line(self, column: str) -> str:
        """What the run says of the items whose date could not be read."""
        return (f"{self.undated:,} item(s) with no date to read in --date-column "
                f"{column!r}: their `then` is unknown")  # fmt: skip

    def near_line(self) -> str | None:
        """What the run says of the items dated before their origin's first capture
        (``None``: none), and of the tolerance that would give them a ``then`` when
        their first capture came within a day of their date."""
        if not self.before_first:
            return None
        within = f"{self.tolerance:,.0f} s + " if self.tolerance else ""
        line = (f"{self.before_first:,} item(s) dated before the first capture of their "
                "origin's robots.txt have no `then` (\"no capture before DATE\": the capture "
                "at or before each item's date decides it)")  # fmt: skip
        if self.near_first:
            line += (f"; for {self.near_first:,} of them it came at most {within}a day "
                     "after their date: a crawl's own robots.txt capture can come hours "
                     "after the pages it fetched, and --then-tolerance DURATION (e.g. 1d) "
                     "reads a capture up to DURATION after an item's date as its "
                     "crawl's")  # fmt: skip
        return line

    def forget(self) -> None:
        """The deciders of each crawl let go (each holds its origins' parsed documents):
        made again if asked for again."""
        self._recheckers.clear()

    def of(self, url: str, date: Any, by_date: bool) -> str:
        """``url``'s status then: as of the capture of its origin's robots.txt nearest
        at or before ``date`` (``by_date``: the items are dated, ``--date-column``; at or
        before ``date`` plus :attr:`tolerance` with ``--then-tolerance``), else its
        oldest capture; :func:`no_capture_before` when none precedes the date;
        ``unknown`` when the date cannot be read or the origin was never captured."""
        origin = origin_of(url)
        if origin is None:
            return str(ItemStatus.UNKNOWN)
        robots = origin.robots_url
        if by_date:
            when = item_date(date)
            if when is None:
                self.undated += 1
                return str(ItemStatus.UNKNOWN)
            bound = min(when + self.tolerance, self.until)
            captured = self.timeline.before(robots, bound)
            if captured is None:
                first = self.timeline.oldest(robots)
                if first is None:
                    return str(ItemStatus.UNKNOWN)
                if bound == self.until < when + self.tolerance:  # --as-of came first
                    return f"{no_capture_before(bound)} (--as-of)"
                self.before_first += 1
                if first <= min(bound + NEAR_MISS, self.until):
                    self.near_first += 1
                return no_capture_before(bound)
        else:
            captured = self.timeline.oldest(robots)
            if captured is None:
                return str(ItemStatus.UNKNOWN)
        end = self.timeline.crawl_end(robots, captured, self.until)
        rechecker = self._recheckers.get(end)
        if rechecker is None:
            if len(self._recheckers) >= THEN_MEMO:
                self._recheckers.clear()
            rechecker = self._recheckers[end] = self.dated(self.timeline.at(end))
        return str(rechecker.decide(url).status)


class Dated:
    """The captures of ``--documents`` (one WARC or several) as a recheck reads them:
    :meth:`now` (each URL's newest capture, at or before ``--as-of``), and :meth:`then`
    when there is a before to look at (older captures, or dated items). Raises
    :class:`~rep_recheck.captures.WarcError` and :class:`ValueError` (``as_of``)."""

    def __init__(
        self,
        warcs: Iterable[str | Path],
        as_of: str | None,
        by_date: bool,
        held: int = PARSED_ORIGINS,
        tolerance: str | None = None,
    ) -> None:
        self.warcs = [str(path) for path in warcs]
        self.timeline = Timeline.read(self.warcs, names_held(held))
        #: ``--as-of`` (POSIX seconds; ``inf``: none given, the newest captures).
        self.as_of = parse_as_of(as_of) if as_of is not None else math.inf
        self.by_date = by_date
        #: ``--then-tolerance`` (seconds).
        self.tolerance = parse_tolerance(tolerance) if tolerance is not None else 0.0

    def now(self) -> AsOf:
        """The captures the items are decided with now."""
        return self.timeline.at(self.as_of)

    def then(self, dated: Callable[[AsOf], Rechecker]) -> Then | None:
        """What says ``then`` (``None``: one capture of each URL and no item dates:
        nothing older to say it)."""
        if not (self.by_date or len(self.warcs) > 1 or self.timeline.dated()):
            return None
        return Then(self.timeline, dated, self.as_of, self.tolerance)

    @property
    def source(self) -> str:
        """Where the documents came from, as the summary says it."""
        named = ", ".join(f"`{path}`" for path in self.warcs)
        source = f"WARC {named}, as of each origin's capture"
        if len(self.warcs) > 1:
            source = f"WARCs {named}, as of each origin's newest capture"
        if self.as_of != math.inf:
            source += f" at or before {capture_time(self.as_of)} (--as-of)"
        return source


#: ``--as-of``, ``--date-column`` and ``--then-tolerance``: the captures of ``--documents``
#: dated (rows of :class:`rep_engine.commandline.Tool`).
DATED_OPTIONS: Final = (
    ("--as-of", {"metavar": "DATE", "help": "with --documents: decide with the captures as "
                 "they stood at DATE (ISO date or time, UTC)"}),
    ("--date-column", {"metavar": "COLUMN", "help": "with --documents: each item's date (ISO "
                       "or epoch); `then` is what the capture nearest before it said "
                       "(default: the oldest capture)"}),
    ("--then-tolerance", {"metavar": "DURATION", "help": "with --date-column: a capture up to "
                          "DURATION after an item's date (90m, 6h, 1d) is still read for its "
                          "`then`"}),
)  # fmt: skip


def check_dated(
    warcs: Sequence[str] | None,
    as_of: str | None,
    column: str | None,
    fetch_missing: bool,
    tolerance: str | None = None,
) -> None:
    """``--as-of``, ``--date-column`` and ``--then-tolerance`` date captures: refused
    without a WARC; a DATE or DURATION that does not parse is refused, ``--as-of`` with
    ``--fetch-missing`` (what is fetched now is not as of DATE), and ``--then-tolerance``
    without ``--date-column`` (no item has a date to add it to). Raises
    :class:`DateError` (one line)."""
    if tolerance is not None:
        if not column:
            raise DateError("--then-tolerance reads captures after each item's date: give "
                            "--date-column COLUMN too")  # fmt: skip
        try:
            parse_tolerance(tolerance)
        except ValueError:
            raise DateError(f"--then-tolerance takes a duration (seconds, or 90m, 6h, 1d), "
                            f"got {tolerance!r}") from None  # fmt: skip
    for given, name in ((as_of, "--as-of"), (column, "--date-column")):
        if given and not warcs:
            raise DateError(f"{name} dates the captures of a WARC: give --documents WARC "
                            "(documents fetched now have nothing to date)")  # fmt: skip
    if as_of is not None and fetch_missing:
        raise DateError("--as-of decides as of DATE, --fetch-missing with documents fetched "
                        "now: give one of them")  # fmt: skip
    if as_of is not None:
        try:
            parse_as_of(as_of)
        except ValueError:
            raise DateError(f"--as-of takes an ISO date or date and time (UTC), "
                            f"got {as_of!r}") from None  # fmt: skip
