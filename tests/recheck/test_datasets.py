"""The items of a dataset, and the dataset written back line for line, row for row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rep_recheck.datasets import (
    PARQUET_BATCH,
    PARQUET_ROWS_BATCH,
    DatasetError,
    Item,
    format_of,
    open_dataset,
    url_problem,
)
from tests.support.recheck import (
    needs,
    recheck_tool,
    robots_capture,
    write_csv,
    write_jsonl,
    write_parquet,
    write_warc,
)

URLS = ["https://a.example/1", "https://a.example/2", "http://b.example/x?q=1"]


@pytest.mark.parametrize(
    ("url", "readable"),
    [("http://[::1]/x", True), ("http://[fe80::1%25en0]:8/", True), ("http://[v1.a]/", True),
     ("http://a.example/p?q=[1]", True), ("http://a.example/[x]", True),
     ("http://[zz]/x", False), ("http://[1.2.3.4]/x", False), ("https://[::1/x", False),
     ("http://u:p@[FE80::1%25eth0]:8/", True), ("http://[::FFFF:1.2.3.4]/", True),
     ("http://[vF.a]/", True), ("http://[V1.a]/", False), ("http://us[er@[::1]/", False),
     ("http://[::1]@a.example/", False), ("http://x[::1]/", False), ("http://[::1]x/", False),
     ("http://[::1]]/", False), ("http://[::1]%5D:8/", False)],
)  # fmt: skip
def test_a_host_in_brackets_is_read_only_as_an_ip_literal(url: str, readable: bool) -> None:
    """RFC 3986 §3.2.2: in brackets, an IPv6 address or an IPvFuture, alone in the host,
    never in the userinfo. Python 3.10's ``urlsplit`` reads ``http://[zz]/`` as the host
    ``zz``, 3.11.4 and newer refuse it; 3.11.4 to 3.13.3 check the netloc's first brackets
    (``us[er@``) and a ``v`` in lower case, the newest refuse a character beside them
    (``[::1]x``): the item is unreadable on every Python (CI's oldest Python found the
    difference)."""
    assert (url_problem(url) == "") is readable


@pytest.mark.parametrize(
    ("url", "readable"),
    [("http://a b.example/x", False), ("https://a.example /x", False),
     ("http://a%20b.example/", False), ("http://ex\x00ample.com/", False),
     ("http://a\x7fb.example/", False), ("http://a\u3000b.example/", False),
     ("http://a\u00a0b.\u4f8b\u5b50/", False), ("http://a_b.example/x y", True),
     ("http://a%2Db.example/", True), ("https://\u4f8b\u5b50.example/a b", True),
     ("http://user name@a.example/", True)],
)  # fmt: skip
def test_a_host_with_a_space_or_a_control_character_is_unreadable(url: str, readable: bool) -> None:
    """A host holding a space (or a control character, written, percent-encoded, or as
    IDNA reads it: U+3000 is a space to it) was ``unknown``: no Python's ``urlsplit``
    refuses it, so it had an origin, which no capture is of. No host holds one (RFC 3986
    §3.2.2): unreadable on every Python, as a host in bad brackets is. A path's or a
    userinfo's space is not the host's."""
    assert (url_problem(url) == "") is readable
    if not readable:
        assert "its host holds a space or a control character" in url_problem(url)


@pytest.mark.parametrize(
    ("url", "readable"),
    [("https://a.example\\x", False), ("https://a.example\\", False),
     ("https://a.example%5Cx/", False), ("https://a.example/x\\y", True),
     ("https://a.example/?q=\\", True)],
)  # fmt: skip
def test_a_host_with_a_backslash_is_unreadable(url: str, readable: bool) -> None:
    """``https://a.example\\x`` was ``unknown``, its origin ``a.example\\x`` of no capture
    (kept under ``--keep-unknown``), while a browser reads it as ``https://a.example/x``
    (the WHATWG URL standard: a special scheme's backslash is a slash), which the site
    may refuse. Which page it names is not known: unreadable. A path's or a query's
    backslash is not the host's."""
    assert (url_problem(url) == "") is readable
    if not readable:
        assert "its host holds a backslash" in url_problem(url)


def _items(path: Path, **options: str) -> list[Item]:
    return [item for chunk in open_dataset(path, **options).chunks() for item in chunk.items]


def _write_half(path: Path, out: Path, **options: str) -> None:
    """Keep every other item (the first, the third…)."""
    dataset = open_dataset(path, **options)
    writer = dataset.writer(out.open("wb"))
    for chunk in dataset.chunks():
        writer.write(chunk, [n % 2 == 0 for n in range(len(chunk.items))])
    writer.close()


def test_json_lines_are_written_back_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    lines = write_jsonl(path, URLS)
    assert [(i.number, i.url, i.problem) for i in _items(path)] == [
        (1, URLS[0], ""), (2, URLS[1], ""), (3, URLS[2], "")
    ]  # fmt: skip
    _write_half(path, tmp_path / "kept.jsonl")
    assert (tmp_path / "kept.jsonl").read_bytes() == lines[0] + lines[2]


def test_a_bad_line_is_an_item_with_a_problem_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_bytes(
        b'{"url": "https://a.example/1"}\n{not json\n\n["a list"]\n{"url": "ftp://x.example/f"}\n'
        b'{"title": "no url"}\n{"url": 7}'
    )
    found = [(i.number, i.url, i.problem.split(" (")[0].split(":")[0]) for i in _items(path)]
    assert found == [
        (1, "https://a.example/1", ""),
        (2, "", "not JSON"),
        (4, "", "not a JSON object"),
        (5, "ftp://x.example/f", "not an http(s) URL"),
        (6, "", "no 'url' field"),
        (7, "", "no URL"),
    ]
    nested = tmp_path / "nested.jsonl"
    nested.write_bytes(b'{"meta": {"url": "https://a.example/n"}}\n')
    assert [i.url for i in _items(nested, column="meta.url")] == ["https://a.example/n"]


def test_a_first_line_without_the_column_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    write_jsonl(path, URLS, column="link")
    with pytest.raises(DatasetError, match=r"line 1 has no .url. field.*--column"):
        _items(path)
    assert [i.url for i in _items(path, column="link")] == URLS


def test_csv_records_are_written_back_as_they_were_a_field_over_two_lines_too(
    tmp_path: Path,
) -> None:
    path = tmp_path / "items.csv"
    rows = write_csv(path, URLS)
    found = _items(path)
    assert [(i.number, i.url) for i in found] == [(2, URLS[0]), (3, URLS[1]), (5, URLS[2])]
    _write_half(path, tmp_path / "kept.csv")
    assert (tmp_path / "kept.csv").read_bytes() == b"title,url\r\n" + rows[0] + rows[2]
    with pytest.raises(DatasetError, match="no column 'link'"):
        _items(path, column="link")


def test_parquet_rows_are_written_back_with_the_schema(tmp_path: Path) -> None:
    parquet = needs("pyarrow.parquet")
    path = tmp_path / "items.parquet"
    write_parquet(path, URLS)
    assert [i.url for i in _items(path)] == URLS
    _write_half(path, tmp_path / "kept.parquet")
    table = parquet.read_table(str(tmp_path / "kept.parquet"))
    assert table.to_pydict() == {"url": [URLS[0], URLS[2]], "n": [0, 2]}
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    with pytest.raises(DatasetError, match="not a Parquet file"):
        _items(tmp_path / "bad.parquet")


@pytest.mark.parametrize("name", ["kept.parquet", "kept.jsonl"])
def test_an_output_is_written_into_the_file_made_new_never_reopened_by_name(
    tmp_path: Path, name: str
) -> None:
    """The output's temporary file, made new (O_EXCL, O_NOFOLLOW), is the one written:
    a symlink swapped in at its name before the first row (a co-user who can write the
    folder) is never followed; the rows are renamed over the output when all are whole.
    (Parquet: pyarrow wrote into the temporary name, opened again, at its first row.)"""
    from rep_recheck.files import Staged

    if name.endswith(".parquet"):
        needs("pyarrow.parquet")  # the Parquet extra; without it, no Parquet output
        source = tmp_path / "items.parquet"
        write_parquet(source, URLS)
    else:
        source = tmp_path / "items.jsonl"
        write_jsonl(source, URLS)
    dataset = open_dataset(source)
    folder = tmp_path / "out"
    folder.mkdir()
    staged = Staged()
    writer = dataset.writer(staged.open(folder / name))
    (temporary,) = folder.iterdir()
    outside = tmp_path / "outside"
    outside.write_bytes(b"not the recheck's\n")
    temporary.unlink()  # swapped: the temporary name now a symlink to another file
    temporary.symlink_to(outside)
    for chunk in dataset.chunks():
        writer.write(chunk, [n % 2 == 0 for n in range(len(chunk.items))])
    writer.close()
    assert outside.read_bytes() == b"not the recheck's\n"
    staged.discard()  # the swapped name removed; the file written was never named
    assert outside.read_bytes() == b"not the recheck's\n" and not list(folder.iterdir())


def test_a_parquet_output_is_renamed_over_its_path_once_whole(tmp_path: Path) -> None:
    from rep_recheck.files import Staged

    parquet = needs("pyarrow.parquet")  # the Parquet extra; without it, no Parquet output
    source = tmp_path / "items.parquet"
    write_parquet(source, URLS)
    dataset = open_dataset(source)
    final = tmp_path / "kept.parquet"
    final.write_bytes(b"the previous run's")
    staged = Staged()
    writer = dataset.writer(staged.open(final))
    for chunk in dataset.chunks():
        writer.write(chunk, [n % 2 == 0 for n in range(len(chunk.items))])
    writer.close()
    assert final.read_bytes() == b"the previous run's"  # not renamed until committed
    staged.commit()
    assert parquet.read_table(str(final)).to_pydict() == {"url": [URLS[0], URLS[2]], "n": [0, 2]}
    assert sorted(path.name for path in tmp_path.iterdir()) == ["items.parquet", "kept.parquet"]


def test_the_format_is_told_by_the_name_and_the_first_line(tmp_path: Path) -> None:
    trail = tmp_path / "t.jsonl"
    trail.write_text('{"type":"run","run":"x","prev":""}\n')
    export = tmp_path / "e.jsonl"
    export.write_text('{"export":1,"trail":"t.jsonl"}\n')
    plain = tmp_path / "p.jsonl"
    write_jsonl(plain, URLS)
    assert [format_of(p) for p in (trail, export, plain)] == ["trail", "export", "jsonl"]
    assert format_of(tmp_path / "x.parquet") == "parquet"
    with pytest.raises(DatasetError, match="no such file"):
        open_dataset(tmp_path / "missing.jsonl")
    with pytest.raises(DatasetError, match="is a directory"):
        open_dataset(tmp_path)


def test_an_export_says_what_the_crawl_did_then(tmp_path: Path) -> None:
    path = tmp_path / "export.jsonl"
    path.write_text(
        '{"export":1,"trail":"t.jsonl","head":"h","lines":3}\n'
        '{"asset":"page","url":"https://a.example/1","preferences":{"ai-train":"allowed"}}\n'
        '{"asset":"page","url":"https://a.example/2","preferences":{"ai-train":"disallowed"}}\n'
    )
    found = [(i.number, i.url, i.then) for i in _items(path, purposes=("ai-train",))]  # type: ignore[arg-type]
    assert found == [(2, "https://a.example/1", "kept"), (3, "https://a.example/2", "refused")]
    _write_half(path, tmp_path / "kept.jsonl", purposes=("ai-train",))  # type: ignore[arg-type]
    assert (tmp_path / "kept.jsonl").read_text().splitlines() == path.read_text().splitlines()[:2]


def test_a_wide_parquet_file_has_only_its_url_column_read_unless_rows_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every column was read (600,000 rows of 2 KB text: 1.16 GB). The
    origins' pass, and a run that writes no row back, read the URL column alone, in
    batches; one that writes rows back reads whole rows in smaller batches."""
    pyarrow = needs("pyarrow")
    parquet = needs("pyarrow.parquet")
    path = tmp_path / "wide.parquet"
    urls = [f"https://a.example/{n}" for n in range(300)]
    parquet.write_table(pyarrow.table({"text": ["x" * 2048] * 300, "url": urls}), str(path))
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /1\n")])
    read: list[tuple[Any, Any]] = []
    iter_batches = parquet.ParquetFile.iter_batches

    def spy(self: Any, *args: Any, **kwargs: Any) -> Any:
        read.append((kwargs.get("columns"), kwargs.get("batch_size")))
        return iter_batches(self, *args, **kwargs)

    monkeypatch.setattr(parquet.ParquetFile, "iter_batches", spy)
    assert [c.data.schema.names for c in open_dataset(path).chunks(rows=False)] == [["url"]]
    report = tmp_path / "report.jsonl"
    common = [str(path), "--purpose", "search", "--documents", str(warc)]
    recheck_tool(*common, f"--report={report}")
    assert len(report.read_text().splitlines()) == 300
    assert read == [(["url"], PARQUET_BATCH)] * 2
    recheck_tool(*common, f"--out={tmp_path / 'kept.parquet'}")
    assert read[-1] == (None, PARQUET_ROWS_BATCH)
    kept = parquet.read_table(str(tmp_path / "kept.parquet"))
    assert kept.column_names == ["text", "url"] and kept.num_rows == 300 - 111  # /1, /1x, /1xx
