"""No item is lost and no run stopped by one record: a dataset read from a pipe
(standard input, a FIFO, ``<(zcat …)``) is read whole, twice if need be; a long CSV field
is read; a record that cannot be read (a bare CR, a lone surrogate in its URL) is one
unreadable item, reported and removed, and the run goes on (exit 2)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rep_audit.verify import verify
from rep_recheck.command import (
    EXIT_REMOVED,
    FetchRequest,
    FetchResult,
    main,
)
from tests.support.recheck import recheck_tool, report_lines, robots_capture, write_warc

ROBOTS = "User-agent: *\nDisallow: /no\n"


def _robots_warc(tmp_path: Path) -> Path:
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", ROBOTS)])
    return warc


def _many_items(count: int) -> bytes:
    """``count`` JSON lines, every third refused (``/no/``), each a little text."""
    return b"".join(
        json.dumps({"url": f"https://a.example/{'no/' if n % 3 == 0 else ''}{n}",
                    "text": "lorem ipsum " * 4}).encode() + b"\n"
        for n in range(count)
    )  # fmt: skip


@pytest.fixture
def pipe() -> Iterator[Callable[[bytes], str]]:
    """A pipe as a shell's process substitution gives one (``<(zcat items.jsonl.gz)``:
    ``/dev/fd/N``), fed ``body`` by a thread."""
    if not Path("/dev/fd").is_dir():
        pytest.skip("no /dev/fd on this system")
    opened: list[int] = []

    def make(body: bytes) -> str:
        read, write = os.pipe()
        opened.append(read)

        def feed() -> None:
            with os.fdopen(write, "wb") as file, contextlib.suppress(BrokenPipeError):
                file.write(body)

        threading.Thread(target=feed, daemon=True).start()
        return f"/dev/fd/{read}"

    yield make
    for read in opened:
        os.close(read)


def test_a_dataset_from_standard_input_loses_no_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = _many_items(3000)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
    out, report = tmp_path / "kept.jsonl", tmp_path / "report.jsonl"
    warc = str(_robots_warc(tmp_path))
    code, summary = recheck_tool("-", "--purpose", "search", "--documents", warc,
                                 f"--out={out}", f"--report={report}")  # fmt: skip
    assert code == EXIT_REMOVED
    assert len(report_lines(report)) == 3000
    kept = [line for n, line in enumerate(body.splitlines(True)) if n % 3]
    assert out.read_bytes() == b"".join(kept)
    assert "Items: 3,000 over 1 origin(s)" in summary


def test_a_dataset_from_a_pipe_loses_no_item_and_is_read_twice(
    tmp_path: Path, pipe: Callable[[bytes], str]
) -> None:
    """Its format sniffed from its first line, then read once for its origins and once
    for its items (documents fetched now): every byte of the pipe is read once."""
    body = _many_items(3000)
    asked: list[FetchRequest] = []

    def fetcher(request: FetchRequest) -> FetchResult:
        asked.append(request)
        return FetchResult()  # nothing had: every item unknown

    report = tmp_path / "report.jsonl"
    code = main([pipe(body), "--purpose", "search", "--no-progress", f"--report={report}"],
                io.StringIO(), fetcher)  # fmt: skip
    assert code == EXIT_REMOVED
    assert [request.origins for request in asked] == [["https://a.example"]]
    lines = report_lines(report)
    assert [line["line"] for line in lines] == list(range(1, 3001))
    assert {line["status"] for line in lines} == {"unknown"}
    out = tmp_path / "kept.jsonl"
    code, _ = recheck_tool(pipe(body), "--purpose", "search", "--documents",
                           str(_robots_warc(tmp_path)), f"--out={out}")  # fmt: skip
    assert code == EXIT_REMOVED  # read once (documents from a WARC): the first lines too
    assert out.read_bytes() == b"".join(
        line for n, line in enumerate(body.splitlines(True)) if n % 3
    )


def test_a_csv_field_longer_than_128_kib_is_read(tmp_path: Path) -> None:
    text = "word " * 60_000  # 300 KB: a page's text, as a CSV export holds it
    dataset = tmp_path / "items.csv"
    rows = [b"text,url\r\n", f'"{text}",https://a.example/yes\r\n'.encode(),
            b"short,https://a.example/no/1\r\n"]  # fmt: skip
    dataset.write_bytes(b"".join(rows))
    out = tmp_path / "kept.csv"
    code, _ = recheck_tool(str(dataset), "--purpose", "search", "--documents",
                           str(_robots_warc(tmp_path)), f"--out={out}")  # fmt: skip
    assert code == EXIT_REMOVED
    assert out.read_bytes() == rows[0] + rows[1]


def test_a_bare_cr_makes_one_record_unreadable_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "items.csv"
    rows = [b"title,url\r\n", b"a,https://a.example/yes\r\n", b"b\rc,https://a.example/x\r\n",
            b"d,https://a.example/no/1\r\n", b"e,https://a.example/yes/2\r\n"]  # fmt: skip
    dataset.write_bytes(b"".join(rows))
    out, removed, report = (tmp_path / name for name in ("kept.csv", "removed.csv", "r.jsonl"))
    code, _ = recheck_tool(str(dataset), "--purpose", "search", "--documents",
                           str(_robots_warc(tmp_path)), f"--out={out}", f"--removed={removed}",
                           f"--report={report}")  # fmt: skip
    assert code == EXIT_REMOVED  # an unreadable item: reported, removed, the run went on
    assert [line["status"] for line in report_lines(report)] == [
        "kept", "unreadable", "refused", "kept"
    ]  # fmt: skip
    assert out.read_bytes() == rows[0] + rows[1] + rows[4]
    forbidden = b"refused,Forbidden by https://a.example/robots.txt (line 2: Disallow: /no)"
    assert (
        removed.read_bytes()
        == (  # the unreadable record as it was, the other with why
            b"title,url,rep_status,rep_why\r\n"
            + rows[2]
            + rows[3][:-2]
            + b","
            + forbidden
            + b"\r\n"
        )
    )
    assert "line 3: not a CSV record" in capsys.readouterr().err


def test_a_lone_surrogate_in_a_url_is_one_unreadable_item(tmp_path: Path) -> None:
    """JSON may escape a lone surrogate (``"\\ud800"``); no URL holds one, and the report
    and the trail are written all the same (they crashed on it)."""
    dataset = tmp_path / "items.jsonl"
    urls = ["https://a.example/yes", "https://a.example/\\ud800", "https://a.example/no/\\udfff",
            "https://a.example/no/1"]  # fmt: skip
    dataset.write_bytes(b"".join(b'{"url": "%s"}\n' % url.encode() for url in urls))
    report, trail = tmp_path / "report.jsonl", tmp_path / "trail.jsonl"
    warc = _robots_warc(tmp_path)
    code, _ = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                           f"--report={report}", f"--trail={trail}")  # fmt: skip
    assert code == EXIT_REMOVED
    said = report_lines(report)
    assert [line["status"] for line in said] == ["kept", "unreadable", "unreadable", "refused"]
    assert said[1]["url"] == "https://a.example/\ud800"
    assert "lone surrogate" in said[1]["why"]
    assert verify(trail).clean


def test_a_quote_never_closed_makes_its_record_unreadable_and_the_lines_after_it_are_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Record 9 of 1,000 opens a quote it never closes: the csv module read the 991 lines
    after it as its text (9 items, no warning; ``--out`` held them, the 496 /private/ URLs
    robots.txt disallows with them). Its line is one unreadable item, named; the lines
    after it are items decided as any other."""
    dataset = tmp_path / "items.csv"
    rows = [b"url,title,text\r\n"] + [
        f"https://a.example/{'private/' if n % 2 == 0 else ''}{n},page {n},a b\r\n".encode()
        for n in range(1, 1001)
    ]
    rows[9] = b'https://a.example/9,"page 9,a b\r\n'  # its quote is never closed
    dataset.write_bytes(b"".join(rows))
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /private\n")])
    out, removed, report = (tmp_path / name for name in ("kept.csv", "removed.csv", "r.jsonl"))
    code, _ = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                           f"--out={out}", f"--removed={removed}",
                           f"--report={report}")  # fmt: skip
    assert code == EXIT_REMOVED
    said = {line["line"]: line["status"] for line in report_lines(report)}
    assert len(said) == 1000 and said.pop(10) == "unreadable"
    assert said == {n + 1: "refused" if n % 2 == 0 else "kept" for n in range(1, 1001) if n != 9}
    assert sum(status == "refused" for line, status in said.items() if line > 10) == 496
    assert out.read_bytes() == b"".join(
        row for n, row in enumerate(rows) if n == 0 or (n % 2 and n != 9)
    )
    forbidden = b",refused,Forbidden by https://a.example/robots.txt (line 2: Disallow: /private)"
    assert (
        removed.read_bytes()
        == b"".join(  # the unreadable record as it was
            row[:-2] + (b",rep_status,rep_why" if n == 0 else forbidden) + b"\r\n"
            if n != 9
            else row
            for n, row in enumerate(rows)
            if n == 0 or n == 9 or (n and n % 2 == 0)
        )
    )
    err = capsys.readouterr().err
    assert "line 10: not a CSV record (a quote opened in it is never closed" in err
