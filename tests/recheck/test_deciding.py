"""The collector's pace while a recheck decides its items (rep_recheck.deciding)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rep_recheck.command import EXIT_REMOVED
from rep_recheck.deciding import YOUNG_OBJECTS, collector_paced
from rep_recheck.rechecker import Rechecker
from tests.support.recheck import recheck_tool, robots_capture, write_jsonl, write_warc


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
    gc.set_threshold(500_000, 5, 5)
    with collector_paced():
        assert gc.get_threshold() == (500_000, 5, 5)
    assert gc.get_threshold() == (500_000, 5, 5)


def test_the_commands_items_are_decided_with_the_collector_paced_and_restored_after(
    tmp_path: Path, thresholds: tuple[int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recheck command's own loop enters :func:`collector_paced` (not only the
    context manager alone): each item is decided at ``YOUNG_OBJECTS``, and the process's
    thresholds are as they were once the command returns."""
    gc.set_threshold(700, 10, 10)
    seen: list[int] = []
    decide = Rechecker.decide

    def watched(self: Rechecker, *args: Any, **kwargs: Any) -> Any:
        seen.append(gc.get_threshold()[0])
        return decide(self, *args, **kwargs)

    monkeypatch.setattr(Rechecker, "decide", watched)
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /no\n")])
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, ["https://a.example/no/1", "https://a.example/yes/1"])
    code, _ = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                           f"--out={tmp_path / 'kept.jsonl'}")  # fmt: skip
    assert code == EXIT_REMOVED
    assert seen == [YOUNG_OBJECTS, YOUNG_OBJECTS]
    assert gc.get_threshold() == (700, 10, 10)
