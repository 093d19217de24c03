"""``revisit`` records (WARC 1.1 §6.7) read as captures of their own date, whose answer is
the record's they refer to (docs/recheck.md): a June revisit of January's ``Disallow: /``
is the newest capture, never skipped for March's ``Allow: /``; a revisit whose record is
not in the WARCs (or is another URI's, of another payload) is a document not had; a
revisit of a revisit is read through; the same whether the captures are held in memory
or in the SQLite index (``REP_RECHECK_PARSED_ORIGINS=1``), in one WARC or several."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rep_recheck import names
from tests.support.recheck import (
    needs,
    payload_digest,
    recheck_tool,
    report_lines,
    write_jsonl,
    write_warc,
)

ROBOTS = "http://a.example/robots.txt"
OTHER = "http://b.example/robots.txt"
DISALLOW = b"User-agent: *\nDisallow: /\n"
ALLOW = b"User-agent: *\nAllow: /\n"
JANUARY, MARCH, MAY, JUNE = (f"2025-{month}-01T00:00:00Z" for month in ("01", "03", "05", "06"))
IDENTICAL = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
NOT_MODIFIED = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
ITEMS = ["http://a.example/x/1", "http://b.example/x/1"]


def _response(name: str, body: bytes, date: str, url: str = ROBOTS) -> Any:
    """A capture of ``url`` at ``date``, its record ID ``<urn:uuid:NAME>``."""
    headers = {"WARC-Date": date, "WARC-Record-ID": f"<urn:uuid:{name}>"}
    return (url, 200, body, {**headers, "Content-Type": "text/plain"})


def _revisit(name: str, date: str, status: int = 200, url: str = ROBOTS, **warc: str) -> Any:
    """A revisit record of ``url`` at ``date`` (``warc``: its other WARC headers,
    ``Refers_To`` for ``WARC-Refers-To``), of the identical-payload-digest profile unless
    told."""
    headers = {"WARC-Type": "revisit", "WARC-Date": date, "WARC-Record-ID": f"<urn:uuid:{name}>",
               "WARC-Profile": IDENTICAL}  # fmt: skip
    headers |= {f"WARC-{key.replace('_', '-')}": value for key, value in warc.items()}
    return (url, status, b"", headers)


def _of(name: str, body: bytes = DISALLOW, date: str = JANUARY) -> dict[str, str]:
    """The WARC headers of a revisit of record ``name`` (``body`` at ``date``)."""
    return {"Refers_To": f"<urn:uuid:{name}>", "Payload_Digest": payload_digest(body),
            "Refers_To_Target_URI": ROBOTS, "Refers_To_Date": date}  # fmt: skip


def _revisits_rechecked(tmp_path: Path, warcs: list[list[Any]], held: int) -> list[dict[str, Any]]:
    """The report of :data:`ITEMS` re-checked for search with the WARCs of ``warcs`` (one
    file each), ``held`` URLs of captures in memory; b.example's robots.txt allows all."""
    options = []
    warcs = [[_response("b", ALLOW, JANUARY, OTHER), *warcs[0]], *warcs[1:]]
    for number, captures in enumerate(warcs):
        path = tmp_path / f"{number}.warc"
        write_warc(path, captures)
        options += ["--documents", str(path)]
    dataset, report = tmp_path / "items.jsonl", tmp_path / "report.jsonl"
    write_jsonl(dataset, ITEMS)
    recheck_tool(str(dataset), "--purpose", "search", *options, f"--report={report}",
                 "-s", f"REP_RECHECK_PARSED_ORIGINS={held}")  # fmt: skip
    found = report_lines(report)
    assert found[1]["status"] == "kept", found  # b.example's, whatever a.example's are
    return found


@pytest.fixture(params=[1, 1000], ids=["indexed", "in-memory"])
def captures_held(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """REP_RECHECK_PARSED_ORIGINS, with as many URLs of captures held in memory."""
    needs("warcio")
    monkeypatch.setattr(names, "PER_PARSED", 1)
    return int(request.param)


@pytest.mark.parametrize("files", [1, 3], ids=["one-warc", "a-warc-a-month"])
def test_a_revisit_is_a_capture_of_its_date_with_the_payload_it_refers_to(
    tmp_path: Path, captures_held: int, files: int
) -> None:
    """January's ``Disallow: /``, March's ``Allow: /``, and a June revisit whose
    WARC-Refers-To and payload digest are January's: /x/1 was kept by March's record
    (the revisit skipped). The revisit is the newest capture, its answer January's: /x/1
    refused, its evidence naming the revisit and the record whose payload it repeats,
    dated June."""
    captures = [_response("jan", DISALLOW, JANUARY), _response("mar", ALLOW, MARCH),
                _revisit("jun", JUNE, **_of("jan"))]  # fmt: skip
    warcs = [captures] if files == 1 else [[one] for one in captures]
    (item, _) = _revisits_rechecked(tmp_path, warcs, captures_held)
    assert item["status"] == "refused" and item["text"] == "Disallow: /", item
    assert item["time"] == "2025-06-01T00:00:00.000Z"
    assert item["record"] == "<urn:uuid:jun> (a revisit of <urn:uuid:jan>)"


@pytest.mark.parametrize("profile", [IDENTICAL, NOT_MODIFIED])
def test_a_revisit_without_refers_to_is_read_by_its_uri_digest_and_date(
    tmp_path: Path, captures_held: int, profile: str
) -> None:
    """No WARC-Refers-To: the record of its WARC-Refers-To-Target-URI with its payload
    digest (and date); a server-not-modified revisit (a 304) that names neither digest
    nor date repeats the capture before it. Either way January's "no", as of June."""
    named = {key: value for key, value in _of("jan").items() if key != "Refers_To"}
    bare = {} if profile == NOT_MODIFIED else {"Payload_Digest": payload_digest(DISALLOW)}
    for number, warc in enumerate((named, bare)):
        folder = tmp_path / str(number)
        folder.mkdir()
        status = 304 if profile == NOT_MODIFIED else 200
        revisit = _revisit("jun", JUNE, status, **warc, Profile=profile)
        captures = [_response("mar", ALLOW, MARCH.replace("03", "02")), _response(
            "jan", DISALLOW, MARCH), revisit]  # fmt: skip
        if warc is named:  # January's record, dated so: March's Allow after it
            captures = [_response("jan", DISALLOW, JANUARY), _response("mar", ALLOW, MARCH),
                        revisit]  # fmt: skip
        (item, _) = _revisits_rechecked(folder, [captures], captures_held)
        assert item["status"] == "refused", (warc, item)
        assert item["record"] == "<urn:uuid:jun> (a revisit of <urn:uuid:jan>)"
        assert item["time"] == "2025-06-01T00:00:00.000Z"


@pytest.mark.parametrize(
    "refers",
    [
        {"Refers_To": "<urn:uuid:elsewhere>", "Payload_Digest": payload_digest(DISALLOW)},
        {"Payload_Digest": payload_digest(b"User-agent: *\nDisallow: /x\n")},
        {"Refers_To": "<urn:uuid:b>", "Payload_Digest": payload_digest(DISALLOW)},
        {"Refers_To": "<urn:uuid:b>"},
        {"Refers_To": "<urn:uuid:loop>", "Payload_Digest": payload_digest(DISALLOW)},
    ],
    ids=["record-not-held", "digest-not-held", "another-uris-payload", "another-uri",
         "a-loop"],
)  # fmt: skip
def test_a_revisit_whose_record_is_not_had_is_a_document_not_had(
    tmp_path: Path, captures_held: int, refers: dict[str, str]
) -> None:
    """A June revisit whose record is not in the WARCs (by ID or by digest), or is
    another URI's record of another payload (b.example's ``Allow: /``), or another
    URI's without a digest to hold it to, or a revisit of itself through another: the
    document is not had (its items unknown, removed), never March's ``Allow: /`` read in
    its place; the archive's gap, as a robots.txt not captured, not the site's failure (a
    5xx refuses)."""
    captures = [_response("mar", ALLOW, MARCH), _revisit("jun", JUNE, **refers)]
    if refers.get("Refers_To") == "<urn:uuid:loop>":
        captures.append(_revisit("loop", MAY, **_of("jun")))
    (item, _) = _revisits_rechecked(tmp_path, [captures], captures_held)
    assert item["status"] == "unknown", item
    assert "the revisit record <urn:uuid:jun> repeats the payload of" in item["why"], item
    assert "<urn:uuid:mar>" not in item.get("record", "") + item["why"], item


def test_a_revisit_of_another_uris_record_of_its_payload_is_read(
    tmp_path: Path, captures_held: int
) -> None:
    """A revisit may repeat another URI's payload (deduplicated by digest): read when
    that record's payload digest is the one the revisit gives."""
    other = "http://c.example/robots.txt"
    refers = {**_of("c"), "Refers_To_Target_URI": other}
    captures = [_response("c", DISALLOW, JANUARY, other), _response("mar", ALLOW, MARCH),
                _revisit("jun", JUNE, **refers)]  # fmt: skip
    (item, _) = _revisits_rechecked(tmp_path, [captures], captures_held)
    assert item["status"] == "refused", item
    assert item["record"] == "<urn:uuid:jun> (a revisit of <urn:uuid:c>)"


def test_a_revisit_of_a_revisit_is_read_through(tmp_path: Path, captures_held: int) -> None:
    """June revisits May, which revisits January: January's "no", as of June, the
    evidence naming the chain."""
    captures = [_response("jan", DISALLOW, JANUARY), _response("mar", ALLOW, MARCH),
                _revisit("may", MAY, **_of("jan")),
                _revisit("jun", JUNE, **_of("may"))]  # fmt: skip
    (item, _) = _revisits_rechecked(tmp_path, [captures], captures_held)
    assert item["status"] == "refused", item
    assert item["record"] == ("<urn:uuid:jun> (a revisit of <urn:uuid:may> (a revisit of "
                              "<urn:uuid:jan>))")  # fmt: skip
    assert item["time"] == "2025-06-01T00:00:00.000Z"
