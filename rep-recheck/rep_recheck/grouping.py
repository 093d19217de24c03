"""A recheck's items grouped by origin on disk, when they visit its origins in no
particular order (pure; docs/recheck.md, "Scale").

Beyond ``REP_RECHECK_PARSED_ORIGINS`` origins, an item whose origin was let go since its
last item makes its origin's documents again (a parse): a dataset whose items visit a
million origins in turn, as a crawl's output mixes its sites, would cost a parse per
item. A recheck decides its items in the dataset's order as long as they do not make
their origins again more than :func:`again_allowed` times (a dataset whose origins fit,
or one sorted or grouped by origin, is decided so from start to end: its first pass
tells it before any item is decided, a WARC's recheck as it decides); past it, the rest
of the dataset is read into :class:`Grouped`, as the datasets' tools shuffle by key (a
hash partition):

1. each item, by its origin's hash, into one of :func:`groups_for` groups of a file
   (its shard, line, URL, ``then``, date and origin: :meth:`Grouped.add`), and its
   chunk (its items, the lines or rows to write back, and each item's group) into
   another, in the dataset's order;
2. each group decided alone (:meth:`Grouped.decide`), its items taken origin by origin,
   each origin's in the dataset's order (each origin's documents made once), its results
   held until the group is done and stored in the group's own order;
3. the chunks read back in the dataset's order (:meth:`Grouped.replay`), each item's
   result taken from its group in turn: the caller writes them as it writes a recheck
   decided in order (the report's lines, the trail's, the kept and removed rows, the
   counts), the same bytes whatever the order of the items.

The files are in a temporary folder (``rep-recheck-…``, as the document store's),
removed at the end (:meth:`Grouped.close`). The memory is a group's items and results
(about :data:`GROUP_ITEMS`) and a block of records per group (:data:`BUFFERED` over all
groups), whatever the dataset's size.
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
import weakref
from array import array
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any, Final

from rep_recheck.items import Chunk

#: What share of ``REP_RECHECK_PARSED_ORIGINS`` the origins made again (asked for anew
#: after their documents were let go) may reach before the rest of a dataset is grouped:
#: an eighth of it (2,500 parses of the default's 20,000), and at least
#: :data:`AGAIN_LEAST` (a few dozen parses cost less than the grouping's files).
AGAIN_SHARE: Final = 8
AGAIN_LEAST: Final = 64


def again_allowed(held: int) -> int:
    """The origins made again a recheck with ``held`` origins parsed at most decides in
    the dataset's order: beyond it, it groups its items by origin."""
    return max(held // AGAIN_SHARE, AGAIN_LEAST)


#: The items a group is meant to hold (its items and results are held while it is
#: decided): the groups are the dataset's items over this, at most :data:`MOST_GROUPS`.
GROUP_ITEMS: Final = 16_384
#: The most groups (the records each holds in memory before they are written:
#: :data:`BUFFERED` over all of them).
MOST_GROUPS: Final = 4_096
#: The records held in memory over all the groups before they are written to their
#: file: a block of a group's records (or results) is this over the groups.
BUFFERED: Final = 16_384
#: The group of an item that is not decided (its URL could not be read).
NO_GROUP: Final = 0xFFFF
#: Bytes an item's line is taken to hold at least, to tell the groups of a dataset
#: whose items were not counted (a WARC's recheck reads it once): more groups, not
#: fewer, when its lines are longer.
ITEM_BYTES: Final = 32


def groups_for(items: int) -> int:
    """How many groups a dataset of ``items`` items is spread over."""
    return min(MOST_GROUPS, max(1, -(-items // GROUP_ITEMS)))


def estimated_items(paths: list[str]) -> int:
    """A dataset's items, at most, from its files' sizes (:data:`ITEM_BYTES` each)."""
    size = 0
    for path in paths:
        try:
            size += os.stat(path).st_size
        except OSError:
            continue  # read from a copy (standard input): counted as none
    return size // ITEM_BYTES


class Blocks:
    """Records appended by group into one file, a block of records pickled at once; read
    back group by group, in the order appended (:meth:`read`, after :meth:`done`)."""

    def __init__(self, path: Path, groups: int, block: int) -> None:
        self._file: IO[bytes] = path.open("w+b")
        self.block = block
        self._end = 0
        self._pending: list[list[Any]] = [[] for _ in range(groups)]
        #: Each group's blocks: (offset, length).
        self._blocks: list[list[tuple[int, int]]] = [[] for _ in range(groups)]

    def add(self, group: int, record: Any) -> None:
        pending = self._pending[group]
        pending.append(record)
        if len(pending) >= self.block:
            self._flush(group)

    def _flush(self, group: int) -> None:
        data = pickle.dumps(self._pending[group], pickle.HIGHEST_PROTOCOL)
        self._pending[group] = []
        self._file.write(data)
        self._blocks[group].append((self._end, len(data)))
        self._end += len(data)

    def done(self) -> None:
        """Every record written to the file."""
        for group, pending in enumerate(self._pending):
            if pending:
                self._flush(group)
        self._file.flush()

    def read(self, group: int) -> Iterator[Any]:
        """``group``'s records, in the order added (one block in memory at a time)."""
        descriptor = self._file.fileno()
        for offset, length in self._blocks[group]:
            yield from pickle.loads(os.pread(descriptor, length, offset))

    def close(self) -> None:
        self._file.close()


class Grouped:
    """The rest of a recheck's dataset, grouped by origin on disk: added chunk by chunk
    (:meth:`add`), decided group by group (:meth:`decide`), read back in the dataset's
    order with each item's result (:meth:`replay`). ``shard``: the shard it starts in
    (its writers, left open, are :attr:`held`)."""

    def __init__(self, groups: int, shard: int, directory: str | Path | None = None) -> None:
        self.groups = groups
        self.shard = shard
        folder = tempfile.mkdtemp(prefix="rep-recheck-", dir=directory)
        self.folder = Path(folder)
        self._remove = weakref.finalize(self, shutil.rmtree, folder, ignore_errors=True)
        block = max(8, BUFFERED // groups)
        #: Each item to decide, by group; then each one's result.
        self.records = Blocks(self.folder / "items", groups, block)
        self.results = Blocks(self.folder / "results", groups, block)
        self._chunks: IO[bytes] = (self.folder / "chunks").open("wb")
        #: Items added, and decided.
        self.items = 0
        self.decided = 0
        #: The writers of the shard it starts in (``None``: not written), left open:
        #: closed by :attr:`held` when its items are written back (or at :meth:`close`).
        self.writers: list[Any] = [None, None]
        self.held = ExitStack()

    def add(self, shard: int, chunk: Chunk, origin_of: Callable[[str], str], rows: bool) -> None:
        """A chunk of shard number ``shard``: each item into its origin's group (named by
        ``origin_of``; an item whose URL could not be read into none: it is not decided),
        and the chunk itself (its data when ``rows`` are written back), in the
        dataset's order."""
        groups = array("H")
        add = self.records.add
        count = self.groups
        items = []
        for item in chunk.items:
            items.append((item.number, item.url, item.problem, item.then, item.date))
            if item.problem:
                groups.append(NO_GROUP)
                continue
            name = origin_of(item.url)
            group = hash(name) % count
            groups.append(group)
            add(group, (shard, item.number, item.url, item.then, item.date, name))
        self.items += len(items)
        record = (shard, items, chunk.data if rows else None, groups.tobytes())
        pickle.dump(record, self._chunks, pickle.HIGHEST_PROTOCOL)

    def decide(
        self,
        decide: Callable[[tuple[Any, ...]], tuple[Any, ...]],
        settle: Callable[[list[tuple[Any, ...]]], None] | None = None,
    ) -> Iterator[int]:
        """Each group decided, its items origin by origin (each origin's in the
        dataset's order), ``decide`` giving each one's result; ``settle`` sees a group's
        results in its order before they are stored. Yields after each group."""
        self.records.done()
        for group in range(self.groups):
            records = list(self.records.read(group))
            if not records:
                continue
            by_origin: dict[str, list[int]] = {}
            for place, record in enumerate(records):
                try:
                    by_origin[record[5]].append(place)
                except KeyError:
                    by_origin[record[5]] = [place]
            results: list[Any] = [None] * len(records)
            for places in by_origin.values():
                for place in places:
                    results[place] = decide(records[place])
            del records, by_origin
            if settle is not None:
                settle(results)
            add = self.results.add
            for result in results:
                add(group, result)
            self.decided += len(results)
            yield group
        self.results.done()

    def replay(self) -> Iterator[tuple[int, list[tuple[Any, ...]], Any, list[Any]]]:
        """Each chunk in the dataset's order: its shard's number, its items (``number,
        url, problem, then, date``), its data (``None``: no rows written back), and each
        item's result (``None``: not decided, its URL could not be read)."""
        self._chunks.close()
        readers = [self.results.read(group) for group in range(self.groups)]
        with (self.folder / "chunks").open("rb") as file:
            while True:
                try:
                    shard, items, data, groups = pickle.load(file)
                except EOFError:
                    return
                numbers = array("H")
                numbers.frombytes(groups)
                results = [None if g == NO_GROUP else next(readers[g]) for g in numbers]
                yield shard, items, data, results

    def close(self) -> None:
        """The writers held closed, the files closed and their folder removed."""
        try:
            self.held.close()
        finally:
            self._chunks.close()
            self.records.close()
            self.results.close()
            self._remove()
