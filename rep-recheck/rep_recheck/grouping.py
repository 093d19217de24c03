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
   held until the group is done and stored in the group's own order; a group of more
   than :data:`GROUP_HELD` items (an origin that holds a large share of the dataset,
   which no hash can split) decided as it is read instead, in the dataset's order, as
   many of its origins at a time as the recheck holds parsed;
3. the chunks read back in the dataset's order (:meth:`Grouped.replay`), each item's
   result taken from its group in turn: the caller writes them as it writes a recheck
   decided in order (the report's lines, the trail's, the kept and removed rows, the
   counts), the same bytes whatever the order of the items.

The files are in a temporary folder (``rep-recheck-…``, as the document store's),
removed at the end (:meth:`Grouped.close`). The memory is a group's items and results
(about :data:`GROUP_ITEMS`, at most :data:`GROUP_HELD`) and a block of records per group
(:data:`BUFFERED` over all groups), whatever the dataset's size and however its items
are shared among its origins.
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

from rep_recheck.datasets import Chunk
from rep_recheck.names import PARSED_ORIGINS, ROOM

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
#: The most records of a group held in memory to decide them origin by origin: a larger
#: group (an origin that holds a large share of the dataset: a hash partition cannot
#: split one origin) is decided as it is read instead (:meth:`Grouped.decide`).
GROUP_HELD: Final = 4 * GROUP_ITEMS
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
    """A dataset's items, at most, from the sizes of the files read (:data:`ITEM_BYTES`
    each; standard input's copy, not ``-``)."""
    size = 0
    for path in paths:
        try:
            size += os.stat(path).st_size
        except OSError:
            continue  # gone: counted as none
    return size // ITEM_BYTES


def no_room(error: OSError, path: Path) -> OSError:
    """``error``, met writing the grouping's file at ``path`` (a full disk, most likely:
    the files hold about the dataset's size), saying where and what to do: the recheck
    says ``scrapy_rep: error: PATH: No space left on device (…)``, not just a file."""
    why = f"{error.strerror or error} (the items grouped by origin on disk: {ROOM})"
    return OSError(error.errno, why, str(path))


class Blocks:
    """Records appended by group into one file, a block of records pickled at once; read
    back group by group, in the order appended (:meth:`read`, after :meth:`done`)."""

    def __init__(self, path: Path, groups: int, block: int) -> None:
        self.path = path
        self._file: IO[bytes] = path.open("w+b")
        self.block = block
        self._end = 0
        self._pending: list[list[Any]] = [[] for _ in range(groups)]
        #: Each group's blocks: their offsets and lengths, one after the other (16 bytes a
        #: block: a tuple of two ints took 120, 90 MiB for 10M items).
        self._blocks: list[array[int]] = [array("Q") for _ in range(groups)]
        #: Each group's records written to the file.
        self.written = [0] * groups

    def more(self) -> int:
        """A group more; its number."""
        self._pending.append([])
        self._blocks.append(array("Q"))
        self.written.append(0)
        return len(self._pending) - 1

    def add(self, group: int, record: Any) -> None:
        pending = self._pending[group]
        pending.append(record)
        if len(pending) >= self.block:
            self._flush(group)

    def flush(self, group: int) -> None:
        """``group``'s records added so far written to the file."""
        if self._pending[group]:
            self._flush(group)

    def _flush(self, group: int) -> None:
        pending = self._pending[group]
        data = pickle.dumps(pending, pickle.HIGHEST_PROTOCOL)
        self.written[group] += len(pending)
        self._pending[group] = []
        try:
            self._file.write(data)
        except OSError as error:
            raise no_room(error, self.path) from error
        self._blocks[group].extend((self._end, len(data)))
        self._end += len(data)

    def done(self) -> None:
        """Every record written to the file."""
        for group, pending in enumerate(self._pending):
            if pending:
                self._flush(group)
        try:
            self._file.flush()
        except OSError as error:
            raise no_room(error, self.path) from error

    def read(self, group: int) -> Iterator[Any]:
        """``group``'s records, in the order added (one block in memory at a time)."""
        descriptor = self._file.fileno()
        blocks = self._blocks[group]
        for at in range(0, len(blocks), 2):
            yield from pickle.loads(os.pread(descriptor, blocks[at + 1], blocks[at]))

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
        #: The records (or results) of a group written, or settled, at once.
        self.block = block = max(8, BUFFERED // groups)
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
        try:
            pickle.dump(record, self._chunks, pickle.HIGHEST_PROTOCOL)
        except OSError as error:
            raise no_room(error, self.folder / "chunks") from error

    def decide(
        self,
        decide: Callable[[tuple[Any, ...]], tuple[Any, ...]],
        settle: Callable[[list[tuple[Any, ...]]], None] | None = None,
        begin: Callable[[], None] | None = None,
        held: int = PARSED_ORIGINS,
    ) -> Iterator[int]:
        """Each group decided, ``decide`` giving each item's result, each origin's
        documents made once: its items origin by origin (each origin's in the dataset's
        order); a group of more than :data:`GROUP_HELD` items, as it is read
        (:meth:`_streamed`: ``held`` of its origins at a time, ``begin`` called before
        each part, for the decider to let go the origins it holds). ``settle`` sees the
        results in the group's order before they are stored: the group's at once, or
        a part's a block at a time. Yields after each group."""
        self.records.done()
        for group in range(self.groups):
            size = self.records.written[group]
            if not size:
                continue
            if size > GROUP_HELD:
                self._streamed(group, decide, settle, begin, held)
                yield group
                continue
            records = list(self.records.read(group))
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
            self._store(self.results, group, results, settle)
            yield group
        self.results.done()

    def _streamed(
        self,
        group: int,
        decide: Callable[[tuple[Any, ...]], tuple[Any, ...]],
        settle: Callable[[list[tuple[Any, ...]]], None] | None,
        begin: Callable[[], None] | None,
        held: int,
    ) -> None:
        """A group too large to hold (an origin that holds most of it), decided as it is
        read, in the dataset's order, in parts: each reading decides the items of the
        next ``held`` origins it meets that no part took (as many as the decider holds:
        each origin's documents made once), until none is left (one part, unless the
        group has more origins than that). Each part's results go to a file of their
        own, settled a block at a time (the first item of a block that names a
        snapshot carries its line; the first of them in the dataset's order writes it),
        then to the group's in its order."""
        part_of: dict[str, int] = {}
        parts = Blocks(self.folder / "parts", 0, self.block)
        try:
            left = True
            while left:
                part = parts.more()
                if begin is not None:
                    begin()
                taken, left = 0, False
                pending: list[Any] = []
                for record in self.records.read(group):
                    found = part_of.get(record[5])
                    if found is None:
                        if taken >= held:
                            left = True  # for a later part
                            continue
                        found = part_of[record[5]] = part
                        taken += 1
                    if found == part:
                        pending.append(decide(record))
                        if len(pending) >= self.block:
                            self._store(parts, part, pending, settle)
                            pending = []
                self._store(parts, part, pending, settle)
                parts.flush(part)
            parts.done()
            add = self.results.add
            if part == 0:
                for result in parts.read(0):
                    add(group, result)
                return
            readers = [parts.read(number) for number in range(part + 1)]
            for record in self.records.read(group):
                add(group, next(readers[part_of[record[5]]]))
        finally:
            parts.close()
            (self.folder / "parts").unlink()

    def _store(
        self,
        blocks: Blocks,
        group: int,
        results: list[Any],
        settle: Callable[[list[tuple[Any, ...]]], None] | None,
    ) -> None:
        """``results`` settled and added to ``blocks``' ``group``."""
        if settle is not None and results:
            settle(results)
        add = blocks.add
        for result in results:
            add(group, result)
        self.decided += len(results)

    def replay(self) -> Iterator[tuple[int, list[tuple[Any, ...]], Any, list[Any]]]:
        """Each chunk in the dataset's order: its shard's number, its items (``number,
        url, problem, then, date``), its data (``None``: no rows written back), and each
        item's result (``None``: not decided, its URL could not be read)."""
        try:
            self._chunks.close()
        except OSError as error:
            raise no_room(error, self.folder / "chunks") from error
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
