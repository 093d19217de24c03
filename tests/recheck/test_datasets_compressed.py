"""The shards AI labs have, as datatrove's own writers lay them out: Parquet whose URL is
a field of the ``metadata`` struct column (``ParquetWriter``), JSON Lines compressed
whole (``JsonlWriter``'s default ``00000.jsonl.gz``, and ``.jsonl.zst``), read as files
and folders, their kept and removed items written back in the same layout and
compression, every count printed the files' own; and a compressed file that is cut,
corrupt, empty or not compressed at all said in one line."""

from __future__ import annotations

import gzip
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from rep_recheck.command import EXIT_REMOVED, EXIT_USAGE, FetchRequest, FetchResult, main
from rep_recheck.datasets import open_dataset
from tests.support.recheck import (
    needs,
    recheck_tool,
    report_lines,
    robots_capture,
    write_jsonl,
    write_warc,
)

#: a.example refuses /private; b.example refuses everything; c.example is not captured.
ROBOTS = {
    "https://a.example": "User-agent: *\nDisallow: /private\n",
    "https://b.example": "User-agent: *\nDisallow: /\n",
}
URLS = [f"{origin}{path}" for origin in (*ROBOTS, "https://c.example")
        for path in ("/", "/private/1", "/x")]  # fmt: skip
#: What ``search`` keeps of :data:`URLS`.
KEPT = ["https://a.example/", "https://a.example/x"]


def _warc_of(tmp_path: Path) -> Path:
    warc = tmp_path / "robots.warc.gz"
    write_warc(warc, [robots_capture(origin, text) for origin, text in ROBOTS.items()],
               compress=True)  # fmt: skip
    return warc


def _datatrove_shards(folder: Path, kind: str, urls: list[str], ranks: int = 1,
                      **options: Any) -> list[Path]:  # fmt: skip
    """``urls`` written by datatrove's own writer (``kind``: ``jsonl``, ``parquet``) as
    documents whose ``metadata["url"]`` each is, spread over ``ranks`` tasks' files, as
    a pipeline's tasks write them; the files written."""
    needs("datatrove")
    needs("orjson")
    from datatrove.data import Document
    from datatrove.pipeline.writers import JsonlWriter, ParquetWriter

    writer = (JsonlWriter if kind == "jsonl" else ParquetWriter)(str(folder), **options)
    with writer:
        for number, url in enumerate(urls):
            metadata = {"url": url, "dump": "CC-MAIN-2025-13", "date": "2025-03-01T00:00:00Z"}
            writer.write(Document(text=f"page {number}", id=f"<urn:{number}>",
                                  metadata=metadata), rank=number % ranks)  # fmt: skip
    return sorted(path for path in folder.rglob("*") if path.is_file())


def _lines_of(path: Path) -> list[bytes]:
    """The lines of a JSON Lines file, decompressed as its name says."""
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)
    elif path.name.endswith(".zst"):
        data = needs("backports.zstd").decompress(data)
    return data.splitlines(keepends=True)


def _counted(summary: str) -> tuple[int, int]:
    """The summary's "Kept: K; removed: R"."""
    found = re.search(r"Kept: ([\d,]+); removed: ([\d,]+)", summary)
    assert found is not None, summary
    return int(found[1].replace(",", "")), int(found[2].replace(",", ""))


def test_datatroves_parquet_layout_is_read_by_its_metadata_struct(tmp_path: Path) -> None:
    """datatrove's ``ParquetWriter`` writes a document's metadata as one struct column:
    ``--column metadata.url`` stopped with exit 2 ("no column 'metadata.url'"). The rows
    are written back with their schema (the struct whole), the removed ones with
    ``rep_status`` and ``rep_why``; the counts are the files' rows."""
    parquet = needs("pyarrow.parquet")
    [shard] = _datatrove_shards(tmp_path / "data", "parquet", URLS)
    assert parquet.read_schema(str(shard)).field("metadata").type.num_fields == 3
    kept, removed, report = (tmp_path / n for n in ("kept.parquet", "removed.parquet", "r.jsonl"))
    code, summary = recheck_tool(str(shard), "--column", "metadata.url", "--purpose", "search",
                                 "--documents", str(_warc_of(tmp_path)), f"--out={kept}",
                                 f"--removed={removed}", f"--report={report}")  # fmt: skip
    assert code == EXIT_REMOVED
    assert [line["url"] for line in report_lines(report) if line["status"] == "kept"] == KEPT
    source = parquet.read_table(str(shard))
    out = parquet.read_table(str(kept))
    assert out.schema == source.schema
    assert out.to_pylist() == [row for row in source.to_pylist() if row["metadata"]["url"] in KEPT]
    gone = parquet.read_table(str(removed))
    assert gone.schema.names == [*source.schema.names, "rep_status", "rep_why"]
    assert gone.schema.field("metadata").type == source.schema.field("metadata").type
    assert [row["rep_status"] for row in gone.to_pylist()] == ["refused"] * 4 + ["unknown"] * 3
    assert _counted(summary) == (out.num_rows, gone.num_rows) == (2, 7)


def test_a_struct_path_reads_only_that_field_and_a_null_struct_is_no_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The origins' pass (nothing written back) reads the struct's one field, never the
    text; a row whose struct is null has no URL (unreadable), whatever its field holds;
    a path that is not in the schema names the dotted paths that are."""
    pyarrow, parquet = needs("pyarrow"), needs("pyarrow.parquet")
    path = tmp_path / "nested.parquet"
    metadata = pyarrow.array([{"url": URLS[0], "n": 1}, None, {"url": URLS[1], "n": 3}])
    parquet.write_table(pyarrow.table({"text": ["x" * 100] * 3, "metadata": metadata}), str(path))
    columns: list[Any] = []
    iter_batches = parquet.ParquetFile.iter_batches

    def spy(self: Any, *args: Any, **kwargs: Any) -> Any:
        columns.append(kwargs.get("columns"))
        return iter_batches(self, *args, **kwargs)

    monkeypatch.setattr(parquet.ParquetFile, "iter_batches", spy)
    dataset = open_dataset(path, "metadata.url")
    [chunk] = list(dataset.chunks(rows=False))
    assert columns == [["metadata.url"]]
    assert [(item.url, bool(item.problem)) for item in chunk.items] == [
        (URLS[0], False), ("", True), (URLS[1], False)
    ]  # fmt: skip
    code, _ = recheck_tool(str(path), "--column", "metadata.uri", "--purpose", "search",
                           "--documents", str(_warc_of(tmp_path)))  # fmt: skip
    assert code == EXIT_USAGE


def test_a_date_column_in_the_struct_is_read_by_its_path(tmp_path: Path) -> None:
    """``--date-column metadata.date`` of datatrove's Parquet layout was no column: every
    refused item's ``then`` was unknown, its date unread. Read by its path, each is
    dated (2025-03-01: before the WARC's only capture, 2025-04-01)."""
    needs("pyarrow")
    [shard] = _datatrove_shards(tmp_path / "data", "parquet", URLS)
    report = tmp_path / "report.jsonl"
    recheck_tool(str(shard), "--column", "metadata.url", "--date-column", "metadata.date",
                 "--purpose", "search", "--documents", str(_warc_of(tmp_path)),
                 f"--report={report}")  # fmt: skip
    refused = [line for line in report_lines(report) if line["status"] == "refused"]
    assert len(refused) == 4
    assert {line["then"] for line in refused} == {"no capture before 2025-03-01T00:00:00Z"}


def test_a_wrong_struct_path_is_one_line_naming_the_paths_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    needs("pyarrow")
    [shard] = _datatrove_shards(tmp_path / "data", "parquet", URLS)
    code, _ = recheck_tool(str(shard), "--column", "metadata.uri", "--purpose", "search",
                           "--documents", str(_warc_of(tmp_path)))  # fmt: skip
    assert code == EXIT_USAGE
    [said] = capsys.readouterr().err.splitlines()
    assert said == (f"scrapy_rep: error: {shard}: no column 'metadata.uri' (text, id, "
                    "metadata.url, metadata.dump, metadata.date): name the column that holds "
                    "each item's URL with --column (a dotted path into a struct column: "
                    "metadata.url)")  # fmt: skip


def test_datatroves_jsonl_gz_shards_are_read_as_a_folder_and_as_files(tmp_path: Path) -> None:
    """datatrove's ``JsonlWriter`` writes ``00000.jsonl.gz`` by default: a folder of them
    "holds no file of a dataset format", one named alone was "not an audit trail". Each
    is read, and written back gzip-compressed under its own name, each kept line byte for
    byte once decompressed, each removed one with its reason; the counts are the lines."""
    shards = _datatrove_shards(tmp_path / "data", "jsonl", URLS, ranks=2)
    assert [path.name for path in shards] == ["00000.jsonl.gz", "00001.jsonl.gz"]
    source = [line for path in shards for line in _lines_of(path)]
    kept, removed = tmp_path / "kept", tmp_path / "removed"
    code, summary = recheck_tool(str(tmp_path / "data"), "--column", "metadata.url",
                                 "--purpose", "search", "--documents", str(_warc_of(tmp_path)),
                                 f"--out={kept}", f"--removed={removed}")  # fmt: skip
    assert code == EXIT_REMOVED
    for folder in (kept, removed):
        assert sorted(path.name for path in folder.iterdir() if path.name[0] != ".") == [
            "00000.jsonl.gz", "00001.jsonl.gz"
        ]  # fmt: skip
    out = [line for path in sorted(kept.glob("*.gz")) for line in _lines_of(path)]
    gone = [json.loads(line) for path in sorted(removed.glob("*.gz")) for line in _lines_of(path)]
    assert sorted(out) == sorted(line for line in source
                                 if json.loads(line)["metadata"]["url"] in KEPT)  # fmt: skip
    assert {(row["metadata"]["url"], row["rep_status"]) for row in gone} == {
        (url, "unknown" if "c.example" in url else "refused") for url in URLS if url not in KEPT
    }  # fmt: skip
    assert _counted(summary) == (len(out), len(gone)) == (2, 7)
    report = tmp_path / "one.jsonl"
    code, summary = recheck_tool(str(shards[0]), "--column", "metadata.url", "--purpose",
                                 "search", "--documents", str(_warc_of(tmp_path)),
                                 f"--report={report}")  # fmt: skip
    assert code == EXIT_REMOVED
    assert len(report_lines(report)) == len(_lines_of(shards[0])) == sum(_counted(summary))


def test_a_single_gz_output_is_compressed_as_its_own_name_says(tmp_path: Path) -> None:
    """A lone file's ``--out`` is written as its name says: ``kept.jsonl.gz`` gzip
    (no name and no time in its header: two runs write the same bytes),
    ``kept.jsonl`` as it is."""
    [shard] = _datatrove_shards(tmp_path / "data", "jsonl", URLS)
    warc = _warc_of(tmp_path)
    common = [str(shard), "--column", "metadata.url", "--purpose", "search", "--documents",
              str(warc)]  # fmt: skip
    recheck_tool(*common, f"--out={tmp_path / 'kept.jsonl.gz'}")
    first = (tmp_path / "kept.jsonl.gz").read_bytes()
    recheck_tool(*common, f"--out={tmp_path / 'kept.jsonl.gz'}",
                 f"--removed={tmp_path / 'r.jsonl'}")  # fmt: skip
    assert (tmp_path / "kept.jsonl.gz").read_bytes() == first
    assert first[3] == 0 and first[4:8] == b"\0\0\0\0"  # FLG: no FNAME; MTIME 0
    assert [json.loads(line)["metadata"]["url"] for line in gzip.decompress(first).splitlines()
            ] == KEPT  # fmt: skip
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 7  # plain, as named


def test_datatroves_zstd_shards_are_read_and_written_as_zstd(tmp_path: Path) -> None:
    needs("backports.zstd")
    [shard] = _datatrove_shards(tmp_path / "data", "jsonl", URLS, compression="zstd")
    assert shard.name == "00000.jsonl.zst"
    code, summary = recheck_tool(str(tmp_path / "data"), "--column", "metadata.url",
                                 "--purpose", "search", "--documents", str(_warc_of(tmp_path)),
                                 f"--out={tmp_path / 'kept'}")  # fmt: skip
    assert code == EXIT_REMOVED
    out = _lines_of(tmp_path / "kept" / "00000.jsonl.zst")
    assert [json.loads(line)["metadata"]["url"] for line in out] == KEPT
    assert _counted(summary) == (2, 7)


def test_zstd_without_its_module_is_one_line_naming_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "items.jsonl.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd")
    for module in ("compression.zstd", "backports.zstd"):
        monkeypatch.setitem(sys.modules, module, None)  # an import of it fails
    code, _ = recheck_tool(str(path), "--purpose", "search", "--documents", str(_warc_of(tmp_path)))
    assert code == EXIT_USAGE
    [said] = capsys.readouterr().err.splitlines()
    assert said.startswith(f"scrapy_rep: error: {path}: reading and writing zstd (.zst) "
                           "needs backports.zstd")  # fmt: skip
    assert "pip install backports.zstd" in said
    write_jsonl(tmp_path / "items.jsonl", URLS)
    code, _ = recheck_tool(str(tmp_path / "items.jsonl"), "--purpose", "search",
                           "--documents", str(_warc_of(tmp_path)),
                           f"--out={tmp_path / 'kept.jsonl.zst'}")  # fmt: skip
    assert code == EXIT_USAGE
    [said] = capsys.readouterr().err.splitlines()
    assert said.startswith(f"scrapy_rep: error: --out {tmp_path / 'kept.jsonl.zst'}: reading")
    assert not (tmp_path / "kept.jsonl.zst").exists()


def _gzip_lines(path: Path, count: int) -> bytes:
    """``count`` JSON lines of :data:`URLS`' origins gzip-compressed into ``path``
    (incompressible enough that a cut loses lines); the compressed bytes."""
    lines = [json.dumps({"url": URLS[n % len(URLS)], "text": f"{n:08x}" * 40}) + "\n"
             for n in range(count)]  # fmt: skip
    data = gzip.compress("".join(lines).encode(), mtime=0)
    path.write_bytes(data)
    return data


@pytest.mark.parametrize("damage", ["cut", "flipped"])
def test_a_cut_or_corrupt_gzip_shard_stops_the_run_before_work_when_read_whole_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    """Fetched documents: the first pass reads every shard whole, so a gzip cut short (a
    copy that stopped) or corrupt (a bit flipped: its CRC-32) stops the run before any
    document is fetched, one line naming the line it follows; nothing is written."""
    data = _gzip_lines(tmp_path / "items.jsonl.gz", 3000)
    broken = data[: len(data) // 2] if damage == "cut" else (
        data[:-20] + bytes([data[-20] ^ 1]) + data[-19:]
    )  # fmt: skip
    (tmp_path / "items.jsonl.gz").write_bytes(broken)
    asked: list[FetchRequest] = []

    def fetcher(request: FetchRequest) -> FetchResult:
        asked.append(request)
        return FetchResult()

    code = main([str(tmp_path / "items.jsonl.gz"), "--purpose", "search", "--no-progress",
                 f"--out={tmp_path / 'kept.jsonl.gz'}"], io.StringIO(), fetcher)  # fmt: skip
    assert code == EXIT_USAGE and not asked
    [said] = capsys.readouterr().err.splitlines()
    assert re.fullmatch(rf"scrapy_rep: error: {re.escape(str(tmp_path))}/items\.jsonl\.gz: its "
                        r"gzip data is cut short or corrupt after line [\d,]+ \(.+\)",
                        said), said  # fmt: skip
    assert not (tmp_path / "kept.jsonl.gz").exists()


def test_a_gzip_shard_cut_half_way_fails_the_trails_run_as_a_shard_that_fails_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With a WARC no pass reads a shard before it is decided: the cut is met half-way,
    the trail's run ends as failed with the items decided before it, exit 2, and no
    output is written (docs/recheck.md, "What it writes")."""
    data = _gzip_lines(tmp_path / "b.jsonl.gz", 20_000)
    (tmp_path / "b.jsonl.gz").write_bytes(data[: len(data) * 3 // 4])
    write_jsonl(tmp_path / "a.jsonl", URLS)
    trail, kept = tmp_path / "t.jsonl", tmp_path / "kept"
    code, _ = recheck_tool(str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl.gz"), "--purpose",
                           "search", "--documents", str(_warc_of(tmp_path)), f"--trail={trail}",
                           f"--out={kept}")  # fmt: skip
    assert code == EXIT_USAGE
    err = capsys.readouterr().err
    assert re.search(r"b\.jsonl\.gz: its gzip data is cut short or corrupt after line [\d,]+", err)
    lines = [json.loads(line) for line in trail.read_text().splitlines()]
    end = [line for line in lines if line["type"] not in ("site", "head")][-1]
    assert end["type"] == "end" and end["reason"] == "failed", end
    assert "b.jsonl.gz: its gzip data is cut short or corrupt after line" in end["error"]
    decided = [line for line in lines if line["type"] == "item"]
    assert len(decided) == end["counts"]["items"] > len(URLS)  # a.jsonl's, and b's before it
    assert list(kept.iterdir()) == []  # no output, no temporary file left


@pytest.mark.parametrize(
    ("written", "said"),
    [(b"", "an empty file, not gzip data (which starts with a header): a copy or a write "
           "that never finished?"),
     (b'{"url": "https://a.example/"}\n', "not gzip data as its name says (plain text): name "
                                          "it without its compression suffix, or compress it")],
    ids=["empty", "plain text"],
)  # fmt: skip
def test_a_gz_file_that_holds_no_gzip_data_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], written: bytes, said: str
) -> None:
    """Read as the trail it was taken for, it was "not an audit trail"; read as plain
    text, its output (named .gz, written gzip) would not be the format it came in."""
    path = tmp_path / "data" / "part.jsonl.gz"
    path.parent.mkdir()
    path.write_bytes(written)
    write_jsonl(tmp_path / "data" / "other.jsonl", URLS)
    code, _ = recheck_tool(str(tmp_path / "data"), "--purpose", "search", "--documents",
                           str(_warc_of(tmp_path)), f"--out={tmp_path / 'kept'}")  # fmt: skip
    assert code == EXIT_USAGE
    assert capsys.readouterr().err.splitlines() == [f"scrapy_rep: error: {path}: {said}"]
    assert not (tmp_path / "kept").exists()


def test_gzip_data_named_as_plain_text_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "items.jsonl"
    path.write_bytes(gzip.compress(b'{"url": "https://a.example/"}\n'))
    code, _ = recheck_tool(str(path), "--purpose", "search", "--documents", str(_warc_of(tmp_path)))
    assert code == EXIT_USAGE
    assert capsys.readouterr().err.splitlines() == [
        f"scrapy_rep: error: {path}: gzip data, which its name does not say: name the file "
        "so (.gz, .zst), or give it decompressed (zcat)"
    ]  # fmt: skip


def test_a_folder_of_plain_and_gzip_shards_of_one_stem_keeps_each_apart(tmp_path: Path) -> None:
    """``part.jsonl`` and ``part.jsonl.gz`` (the same stem once .gz is removed) are two
    shards: each read, each written back under its own name and compression, counted
    once each; ``--out`` onto their own folder is refused before anything is read."""
    data = tmp_path / "data"
    data.mkdir()
    plain = write_jsonl(data / "part.jsonl", URLS[:5])
    write_jsonl(tmp_path / "part.jsonl", URLS[2:7])
    (data / "part.jsonl.gz").write_bytes(gzip.compress((tmp_path / "part.jsonl").read_bytes()))
    warc = _warc_of(tmp_path)
    code, summary = recheck_tool(str(data), "--purpose", "search", "--documents", str(warc),
                                 f"--out={tmp_path / 'kept'}",
                                 f"--removed={tmp_path / 'gone'}")  # fmt: skip
    assert code == EXIT_REMOVED
    kept_plain = _lines_of(tmp_path / "kept" / "part.jsonl")
    kept_gz = _lines_of(tmp_path / "kept" / "part.jsonl.gz")
    assert kept_plain == [line for line in plain if json.loads(line)["url"] in KEPT]
    assert [json.loads(line)["url"] for line in kept_gz] == ["https://a.example/x"]
    assert _counted(summary) == (3, 7)  # 5 + 5 items: a.example/x is in both shards
    assert f"| `{data / 'part.jsonl.gz'}` | jsonl | 5 | 1 | 3 | 1 |" in summary
    before = {path.name: path.read_bytes() for path in data.iterdir()}
    code, _ = recheck_tool(str(data), "--purpose", "search", "--documents", str(warc),
                           f"--out={data}")  # fmt: skip
    assert code == EXIT_USAGE
    assert {path.name: path.read_bytes() for path in data.iterdir()} == before


def test_a_warc_named_as_the_dataset_is_one_line_pointing_to_documents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--documents warcs/*.warc.gz`` expanded by the shell names the second WARC as a
    DATASET: said so, never read as a trail or a CSV."""
    warc = _warc_of(tmp_path)
    write_jsonl(tmp_path / "items.jsonl", URLS)
    code, _ = recheck_tool(str(tmp_path / "items.jsonl"), "--purpose", "search", "--documents",
                           str(warc), str(warc))  # fmt: skip
    assert code == EXIT_USAGE
    [said] = capsys.readouterr().err.splitlines()
    assert said.startswith(f"scrapy_rep: error: {warc}: a WARC file, not a collection: give it "
                           "with --documents")  # fmt: skip


@pytest.mark.parametrize("option", ["report", "summary"])
def test_a_report_named_as_compressed_is_refused_before_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    """A report named ``.jsonl.gz`` would be plain text a later run of its folder reads
    as a gzip shard: refused, as is a summary so named."""
    write_jsonl(tmp_path / "items.jsonl", URLS)
    path = tmp_path / "out.jsonl.gz"
    code, _ = recheck_tool(str(tmp_path / "items.jsonl"), "--purpose", "search", "--documents",
                           str(_warc_of(tmp_path)), f"--{option}={path}")  # fmt: skip
    assert code == EXIT_USAGE
    [said] = capsys.readouterr().err.splitlines()
    assert said.startswith(f"scrapy_rep: error: --{option} {path}: written uncompressed")
    assert not path.exists()
