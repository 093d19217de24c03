"""Names numbered in the order first met, at most a bound of them in memory: the same
numbers, membership and order with a tiny bound (the rest in an SQLite file) as with a
large one."""

from __future__ import annotations

import random

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
