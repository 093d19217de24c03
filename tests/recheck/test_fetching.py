"""The dataset's first pass names each origin once, in the order met, at most
:func:`~rep_recheck.names.names_held` of them in memory: the crawl is asked for the same
origins, in the same order, with a tiny bound (the rest in an SQLite file) as with a
large one."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rep_recheck import names as recheck_names
from rep_recheck.command import EXIT_REMOVED, FetchRequest, FetchResult, main
from rep_recheck.names import Numbered
from tests.support.recheck import write_jsonl

ORIGINS = [f"https://o{n}.example" for n in (5, 1, 9, 3, 7, 2, 8)]


def test_the_origins_asked_for_are_the_same_with_a_tiny_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recheck_names, "PER_PARSED", 1)  # names held as origins parsed
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [f"{origin}/{page}" for page in range(3) for origin in ORIGINS])
    asked: list[FetchRequest] = []

    def fetcher(request: FetchRequest) -> FetchResult:
        asked.append(request)
        return FetchResult()  # nothing had: every item unknown

    summaries = []
    for bound in ("2", "100000"):
        out = io.StringIO()
        argv = [str(dataset), "--purpose", "search", "--no-progress", "-s",
                f"REP_RECHECK_PARSED_ORIGINS={bound}"]  # fmt: skip
        assert main(argv, out, fetcher) == EXIT_REMOVED
        summaries.append(out.getvalue())
    small, large = (request.origins for request in asked)
    assert isinstance(small, Numbered) and isinstance(large, Numbered)
    assert small.spilled and not large.spilled
    assert small == large == ORIGINS
    assert list(small) == ORIGINS and len(small) == len(ORIGINS)
    assert summaries[0] == summaries[1]
    assert f"| unknown | {3 * len(ORIGINS)} | 100.0 % | {len(ORIGINS)} |" in summaries[0]
