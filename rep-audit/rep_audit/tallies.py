"""The counts of one row of ``audit summary``'s tables and of the HTML report's charts:
a :class:`Tally` of ``url`` records (requests by fate, items kept and dropped), an
:class:`ItemTally` of a recheck's items (by status); and :func:`table`, which draws them
as plain text (pure). :mod:`rep_audit.summary` fills them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Final

from rep_audit.faterecord import FateRecord
from rep_engine.records import ITEM_STATUSES, Fate, ItemRecord
from rep_engine.trail.terminal import printable

#: The columns of the tables of a recheck's items.
ITEM_COLUMNS: Final = ("items", *ITEM_STATUSES)


#: A count of a :class:`Tally` that is no column of its tables.
_NOT_A_COLUMN: Final = {"column": False}


@dataclass
class Tally:
    """The counts of one row."""

    requests: int = 0
    refused: int = 0
    fetched: int = 0
    #: failed, redirected, unfinished.
    other: int = 0
    kept: int = 0
    dropped: int = 0
    #: Items let through that a later component of the crawl dropped (not a column).
    not_kept: int = field(default=0, metadata=_NOT_A_COLUMN)
    #: Of ``fetched``: the pages some of whose items were dropped after the fetch (their
    #: state: ``fetched, item dropped``); not a column of the text tables.
    fetched_dropped: int = field(default=0, metadata=_NOT_A_COLUMN)

    def add(self, record: FateRecord, times: int = 1) -> None:
        """Count ``record`` (``times = -1``: take it back, to count it in another row)."""
        self.requests += times
        fate, output = record.fate, record.entry.output
        if fate is Fate.REFUSED:
            self.refused += times
        elif fate is Fate.FETCHED:
            self.fetched += times
            self.fetched_dropped += times * bool(output is not None and output.dropped)
        else:
            self.other += times
        if output is not None:
            self.kept += times * output.kept
            self.dropped += times * output.items_dropped
            self.not_kept += times * output.not_kept

    def row(self) -> tuple[int, ...]:
        return tuple(getattr(self, name) for name in COLUMNS)


#: The columns of every table, in order: the counts of a :class:`Tally` by request fate
#: (``other``: failed, redirected, unfinished) and the items of its pages.
COLUMNS: Final = tuple(one.name for one in fields(Tally) if one.metadata != _NOT_A_COLUMN)


@dataclass
class ItemTally:
    """The counts of one row of a recheck's items: every item, and per status."""

    items: int = 0
    kept: int = 0
    refused: int = 0
    unknown: int = 0
    #: The unknown items its run kept (``--keep-unknown``: written with the kept ones).
    kept_unknown: int = 0

    def add(self, item: ItemRecord) -> None:
        self.items += 1
        if item.status in ITEM_STATUSES:
            setattr(self, item.status, getattr(self, item.status) + 1)

    def row(self) -> tuple[int, ...]:
        return tuple(getattr(self, name) for name in ITEM_COLUMNS)


def table(
    title: str, rows: Mapping[str, Tally | ItemTally], extra: dict[str, int] | None = None
) -> list[str]:
    """A plain-text table, rows sorted by requests (items, for a recheck's items: most
    first)."""
    columns = ITEM_COLUMNS if any(isinstance(t, ItemTally) for t in rows.values()) else COLUMNS
    heads = [title, *columns] + (["denied"] if extra is not None else [])
    body = [
        [printable(name), *map(str, tally.row())]
        + ([str(extra.get(name, 0))] if extra is not None else [])
        for name, tally in sorted(rows.items(), key=lambda item: (-item[1].row()[0], item[0]))
    ]
    widths = [max(map(len, column)) for column in zip(heads, *body, strict=True)]
    return [
        "  ".join([row[0].ljust(widths[0]), *map(str.rjust, row[1:], widths[1:])]).rstrip()
        for row in [heads, *body]
    ]
