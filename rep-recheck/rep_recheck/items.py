"""A dataset's items and chunks, the protocol every format reads and writes them by, and
what tells an item's URL apart from none (pure; the formats:
:mod:`~rep_recheck.formats`, :mod:`~rep_recheck.parquet`; opening one:
:mod:`~rep_recheck.datasets`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final, Protocol

from rep_engine.records import ItemStatus
from rep_engine.urls.origins import origin_of

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
    if scheme not in ("http", "https") or origin_of(url) is None:
        return f"not an http(s) URL: {url[:200]!r}"
    return ""


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
