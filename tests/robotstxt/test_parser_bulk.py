"""Rule lines read in bulk (rep-engine/rep_engine/robotstxt/_parser.py, ``_Pass.bulk``): a
robots.txt reads as it does line by line. A differential check over random bodies: runs of
``Disallow: /p`` and ``Allow: /p`` lines among every other kind of line, read with the bulk
path forced everywhere (in small pieces) and with it turned off."""

from __future__ import annotations

import logging
import random

import pytest

from rep_engine.robotstxt import _parser
from rep_engine.robotstxt._parser import ParsedTables, Parser
from rep_engine.robotstxt.profiles import PROFILES

#: The lines the bodies are made of, beside the runs of rules: the bulk keys spelled
#: otherwise, stray whitespace and comments on rule lines, empty rules, and the lines that
#: change where the groups stand.
OTHER_LINES = [
    "", "  ", "\t", "# a comment", "Disallow: /x # a comment", "Disallow: /x  ", "Disallow:  /x",
    "Disallow:\t/x", "Disallow:", "Disallow: ", "Disallow:/x", "disallow: /x", " Disallow: /x",
    "Allow: /y\t", "Allow : /y", "Disallowed: /z", "Disallow /two", "Disallow", "Allow: \x00/n",
    "Disallow: /\xe9\xff", "User-agent: *", "User-agent: Bot-One", "User-agent: two words",
    "user-agent: b_2", "User-agent:", "Sitemap: https://e.com/s.xml", "Crawl-delay: 2",
    "Crawl-delay: x", "Content-Usage: train-ai=n", "Content-Signal: ai-train=no",
    "DisallowAITraining: /a", "AllowAITraining: /b", "License: https://e.com/l.xml",
    "Unknown: v", ": v", "no colon here", "Disallow: /" + "x" * 17_000,
]  # fmt: skip
ENDS = ["\n", "\n", "\r\n", "\r"]


def random_body(chosen: random.Random) -> bytes:
    """A body of runs of plain rules (now and then with the others' oddities) among other
    lines, ending as a site's file does, or cut short."""
    lines: list[str] = []
    while len(lines) < chosen.choice([20, 60, 200]):
        if chosen.random() < 0.4:
            key = chosen.choice(["Disallow", "Allow"])
            lines += [f"{key}: /{key[0]}{n}" for n in range(chosen.randint(1, 12))]
        else:
            lines.append(chosen.choice(OTHER_LINES))
    text = chosen.choice(ENDS).join(lines) + chosen.choice(["", "\n"])
    return text.encode("latin-1")[: chosen.choice([None, None, None, -7])]


def read_all(body: bytes, profile: str, cut: bool, caplog: pytest.LogCaptureFixture) -> object:
    """Everything a parse gives: its tables (and the code type), sitemaps, licenses, the
    number of lines skipped and what was logged."""
    caplog.clear()
    parser = Parser(PROFILES[profile])
    tables, sitemaps, licenses = parser.parse(body, cut)
    assert isinstance(tables, ParsedTables)
    return tables, tables.codes.typecode, sitemaps, licenses, parser.skipped, caplog.messages


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_bodies_read_in_bulk_as_line_by_line(
    profile: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Over 600 random bodies, whole and cut: the same tables, sitemaps, licenses,
    skipped lines and messages, read in bulk wherever a run of rules is (pieces of 80
    characters) and read line by line."""
    caplog.set_level(logging.DEBUG, logger="rep_engine.robotstxt")
    chosen = random.Random(len(profile))
    for _ in range(600):
        body, cut = random_body(chosen), chosen.random() < 0.2
        monkeypatch.setattr(_parser, "_SMALL", 0)
        monkeypatch.setattr(_parser, "_RUN", 0)
        monkeypatch.setattr(_parser, "_CHUNK", 80)
        in_bulk = read_all(body, profile, cut, caplog)
        monkeypatch.setattr(_parser, "_SMALL", len(body) + 1)
        assert in_bulk == read_all(body, profile, cut, caplog), body


def test_a_body_of_0x8000_lines_reads_in_bulk_as_line_by_line(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Past 0x7fff lines (half of them read one by one) the codes take 4 bytes, and are
    no slice of the 2-byte ones: the same."""
    body = ("User-agent: x\n" + "Disallow: /a\n" * 4 + "Allow: /b\n" * 4 + "\n" * 8) * 2_000
    in_bulk = read_all(body.encode(), "google", False, caplog)
    assert in_bulk[1] == "i"
    monkeypatch.setattr(_parser, "_SMALL", len(body) + 1)
    assert in_bulk == read_all(body.encode(), "google", False, caplog)


#: The google profile's line limit, and the stretch :func:`_parser._cut_anywhere` looks
#: for a line end in (a line one character too long fills two of them exactly).
LIMIT = PROFILES["google"].max_line_length or 0
STEP = (LIMIT + 1) // 2


def test_a_line_one_character_too_long_is_found_wherever_it_starts() -> None:
    """``_cut_anywhere`` finds a line of the limit and one character, starting at any
    place against its stretches (and the text read line by line cuts it, SPEC §1)."""
    after = "\n" * 3
    for start in range(2 * STEP + 2):
        text = "\n" * start + "x" * (LIMIT + 1) + after
        assert _parser._cut_anywhere(text, LIMIT, False), start
    assert not _parser._cut_anywhere("x" * LIMIT, LIMIT, False)


@pytest.mark.parametrize("extra", [-1, 0, 1, 2])
def test_a_rule_line_at_the_line_limit_is_cut_as_line_by_line(
    extra: int, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A ``Disallow`` line of the google profile's line limit, one character less or more,
    starting at either end of the stretches ``_cut_anywhere`` checks, in a text long
    enough to be read in bulk: cut at the limit (SPEC §1), as line by line."""
    line = "Disallow: /" + "x" * (LIMIT + extra - len("Disallow: /"))
    head = "User-agent: *\n" + "Disallow: /a\n" * 60
    for residue in (0, 1, 2, STEP // 2, STEP - 2, STEP - 1):
        # a line of "p"s (no colon: skipped) so that the rule line starts at ``residue``
        padding = (residue - len(head) - 1) % STEP
        text = head + "p" * padding + "\n" + line + "\n" + "Disallow: /b\n" * 60
        body = text.encode()
        in_bulk = read_all(body, "google", False, caplog)
        values = in_bulk[0].values
        assert values[60] == "/" + "x" * (min(extra, 0) + LIMIT - len("Disallow: /"))
        assert values[-1] == "/b" and len(values) == 121
        monkeypatch.setattr(_parser, "_SMALL", len(body) + 1)
        assert in_bulk == read_all(body, "google", False, caplog)
        monkeypatch.undo()


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_run_of_rules_across_the_pieces_of_a_long_text(
    profile: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A text longer than a piece (``_CHUNK``) read in bulk, whatever line its pieces end
    at: each rule once, with its own line number; the ``\\r`` line ends and the comments
    (kept for the legacy profile) change nothing."""
    for shift in range(0, 17, 4):
        lines = ["User-agent: *", "#" * (1 + shift)]  # (a comment line: no blank line)
        lines += [f"Disallow: /p{n} # {n}" if n % 3 else f"Disallow: /p{n}" for n in range(4_000)]
        body = "\r".join(lines).encode()
        assert len(body) > 2 * _parser._CHUNK
        tables = read_all(body, profile, False, caplog)[0]
        assert list(tables.values) == [f"/p{n}" for n in range(4_000)]
        assert list(tables.codes) == list(range(-3, -4_003, -1))
