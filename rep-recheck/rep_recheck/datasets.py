"""The items of a stored collection, read streaming, and the collection written back
(pure; Parquet with the optional ``pyarrow``): a dataset opened in its format (here;
the items and chunks: :mod:`~rep_recheck.items`; the formats:
:mod:`~rep_recheck.formats`, :mod:`~rep_recheck.parquet`, whose names are
importable from here too).

A dataset is read in chunks (:class:`Chunk`): its items (the URL of each, or why it has
none) and the data they came from, so that the same chunk can be written back whole or
in part, each kept line or row exactly as it was:

- JSON Lines (a ``scrapy crawl -O items.jsonl`` output): each line's bytes, newline
  included; the URL is a field (``--column``, a dotted path for a nested one);
- CSV: the header line, then each record's bytes (a quoted field may span lines);
- Parquet (``pyarrow``): record batches, written back with the same schema; a pass that
  writes nothing back (the origins' pass, a run without ``--out`` or ``--removed``)
  reads only the URL column;
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

import errno
import json
import shutil
import stat
import sys
import tempfile
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Final

from rep_recheck.formats import Csv, Export, JsonLines, LinesWriter
from rep_recheck.items import (
    CHUNK_ITEMS,
    FIELD_LIMIT,
    FORMATS,
    PARQUET_BATCH,
    PARQUET_ROWS_BATCH,
    Chunk,
    ChunkWriter,
    Dataset,
    DatasetError,
    Item,
    changed_since,
    opened,
    url_problem,
)
from rep_recheck.names import ROOM
from rep_recheck.parquet import NO_PYARROW, Parquet, ParquetWriter

__all__ = [
    "CHUNK_ITEMS",
    "FIELD_LIMIT",
    "FORMATS",
    "NO_PYARROW",
    "PARQUET_BATCH",
    "PARQUET_ROWS_BATCH",
    "READERS",
    "STDIN",
    "Chunk",
    "ChunkWriter",
    "Csv",
    "Dataset",
    "DatasetError",
    "Export",
    "Item",
    "JsonLines",
    "LinesWriter",
    "Parquet",
    "ParquetWriter",
    "changed_since",
    "format_of",
    "is_pipe",
    "open_dataset",
    "url_problem",
]


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
