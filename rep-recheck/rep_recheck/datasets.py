"""The items of a stored collection, read streaming, and the collection written back
(pure; Parquet with the optional ``pyarrow``): a dataset's items and chunks, the
protocol every format reads and writes them by (:class:`Dataset`, :class:`ChunkWriter`)
and what tells an item's URL apart from none (:func:`url_problem`); the formats, each
written back as it was read (:class:`LinesWriter` for the line-based ones,
:class:`ParquetWriter`); and a dataset opened in its format (:func:`open_dataset`).

A dataset is read in chunks (:class:`Chunk`): its items (the URL of each, or why it has
none) and the data they came from, so that the same chunk can be written back whole or
in part, each kept line or row exactly as it was:

- JSON Lines (a ``scrapy crawl -O items.jsonl`` output): each line's bytes, newline
  included; the URL is a field (``--column``, a dotted path for a nested one);
- CSV: the header line, then each record's bytes (a quoted field may span lines);
- Parquet (``pyarrow``): record batches, written back with the same schema; a pass that
  writes nothing back (the origins' pass, a run without ``--out`` or ``--removed``)
  reads only the URL column (and the date column, ``--date-column``);
- an audit trail (``REP_AUDIT_FILE``) or its export (``audit export``): the export's
  lines, header first; each asset's decision at crawl time is known (``then``).

Nothing is read whole into memory but a trail, which is read through ``audit export``
(one entry per asset kept). A dataset that can be read only once (standard input, a
FIFO) is copied to a temporary file first (:func:`open_dataset`), so that sniffing its
format and reading it twice lose no line. A line that is not JSON, a CSV record the
csv module cannot read (a bare CR in an unquoted field), a record without its URL, a
URL that is not http(s) (or holds a lone surrogate): an item with a
:attr:`Item.problem`, written to the removed items and counted, and the next is read; a
dataset whose first item lacks the URL column, or with no item at all, is
:class:`DatasetError`.
"""

from __future__ import annotations

import csv
import errno
import io
import ipaddress
import json
import re
import shutil
import stat
import sys
import tempfile
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import IO, Any, Final, Protocol
from urllib.parse import urlsplit

from rep_audit.export import export_lines
from rep_engine.records import ItemStatus
from rep_engine.trail.read import TrailError
from rep_engine.urls.origins import origin_of
from rep_recheck.names import ROOM

#: The formats a dataset can be read in (``--format``; by default from its name and
#: first line).
FORMATS: Final = ("jsonl", "csv", "parquet", "trail", "export")
#: Items per chunk of a JSON Lines, CSV or export dataset (a Parquet chunk is a batch).
CHUNK_ITEMS: Final = 4096
#: Rows per Parquet record batch read when only the URL column is read.
PARQUET_BATCH: Final = 65_536
#: Rows per Parquet record batch read whole (to be written back): a wide row (a page's
#: text) makes a batch large, so fewer at once.
PARQUET_ROWS_BATCH: Final = 4096
#: The longest CSV field read (the csv module's default, 128 KiB, is less than a page's
#: text); a record is held whole in memory either way.
FIELD_LIMIT: Final = 1 << 30


class DatasetError(Exception):
    """The dataset cannot be read at all: one line saying why."""


@dataclass(frozen=True, slots=True)
class Item:
    """One item of a dataset."""

    #: Where it is: its line (JSON Lines, an export), the first line of its record (CSV),
    #: its row (Parquet), 1-based.
    number: int
    #: Its URL (``""`` when none could be read: :attr:`problem`).
    url: str
    #: Why it has no URL to check (``""``: it has one).
    problem: str = ""
    #: What the crawl did with it (a trail or an export: ``kept`` or ``refused``
    #: for a purpose of the recheck; ``None``: not known).
    then: str | None = None
    #: The value of its date column (``--date-column``: the date the capture nearest
    #: before it says ``then``; ``None``: no such column, or none in this item).
    date: Any = None


def changed_since(then: str | None, status: str) -> bool | None:
    """Whether an item's status changed since ``then`` (``None``: nothing to compare
    with: no status then, or one that was not a decision, as ``unknown`` or "no capture
    before DATE")."""
    if then not in (ItemStatus.KEPT, ItemStatus.REFUSED):
        return None
    return then != status


@dataclass(frozen=True, slots=True)
class Chunk:
    """Consecutive items and the data they were read from (lines, or a record batch)."""

    items: list[Item]
    data: Any


#: The status of an item whose URL could not be read.
UNREADABLE: Final = "unreadable"
#: The fields (JSON), columns (CSV, Parquet) a removed item's reason is added in
#: (``--removed``): its status and why, as the datatrove step's removed documents say it.
REASON_FIELDS: Final = ("rep_status", "rep_why")
#: Each item's reason, its status and why (a line of JSON Lines or CSV that could not
#: be read, :data:`UNREADABLE`, is written as it was: it may be no object, no record).
Reasons = Sequence["tuple[str, str] | None"]


class ChunkWriter(Protocol):
    """Writes the kept (or removed) part of each chunk, in the dataset's own format;
    ``reasons``, for the removed: each item's, added to what is written."""

    def write(self, chunk: Chunk, keep: Sequence[bool], reasons: Reasons = ()) -> None: ...

    def close(self) -> None: ...


class Dataset(Protocol):
    """A collection to re-check."""

    #: One of :data:`FORMATS`.
    format: str
    #: The file read (a copy of a pipe's bytes: :func:`open_dataset`).
    path: Path
    #: The dataset as the user named it (``-`` for standard input), for messages.
    name: str

    def chunks(self, rows: bool = True) -> Iterator[Chunk]:
        """The items, chunk by chunk; ``rows``: with the data each was read from (to
        write back); without, a format that can (Parquet) reads only the URL column."""
        ...

    def writer(self, file: IO[bytes], reasons: bool = False) -> ChunkWriter:
        """A writer of its chosen rows into ``file``, open for writing (closed by the
        writer's ``close``); ``reasons``: each row with its reason (:data:`REASON_FIELDS`)."""
        ...


def url_problem(url: Any) -> str:
    """Why ``url`` cannot be re-checked (``""``: it can): not a string, not http(s), no
    host."""
    if not isinstance(url, str) or not url:
        return f"no URL ({json.dumps(url)[:80]})"
    if not url.isascii():
        try:
            url.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (JSON's "\ud800"): no URL has one
            return f"not a URL: it holds a lone surrogate: {url[:200]!r}"
    scheme = url.partition(":")[0].lower()
    if scheme not in ("http", "https") or origin_of(url) is None or not _ip_literal_read(url):
        return f"not an http(s) URL: {url[:200]!r}"
    return ""


def _ip_literal_read(url: str) -> bool:
    """Whether brackets in ``url``'s authority hold its whole host, an IPv6 address or an
    IPvFuture (RFC 3986 §3.2.2, ``IP-literal``; ``True`` without brackets), as written,
    followed by nothing or a port, and none is in its userinfo (§3.2.1). Python 3.11.4
    and newer refuse others (:func:`~urllib.parse.urlsplit`'s ``ValueError``: no origin,
    and no Scrapy request): 3.11.4 to 3.13.3 check the first brackets of the netloc and
    an IPvFuture's ``v`` in lower case, the newest the host's brackets and what follows
    them; 3.10 reads ``http://[zz]/`` as the host ``zz``. Asked here, such an item is
    unreadable on every Python."""
    if "[" not in url:
        return True
    userinfo, _, host = urlsplit(url).netloc.rpartition("@")
    if "[" not in host + userinfo:
        return True
    literal, _, after = host[1:].partition("]")
    if "[" in userinfo or "]" in userinfo or host[:1] != "[" or after[:1] not in ("", ":"):
        return False
    if literal.startswith("v"):
        return re.fullmatch(r"v[0-9a-fA-F]+\..+", literal) is not None
    try:
        return isinstance(ipaddress.ip_address(literal), ipaddress.IPv6Address)
    except ValueError:
        return False


def field_of(record: dict[str, Any], column: str) -> tuple[bool, Any]:
    """The value of ``column`` in a JSON object: a key, else a dotted path into nested
    objects (``metadata.url``); whether it is there."""
    if column in record:
        return True, record[column]
    value: Any = record
    for part in column.split("."):
        if not isinstance(value, dict) or part not in value:
            return False, None
        value = value[part]
    return True, value


class opened:
    """A dataset file opened for reading, or :class:`DatasetError` saying why not."""

    def __init__(self, path: Path) -> None:
        try:
            self.file: IO[bytes] = path.open("rb")
        except OSError as error:
            raise DatasetError(f"{path}: cannot read: {error.strerror or error}") from None

    def __enter__(self) -> IO[bytes]:
        return self.file

    def __exit__(self, *exc: object) -> None:
        self.file.close()


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


#: Why Parquet cannot be read without its extra.
NO_PYARROW: Final = "reading Parquet needs pyarrow (pip install pyarrow; the parquet extra)"


def _pyarrow() -> Any:
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise DatasetError(NO_PYARROW) from None
    return parquet


class Parquet:
    """A Parquet dataset (``pyarrow``), read and written batch by batch."""

    format = "parquet"

    def __init__(self, path: Path, column: str) -> None:
        self.path = path
        self.name = str(path)
        self.column = column
        self.schema: Any = None
        #: The column of each item's date (``""``: none read).
        self.date_column = ""

    def chunks(self, rows: bool = True) -> Iterator[Chunk]:
        parquet = _pyarrow()
        try:
            file = parquet.ParquetFile(str(self.path))
        except Exception as error:  # pyarrow's ArrowInvalid and kin: not Parquet
            raise DatasetError(f"{self.name}: not a Parquet file ({error})") from None
        self.schema = file.schema_arrow
        if self.column not in self.schema.names:
            raise DatasetError(
                f"{self.name}: no column {self.column!r} ({', '.join(self.schema.names[:10])}):"
                " name the column that holds each item's URL with --column"
            )
        row = 0
        # Only the URL column unless the rows are written back: a wide file's text
        # columns are never read then (memory does not grow with the rows).
        dated = self.date_column if self.date_column in self.schema.names else ""
        columns = None if rows else [self.column, *([dated] if dated else [])]
        size = PARQUET_ROWS_BATCH if rows else PARQUET_BATCH
        for batch in file.iter_batches(batch_size=size, columns=columns):
            items = []
            urls = batch.column(self.column).to_pylist()
            dates = batch.column(dated).to_pylist() if dated else [None] * len(urls)
            for url, date in zip(urls, dates, strict=True):
                row += 1
                items.append(
                    Item(row, url if isinstance(url, str) else "", url_problem(url), date=date)
                )
            yield Chunk(items, batch)

    def writer(self, file: IO[bytes], reasons: bool = False) -> ChunkWriter:
        return ParquetWriter(file, self, reasons)


class ParquetWriter:
    """Writes chosen rows of each batch, with the dataset's schema (known once its first
    chunk is read; with ``reasons``, and a string column of each of
    :data:`REASON_FIELDS`), into ``file``, open for writing: the file
    made new for it (:meth:`~rep_recheck.files.Staged.open`), never opened again by
    name."""

    def __init__(self, file: IO[bytes], source: Parquet, reasons: bool = False) -> None:
        self.file = file
        self._source = source
        self._reasons = reasons
        self._writer: Any = None

    def _open(self) -> Any:
        if self._writer is None:
            import pyarrow

            schema = self._source.schema
            for name in REASON_FIELDS if self._reasons else ():
                schema = schema.append(pyarrow.field(name, pyarrow.string()))
            # pyarrow writes into the file object given and leaves it open
            self._writer = _pyarrow().ParquetWriter(self.file, schema)
        return self._writer

    def write(self, chunk: Chunk, keep: Sequence[bool], reasons: Reasons = ()) -> None:
        import pyarrow

        rows = chunk.data.filter(pyarrow.array(keep, pyarrow.bool_()))
        if self._reasons:
            said = [reason or ("", "") for reason, kept in zip(reasons, keep, strict=True) if kept]
            for place, name in enumerate(REASON_FIELDS):
                column = pyarrow.array([reason[place] for reason in said], pyarrow.string())
                rows = rows.append_column(name, column)
        self._open().write_batch(rows)

    def close(self) -> None:
        try:
            if self._writer is not None or self._source.schema is not None:
                self._open().close()
        finally:
            self.file.close()


def format_of(path: Path, named: str = "") -> str:
    """The format of the dataset at ``path``, from its name (``named``, else the path's)
    and its first line."""
    name = (Path(named).name if named else path.name).lower()
    if name.endswith(".parquet"):
        return "parquet"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith(".gz"):
        return "trail"  # a compressed trail; no other format is read compressed
    with opened(path) as file:
        first = file.readline(1 << 20)
    if not first.strip():
        return "csv" if name.endswith(".csv") else "jsonl"
    try:
        head = json.loads(first)
    except ValueError:
        return "jsonl" if first.lstrip()[:1] in (b"{", b"[") else "csv"
    if isinstance(head, dict) and head.get("type") == "run" and "prev" in head:
        return "trail"
    if isinstance(head, dict) and "export" in head and "trail" in head:
        return "export"
    return "jsonl"


#: Each format's reader: (path, column, purposes) -> the dataset.
READERS: Final[dict[str, Callable[[Path, str, Sequence[str]], Dataset]]] = {
    "jsonl": lambda path, column, purposes: JsonLines(path, column),
    "csv": lambda path, column, purposes: Csv(path, column),
    "parquet": lambda path, column, purposes: Parquet(path, column),
    "trail": lambda path, column, purposes: Export(path, purposes, trail=True),
    "export": lambda path, column, purposes: Export(path, purposes),
}


#: The name of standard input as a dataset.
STDIN: Final = "-"


def is_pipe(path: str | Path) -> bool:
    """Whether the dataset at ``path`` can be read only once: standard input (``-``), a
    FIFO, a process substitution (``<(zcat items.jsonl.gz)``), a character device."""
    if str(path) == STDIN:
        return True
    try:
        mode = Path(path).stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _spooled(path: str | Path) -> Path:
    """The bytes of a dataset that can be read only once, copied whole to a temporary
    file (removed when the dataset is, or at exit): its format is sniffed from its first
    line and it is read twice (its origins, then its items) without losing a byte."""
    source: IO[bytes] = sys.stdin.buffer
    if str(path) != STDIN:
        try:
            source = Path(path).open("rb")  # noqa: SIM115 - closed below
        except OSError as error:
            raise DatasetError(f"{path}: cannot read: {error.strerror or error}") from None
    with tempfile.NamedTemporaryFile(prefix="scrapy_rep-recheck-", delete=False) as copy:
        try:
            shutil.copyfileobj(source, copy, 1 << 20)
            copy.flush()  # its last bytes written here: a full disk said as one
        except BaseException as error:  # a read or a write that failed, Ctrl-C: no copy left
            Path(copy.name).unlink(missing_ok=True)
            if not isinstance(error, OSError):
                raise
            if error.errno in (errno.ENOSPC, errno.EDQUOT):  # the copy's disk, not the input
                raise DatasetError(f"{copy.name}: {error.strerror} (the copy of {path}: "
                                   f"{ROOM})") from None  # fmt: skip
            raise DatasetError(f"{path}: cannot read: {error.strerror or error}") from None
        finally:
            if source is not sys.stdin.buffer:
                source.close()
    return Path(copy.name)


def open_dataset(
    path: str | Path, column: str = "url", purposes: Sequence[str] = (), fmt: str = ""
) -> Dataset:
    """The dataset at ``path`` in format ``fmt`` (``""``: :func:`format_of`). A dataset
    that can be read only once (:func:`is_pipe`: ``-`` for standard input, a FIFO) is
    read from a copy of its bytes (:func:`_spooled`)."""
    named = str(path)
    if is_pipe(path):
        spool = _spooled(path)
        try:
            dataset = READERS[fmt or format_of(spool, named)](spool, column, purposes)
        except BaseException:  # not a format it can read: its copy not left behind
            spool.unlink(missing_ok=True)
            raise
        dataset.name = "standard input" if named == STDIN else named
        weakref.finalize(dataset, spool.unlink, missing_ok=True)
        return dataset
    path = Path(path)
    if path.is_dir():
        raise DatasetError(f"{path} is a directory")
    if not path.exists():
        raise DatasetError(f"{path}: no such file")
    return READERS[fmt or format_of(path)](path, column, purposes)
