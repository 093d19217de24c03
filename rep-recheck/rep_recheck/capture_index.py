"""The captures of WARCs by URL within a bound (pure): in a dict up to
:func:`~rep_recheck.names.names_held` URLs (:func:`indexed`: a response
record is where it is, about 250 bytes), beyond that in an SQLite file of a
temporary folder (:class:`CaptureFile`, removed at the end, as the document store's), so
that a WARC of a million origins' robots.txt is not held in memory. Each URL's captures
are read back in the files' order, the same captures either way
(:class:`~rep_recheck.asof.Timeline` reads them).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Final

from rep_recheck.captures import Capture, Ref
from rep_recheck.names import spill_file

#: A capture as the index holds it: a response record's place in its WARC, or a revisit.
Entry = Capture | Ref

#: Captures written to the SQLite file at once.
_BATCH: Final = 1_000
#: The URLs whose captures :class:`CaptureFile` keeps at hand (the last asked for).
_AT_HAND: Final = 1_024


def indexed(
    captured: Iterable[tuple[str, Entry]], held: int, directory: str | Path | None = None
) -> dict[str, list[Entry]] | CaptureFile:
    """``captured``'s captures by URL, in the files' order: a dict while they are of at
    most ``held`` URLs, else a :class:`CaptureFile`."""
    by_url: dict[str, list[Entry]] = {}
    file: CaptureFile | None = None
    for url, capture in captured:
        if file is not None:
            file.add(url, capture)
            continue
        by_url.setdefault(url, []).append(capture)
        if len(by_url) > held:
            file = CaptureFile(directory)
            for known, found in by_url.items():
                for one in found:
                    file.add(known, one)
            by_url = {}
    if file is None:
        return by_url
    file.done()
    return file


def split(
    by_url: Mapping[str, list[Entry]] | CaptureFile,
) -> tuple[Mapping[str, list[Entry]], Mapping[str, list[Entry]]]:
    """Each URL's captures of a readable date, oldest first (captures of one date in the
    files' order), and those of an unreadable one, in the files' order."""
    if isinstance(by_url, CaptureFile):
        return by_url.view(dated=True), by_url.view(dated=False)
    dated, undated = dict(by_url), {}  # each URL's own list, sorted in place: no copy
    for url, found in by_url.items():
        if len(found) == 1 and found[0].date is not None:
            continue  # the usual URL: one capture, dated
        if any(one.date is None for one in found):
            undated[url] = [one for one in found if one.date is None]
            found = [one for one in found if one.date is not None]
            if not found:
                del dated[url]
                continue
            dated[url] = found
        found.sort(key=capture_date)  # stable: one date's captures in the files' order
    return dated, undated


class CaptureFile:
    """Captures by URL in an SQLite file, in the order added."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self._file, self._remove = spill_file(self, "captures.sqlite", directory)
        self._file.execute("CREATE TABLE captures (url TEXT, seq INTEGER, date REAL, "
                           "record_id TEXT, entry BLOB)")  # fmt: skip
        self._pending: list[tuple[object, ...]] = []
        self._added = 0
        self._at_hand: dict[str, list[Entry]] = {}

    def add(self, url: str, capture: Entry) -> None:
        self._pending.append((url, self._added, capture.date, capture.record_id,
                              pickle.dumps(capture, pickle.HIGHEST_PROTOCOL)))  # fmt: skip
        self._added += 1
        if len(self._pending) >= _BATCH:
            self._write()

    def done(self) -> None:
        """Every capture added: the file indexed by URL."""
        self._write()
        self._file.execute("CREATE INDEX by_url ON captures (url, seq)")

    def of(self, url: str) -> list[Entry]:
        """``url``'s captures, in the order added (none: ``[]``)."""
        found = self._at_hand.get(url)
        if found is None:
            rows = self._file.execute(
                "SELECT entry FROM captures WHERE url = ? ORDER BY seq", (url,)
            )  # fmt: skip
            found = [pickle.loads(row) for (row,) in rows]
            if len(self._at_hand) >= _AT_HAND:
                self._at_hand.clear()
            self._at_hand[url] = found
        return found

    def by_id(self, record_id: str) -> tuple[str, Entry] | None:
        """The capture of ``record_id`` and its URL (``None``: none): what a revisit
        names (the index made on first use)."""
        self._file.execute("CREATE INDEX IF NOT EXISTS by_id ON captures (record_id)")
        query = "SELECT url, entry FROM captures WHERE record_id = ? LIMIT 1"
        row = self._file.execute(query, (record_id,)).fetchone()
        return None if row is None else (row[0], pickle.loads(row[1]))

    def urls(self, dated: bool) -> Iterator[str]:
        """The URLs with a capture of a readable date (``dated``), or of none."""
        test = "IS NOT NULL" if dated else "IS NULL"
        query = f"SELECT DISTINCT url FROM captures WHERE date {test}"
        yield from (url for (url,) in self._file.execute(query))

    def two_dates(self) -> bool:
        """Whether some URL was captured at two dates."""
        return self._file.execute(
            "SELECT 1 FROM captures WHERE date IS NOT NULL GROUP BY url "
            "HAVING MIN(date) != MAX(date) LIMIT 1"
        ).fetchone() is not None  # fmt: skip

    def view(self, dated: bool) -> Captured:
        """Each URL's captures of a readable date, oldest first (``dated``), or those of
        an unreadable one, in the files' order: as :class:`Timeline` holds them."""
        return Captured(self, dated)

    def close(self) -> None:
        """The file closed and its folder removed."""
        self._remove()

    def _write(self) -> None:
        if self._pending:
            self._file.execute("BEGIN")
            self._file.executemany("INSERT INTO captures VALUES (?, ?, ?, ?, ?)", self._pending)
            self._file.execute("COMMIT")
            self._pending.clear()


class Captured(Mapping[str, list[Entry]]):
    """A :class:`CaptureFile`'s captures of each URL, those of a readable date oldest
    first (captures of one date in the files' order), or those of an unreadable one."""

    def __init__(self, file: CaptureFile, dated: bool) -> None:
        self.file = file
        self.dated = dated

    def __getitem__(self, url: str) -> list[Entry]:
        found = [one for one in self.file.of(url) if (one.date is not None) is self.dated]
        if not found:
            raise KeyError(url)
        return sorted(found, key=capture_date) if self.dated else found

    def __contains__(self, url: object) -> bool:
        return isinstance(url, str) and any(
            (one.date is not None) is self.dated for one in self.file.of(url)
        )  # fmt: skip

    def __iter__(self) -> Iterator[str]:
        return self.file.urls(self.dated)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def capture_date(capture: Entry) -> float:
    """A dated capture's date (the key its captures are sorted by)."""
    assert capture.date is not None  # only dated captures are sorted
    return capture.date
