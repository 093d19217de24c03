"""A trail read as the collection to re-check is its crawl's pages and files: the items
a recheck appended to it, which ``audit export`` now exports, are another collection's,
not re-checked again with it."""

from __future__ import annotations

from pathlib import Path

from rep_audit.export import build
from rep_recheck.datasets import open_dataset
from tests.support.recheck import RECHECKED, recheck_trail
from tests.support.trailfactory import ORIGIN, write_trail


def test_a_trail_with_a_recheck_appended_is_read_as_its_crawl_s_pages(tmp_path: Path) -> None:
    crawl = write_trail(tmp_path / "crawl.jsonl")
    recheck_trail(tmp_path, crawl)
    assert [asset["url"] for asset in build(crawl).assets][-1] == RECHECKED["kept"]
    dataset = open_dataset(crawl, purposes=("ai-train",))
    urls = [item.url for chunk in dataset.chunks() for item in chunk.items]
    assert urls == [f"{ORIGIN}/", f"{ORIGIN}/private/ok/1"]
