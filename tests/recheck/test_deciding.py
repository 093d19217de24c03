"""The collector's pace while a recheck decides its items (scrapy_rep.recheck.deciding)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from scrapy_rep.recheck.deciding import YOUNG_OBJECTS, collector_paced


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    yield before
    gc.set_threshold(*before)


def test_the_collector_runs_less_often_in_the_loop_and_as_before_after(
    thresholds: tuple[int, int, int],
) -> None:
    gc.set_threshold(700, 10, 10)
    with collector_paced():
        assert gc.get_threshold() == (YOUNG_OBJECTS, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


def test_the_thresholds_are_restored_when_the_loop_raises(
    thresholds: tuple[int, int, int],
) -> None:
    gc.set_threshold(700, 10, 10)
    with pytest.raises(KeyError), collector_paced():
        raise KeyError("x")
    assert gc.get_threshold() == (700, 10, 10)


def test_a_collector_switched_off_stays_off_and_a_higher_threshold_is_kept(
    thresholds: tuple[int, int, int],
) -> None:
    gc.set_threshold(0, 10, 10)
    with collector_paced():
        assert gc.get_threshold() == (0, 10, 10)
    gc.set_threshold(50_000, 5, 5)
    with collector_paced():
        assert gc.get_threshold() == (50_000, 5, 5)
    assert gc.get_threshold() == (50_000, 5, 5)
