"""A trail read as the collection to re-check is its crawl's pages and files: the items
a recheck appended to it, which ``audit export`` now exports, are another collection's,
not re-checked again with it."""

from __future__ import annotations

import json
from pathlib import Path

from rep_audit.export import build, export_lines
from rep_audit.verify import verify
from rep_recheck.datasets import open_dataset
from tests.support.recheck import (
    RECHECKED,
    recheck_tool,
    recheck_trail,
    robots_capture,
    write_warc,
)
from tests.support.trailfactory import ORIGIN, write_trail


def test_a_trail_with_a_recheck_appended_is_read_as_its_crawl_s_pages(tmp_path: Path) -> None:
    crawl = write_trail(tmp_path / "crawl.jsonl")
    recheck_trail(tmp_path, crawl)
    assert [asset["url"] for asset in build(crawl).assets][-1] == RECHECKED["kept"]
    dataset = open_dataset(crawl, purposes=("ai-train",))
    urls = [item.url for chunk in dataset.chunks() for item in chunk.items]
    assert urls == [f"{ORIGIN}/", f"{ORIGIN}/private/ok/1"]


def test_a_trail_re_checked_writes_its_kept_assets_with_no_export_header(tmp_path: Path) -> None:
    """A trail given as the dataset wrote the header of the whole trail's export first
    in ``--out``, which then said of a part that it was that export (``audit verify
    --export`` failed it): its outputs are the assets' lines alone, JSON
    Lines that a recheck reads again; an export given keeps its header."""
    crawl = write_trail(tmp_path / "crawl.jsonl")
    warc = tmp_path / "r.warc"
    write_warc(warc, [robots_capture(ORIGIN, "User-agent: *\nDisallow: /private/\n")])
    out, removed = tmp_path / "out.jsonl", tmp_path / "removed.jsonl"
    recheck_tool(str(crawl), "--purpose", "search", "--documents", str(warc),
                 "--out", str(out), "--removed", str(removed))  # fmt: skip
    kept = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    gone = [json.loads(line) for line in removed.read_text(encoding="utf-8").splitlines()]
    assert [asset["url"] for asset in kept] == [f"{ORIGIN}/"]
    assert [asset["url"] for asset in gone] == [f"{ORIGIN}/private/ok/1"]
    assert all("export" not in line and line.get("asset") == "page" for line in kept + gone)
    again = tmp_path / "again.jsonl"
    recheck_tool(str(out), "--purpose", "search", "--documents", str(warc), "--out", str(again))
    assert again.read_bytes() == out.read_bytes()
    export = tmp_path / "export.jsonl"
    export.write_text("".join(line + "\n" for line in export_lines(crawl)), encoding="utf-8")
    recheck_tool(str(export), "--purpose", "search", "--documents", str(warc), "--out", str(out))
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[0])["export"] == 1
    assert verify(crawl).clean
