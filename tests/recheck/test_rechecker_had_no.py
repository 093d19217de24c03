"""A "no" of a document that was had refuses the item, whatever else was not had.

An origin whose tdmrep.json was captured as 503 (not had) still said no for ai-train in
what was had: robots.txt's ``Content-Usage`` or ``Content-Signal`` line, or the RSL
license its robots.txt names. The item was reported ``unknown`` (written to ``--out``
with ``--keep-unknown``) and ``audit verify`` failed the honest trail ("recorded unknown,
but its snapshots refuse it"). It is refused by the signal that said no; ``unknown`` only
where nothing had says no; a trail that records it kept or unknown is found.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rep_audit.verify import verify
from rep_recheck.command import EXIT_REMOVED
from tests.support.documents import rsl_license
from tests.support.recheck import (
    forged_item,
    recheck_tool,
    report_lines,
    robots_capture,
    write_jsonl,
    write_warc,
)

ORIGIN = "http://a.example"
LICENSE = f"{ORIGIN}/license.xml"
#: Each signal's robots.txt (besides ``Disallow: /private``), by its vocabulary.
SAYS_NO = {
    "aipref": "Content-Usage: train-ai=n\n",
    "content-signal": "Content-Signal: ai-train=no\n",
    "rsl": f"License: {LICENSE}\n",
}
#: The item a signal refuses, the item Disallow refuses, the item nothing refuses.
URLS = [f"{ORIGIN}/x", f"{ORIGIN}/private/y", "http://b.example/z"]


def _captures(signal: str) -> list[tuple[str, int, bytes, dict[str, str]]]:
    """a.example says no in what was had, its tdmrep.json captured as 503; b.example says
    nothing, its tdmrep.json captured as 503 too."""
    captures = [
        robots_capture(ORIGIN, f"User-agent: *\nDisallow: /private\n{SAYS_NO[signal]}"),
        (f"{ORIGIN}/.well-known/tdmrep.json", 503, b"", {}),
        robots_capture("http://b.example", "User-agent: *\nAllow: /\n"),
        ("http://b.example/.well-known/tdmrep.json", 503, b"", {}),
    ]
    if signal == "rsl":
        body = rsl_license('<prohibits type="usage">ai-train</prohibits>')
        captures.append((LICENSE, 200, body, {"Content-Type": "application/rsl+xml"}))
    return captures


def _recheck_saying(tmp_path: Path, signal: str) -> tuple[int, str, dict[str, Path], list[bytes]]:
    warc = tmp_path / "documents.warc"
    write_warc(warc, _captures(signal))
    dataset = tmp_path / "items.jsonl"
    lines = write_jsonl(dataset, URLS)
    paths = {name: tmp_path / f"{name}.jsonl" for name in ("out", "report", "trail")}
    options = [f"--{name}={path}" for name, path in paths.items()]
    code, summary = recheck_tool(str(dataset), "--purpose", "ai-train", "--documents",
                                 str(warc), "--keep-unknown", *options)  # fmt: skip
    return code, summary, paths, lines


@pytest.mark.parametrize("signal", list(SAYS_NO))
def test_a_no_that_was_had_refuses_whatever_was_not_had(tmp_path: Path, signal: str) -> None:
    code, summary, paths, lines = _recheck_saying(tmp_path, signal)
    assert code == EXIT_REMOVED
    report = {line["url"]: line for line in report_lines(paths["report"])}
    said = report[URLS[0]]
    assert (said["status"], said.get("signal"), said.get("reason")) == (
        "refused",
        signal,
        "purpose",
    ), said
    assert report[URLS[1]]["status"] == "refused" and report[URLS[1]]["signal"] == "robots.txt"
    # nothing had says no for b.example: unknown, its tdmrep.json's capture said
    assert report[URLS[2]]["status"] == "unknown" and "503" in report[URLS[2]]["why"]
    # --keep-unknown keeps only the item nothing had refused
    assert paths["out"].read_bytes() == lines[2]
    assert "| refused | 2 | 66.7 % |" in summary and "| unknown | 1 | 33.3 % |" in summary
    assert f"| {signal} | 1 |" in summary[summary.index("### Refusals by signal") :]
    result = verify(paths["trail"])
    assert result.clean, result.findings


@pytest.mark.parametrize(
    ("changes", "found"),
    [
        ({"status": "unknown", "refused_by": "unreachable", "why": "tdmrep.json not had"},
         "recorded unknown, but its snapshots refuse it: Not fetched: ai-train denied by "
         "robots.txt line 3"),
        ({"status": "kept", "refused_by": None, "why": None, "usage": None},
         "recorded fetched, but Dropped: tdmrep.json of http://a.example given up on"),
        ({"status": "kept", "refused_by": None, "why": None, "usage": None, "tdmrep": None},
         "recorded fetched, but ai-train denied by robots.txt line 3"),
    ],
)  # fmt: skip
def test_a_trail_that_keeps_what_was_had_refuses_is_found(
    tmp_path: Path, changes: dict[str, Any], found: str
) -> None:
    """The forged trail (its chain made again): the item recorded unknown, or kept (its
    tdmrep.json not had, or said to be none), while its robots.txt snapshot says no."""
    _, _, paths, _ = _recheck_saying(tmp_path, "aipref")
    result = verify(forged_item(paths["trail"], URLS[0], **changes))
    said = [finding.what for finding in result.findings if finding.url == URLS[0]]
    assert any(what.startswith(f"item {found}") for what in said), result.findings


def test_a_robotstxt_given_up_on_refuses_every_item_of_its_origin(tmp_path: Path) -> None:
    """robots.txt captured as 503 (given up on): "the crawler MUST assume complete
    disallow" (RFC 9309 §2.3.1.4), so every item of its origin is refused by it, the one
    its tdmrep.json reserves too, and none is kept by --keep-unknown. A trail that
    records one unknown (kept by --keep-unknown) is found."""
    warc = tmp_path / "documents.warc"
    write_warc(warc, [
        (f"{ORIGIN}/robots.txt", 503, b"", {}),
        (f"{ORIGIN}/.well-known/tdmrep.json", 200,
         b'[{"location": "/tdm/*", "tdm-reservation": 1}]', {}),
    ])  # fmt: skip
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [f"{ORIGIN}/tdm/1", f"{ORIGIN}/x"])
    paths = {name: tmp_path / f"{name}.jsonl" for name in ("out", "report", "trail")}
    options = [f"--{name}={path}" for name, path in paths.items()]
    code, summary = recheck_tool(str(dataset), "--purpose", "ai-train", "--documents",
                                 str(warc), "--keep-unknown", *options)  # fmt: skip
    assert code == EXIT_REMOVED
    said = [(line["status"], line["reason"]) for line in report_lines(paths["report"])]
    assert said == [("refused", "robotstxt_unreachable")] * 2
    assert paths["out"].read_bytes() == b""
    assert "| robotstxt_unreachable | 2 |" in summary[summary.index("### Refusals by signal") :]
    result = verify(paths["trail"])
    assert result.clean, result.findings
    changes = {"status": "unknown"}
    forged = verify(forged_item(paths["trail"], f"{ORIGIN}/x", **changes))
    assert [f.what for f in forged.findings] == [
        "item recorded unknown, but its robots.txt was given up on as unreachable and its "
        "requests dropped: refused (RFC 9309 §2.3.1.4, complete disallow)"
    ]


def test_a_robotstxt_captured_as_503_under_allow_verifies_and_its_tdmrep_no_refuses(
    tmp_path: Path,
) -> None:
    """``REP_UNREACHABLE_ACTION = "allow"``: robots.txt captured as 503 lets its items
    through ("captured as 503 in record … treated as allowed"), which ``audit verify``
    did not read as a give-up verdict ("no robots.txt snapshot names what allowed it": the
    honest trail failed); the tdmrep.json's "no" refuses /tdm/1, and a trail that keeps
    it is found by what its tdmrep.json says."""
    warc = tmp_path / "documents.warc"
    write_warc(warc, [
        (f"{ORIGIN}/robots.txt", 503, b"", {}),
        (f"{ORIGIN}/.well-known/tdmrep.json", 200,
         b'[{"location": "/tdm/*", "tdm-reservation": 1}]', {}),
    ])  # fmt: skip
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [f"{ORIGIN}/tdm/1", f"{ORIGIN}/x"])
    report, trail = tmp_path / "report.jsonl", tmp_path / "trail.jsonl"
    code, _ = recheck_tool(str(dataset), "--purpose", "ai-train", "--documents", str(warc),
                           "-s", "REP_UNREACHABLE_ACTION=allow", f"--report={report}",
                           f"--trail={trail}")  # fmt: skip
    assert code == EXIT_REMOVED
    assert [line["status"] for line in report_lines(report)] == ["refused", "kept"]
    result = verify(trail)
    assert result.clean, result.findings
    changes = {"status": "kept", "refused_by": None, "why": None, "usage": None}
    forged = verify(forged_item(trail, f"{ORIGIN}/tdm/1", **changes))
    assert [f.what for f in forged.findings] == [
        'item recorded fetched, but ai-train denied by tdmrep.json entry 1 (location "/tdm/*") '
        "(before the fetch)"
    ]
