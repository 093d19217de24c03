"""The line-based formats of a dataset (pure): JSON Lines, CSV, and an audit trail or its
export; each read in chunks of :data:`~rep_recheck.items.CHUNK_ITEMS` items and
written back line by line, each kept line or record as it was (:class:`LinesWriter`).
"""

from __future__ import annotations

import csv
import io
import json
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import IO, Any, Final

from rep_audit.export import export_lines
from rep_engine.records import ItemStatus
from rep_engine.trail.read import TrailError
from rep_recheck.items import (
    CHUNK_ITEMS,
    FIELD_LIMIT,
    REASON_FIELDS,
    UNREADABLE,
    Chunk,
    ChunkWriter,
    DatasetError,
    Item,
    Reasons,
    field_of,
    opened,
    url_problem,
)

# --------------------------------------------------------------------------- JSON Lines


class LinesWriter:
    """Writes chosen lines (bytes, newline included) as they were, after the dataset's
    header line (``source.header``, known once its first chunk is read); with ``mark``,
    each line that has a reason with it added (``mark(line, reason)``; the header with
    the reason's names: ``mark(header, REASON_FIELDS)``)."""

    def __init__(
        self,
        file: IO[bytes],
        source: Any = None,
        mark: Callable[[bytes, tuple[str, str]], bytes] | None = None,
    ) -> None:
        self._file = file
        self._source = source
        self._mark = mark

    def _header(self) -> None:
        source, self._source = self._source, None
        header = getattr(source, "header", b"")
        if header and self._mark is not None and source.format == "csv":
            header = self._mark(header, REASON_FIELDS)
        if header:
            self._file.write(header)

    def write(self, chunk: Chunk, keep: Sequence[bool], reasons: Reasons = ()) -> None:
        if self._source is not None:
            self._header()
        write, mark = self._file.write, self._mark
        for line, kept, reason in zip(chunk.data, keep, reasons or [None] * len(keep),
                                      strict=True):  # fmt: skip
            if not kept:
                continue
            if reason is None or mark is None or reason[0] == UNREADABLE:
                write(line)  # as it was
            else:
                write(mark(line, reason))

    def close(self) -> None:
        if self._source is not None:
            self._header()
        self._file.close()


class JsonLines:
    """A JSON Lines dataset, one object per line (blank lines are no items)."""

    format = "jsonl"

    def __init__(self, path: Path, column: str) -> None:
        self.path = path
        self.name = str(path)
        self.column = column
        #: The field of each item's date (``""``: none read).
        self.date_column = ""

    def chunks(self, rows: bool = True) -> Iterator[Chunk]:
        items: list[Item] = []
        lines: list[bytes] = []
        first = True
        with opened(self.path) as file:
            for number, raw in enumerate(file, 1):
                if not raw.strip():
                    continue
                if not raw.endswith(b"\n"):
                    raw += b"\n"  # the last line, without its newline: written with one
                try:
                    record = json.loads(raw)
                except ValueError as error:
                    item = Item(number, "", f"not JSON ({error})")
                else:
                    item = self._item(number, record, first)
                first = False
                items.append(item)
                lines.append(raw)
                if len(items) >= CHUNK_ITEMS:
                    yield Chunk(items, lines)
                    items, lines = [], []
        if items:
            yield Chunk(items, lines)

    def _item(self, number: int, record: Any, first: bool) -> Item:
        if not isinstance(record, dict):
            return Item(number, "", "not a JSON object")
        found, url = field_of(record, self.column)
        if not found:
            if first:
                raise DatasetError(
                    f"{self.name}: line {number} has no {self.column!r} field: name the "
                    "field that holds each item's URL with --column"
                )
            return Item(number, "", f"no {self.column!r} field")
        date = field_of(record, self.date_column)[1] if self.date_column else None
        return Item(number, url if isinstance(url, str) else "", url_problem(url), date=date)

    def writer(self, file: IO[bytes], reasons: bool = False) -> ChunkWriter:
        return LinesWriter(file, None, json_marked if reasons else None)


def json_marked(line: bytes, reason: tuple[str, str]) -> bytes:
    """A JSON object's line with the fields of ``reason`` added last (:data:`REASON_FIELDS`),
    the rest of its bytes as they were."""
    head = line.rstrip()[:-1].rstrip()
    return head + (b"" if head.endswith(b"{") else b",") + _json_fields(reason)


@lru_cache(maxsize=4096)  # the items one line refuses share their reason
def _json_fields(reason: tuple[str, str]) -> bytes:
    added = json.dumps(dict(zip(REASON_FIELDS, reason, strict=True)), ensure_ascii=False)
    return added[1:].encode() + b"\n"


def csv_marked(record: bytes, reason: tuple[str, str]) -> bytes:
    """A CSV record (or the header) with the fields of ``reason`` added last, before its
    line ending (the record's own: ``\r\n`` or ``\n``)."""
    body = record.rstrip(b"\r\n")
    return body + _csv_fields(reason) + record[len(body) :]


@lru_cache(maxsize=4096)
def _csv_fields(reason: tuple[str, str]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(reason)
    return b"," + out.getvalue().encode()


# --------------------------------------------------------------------------- CSV


#: Why a record whose quote is never closed cannot be read.
UNCLOSED_QUOTE: Final = (
    "not a CSV record (a quote opened in it is never closed: the lines after this one "
    "are read as records of their own)"
)


class Csv:
    """A CSV dataset with a header line (UTF-8), the URL in the column named by it."""

    format = "csv"

    def __init__(self, path: Path, column: str) -> None:
        self.path = path
        self.name = str(path)
        self.column = column
        self.header = b""
        #: The column of each item's date (``""``: none read).
        self.date_column = ""

    def _records(self, file: IO[bytes]) -> Iterator[tuple[int, list[str] | None, bytes, str]]:
        """Each record: the number of its first line, its fields, its bytes, and why it
        cannot be read (its fields ``None``: a bare CR in an unquoted field); the next
        record is read after it, as the reader starts afresh on the next line. A quote
        never closed (RFC 4180 §2's grammar: an escaped field ends with a DQUOTE; the csv
        module reads it to the end of the file, every line after it in one field) makes
        its first line an unreadable record, and the lines after it are read again as
        records."""
        pending: list[bytes] = []
        count = [0]
        source = iter(file)
        again: deque[bytes] = deque()  # the lines a quote never closed took, read again
        ended = [False]  # whether the file ended inside the record just read

        def lines() -> Iterator[str]:
            while raw := again.popleft() if again else next(source, b""):
                pending.append(raw)
                count[0] += 1
                yield raw.decode("utf-8", "replace")
            ended[0] = True

        reader = csv.reader(lines())
        while True:
            row: list[str] | None
            try:
                row, problem = next(reader), ""
            except StopIteration:
                return
            except csv.Error as error:
                row, problem = None, f"not a CSV record ({error})"
            number = count[0] - len(pending) + 1
            if ended[0]:  # the file ended inside a quoted field: it was never closed
                again.extend(pending[1:])
                del pending[1:]
                count[0], ended[0] = number, False
                row, problem = None, UNCLOSED_QUOTE
                reader = csv.reader(lines())
            raw = b"".join(pending)
            pending.clear()
            yield number, row, raw, problem

    def chunks(self, rows: bool = True) -> Iterator[Chunk]:
        # A field may be as long as a record (the default limit, 128 KiB, would stop the
        # run on one long text); the limit is the csv module's, set back after.
        limit = csv.field_size_limit(FIELD_LIMIT)
        try:
            yield from self._chunks()
        finally:
            csv.field_size_limit(limit)

    def _chunks(self) -> Iterator[Chunk]:
        with opened(self.path) as file:
            records = self._records(file)
            try:
                _, header, raw, problem = next(records)
            except StopIteration:
                raise DatasetError(f"{self.name}: an empty CSV file (no header line)") from None
            if header is None:
                raise DatasetError(f"{self.name}: not CSV: its header line: {problem}")
            names = [name.lstrip("\ufeff").strip() for name in header]
            if self.column not in names:
                raise DatasetError(
                    f"{self.name}: no column {self.column!r} in its header "
                    f"({', '.join(map(repr, names[:10]))}): name the column that holds "
                    "each item's URL with --column"
                )
            self.header = raw
            place = names.index(self.column)
            dated = names.index(self.date_column) if self.date_column in names else -1
            items: list[Item] = []
            lines: list[bytes] = []
            for number, row, raw, problem in records:
                if row is not None and not row:
                    continue  # a blank line
                if not raw.endswith(b"\n"):
                    raw += b"\n"
                if row is None:
                    items.append(Item(number, "", problem))
                else:
                    url = row[place] if place < len(row) else ""
                    problem = (
                        url_problem(url) if place < len(row) else "a record without that column"
                    )
                    date = row[dated] if 0 <= dated < len(row) else None
                    items.append(Item(number, url, problem, date=date))
                lines.append(raw)
                if len(items) >= CHUNK_ITEMS:
                    yield Chunk(items, lines)
                    items, lines = [], []
            if items:
                yield Chunk(items, lines)

    def writer(self, file: IO[bytes], reasons: bool = False) -> ChunkWriter:
        return LinesWriter(file, self, csv_marked if reasons else None)


# --------------------------------------------------------------------------- trails


class Export:
    """An ``audit export`` (or a trail, read through it): one asset per line after the
    header (written first to an export's outputs, never to a trail's: they are the
    assets' lines, JSON Lines); an asset was kept by the crawl, and refused then for a
    purpose of the recheck only when its preferences say ``disallowed`` for it
    (``mark``)."""

    def __init__(self, path: Path, purposes: Sequence[str], trail: bool = False) -> None:
        self.path = path
        self.name = str(path)
        self.purposes = tuple(purposes)
        self.format = "trail" if trail else "export"
        self.header = b""

    def _lines(self) -> Iterable[bytes]:
        if self.format == "trail":
            try:
                # its crawl's pages and files: the items a recheck appended to it are
                # another collection's (re-checked again, each would be there twice)
                for line in export_lines(self.path, rechecked_items=False):
                    yield (line + "\n").encode()
            except TrailError as error:
                raise DatasetError(str(error)) from None
            return
        with opened(self.path) as file:
            yield from file

    def chunks(self, rows: bool = True) -> Iterator[Chunk]:
        lines = iter(self._lines())
        header = next(lines, b"")
        try:
            head = json.loads(header) if header.strip() else None
        except ValueError:
            head = None
        if not isinstance(head, dict) or "export" not in head:
            raise DatasetError(f"{self.name}: not an audit export (no header line)")
        # an export's outputs are exports, its header first; a trail's are its assets'
        # lines alone: the header of the whole trail's export would say of a part that it
        # is the export of the trail at that head (`audit verify --export` fails it)
        self.header = header if self.format == "export" else b""
        items: list[Item] = []
        data: list[bytes] = []
        for number, raw in enumerate(lines, 2):
            try:
                asset = json.loads(raw)
            except ValueError as error:
                item = Item(number, "", f"not JSON ({error})")
            else:
                item = self._item(number, asset)
            items.append(item)
            data.append(raw if raw.endswith(b"\n") else raw + b"\n")
            if len(items) >= CHUNK_ITEMS:
                yield Chunk(items, data)
                items, data = [], []
        if items:
            yield Chunk(items, data)

    def _item(self, number: int, asset: Any) -> Item:
        if not isinstance(asset, dict):
            return Item(number, "", "not a JSON object")
        url = asset.get("url")
        preferences = asset.get("preferences")
        said = preferences if isinstance(preferences, dict) else {}
        refused = any(said.get(purpose) == "disallowed" for purpose in self.purposes)
        then = ItemStatus.REFUSED if refused else ItemStatus.KEPT
        return Item(number, url if isinstance(url, str) else "", url_problem(url), then)

    def writer(self, file: IO[bytes], reasons: bool = False) -> ChunkWriter:
        return LinesWriter(file, self, json_marked if reasons else None)
