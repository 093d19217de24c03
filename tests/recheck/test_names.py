"""Names numbered in the order first met, at most a bound of them in memory: the same
numbers, membership and order with a tiny bound (the rest in an SQLite file) as with a
large one."""

from __future__ import annotations

import random
import sqlite3

import pytest

from rep_recheck.names import Numbered


def _met(count: int, seed: int) -> list[str]:
    """Names met in a shuffled order, each several times."""
    names = [f"https://o{n}.example" for n in range(count)]
    rng = random.Random(seed)
    return [rng.choice(names) for _ in range(count * 5)]


@pytest.mark.parametrize("held", [1, 2, 7, 64])
def test_a_tiny_bound_numbers_the_names_as_a_large_one(held: int) -> None:
    met = _met(200, held)
    small, large = Numbered(held), Numbered(10_000)
    assert [small.number(name) for name in met] == [large.number(name) for name in met]
    assert small.spilled and not large.spilled
    assert len(small) == len(large) == len(set(met))
    assert list(small) == list(large) == list(dict.fromkeys(met))
    assert all(small.find(name) == large.find(name) for name in set(met))
    assert small.find("https://never.example") is None and "https://never.example" not in small
    numbers = [0, 5, len(large) - 1]
    assert small.names_of(numbers) == large.names_of(numbers)
    assert len(small._known) <= held  # memory: the bound's
    small.close()
    assert len(small) == 0 and not small.spilled


def test_the_bound_is_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Numbered(0)


class _CountedFile:
    """An SQLite connection whose queries are counted."""

    def __init__(self, file: sqlite3.Connection) -> None:
        self.file = file
        self.queries = 0

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        self.queries += sql.startswith("SELECT")
        return self.file.execute(sql, *args)

    def executemany(self, sql: str, *args: object) -> sqlite3.Cursor:
        return self.file.executemany(sql, *args)


@pytest.mark.parametrize("held", [1, 7, 64])
def test_names_met_a_chunk_at_a_time_are_numbered_as_one_at_a_time(held: int) -> None:
    """The dataset's first pass numbers its origins a chunk at a time: the same numbers
    in the same order, and beyond the bound one query per chunk, not one a name (a
    dataset of a million origins in no order made a query per item)."""
    met = _met(300, held)
    one, chunked = Numbered(held), Numbered(held)
    for name in met:
        one.number(name)
    for start in range(0, len(met), 100):
        chunked.met(met[start : start + 100])
        if chunked.spilled and not isinstance(chunked._file, _CountedFile):
            assert chunked._file is not None
            chunked._file = _CountedFile(chunked._file)  # type: ignore[assignment]
    counted = chunked._file
    assert isinstance(counted, _CountedFile)
    assert 0 < counted.queries <= len(met) // 100  # one a chunk, not one a name met
    assert list(chunked) == list(one) == list(dict.fromkeys(met))
    assert all(chunked.find(name) == one.find(name) for name in set(met))


def test_a_name_met_for_the_first_time_is_not_looked_up_in_the_file() -> None:
    """Past the bound, every new name was looked up in the SQLite file before it was
    numbered: a query an origin, for each of a recheck's counts."""
    names = Numbered(2)
    for n in range(3):
        names.number(f"https://o{n}.example")
    assert names.spilled and names._file is not None
    statements: list[str] = []
    names._file.set_trace_callback(statements.append)
    fresh = [f"https://new{n}.example" for n in range(500)]
    assert [names.number(name) for name in fresh] == list(range(3, 503))
    assert not [one for one in statements if one.startswith("SELECT")]
    # the names in the file are still found there, the new ones numbered once
    assert names.number("https://o0.example") == 0 and names.number(fresh[0]) == 3
    assert any(one.startswith("SELECT") for one in statements)
    assert len(names) == 503 and list(names)[3:] == fresh
