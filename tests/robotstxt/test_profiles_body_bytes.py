"""Every document parser takes the same bodies: bytes, bytearray, memoryview or text
(UTF-8, lone surrogates kept), and refuses anything else with a ``TypeError``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from rep_engine.robotstxt import parse_robotstxt
from rep_engine.robotstxt.profiles import body_bytes
from rep_engine.usage.rsl.document import parse_rsl
from rep_engine.usage.tdmrep import parse_tdmrep

PARSERS: list[Callable[[Any], Any]] = [parse_robotstxt, parse_tdmrep, parse_rsl]


@pytest.mark.parametrize("body", [b"x\xff", bytearray(b"x\xff"), memoryview(b"x\xff")])
def test_binary_bodies_are_their_bytes(body: Any) -> None:
    assert body_bytes(body) == b"x\xff"


def test_text_is_utf8_with_lone_surrogates_kept() -> None:
    assert body_bytes("é\udcff") == "é".encode() + b"\xed\xb3\xbf"


@pytest.mark.parametrize("parse", PARSERS, ids=lambda parse: parse.__name__)
@pytest.mark.parametrize("body", [123, None, ["Disallow: /"]])
def test_a_parser_refuses_a_body_that_is_no_bytes_nor_text(
    parse: Callable[[Any], Any], body: Any
) -> None:
    with pytest.raises(TypeError, match="body must be bytes or str"):
        parse(body)


def test_robots_txt_reads_text_and_bytes_alike() -> None:
    text = "User-agent: *\nDisallow: /x\n"
    for body in (text, text.encode(), bytearray(text.encode())):
        assert parse_robotstxt(body).allowed("https://a.example/x", "bot") is False
