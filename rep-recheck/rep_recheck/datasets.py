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
- Parquet (``pyarrow``): record batches, written back with the same schema; the URL a
  column, or a dotted path into a struct column (datatrove's ``ParquetWriter`` writes a
  document's metadata as one: ``metadata.url``); a pass that writes nothing back (the
  origins' pass, a run without ``--out`` or ``--removed``) reads only the URL column, or
  that field of the struct (and the date column, ``--date-column``);
- an audit trail (``REP_AUDIT_FILE``) or its export (``audit export``): the export's
  lines, header first; each asset's decision at crawl time is known (``then``).

A line-based file compressed whole, as its name says (``.gz``, ``.zst``:
:data:`COMPRESSIONS`; datatrove's ``JsonlWriter`` writes ``00000.jsonl.gz``), is read
decompressed (:class:`Decompressed`: data cut short or corrupt is :class:`DatasetError`
where it is met), and its lines written compressed as the output's name says
(:class:`Compressing`; a shard's own name in a folder of outputs).

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
import gzip
import io
import ipaddress
import json
import re
import shutil
import stat
import sys
import tempfile
import unicodedata
import weakref
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import IO, Any, Final, Protocol
from urllib.parse import unquote, urlsplit

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

    def writer(self, file: IO[bytes], reasons: bool = False, compression: str = "") -> ChunkWriter:
        """A writer of its chosen rows into ``file``, open for writing (closed by the
        writer's ``close``); ``reasons``: each row with its reason (:data:`REASON_FIELDS`);
        ``compression``: a line-based format's lines written so compressed
        (:data:`COMPRESSIONS`: the output's name says it, as a shard's own name does)."""
        ...


def url_problem(url: Any) -> str:
    """Why ``url`` cannot be re-checked (``""``: it can): not a string, not http(s), no
    host, a host in bad brackets or holding a space, a control character or a backslash."""
    if not isinstance(url, str) or not url:
        return f"no URL ({json.dumps(url)[:80]})"
    if not url.isascii():
        try:
            url.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (JSON's "\ud800"): no URL has one
            return f"not a URL: it holds a lone surrogate: {url[:200]!r}"
    scheme = url.partition(":")[0].lower()
    origin = origin_of(url) if scheme in ("http", "https") else None
    if origin is None or not _ip_literal_read(url):
        return f"not an http(s) URL: {url[:200]!r}"
    host = unquote(origin.host) if "%" in origin.host else origin.host  # %20 is a space
    if _SPACE_OR_CONTROL(host) or (not url.isascii() and _written_host_spaced(url)):
        return f"not an http(s) URL: its host holds a space or a control character: {url[:200]!r}"
    if "\\" in host:  # WHATWG URL: a special scheme's "\\" is a "/" (a validation error)
        return (f"not an http(s) URL: its host holds a backslash, which a browser reads as the "
                f"path's first '/' (which page it names is not known): {url[:200]!r}")  # fmt: skip
    return ""


#: A space or a control character (C0, DEL) in a host as IDNA reads it, percent-decoded:
#: no host holds one (RFC 3986 §3.2.2's ``reg-name``, whose ``pct-encoded`` stand for
#: characters; the WHATWG URL standard's forbidden host code points),
#: and no Python's :func:`~urllib.parse.urlsplit` refuses it (a URL no request is made
#: for, and no capture is of: asked here, unreadable on every Python).
_SPACE_OR_CONTROL: Final = re.compile(r"[\x00-\x20\x7f]").search


def _written_host_spaced(url: str) -> bool:
    """Whether the host of a non-ASCII ``url``, as written, holds white space or a
    control character (IDNA may spell it without: a label it cannot encode is
    punycoded whole)."""
    try:
        host = urlsplit(url.strip()).hostname or ""
    except ValueError:
        return False
    return any(c.isspace() or unicodedata.category(c) == "Cc" for c in host)


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
    """A dataset file opened for reading (``compression``: its lines decompressed,
    :class:`Decompressed`; ``name``: the file as the user named it, for messages), or
    :class:`DatasetError` saying why not."""

    def __init__(self, path: Path, compression: str = "", name: str = "") -> None:
        try:
            raw: IO[bytes] = path.open("rb")
        except OSError as error:
            raise DatasetError(f"{path}: cannot read: {error.strerror or error}") from None
        if not compression:
            self.file: IO[bytes] | Decompressed = raw
            return
        try:
            self.file = Decompressed(raw, compression, name or str(path))
        except BaseException:
            raw.close()
            raise

    def __enter__(self) -> IO[bytes] | Decompressed:
        return self.file

    def __exit__(self, *exc: object) -> None:
        self.file.close()


# --------------------------------------------------------------------------- compression


#: The compressions a line-based dataset (JSON Lines, CSV, an export) is read and written
#: in as a whole file, by its name's last suffix: gzip, as datatrove's ``JsonlWriter``
#: writes its shards by default (``00000.jsonl.gz``), and zstd, as it writes them with
#: ``compression="zstd"`` (``.jsonl.zst``). Told by the name, as datatrove's readers
#: (fsspec's ``compression="infer"``) tell it, never guessed from the bytes.
COMPRESSIONS: Final = {".gz": "gzip", ".zst": "zstd"}
#: How the data of each compression starts (RFC 1952 §2.3.1; RFC 8878 §3.1.1, and the
#: first byte of a skippable frame, §3.1.2, whose next three are ``*M\x18``).
_MAGIC: Final = {"gzip": (b"\x1f\x8b",), "zstd": (b"\x28\xb5\x2f\xfd",)}
#: Why zstd cannot be read or written without its module.
NO_ZSTD: Final = ("reading and writing zstd (.zst) needs backports.zstd, as Scrapy and "
                  "datatrove use it (pip install backports.zstd; Python 3.14 has it: "
                  "compression.zstd)")  # fmt: skip


def compression_of(name: str | Path) -> str:
    """The compression a file named ``name`` is in (:data:`COMPRESSIONS`; ``""``: none)."""
    return COMPRESSIONS.get(Path(name).suffix.lower(), "")


def zstd_module(named: str = "") -> Any:
    """The zstd module Scrapy and fsspec use (``compression.zstd`` on Python 3.14, else
    ``backports.zstd``), or :class:`DatasetError` (:data:`NO_ZSTD`, after ``named``,
    the file that needs it)."""
    for module in ("compression.zstd", "backports.zstd"):
        try:
            return __import__(module, fromlist=["ZstdFile"])
        except ImportError:
            continue
    raise DatasetError(f"{named}: {NO_ZSTD}" if named else NO_ZSTD)


def _broken_data() -> tuple[type[BaseException], ...]:
    """What a decompressor raises for data cut short or corrupt (a disk's ``OSError``
    is not among them: said as any read error is)."""
    errors: tuple[type[BaseException], ...] = (EOFError, zlib.error, gzip.BadGzipFile)
    try:
        return (*errors, zstd_module().ZstdError)
    except DatasetError:
        return errors


class Decompressed:
    """The lines of a file compressed whole (``compression``, :data:`COMPRESSIONS`), read
    as an uncompressed one's. A file that is not such data (its first bytes: an empty
    file, plain text named ``.gz``) is :class:`DatasetError` as it is opened; data cut
    short or corrupt (a copy cut, a disk's bit flipped: gzip's CRC-32, zstd's checksum)
    is :class:`DatasetError` when reached, naming the line it follows: never a line made
    up of a part of the data."""

    def __init__(self, raw: IO[bytes], compression: str, name: str) -> None:
        start = raw.read(4)
        raw.seek(0)  # a regular file (a pipe's bytes are read from a copy: _spooled)
        if not start:
            raise DatasetError(f"{name}: an empty file, not {compression} data (which "
                               "starts with a header): a copy or a write that never "
                               "finished?")  # fmt: skip
        skippable = compression == "zstd" and start[1:4] == b"*M\x18" and start[0] >> 4 == 5
        if not start.startswith(_MAGIC[compression]) and not skippable:
            plain = start.isascii() and start.decode("ascii").isprintable()
            said = "plain text" if plain else f"its first bytes {start!r}"
            raise DatasetError(f"{name}: not {compression} data as its name says ({said}): "
                               "name it without its compression suffix, or compress "
                               "it")  # fmt: skip
        self._stream: Any = (
            gzip.GzipFile(fileobj=raw, mode="rb") if compression == "gzip"
            else zstd_module().ZstdFile(raw, "rb")
        )  # fmt: skip
        self._raw = raw
        self._said = f"{name}: its {compression} data"
        self._errors = _broken_data()
        #: The lines read so far.
        self.lines = 0

    def readline(self, size: int = -1) -> bytes:
        try:
            line: bytes = self._stream.readline(size)
        except self._errors as error:
            raise self._broken(error) from None
        self.lines += bool(line)
        return line

    def __iter__(self) -> Iterator[bytes]:
        try:
            for line in self._stream:
                self.lines += 1
                yield line
        except self._errors as error:
            raise self._broken(error) from None

    def _broken(self, error: BaseException) -> DatasetError:
        where = f"after line {self.lines:,}" if self.lines else "before its first line"
        why = " ".join(str(error).split()) or type(error).__name__
        return DatasetError(f"{self._said} is cut short or corrupt {where} ({why})")

    def close(self) -> None:
        try:
            self._stream.close()
        finally:
            self._raw.close()


#: The bytes of lines gathered before they are compressed (one call per line to the
#: compressor cost as much again as gzip's compression itself).
COMPRESSED_BUFFER: Final = 1 << 16


class Compressing:
    """``file`` written ``compression``-compressed, closed with it: gzip with neither a
    name nor a time in its header (two runs write the same bytes; RFC 1952 §2.3.1: ``MTIME``
    0, no time), at gzip's own default level; zstd at its default."""

    def __init__(self, file: IO[bytes], compression: str) -> None:
        self._file = file
        compressor = (
            gzip.GzipFile(filename="", mode="wb", compresslevel=6, fileobj=file, mtime=0)
            if compression == "gzip" else zstd_module().ZstdFile(file, "w")
        )  # fmt: skip
        # closed with the buffer: the compressed stream's end written, the file left open
        self._stream: Any = io.BufferedWriter(compressor, COMPRESSED_BUFFER)

    def write(self, data: bytes) -> int:
        written: int = self._stream.write(data)
        return written

    def close(self) -> None:
        try:
            self._stream.close()
        finally:
            self._file.close()


class Sink(Protocol):
    """Where a :class:`ChunkWriter` writes: a file, or one written compressed
    (:class:`Compressing`)."""

    def write(self, data: bytes, /) -> object: ...

    def close(self) -> None: ...


def sink(file: IO[bytes], compression: str) -> Sink:
    """``file``, written ``compression``-compressed (``""``: as it is)."""
    return Compressing(file, compression) if compression else file


# --------------------------------------------------------------------------- JSON Lines


class LinesWriter:
    """Writes chosen lines (bytes, newline included) as they were, after the dataset's
    header line (``source.header``, known once its first chunk is read); with ``mark``,
    each line that has a reason with it added (``mark(line, reason)``; the header with
    the reason's names: ``mark(header, REASON_FIELDS)``)."""

    def __init__(
        self,
        file: Sink,
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
        #: The compression the file is in, as its name says (``""``: none).
        self.compression = compression_of(path)
        #: The field of each item's date (``""``: none read).
        self.date_column = ""

    def chunks(self, rows: bool = True) -> Iterator[Chunk]:
        items: list[Item] = []
        lines: list[bytes] = []
        first = True
        with opened(self.path, self.compression, self.name) as file:
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

    def writer(self, file: IO[bytes], reasons: bool = False, compression: str = "") -> ChunkWriter:
        return LinesWriter(sink(file, compression), None, json_marked if reasons else None)


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
        #: The compression the file is in, as its name says (``""``: none).
        self.compression = compression_of(path)
        self.header = b""
        #: The column of each item's date (``""``: none read).
        self.date_column = ""

    def _records(
        self, file: IO[bytes] | Decompressed
    ) -> Iterator[tuple[int, list[str] | None, bytes, str]]:
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
        with opened(self.path, self.compression, self.name) as file:
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

    def writer(self, file: IO[bytes], reasons: bool = False, compression: str = "") -> ChunkWriter:
        return LinesWriter(sink(file, compression), self, csv_marked if reasons else None)


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
        #: The compression an export is in, as its name says (a trail's is read by
        #: ``audit export``).
        self.compression = compression_of(path)

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
        with opened(self.path, self.compression, self.name) as file:
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

    def writer(self, file: IO[bytes], reasons: bool = False, compression: str = "") -> ChunkWriter:
        return LinesWriter(sink(file, compression), self, json_marked if reasons else None)


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
        path = _column_path(self.schema, self.column)
        if path is None:
            raise DatasetError(
                f"{self.name}: no column {self.column!r} ({', '.join(_leaves(self.schema))}):"
                " name the column that holds each item's URL with --column (a dotted path "
                "into a struct column: metadata.url)"
            )
        row = 0
        # Only the URL column unless the rows are written back: a wide file's text
        # columns are never read then (memory does not grow with the rows).
        dated = _column_path(self.schema, self.date_column) if self.date_column else None
        read = [path, *([dated] if dated else [])]
        columns = None if rows else [".".join(part) for part in read]  # a struct's leaf alone
        size = PARQUET_ROWS_BATCH if rows else PARQUET_BATCH
        batches = file.iter_batches(batch_size=size, columns=columns)
        while True:
            try:
                batch = next(batches, None)
            except Exception as error:  # a page cut or corrupt: OSError, ArrowInvalid…
                raise DatasetError(f"{self.name}: cannot read the rows after row {row:,} "
                                   f"({' '.join(str(error).split())})") from None  # fmt: skip
            if batch is None:
                return
            items = []
            urls = _column_values(batch, path)
            dates = _column_values(batch, dated) if dated else [None] * len(urls)
            for url, date in zip(urls, dates, strict=True):
                row += 1
                items.append(
                    Item(row, url if isinstance(url, str) else "", url_problem(url), date=date)
                )
            yield Chunk(items, batch)

    def writer(self, file: IO[bytes], reasons: bool = False, compression: str = "") -> ChunkWriter:
        return ParquetWriter(file, self, reasons)  # Parquet compresses its own pages


def _column_path(schema: Any, column: str) -> tuple[str, ...] | None:
    """Where ``column`` is in a Parquet ``schema``: the column of that name, else a dotted
    path into struct columns (``metadata.url``: datatrove's ``ParquetWriter`` writes a
    document's metadata as one struct column, its keys the fields); ``None``: neither."""
    from pyarrow.types import is_struct

    if column in schema.names:
        return (column,)
    first, *parts = column.split(".")
    if not parts or schema.get_field_index(first) < 0:
        return None
    kind = schema.field(first).type
    for part in parts:
        place = kind.get_field_index(part) if is_struct(kind) else -1
        if place < 0:
            return None
        kind = kind.field(place).type
    return (first, *parts)


def _leaves(schema: Any, most: int = 10) -> list[str]:
    """The first ``most`` columns of ``schema`` as ``--column`` names them, a struct's
    fields by their dotted path (``metadata.url``)."""
    from pyarrow.types import is_struct

    names: list[str] = []
    pending = [(field.name, field.type) for field in schema]
    while pending and len(names) < most:
        name, kind = pending.pop(0)
        if is_struct(kind):
            pending[:0] = [(f"{name}.{kind.field(n).name}", kind.field(n).type)
                           for n in range(kind.num_fields)]  # fmt: skip
        else:
            names.append(name)
    return names + (["…"] if pending else [])


def _column_values(batch: Any, path: tuple[str, ...]) -> list[Any]:
    """The values of the column at ``path`` (:func:`_column_path`) in a record batch: a
    struct's field is null where the struct is."""
    import pyarrow.compute

    values = batch.column(path[0])
    for part in path[1:]:
        values = pyarrow.compute.struct_field(values, [values.type.get_field_index(part)])
    found: list[Any] = values.to_pylist()
    return found


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
    and its first line, decompressed when the name says so (:data:`COMPRESSIONS`: a
    ``.jsonl.gz`` is datatrove's JSON Lines shard, or a trail ``REP_AUDIT_FILE`` wrote
    compressed). Raises :class:`DatasetError` for a WARC (the documents, not the
    collection), a Parquet file compressed whole, and data whose compression its name
    does not say."""
    name = (Path(named).name if named else path.name).lower()
    if name.endswith((".warc", ".warc.gz")):
        raise DatasetError(f"{named or path}: a WARC file, not a collection: give it with "
                           "--documents (--documents takes a folder of WARCs, or is "
                           "repeated: a shell's * after it names only the first)")  # fmt: skip
    compression = compression_of(name)
    inner = name.removesuffix(Path(name).suffix) if compression else name
    if inner.endswith(".parquet"):
        if compression:
            raise DatasetError(f"{named or path}: a Parquet file compressed whole, which "
                               "no Parquet reader reads (Parquet compresses its own "
                               "pages): decompress it")  # fmt: skip
        return "parquet"
    if compression == "zstd":
        zstd_module(named or str(path))  # its module, or one line naming what to install
    with opened(path, compression, named or str(path)) as file:
        first = file.readline(1 << 20)
    if not compression and (said := _compressed_data(first)):
        shown = "standard input" if named == STDIN else named or path
        raise DatasetError(f"{shown}: {said} data, which its name does not say: name the "
                           "file so (.gz, .zst), or give it decompressed (zcat)")  # fmt: skip
    if inner.endswith(".csv"):
        return "csv"
    if not first.strip():
        return "jsonl"
    try:
        head = json.loads(first)
    except ValueError:
        return "jsonl" if first.lstrip()[:1] in (b"{", b"[") else "csv"
    if isinstance(head, dict) and head.get("type") == "run" and "prev" in head:
        return "trail"
    if isinstance(head, dict) and "export" in head and "trail" in head:
        return "export"
    return "jsonl"


def _compressed_data(start: bytes) -> str:
    """The compression ``start``, a file's first bytes, is in (``""``: none known)."""
    return next((compression for compression, magics in _MAGIC.items()
                 if start.startswith(magics)), "")  # fmt: skip


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
    # its compression's suffix kept: the copy is read decompressed, as its name says
    suffix = Path(str(path)).suffix if compression_of(str(path)) else ""
    with tempfile.NamedTemporaryFile(prefix="scrapy_rep-recheck-", suffix=suffix,
                                     delete=False) as copy:  # fmt: skip
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
