"""A recheck of a collection of several files: ``audit list`` and ``audit export`` name
each item's shard (the file it came from), as ``audit show`` does; a collection of one
file names none."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from tests.support.recheck import recheck_tool, robots_capture, write_jsonl, write_warc
from tests.support.tools import audit_tool

#: a.example's robots.txt refuses /no.
SHARDS = {"one.jsonl": ["https://a.example/yes/1", "https://a.example/no/1"],
          "two.jsonl": ["https://a.example/yes/2"]}  # fmt: skip


def _rechecked(tmp_path: Path, names: list[str]) -> Path:
    data, trail = tmp_path / "data", tmp_path / "recheck.jsonl"
    data.mkdir()
    for name in names:
        write_jsonl(data / name, SHARDS[name])
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /no\n")])
    recheck_tool(*(str(data / name) for name in names), "--purpose", "search",
                 "--documents", str(warc), f"--trail={trail}")  # fmt: skip
    return trail


def test_list_names_each_items_shard_in_every_format(tmp_path: Path) -> None:
    trail = _rechecked(tmp_path, list(SHARDS))
    data = tmp_path / "data"
    _, out = audit_tool("list", str(trail))
    assert f"https://a.example/no/1 item (line 2 of shard {data / 'one.jsonl'}) refused " in out
    assert f"https://a.example/yes/2 item (line 1 of shard {data / 'two.jsonl'}) kept: " in out
    _, out = audit_tool("list", str(trail), "--format", "jsonl")
    found = {row["url"]: row for row in map(json.loads, out.splitlines())}
    assert (found["https://a.example/yes/2"]["shard"], found["https://a.example/yes/2"][
        "dataset_line"]) == (str(data / "two.jsonl"), 1)  # fmt: skip
    _, out = audit_tool("list", str(trail), "--format", "csv")
    rows = {row["url"]: row for row in csv.DictReader(io.StringIO(out))}
    assert rows["https://a.example/no/1"]["shard"] == str(data / "one.jsonl")


def test_export_names_the_shards_of_each_kept_item(tmp_path: Path) -> None:
    trail = _rechecked(tmp_path, list(SHARDS))
    out = tmp_path / "export.jsonl"
    assert audit_tool("export", str(trail), "--out", str(out))[0] == 0
    _, *assets = [json.loads(line) for line in out.read_text().splitlines()]
    shards = {a["url"]: (a["dataset_lines"], a["dataset_shards"]) for a in assets}
    assert shards == {
        "https://a.example/yes/1": ([1], [str(tmp_path / "data" / "one.jsonl")]),
        "https://a.example/yes/2": ([1], [str(tmp_path / "data" / "two.jsonl")]),
    }
    code, said = audit_tool("verify", str(trail), "--export", str(out))
    assert code == 0 and said.splitlines()[-1].endswith("2 assets match the trail"), said


def test_a_collection_of_one_file_names_no_shard(tmp_path: Path) -> None:
    trail = _rechecked(tmp_path, ["one.jsonl"])
    _, out = audit_tool("list", str(trail), "--format", "jsonl")
    assert all("shard" not in json.loads(line) for line in out.splitlines())
    _, out = audit_tool("list", str(trail))
    assert "https://a.example/no/1 item (dataset line 2) refused " in out
    out_file = tmp_path / "export.jsonl"
    audit_tool("export", str(trail), "--out", str(out_file))
    assert "dataset_shards" not in out_file.read_text()
