"""Non-ASCII escaped a run at a time in C (``_encode_non_ascii``), and the compile's
``_normalised`` (only the values that need it), say what their versions before said (one
character at a time; every value once any needs it), on random strings and patterns:
escapes in both cases, ``*``/``$``, control characters, Latin-1, characters above
U+00FF, lone surrogates, every percent-encoding mode, wildcards on and off.

A bounded seeded run here; a long one: ``PYTHONPATH=$PWD python fuzz/encoding_normalised.py
[seconds] [seed]``.
"""

from __future__ import annotations

import random
import re
import sys
import time
from dataclasses import replace
from itertools import product

import pytest

from rep_engine.robotstxt import _normalised
from rep_engine.robotstxt.profiles import PROFILES, ParseOptions
from rep_engine.urls.encoding import (
    ESCAPES_SPECIALS,
    _encode_non_ascii,
    has_lower_escape,
    normalise_pattern,
)

ENCODINGS = ("google", "rfc9309", "legacy", "none")
ALPHABET = "/*$%aZ09~-._?;=&# \t\x00\x7f\x80\xa9\xe9\xff\u0100\u20ac\ud800\udfff\U0001f600"


def old_encode_non_ascii(text: str, *, latin1: bool) -> str:
    """The version before: one character at a time."""
    out = []
    for char in text:
        code = ord(char)
        if code < 0x80:
            out.append(char)
        elif latin1 and code < 0x100:
            out.append(f"%{code:02X}")
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
    return "".join(out)


def old_normalised(patterns: list[str], options: ParseOptions) -> list[str]:
    """The version before: every value normalised when the scans say any needs it."""
    joined = "\n".join(patterns)
    encoding = options.percent_encoding
    specials = encoding in ESCAPES_SPECIALS
    if joined and (
        joined[0] not in "/*"
        or not joined.isascii()
        or re.search(r"\n[^/*]", joined) is not None
        or ("%" in joined and (specials or has_lower_escape(joined)))
        or (specials and "$" in joined)
        or (specials and not options.wildcards and "*" in joined)
    ):
        return [normalise_pattern(value, encoding, options.wildcards) for value in patterns]
    return patterns


def random_text(rng: random.Random) -> str:
    chars = ALPHABET + "%2F%2f%7E%41%c3"
    return "".join(rng.choice(chars) for _ in range(rng.randint(0, 12)))


def one_encoding_round(rng: random.Random) -> str | None:
    text = random_text(rng)
    for latin1 in (True, False):
        if _encode_non_ascii(text, latin1=latin1) != old_encode_non_ascii(text, latin1=latin1):
            return f"encode {text!r} latin1={latin1}"
    patterns = [rng.choice(["/", "*", ""]) + random_text(rng) for _ in range(rng.randint(1, 5))]
    joined = "\n".join(patterns)
    if not joined:
        return None
    for name, options in PROFILES.items():
        for encoding, wildcards in product(ENCODINGS, (True, False)):
            opts = replace(options, wildcards=wildcards, percent_encoding=encoding)  # type: ignore[arg-type]
            if _normalised(list(patterns), joined, opts) != old_normalised(patterns, opts):
                return f"normalised {patterns!r} {name} {encoding} wildcards={wildcards}"
    return None


def run_encoding_fuzz() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 30
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    end, rounds = time.time() + seconds, 0
    while time.time() < end:
        found = one_encoding_round(rng)
        rounds += 1
        if found:
            print("MISMATCH", found)
            break
    print(f"rounds {rounds}")


@pytest.mark.parametrize("seed", range(3))
def test_the_escapes_and_the_normalised_values_are_those_of_before(seed: int) -> None:
    rng = random.Random(seed)
    assert [one_encoding_round(rng) for _ in range(2000)] == [None] * 2000


def test_lone_surrogates_and_mixed_runs_are_escaped_as_before() -> None:
    for text in ("\ud800", "a\xe9\u20ac\ud800b", "\xff\u0100", "\U0001f600\xe9", "\x80"):
        for latin1 in (True, False):
            assert _encode_non_ascii(text, latin1=latin1) == old_encode_non_ascii(
                text, latin1=latin1
            )


if __name__ == "__main__":
    run_encoding_fuzz()
