"""Google's two-word reading of a line without a colon (rep-engine/rep_engine/robotstxt/_parser.py,
``two_words``): one function read by the parser (``_Pass.without_colon``) and by the cut
document's group reader (``_key_and_value``), each of which wrote it
out before. A differential check over random lines against the two readings as they
were written out (:func:`written_out_parser`, :func:`written_out_cut_group`)."""

from __future__ import annotations

import random
import re

import pytest

from rep_engine.robotstxt import _parser
from rep_engine.robotstxt._parser import _KEYS, _LENIENT_KEYS, _WHITESPACE, _kind_of, two_words
from rep_engine.robotstxt.profiles import PROFILES

SEPARATOR = re.compile(r"[ \t]")
#: What the random lines are made of: every whitespace a robots.txt line can hold (the
#: ones Google counts, the ones it strips only, one it does not), a comment, a colon,
#: and the letters of keys.
PIECES = [" ", "  ", "\t", "\v", "\f", "\xa0", "#", ":", "user-agent", "disallow",
          "allow", "sitemap", "bot", "/a", "*", "x"]  # fmt: skip


def written_out_parser(text: str, lenient: bool) -> tuple[str, str] | None:
    """The parser's reading of a line without a colon as it was written out."""
    if not lenient:
        return None
    parts = SEPARATOR.split(text, 1)
    if len(parts) != 2 or SEPARATOR.search(parts[1].lstrip(" \t")):
        return None
    return parts[0].strip(_WHITESPACE), parts[1].strip(_WHITESPACE)


def written_out_cut_group(line: str, lenient: bool) -> tuple[int, str] | None:
    """The cut document's group reader's reading of a line as it was written out."""
    keys = _LENIENT_KEYS if lenient else _KEYS
    line = line.partition("#")[0]
    key, colon, value = line.partition(":")
    if not colon:
        if not lenient:
            return None
        words = SEPARATOR.split(key.strip(_WHITESPACE), 1)
        if len(words) != 2 or SEPARATOR.search(words[1].lstrip(" \t")):
            return None
        key, value = words
    return _kind_of(key.strip(_WHITESPACE), keys, lenient), value.strip(_WHITESPACE)


def random_lines(count: int, seed: int) -> list[str]:
    """``count`` lines of 0 to 7 random pieces."""
    chosen = random.Random(seed)
    return ["".join(chosen.choices(PIECES, k=chosen.randint(0, 7))) for _ in range(count)]


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_two_words_reads_a_line_as_both_written_out_readings_did(profile: str) -> None:
    """Over 20,000 random lines (tabs, runs of spaces, trailing whitespace, ``\\v`` and
    ``\\f``, comments, colons), in the lenient profile and the strict ones: the parser's
    and the cut group reader's readings are those they had before they shared it."""
    lenient = PROFILES[profile].lenient_syntax
    keys = _LENIENT_KEYS if lenient else _KEYS
    for line in random_lines(20_000, seed=len(profile)):
        read = _parser._key_and_value(line, keys, lenient)
        assert read == written_out_cut_group(line, lenient), repr(line)
        text = line.partition("#")[0]
        if ":" in text or not text.strip(_WHITESPACE):
            continue  # the parser reads it otherwise, before a reading without a colon
        text = text.strip(_WHITESPACE)
        parse = _parser._Pass.__new__(_parser._Pass)
        parse.lenient = lenient
        parse.skip = lambda number, why: None  # type: ignore[method-assign]
        said = written_out_parser(text, lenient)
        assert parse.without_colon(1, text, 0, 0) == (said, 0, 0), repr(line)
        if lenient:
            assert two_words(text) == written_out_parser(text, True), repr(line)
