"""Names numbered in the order first met, within a bound, however many there are (pure).

A recheck meets each of its origins' names (``https://a.example``) many times and needs a
small number for each (its place in the arrays of its counts:
:class:`~rep_recheck.outputs.PerOrigin`; its place in the dataset's first pass:
:mod:`~rep_recheck.fetching`). :class:`Numbered` holds them in a dict up to
``held`` names (``REP_RECHECK_PARSED_ORIGINS``); beyond that every name is in an SQLite
file of a temporary folder (removed at the end, as the document store's), and the dict
holds only the names met last (started again when full): memory is the bound's, not the
names'. A dataset grouped by origin finds its name in the dict; one whose items visit
more origins than the bound in turn asks the file once an item. A name met for the first
time is not looked up in the file: a filter of the names in it (two bits a name) says
it is not there, but for about one in a hundred at a million names.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import weakref
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final

#: ``REP_RECHECK_PARSED_ORIGINS``' default: the origins whose documents stay parsed, and
#: whose names (:class:`Numbered`) and captures (:mod:`~rep_recheck.warc`) stay in
#: memory.
PARSED_ORIGINS: Final = 20_000
#: The names (and a WARC's captures: :mod:`~rep_recheck.capture_index`) held in memory
#: for each origin ``REP_RECHECK_PARSED_ORIGINS`` holds parsed: a name is about 100
#: bytes, a capture about 250, a parsed origin 5 KB to 20 KB (a million by default).
PER_PARSED: Final = 50


def names_held(parsed: int) -> int:
    """The names :class:`Numbered` holds in memory when ``parsed`` origins are held
    parsed (``REP_RECHECK_PARSED_ORIGINS``)."""
    return parsed * PER_PARSED


#: What to do when the temporary files (in ``TMPDIR``) find no room, as every one says it.
ROOM: Final = "set TMPDIR to a folder with room for about the dataset's size"
#: New names written to the SQLite file at once.
_BATCH: Final = 1_000
#: Names looked up in the SQLite file by one query (:meth:`Numbered.met`; SQLite allows
#: 999 parameters a query before its version 3.32).
_QUERY: Final = 500
#: The bits of the filter of the names in the SQLite file (2 MiB, made once the names
#: spill): a name whose two bits are not both set is not in the file.
_FILTER_BITS: Final = 1 << 24


class Numbered:
    """Names numbered 0, 1, 2… in the order first met (:meth:`number`), at most ``held``
    of them in memory, the others in an SQLite file."""

    def __init__(self, held: int, directory: str | Path | None = None) -> None:
        if held < 1:
            raise ValueError(f"held must be at least 1, got {held}")
        self.held = held
        self._directory = directory
        #: Every name while they are no more than ``held``; then the names met last.
        self._known: dict[str, int] = {}
        #: New names not in the file yet (each in :attr:`_known` too).
        self._pending: dict[str, int] = {}
        self._file: sqlite3.Connection | None = None
        #: The filter of the names in the file (:meth:`_may_hold`).
        self._filter = bytearray()
        #: Closes the file and removes its folder (at :meth:`close`, or when the names
        #: are let go).
        self._remove: weakref.finalize[..., Any] | None = None
        #: Names numbered.
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def __eq__(self, other: object) -> bool:
        """The same names in the same order (as a list of them, or another one)."""
        if not isinstance(other, (Numbered, list, tuple)):
            return NotImplemented
        return len(self) == len(other) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # it grows

    def __repr__(self) -> str:
        return f"<Numbered: {len(self):,} names, held {self.held:,}>"

    @property
    def spilled(self) -> bool:
        """Whether the names are in the SQLite file (more than ``held`` were met)."""
        return self._file is not None

    def find(self, name: str) -> int | None:
        """``name``'s number (``None``: never met)."""
        number = self._known.get(name)
        if number is not None or self._file is None or not self._may_hold(name):
            return number
        row = self._file.execute("SELECT number FROM names WHERE name = ?", (name,)).fetchone()
        return None if row is None else int(row[0])

    def number(self, name: str) -> int:
        """``name``'s number, given it at its first meeting (the next one)."""
        number = self._known.get(name)
        if number is not None:
            return number
        if self._file is not None:
            number = self.find(name)
        if number is None:
            number = self._new(name)
        self._remember(name, number)
        return number

    def met(self, names: Sequence[str]) -> None:
        """Each of ``names`` numbered in their order, as :meth:`number` numbers them; once
        the names are in the file, those not met last are looked up in it together (a
        query per :data:`_QUERY` names, not one a name: a dataset that visits more
        origins than ``held`` in no particular order)."""
        if self._file is None:
            for name in names:
                self.number(name)
            return
        known = self._known
        fresh = [name for name in dict.fromkeys(names) if name not in known]
        if not fresh:
            return
        self._write()
        filed: set[str] = set()
        for start in range(0, len(fresh), _QUERY):
            part = fresh[start : start + _QUERY]
            marks = ", ".join("?" * len(part))
            rows = self._file.execute(f"SELECT name FROM names WHERE name IN ({marks})", part)
            filed.update(name for (name,) in rows)
        for name in fresh:
            if name not in filed:
                self._remember(name, self._new(name))

    def _may_hold(self, name: str, mark: bool = False) -> bool:
        """Whether the file may hold ``name`` (``False``: it does not), its two bits of
        the filter set first (``mark``: it is written to the file)."""
        code, bits = hash(name), self._filter
        held = True
        for bit in (code & (_FILTER_BITS - 1), (code >> 32) & (_FILTER_BITS - 1)):
            if mark:
                bits[bit >> 3] |= 1 << (bit & 7)
            held = held and bool(bits[bit >> 3] & (1 << (bit & 7)))
        return held

    def _new(self, name: str) -> int:
        """The next number, given to ``name`` (met for the first time)."""
        number = self.count
        self.count += 1
        if self._file is None and number >= self.held:
            self._open()
        if self._file is not None:
            self._pending[name] = number
            if len(self._pending) >= _BATCH:
                self._write()
        return number

    def _remember(self, name: str, number: int) -> None:
        """``name``'s number among those met last (every name while they are no more
        than ``held``; a name not yet in the file is one of them until it is)."""
        if len(self._known) >= self.held and self._file is not None:
            self._write()  # the names met last forgotten, none lost
            self._known.clear()
        self._known[name] = number

    def __iter__(self) -> Iterator[str]:
        """The names in the order of their numbers."""
        if self._file is None:
            yield from list(self._known)
            return
        self._write()
        for (name,) in self._file.execute("SELECT name FROM names ORDER BY number"):
            yield name

    def names_of(self, numbers: Iterable[int]) -> dict[int, str]:
        """The names of ``numbers`` (a few: the summary's table of origins)."""
        wanted = set(numbers)
        if self._file is None:
            return {n: name for name, n in self._known.items() if n in wanted}
        self._write()
        found: dict[int, str] = {}
        for number in wanted:
            row = self._file.execute("SELECT name FROM names WHERE number = ?", (number,))
            found[number] = str(row.fetchone()[0])
        return found

    def close(self) -> None:
        """The SQLite file and its folder removed (the names forgotten)."""
        if self._remove is not None:
            self._remove()
            self._remove = None
        self._file = None
        self._filter = bytearray()
        self._known.clear()
        self._pending.clear()
        self.count = 0

    def _open(self) -> None:
        """The SQLite file made, every name known written to it."""
        self._file, self._remove = spill_file(self, "names.sqlite", self._directory)
        self._filter = bytearray(_FILTER_BITS >> 3)
        self._file.execute("CREATE TABLE names (name TEXT PRIMARY KEY, number INTEGER) "
                           "WITHOUT ROWID")  # fmt: skip
        self._file.execute("CREATE INDEX by_number ON names (number)")
        self._pending.update(self._known)
        self._write()

    def _write(self) -> None:
        if self._file is None or not self._pending:
            return
        for name in self._pending:
            self._may_hold(name, mark=True)
        self._file.execute("BEGIN")
        self._file.executemany("INSERT INTO names VALUES (?, ?)", self._pending.items())
        self._file.execute("COMMIT")
        self._pending.clear()


def tmpdir_unused() -> str:
    """What a recheck says when ``TMPDIR`` names a folder it cannot write in, where
    Python puts the temporary files instead (``/tmp``…); ``""``: it can."""
    asked = os.environ.get("TMPDIR")
    used = tempfile.gettempdir()
    if not asked or os.path.realpath(asked) == os.path.realpath(used):
        return ""
    return (
        f"recheck: TMPDIR {asked} is no folder this run can write in: its temporary "
        f"files (past REP_RECHECK_PARSED_ORIGINS, standard input's copy) go to {used}"
    )


def spill_file(
    owner: object, name: str, directory: str | Path | None = None
) -> tuple[sqlite3.Connection, weakref.finalize[..., Any]]:
    """An SQLite file ``name`` in a new temporary folder (``rep-recheck-…``, as the
    document store's), written without a journal; and what closes it and removes its
    folder, called at the latest when ``owner`` is let go."""
    folder = tempfile.mkdtemp(prefix="rep-recheck-", dir=directory)
    file = sqlite3.connect(Path(folder) / name, check_same_thread=False, isolation_level=None)
    file.execute("PRAGMA journal_mode = OFF")
    file.execute("PRAGMA synchronous = OFF")
    return file, weakref.finalize(owner, _removed, file, folder)


def _removed(file: sqlite3.Connection, folder: str) -> None:
    """An SQLite file closed and its folder removed."""
    file.close()
    shutil.rmtree(folder, ignore_errors=True)
