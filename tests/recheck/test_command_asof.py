"""``recheck --documents`` over dated captures: ``--as-of DATE`` decides with the
captures as they stood then, and ``then``/``changed`` say, for each item refused now,
what the capture nearest before its date (``--date-column``) said."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from rep_recheck.command import (
    EXIT_KEPT,
    EXIT_REMOVED,
    EXIT_USAGE,
    Recheck,
    main,
    parser,
)
from tests.support.recheck import recheck_tool, report_lines, robots_capture, write_warc

JAN, JUN = "2025-01-01T00:00:00Z", "2025-06-01T00:00:00Z"
ALLOW, DISALLOW = "User-agent: *\nAllow: /\n", "User-agent: *\nDisallow: /\n"
URL = "https://a.example/x"


def _warcs(tmp_path: Path, *robots: tuple[str, str]) -> list[str]:
    """``--documents`` of one WARC per (date, robots.txt of a.example)."""
    given = []
    for n, (date, text) in enumerate(robots):
        path = tmp_path / f"{n}.warc"
        write_warc(path, [robots_capture("https://a.example", text)], date=date)
        given += ["--documents", str(path)]
    return given


def _dataset(tmp_path: Path, dates: list[Any] | None = None) -> Path:
    """One item of :data:`URL` per date (a ``crawled`` field), or one undated item."""
    path = tmp_path / "items.jsonl"
    rows = [{"url": URL}] if dates is None else [{"url": URL, "crawled": d} for d in dates]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _report(tmp_path: Path, *argv: str) -> tuple[int, list[dict[str, Any]]]:
    report = tmp_path / "report.jsonl"
    code, _ = recheck_tool(*argv, "--purpose", "search", "--report", str(report))
    return code, report_lines(report)


@pytest.mark.parametrize(
    ("as_of", "code", "status"),
    [
        ("2024-12-31", EXIT_REMOVED, "unknown"),  # before every capture: none
        ("2025-01-01", EXIT_KEPT, "kept"),  # exactly at January's
        ("2025-03-01T12:00:00", EXIT_KEPT, "kept"),
        ("2025-06-01T00:00:00Z", EXIT_REMOVED, "refused"),  # exactly at June's
        ("2026-01-01", EXIT_REMOVED, "refused"),
    ],
)
def test_as_of_decides_with_the_newest_capture_at_or_before_it(
    tmp_path: Path, as_of: str, code: int, status: str
) -> None:
    warcs = _warcs(tmp_path, (JAN, ALLOW), (JUN, DISALLOW))
    found, lines = _report(tmp_path, str(_dataset(tmp_path)), *warcs, "--as-of", as_of)
    assert found == code
    assert lines[0]["status"] == status


def test_an_as_of_before_every_capture_says_when_the_origin_was_first_captured(
    tmp_path: Path,
) -> None:
    """An ``--as-of`` before an origin's first robots.txt capture makes its items unknown:
    each says so, with the date of that first capture, and the summary counts the origins
    captured only later (an origin never captured says only that it was not had)."""
    warcs = _warcs(tmp_path, (JAN, ALLOW), (JUN, DISALLOW))
    dataset = tmp_path / "items.jsonl"
    dataset.write_text('{"url": "https://a.example/x"}\n{"url": "https://b.example/x"}\n')
    report = tmp_path / "report.jsonl"
    code, summary = recheck_tool(str(dataset), *warcs, "--as-of", "2024-12-31", "--purpose",
                                 "search", "--report", str(report))  # fmt: skip
    assert code == EXIT_REMOVED
    whys = [(line["status"], line["why"]) for line in report_lines(report)]
    assert whys == [
        ("unknown", "no robots.txt of https://a.example was had at or before "
         "2024-12-31T00:00:00Z (--as-of): it was first captured on 2025-01-01T00:00:00Z"),
        ("unknown", "no robots.txt of https://b.example was had"),
    ]  # fmt: skip
    assert "**1 origin(s) have robots.txt captures only after --as-of 2024-12-31T00:00:00Z" in (
        summary
    ), summary


def test_a_robots_txt_redirected_to_a_capture_after_as_of_says_when_it_was_captured(
    tmp_path: Path,
) -> None:
    """A robots.txt captured by ``--as-of`` as a redirect to one captured only after it:
    its items are unknown, and say the target's first capture (the WARC holds it)."""
    jan, jun = tmp_path / "jan.warc", tmp_path / "jun.warc"
    moved = ("https://a.example/robots.txt", 301, b"", {"Location": "https://b.example/robots.txt"})
    write_warc(jan, [moved], date=JAN)
    write_warc(jun, [robots_capture("https://b.example", DISALLOW)], date=JUN)
    found, lines = _report(tmp_path, str(_dataset(tmp_path)), "--documents", str(jan),
                           "--documents", str(jun), "--as-of", "2025-03-01")  # fmt: skip
    assert (found, lines[0]["status"]) == (EXIT_REMOVED, "unknown")
    assert lines[0]["why"].endswith(
        "redirected to https://b.example/robots.txt, which the WARC does not hold at or "
        "before 2025-03-01T00:00:00Z (--as-of): it was first captured on 2025-06-01T00:00:00Z"
    )


def test_as_of_reads_one_warc_of_several_captures_too(tmp_path: Path) -> None:
    both = tmp_path / "both.warc"
    parts = _warcs(tmp_path, (JUN, DISALLOW), (JAN, ALLOW))[1::2]
    both.write_bytes(b"".join(Path(part).read_bytes() for part in parts))
    code, lines = _report(tmp_path, str(_dataset(tmp_path)), "--documents", str(both),
                          "--as-of", "2025-02-01")  # fmt: skip
    assert (code, lines[0]["status"]) == (EXIT_KEPT, "kept")


@pytest.mark.parametrize("as_of", ["yesterday", "2025-13-01", ""])
def test_a_date_that_does_not_parse_stops_at_start(
    tmp_path: Path, as_of: str, capsys: pytest.CaptureFixture[str]
) -> None:
    warcs = _warcs(tmp_path, (JAN, ALLOW))
    report = tmp_path / "report.jsonl"
    code, out = recheck_tool(str(_dataset(tmp_path)), "--purpose", "search", *warcs,
                             "--as-of", as_of, "--report", str(report))  # fmt: skip
    err = capsys.readouterr().err.splitlines()
    assert code == EXIT_USAGE and not out and not report.exists()
    assert len(err) == 1 and "--as-of" in err[0] and repr(as_of) in err[0]


@pytest.mark.parametrize("option", ["--as-of=2025-01-01", "--date-column=crawled"])
def test_dating_documents_fetched_now_is_refused(
    tmp_path: Path, option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = []
    code = main([str(_dataset(tmp_path)), "--purpose", "search", option, "--no-progress"],
                fetcher=asked.append)  # type: ignore[arg-type]  # fmt: skip
    err = capsys.readouterr().err.splitlines()
    assert code == EXIT_USAGE and not asked
    assert len(err) == 1 and option.split("=")[0] in err[0] and "nothing to date" in err[0]


def test_as_of_is_not_mixed_with_documents_fetched_now(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    warcs = _warcs(tmp_path, (JAN, ALLOW))
    code, _ = recheck_tool(str(_dataset(tmp_path)), "--purpose", "search", *warcs,
                           "--as-of", "2025-02-01", "--fetch-missing")  # fmt: skip
    err = capsys.readouterr().err.splitlines()
    assert code == EXIT_USAGE
    assert len(err) == 1 and "--as-of" in err[0] and "--fetch-missing" in err[0]


@pytest.mark.parametrize(
    ("older", "then", "changed"),
    [(ALLOW, "kept", True), (DISALLOW, "refused", False)],
)
def test_then_and_changed_come_from_the_older_capture(
    tmp_path: Path, older: str, then: str, changed: bool
) -> None:
    """Without a date column, ``then`` is the oldest capture's."""
    warcs = _warcs(tmp_path, (JUN, DISALLOW), (JAN, older))
    summary = tmp_path / "summary.md"
    code, lines = _report(tmp_path, str(_dataset(tmp_path)), *warcs, "--summary", str(summary))
    assert code == EXIT_REMOVED
    assert (lines[0]["status"], lines[0]["then"], lines[0]["changed"]) == ("refused", then,
                                                                           changed)  # fmt: skip
    text = summary.read_text(encoding="utf-8")
    assert ("kept -> refused" in text) is changed
    assert "WARCs" in text


def test_an_item_kept_now_has_its_then_too(tmp_path: Path) -> None:
    """Refused by January's robots.txt (a 500, a Disallow) and kept by June's: its crawl-
    time answer is on its row, and the summary counts it as a change back to kept."""
    warcs = _warcs(tmp_path, (JAN, DISALLOW), (JUN, ALLOW))
    summary = tmp_path / "summary.md"
    code, lines = _report(tmp_path, str(_dataset(tmp_path)), *warcs, "--summary", str(summary))
    assert code == EXIT_KEPT
    assert (lines[0]["status"], lines[0]["then"], lines[0]["changed"]) == ("kept", "refused", True)
    text = summary.read_text()
    assert ("Both ways, of the 1 item(s) with a status then: 0 kept then and refused now, "
            "1 refused then and kept now, 0 unknown now; 0 unchanged.") in text  # fmt: skip
    assert "| refused -> kept | robots.txt | 1 |" in text  # the line that allows it now


def test_the_summary_counts_the_changes_both_ways(tmp_path: Path) -> None:
    """Four dated items of two origins, each way and unchanged: every row has its then."""
    old, new = tmp_path / "old.warc", tmp_path / "new.warc"
    write_warc(old, [robots_capture("https://a.example", DISALLOW),
                     robots_capture("https://b.example", ALLOW)], date=JAN)  # fmt: skip
    write_warc(new, [robots_capture("https://a.example", ALLOW),
                     robots_capture("https://b.example", DISALLOW)], date=JUN)  # fmt: skip
    dataset = tmp_path / "items.jsonl"
    rows = [
        ("https://a.example/1", "2025-02-01"),
        ("https://b.example/1", "2025-02-01"),
        ("https://b.example/2", "2025-07-01"),
        ("https://a.example/2", "2025-07-01"),
    ]
    dataset.write_text("".join(json.dumps({"url": u, "crawled": d}) + "\n" for u, d in rows))
    summary = tmp_path / "summary.md"
    documents = ["--documents", str(old), "--documents", str(new)]
    code, lines = _report(
        tmp_path, str(dataset), *documents, "--date-column", "crawled", "--summary", str(summary)
    )
    assert code == EXIT_REMOVED
    assert [(line["status"], line["then"], line["changed"]) for line in lines] == [
        ("kept", "refused", True), ("refused", "kept", True),
        ("refused", "refused", False), ("kept", "kept", False),
    ]  # fmt: skip
    assert (
        "Both ways, of the 4 item(s) with a status then: 1 kept then and refused now, "
        "1 refused then and kept now, 0 unknown now; 2 unchanged."
    ) in summary.read_text()


def test_a_tolerance_reads_a_crawls_capture_that_came_after_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page fetched hours before its crawl's robots.txt capture has no capture at or
    before its date: the run says so and names --then-tolerance; with it, that capture
    is its then."""
    warcs = _warcs(tmp_path, ("2025-06-01T12:00:00Z", DISALLOW), ("2025-09-01T00:00:00Z", ALLOW))
    dataset = _dataset(tmp_path, ["2025-06-01T04:00:00Z"])
    code, lines = _report(tmp_path, str(dataset), *warcs, "--date-column", "crawled")
    assert code == EXIT_KEPT
    assert lines[0]["then"] == "no capture before 2025-06-01T04:00:00Z"
    err = capsys.readouterr().err
    assert "1 item(s) dated before the first capture of their origin's robots.txt" in err
    assert "for 1 of them it came at most a day after their date" in err
    assert "--then-tolerance DURATION (e.g. 1d)" in err
    code, lines = _report(tmp_path, str(dataset), *warcs, "--date-column", "crawled",
                          "--then-tolerance", "12h")  # fmt: skip
    assert (code, lines[0]["then"], lines[0]["changed"]) == (EXIT_KEPT, "refused", True)
    assert "have no `then`" not in capsys.readouterr().err
    code, lines = _report(tmp_path, str(dataset), *warcs, "--date-column", "crawled",
                          "--then-tolerance", "2h")  # fmt: skip
    assert lines[0]["then"] == "no capture before 2025-06-01T06:00:00Z"  # its date + 2 h


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--then-tolerance", "1d"], "--then-tolerance reads captures after each item's date: "
         "give --date-column COLUMN too"),
        (["--date-column", "crawled", "--then-tolerance", "soon"],
         "--then-tolerance takes a duration (seconds, or 90m, 6h, 1d), got 'soon'"),
        (["--date-column", "crawled", "--then-tolerance=-1h"],
         "--then-tolerance takes a duration (seconds, or 90m, 6h, 1d), got '-1h'"),
    ],
)  # fmt: skip
def test_a_wrong_tolerance_is_one_line_before_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], said: str
) -> None:
    warcs = _warcs(tmp_path, (JAN, DISALLOW))
    code, _ = recheck_tool(str(_dataset(tmp_path)), *warcs, "--purpose", "search", *extra)
    assert code == EXIT_USAGE
    assert said in capsys.readouterr().err


def test_a_program_may_name_one_warc_as_a_string(tmp_path: Path) -> None:
    warc = _warcs(tmp_path, (JUN, DISALLOW))[1]
    options = parser().parse_args([str(_dataset(tmp_path)), "--purpose", "search"])
    options.documents = warc
    recheck = Recheck(options, {}, io.StringIO())
    assert recheck.request is None and options.documents == [warc]
    assert recheck.finish(None, io.StringIO()) == EXIT_REMOVED


def test_one_warc_of_one_capture_says_no_then(tmp_path: Path) -> None:
    code, lines = _report(tmp_path, str(_dataset(tmp_path)), *_warcs(tmp_path, (JUN, DISALLOW)))
    assert code == EXIT_REMOVED and "then" not in lines[0]


def test_each_item_is_held_against_the_capture_nearest_before_its_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ISO and epoch dates; one before every capture; one garbled, one missing."""
    warcs = _warcs(tmp_path, (JAN, ALLOW), ("2025-03-01T00:00:00Z", DISALLOW), (JUN, DISALLOW))
    dates = ["2025-02-01", 1748995200, "2024-06-01T00:00:00Z", "garbled", None]
    dataset = _dataset(tmp_path, dates)  # 1748995200: 2025-06-04
    code, lines = _report(tmp_path, str(dataset), *warcs, "--date-column", "crawled")
    assert code == EXIT_REMOVED
    assert [line["status"] for line in lines] == ["refused"] * 5
    assert [line.get("then") for line in lines] == [
        "kept", "refused", "no capture before 2024-06-01T00:00:00Z", "unknown", "unknown",
    ]  # fmt: skip
    assert [line.get("changed") for line in lines] == [True, False, None, None, None]
    err = capsys.readouterr().err
    assert "2 item(s) with no date to read in --date-column 'crawled'" in err


def test_as_of_bounds_the_captures_then_is_read_from(tmp_path: Path) -> None:
    warcs = _warcs(tmp_path, (JAN, DISALLOW), (JUN, ALLOW))
    dataset = _dataset(tmp_path, ["2025-07-01"])
    code, lines = _report(tmp_path, str(dataset), *warcs, "--date-column", "crawled",
                          "--as-of", "2025-02-01")  # fmt: skip
    assert code == EXIT_REMOVED
    assert (lines[0]["status"], lines[0]["then"]) == ("refused", "refused")


def test_a_csv_date_column_in_epoch_seconds(tmp_path: Path) -> None:
    warcs = _warcs(tmp_path, (JAN, ALLOW), (JUN, DISALLOW))
    dataset = tmp_path / "items.csv"
    dataset.write_text(f"url,crawled\n{URL},1738368000\n{URL},\n", encoding="utf-8")
    code, lines = _report(tmp_path, str(dataset), *warcs, "--date-column", "crawled")
    assert code == EXIT_REMOVED
    assert [(line["then"], line.get("changed")) for line in lines] == [
        ("kept", True), ("unknown", None),
    ]  # fmt: skip


def test_a_parquet_date_column(tmp_path: Path) -> None:
    pyarrow = pytest.importorskip("pyarrow")
    parquet = pytest.importorskip("pyarrow.parquet")
    warcs = _warcs(tmp_path, (JAN, ALLOW), (JUN, DISALLOW))
    dataset = tmp_path / "items.parquet"
    table = pyarrow.table({"url": [URL, URL], "crawled": ["2025-02-01", "2025-07-01"]})
    parquet.write_table(table, str(dataset))
    code, lines = _report(tmp_path, str(dataset), *warcs, "--date-column", "crawled")
    assert code == EXIT_REMOVED
    assert [line["then"] for line in lines] == ["kept", "refused"]


def test_the_trail_says_then_and_changed_too(tmp_path: Path) -> None:
    from rep_audit.verify import verify

    warcs = _warcs(tmp_path, (JAN, ALLOW), (JUN, DISALLOW))
    trail = tmp_path / "trail.jsonl"
    code, _ = recheck_tool(str(_dataset(tmp_path)), "--purpose", "search", *warcs,
                           f"--trail={trail}")  # fmt: skip
    assert code == EXIT_REMOVED
    records = [json.loads(line) for line in trail.read_text(encoding="utf-8").splitlines()]
    item = next(record for record in records if record.get("type") == "item")
    assert (item["then"], item["changed"]) == ("kept", True)
    result = verify(trail)
    assert result.clean, result.findings


def _said_of(tmp_path: Path, warcs: list[str], *extra: str) -> list[dict[str, Any]]:
    report = tmp_path / "report.jsonl"
    recheck_tool(str(_dataset(tmp_path, [JUN])), "--purpose", "search", *warcs,
                 f"--report={report}", *extra)  # fmt: skip
    return report_lines(report)


def test_a_capture_of_an_unreadable_date_is_never_older_than_every_other(
    tmp_path: Path,
) -> None:
    """A ``WARC-Date`` that cannot be read was 0.0, before every date: its "no" lost
    behind a dated capture's yes, and it counted as a capture at or before any
    ``--as-of`` and any item's date. Its date is unknown: beside a dated capture that
    answers otherwise, which is the newest is not known (the robots.txt is not had: its
    items refused, RFC 9309 §2.3.1.4); alone, it is the present answer (its "no" kept), but never
    a capture as of a date or the one ``then`` is read from."""
    garbage = tmp_path / "garbage.warc"
    write_warc(garbage, [robots_capture("https://a.example", DISALLOW)], date="garbage")
    alone = ["--documents", str(garbage)]
    said = _said_of(tmp_path, [*_warcs(tmp_path, (JAN, ALLOW)), *alone])
    assert said[0]["status"] == "refused" and "unreadable WARC-Date" in said[0]["text"], said
    said = _said_of(tmp_path, alone, "--date-column=crawled")
    assert said[0]["status"] == "refused" and said[0]["then"] == "unknown", said
    assert "time" not in said[0] and said[0]["record"].startswith("<urn:")
    assert _said_of(tmp_path, alone, "--as-of=2030-01-01")[0]["status"] == "unknown"
    write_warc(garbage, [robots_capture("https://a.example", ALLOW)], date="garbage")
    said = _said_of(tmp_path, [*_warcs(tmp_path, (JAN, ALLOW)), *alone])
    assert said[0]["status"] == "kept" and said[0]["time"].startswith("2025-01-01"), said


RESERVED, LIFTED = b'[{"location": "/", "tdm-reservation": 1}]', b"[]"


def _crawls(tmp_path: Path, *crawls: tuple[str, str, bytes]) -> list[str]:
    """``--documents`` of one WARC per crawl of a.example: its robots.txt at the date
    given, its tdmrep.json 5 seconds after (as a crawl fetches the two)."""
    given = []
    for n, (date, later, tdmrep) in enumerate(crawls):
        path = tmp_path / f"crawl{n}.warc"
        write_warc(path, [
            robots_capture("https://a.example", ALLOW),
            ("https://a.example/.well-known/tdmrep.json", 200, tdmrep,
             {"Content-Type": "application/json", "WARC-Date": later}),
        ], date=date)  # fmt: skip
        given += ["--documents", str(path)]
    return given


def _ai_train(tmp_path: Path, dataset: Path, *argv: str) -> list[dict[str, Any]]:
    report = tmp_path / "report.jsonl"
    recheck_tool(str(dataset), "--purpose", "ai-train", "--report", str(report), *argv)
    return report_lines(report)


def test_then_reads_the_documents_of_its_robots_txt_captures_crawl(tmp_path: Path) -> None:
    """A crawl's tdmrep.json is captured seconds after its robots.txt: ``then`` reads it
    with that robots.txt (the captures grouped by crawl, each robots.txt capture's crawl
    its origin's captures nearer it than its neighbours), never the crawl before's,
    which said otherwise, nor none at all."""
    warcs = _crawls(
        tmp_path,
        (JAN, "2025-01-01T00:00:05Z", RESERVED),
        (JUN, "2025-06-01T00:00:05Z", LIFTED),
        ("2025-12-01T00:00:00Z", "2025-12-01T00:00:05Z", RESERVED),
    )
    dated = _dataset(tmp_path, ["2025-07-01", "2025-02-01"])
    lines = _ai_train(tmp_path, dated, *warcs, "--date-column", "crawled")
    assert [line["status"] for line in lines] == ["refused", "refused"], lines
    assert [(line["then"], line["changed"]) for line in lines] == [
        ("kept", True), ("refused", False),
    ]  # fmt: skip
    # no date column: the oldest crawl's, its tdmrep.json had (not "unknown")
    warcs = _crawls(tmp_path, (JAN, "2025-01-01T00:00:05Z", LIFTED),
                    (JUN, "2025-06-01T00:00:05Z", RESERVED))  # fmt: skip
    lines = _ai_train(tmp_path, _dataset(tmp_path), *warcs)
    assert (lines[0]["status"], lines[0]["then"], lines[0]["changed"]) == ("refused", "kept",
                                                                           True)  # fmt: skip
    # a tdmrep.json captured seconds before its crawl's robots.txt is that crawl's too
    warcs = _crawls(tmp_path, (JAN, "2024-12-31T23:59:55Z", LIFTED),
                    (JUN, "2025-05-31T23:59:55Z", RESERVED))  # fmt: skip
    lines = _ai_train(tmp_path, _dataset(tmp_path), *warcs)
    assert (lines[0]["status"], lines[0]["then"], lines[0]["changed"]) == ("refused", "kept",
                                                                           True)  # fmt: skip


@pytest.mark.parametrize("first", [ALLOW, DISALLOW])
def test_captures_of_one_date_that_disagree_are_never_read_by_the_order_given(
    tmp_path: Path, first: str
) -> None:
    """Two captures of a.example's robots.txt dated to the same second, one allowing
    and one disallowing, were read by the order of ``--documents`` (the later given won,
    so one order kept the item): neither is known to be the newer, so the document is not
    had (refused: RFC 9309 §2.3.1.4), whichever order, and the item is never kept on
    the "yes"."""
    second = DISALLOW if first == ALLOW else ALLOW
    warcs = _warcs(tmp_path, (JUN, first), (JUN, second))
    said = _said_of(tmp_path, warcs)
    assert said[0]["status"] == "refused", said
    assert "captures dated alike, 2025-06-01T00:00:00Z, answer otherwise" in said[0]["text"]
    said = _said_of(tmp_path, warcs, "--as-of=2025-07-01")
    assert said[0]["status"] == "refused", said
    one = tmp_path / "one.warc"  # both in one WARC: the file's order decides nothing either
    write_warc(one, [robots_capture("https://a.example", first),
                     robots_capture("https://a.example", second)], date=JUN)  # fmt: skip
    assert _said_of(tmp_path, ["--documents", str(one)])[0]["status"] == "refused"


def test_captures_of_one_date_that_agree_are_read(tmp_path: Path) -> None:
    """Captures of one date that answer alike are one answer: read, not a dispute."""
    said = _said_of(tmp_path, _warcs(tmp_path, (JUN, DISALLOW), (JUN, DISALLOW)))
    assert said[0]["status"] == "refused", said
    said = _said_of(tmp_path, _warcs(tmp_path, (JUN, ALLOW), (JUN, ALLOW)))
    assert said[0]["status"] == "kept", said


@pytest.mark.parametrize("fraction", [".500Z", ".999999Z"])
def test_captures_in_one_second_one_dated_to_the_second_are_in_no_known_order(
    tmp_path: Path, fraction: str
) -> None:
    """A capture dated to the second (``00:00:00Z``, as WARC/1.0 writes it: any time in
    that second) and one of that second dated finer (``00:00:00.500Z``) that answer
    otherwise: the finer was read as the newer, and its "yes" kept an item the other,
    perhaps later, says "no" to. Captures in one second are dated alike: not had, now,
    with ``--as-of`` and in one WARC; a second later is later."""
    finer = JUN.replace("Z", fraction)
    warcs = _warcs(tmp_path, (JUN, DISALLOW), (finer, ALLOW))
    said = _said_of(tmp_path, warcs)
    assert said[0]["status"] == "refused", said
    assert "captures dated alike, 2025-06-01T00:00:00Z, answer otherwise" in said[0]["text"]
    assert _said_of(tmp_path, warcs, "--as-of=2025-07-01")[0]["status"] == "refused"
    one = tmp_path / "one.warc"
    write_warc(one, [robots_capture("https://a.example", DISALLOW)], date=JUN)
    with one.open("ab") as file:
        write_warc(tmp_path / "two.warc", [robots_capture("https://a.example", ALLOW)],
                   date=finer)  # fmt: skip
        file.write((tmp_path / "two.warc").read_bytes())
    assert _said_of(tmp_path, ["--documents", str(one)])[0]["status"] == "refused"
    later = _warcs(tmp_path, (JUN, DISALLOW), ("2025-06-01T00:00:01Z", ALLOW))
    assert _said_of(tmp_path, later)[0]["status"] == "kept"
