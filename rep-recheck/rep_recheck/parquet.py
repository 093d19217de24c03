"""A Parquet dataset (pure; with the optional ``pyarrow``): read batch by batch (only
its URL column, and its date column, when nothing is written back), written back with
the same schema.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Final

from rep_recheck.items import (
    PARQUET_BATCH,
    PARQUET_ROWS_BATCH,
    REASON_FIELDS,
    Chunk,
    ChunkWriter,
    DatasetError,
    Item,
    Reasons,
    url_problem,
)

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
    :data:`~rep_recheck.items.REASON_FIELDS`), into ``file``, open for writing: the file
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
