"""A cut robots.txt capture reads no part of a line that could allow (docs/decisions.md,
'A cut robots.txt reads no part of a line that could allow').

A capture tool's size limit cuts anywhere: a file cut inside ``Allow: /public-stuff``
ends with ``Allow: /pu``, which would allow ``/purchase``, disallowed by the whole
file's ``Disallow: /p``; one cut inside ``User-agent: testbot-news`` would end with a
group of testbot's own and no rule (everything allowed to testbot, which the whole
file's ``User-agent: *`` / ``Disallow: /`` refuses), and so would one cut after
``User-agent: testbot``, before its group's rules. ``recheck --documents`` reads such
a capture, marked ``WARC-Truncated: length`` or a chunked body that ends inside a chunk,
as the crawl reads a cut download: the lines before the cut, of the unended last line
only a Disallow line with a path, and no last group without a rule read. Cut before
500 KiB (RFC 9309 §2.5), what they allow is not known (``unknown``): so each item here
is one its kept lines refuse, else is said ``unknown``, never ``kept``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rep_engine.robotstxt import parse_robotstxt
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from rep_recheck.command import EXIT_KEPT, EXIT_REMOVED
from tests.support.recheck import recheck_tool, report_lines, write_jsonl, write_warc

#: The whole file, where it is cut (the part kept ends with the second), the URL the
#: partial line would let through.
CUTS = {
    "allow": (b"User-agent: *\nDisallow: /p\nAllow: /public-stuff\n", b"Allow: /pu",
              "/purchase"),
    "user-agent": (b"User-agent: *\nDisallow: /\n\nUser-agent: testbot-news\nDisallow: /\n",
                   b"User-agent: testbot", "/page"),
    "group without rules": (b"User-agent: *\nDisallow: /\n\nUser-agent: testbot\nDisallow: /\n",
                            b"User-agent: testbot\n", "/page"),
    "disallow without path": (b"User-agent: *\nDisallow: /\n\nUser-agent: testbot\nDisallow: /\n",
                              b"User-agent: testbot\nDisallow:", "/page"),
}  # fmt: skip
#: How the capture says it is cut: the WARC header, or a chunk that never ends.
HOW = ("WARC-Truncated", "chunked")


def captured(whole: bytes, kept: bytes, how: str) -> tuple[bytes, dict[str, str]]:
    body = whole[: whole.index(kept) + len(kept)]
    headers = {"Content-Type": "text/plain"}
    if how == "chunked":
        chunk = f"{len(whole):x}\r\n".encode()  # the chunk says more is to come
        return chunk + body, {**headers, "Transfer-Encoding": "chunked"}
    return body, {**headers, "WARC-Truncated": "length"}


def rechecked(tmp_path: Path, body: bytes, headers: dict[str, str], path: str) -> tuple[int, str]:
    """The exit status and the item's status."""
    warc = tmp_path / "robots.warc"
    write_warc(warc, [("https://a.example/robots.txt", 200, body, headers)])
    dataset, report = tmp_path / "items.jsonl", tmp_path / "report.jsonl"
    write_jsonl(dataset, [f"https://a.example{path}"])
    out = f"--out={tmp_path / 'out.jsonl'}"
    code, _ = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                           "--user-agent", "testbot/1.0", out, f"--report={report}")  # fmt: skip
    [line] = report_lines(report)
    return code, line["status"]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("cut", CUTS)
def test_recheck_reads_no_partial_line_of_a_cut_capture_that_would_allow(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cut: str, how: str
) -> None:
    whole, kept, path = CUTS[cut]
    body, headers = captured(whole, kept, how)
    assert rechecked(tmp_path, body, headers, path) == (EXIT_REMOVED, "refused"), (
        capsys.readouterr()
    )


def test_recheck_keeps_the_partial_disallow_line_of_a_cut_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Disallow line cut short forbids more than the whole one, never less: kept."""
    whole = b"User-agent: *\nAllow: /\nDisallow: /private\n"
    body, headers = captured(whole, b"Disallow: /pri", "WARC-Truncated")
    assert rechecked(tmp_path, body, headers, "/prince") == (EXIT_REMOVED, "refused"), (
        capsys.readouterr()
    )


def test_recheck_reads_the_last_line_of_a_whole_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not said to be cut, a file without a final line end is read whole, last line too."""
    body = b"User-agent: *\nDisallow: /p\nAllow: /pu"
    headers = {"Content-Type": "text/plain"}
    assert rechecked(tmp_path, body, headers, "/purchase") == (EXIT_KEPT, "kept"), (
        capsys.readouterr()
    )


#: A cut capture's AI-usage statements: its body as captured, the crawler, the path, and
#: whether the crawl's reading of it (``parse_robotstxt(..., truncated=True)``, what the
#: robots.txt kind parses a cut download with) refuses the item for ai-train (else, cut
#: before 500 KiB, the recheck says it is unknown).
USAGE_CUTS = {
    "a run going on a signal's group": (
        b"User-agent: testbot\nContent-Signal: ai-train=no\nUser-agent: otherbot\n",
        "otherbot", "/page", True,
    ),
    "a named group's yes, its disallow cut": (
        b"User-agent: *\nContent-Usage: train-ai=n\nDisallow: /x\n\n"
        b"User-agent: testbot\nContent-Usage: train-ai=y\nDisall",
        "testbot", "/page", False,
    ),
    "a star group after a named one": (
        b"User-agent: testbot\nDisallow: /a\n\nUser-agent: *\nContent-Signal: ai-train=no\n#",
        "zbot", "/page", True,
    ),
}  # fmt: skip


def _crawl_refuses(body: bytes, agent: str, path: str) -> bool:
    read = parse_robotstxt(body, truncated=True)
    url = f"https://a.example{path}"
    usage = str(read.content_usage(agent).prefs(url))
    return (not read.allowed(url, agent) or read.content_signals(agent).ai_train is False
            or "train-ai=n" in usage)  # fmt: skip


@pytest.mark.parametrize("cut", USAGE_CUTS)
def test_recheck_decides_a_cut_captures_usage_lines_as_the_crawl_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cut: str
) -> None:
    body, agent, path, refused = USAGE_CUTS[cut]
    assert _crawl_refuses(body, agent, path) is refused
    warc = tmp_path / "robots.warc"
    headers = {"Content-Type": "text/plain", "WARC-Truncated": "length"}
    no_tdmrep = ("https://a.example/.well-known/tdmrep.json", 404, b"", {})
    write_warc(warc, [("https://a.example/robots.txt", 200, body, headers), no_tdmrep])
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [f"https://a.example{path}"])
    out, report = f"--out={tmp_path / 'out.jsonl'}", tmp_path / "report.jsonl"
    code, _ = recheck_tool(str(dataset), "--purpose", "ai-train", "--documents", str(warc),
                           "--user-agent", f"{agent}/1.0", out, f"--report={report}")  # fmt: skip
    assert code == EXIT_REMOVED, capsys.readouterr()
    assert report_lines(report)[0]["status"] == ("refused" if refused else "unknown")


@pytest.mark.parametrize("size", [MAX_BODY_BYTES, MAX_BODY_BYTES + 1])
def test_recheck_reads_a_capture_of_500_kib_whole_and_one_byte_more_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], size: int
) -> None:
    """As the crawl does (its download stopped only past 500 KiB): the unended last line
    ``Allow: /page`` of exactly 512,000 bytes allows; of 512,001, cut, it is dropped."""
    head, last = b"User-agent: *\nDisallow: /\n", b"Allow: /page"
    pad = b"#" + b"x" * (MAX_BODY_BYTES - len(head) - len(last) - 2) + b"\n"
    body = head + pad + last + b"e" * (size - MAX_BODY_BYTES)
    assert len(body) == size
    expected = (EXIT_KEPT, "kept") if size == MAX_BODY_BYTES else (EXIT_REMOVED, "refused")
    assert rechecked(tmp_path, body, {"Content-Type": "text/plain"}, "/page") == expected, (
        capsys.readouterr()
    )
