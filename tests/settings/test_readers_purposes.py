"""``REP_PURPOSE`` (and ``--purpose``): a wrong element of a list is named, with the
purpose it is closest to, rather than the whole value quoted back (docs/settings.md). Read
from Scrapy's own ``Settings``: tests/crawl/test_config.py."""

from __future__ import annotations

from typing import Any

import pytest

from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError, read_purposes

EXPECTED = "expected one of 'search', 'ai-train', 'ai-input' or a list of them"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("ai-train,serch", f"'serch' is not a purpose (did you mean 'search'?); {EXPECTED}, "
                           "got 'ai-train,serch'"),
        (["ai-train", "aiinput"], "'aiinput' is not a purpose (did you mean 'ai-input'?)"),
        ("ai-trian", f"'ai-trian' is not a purpose (did you mean 'ai-train'?); {EXPECTED}"),
        ("crawl", f"'crawl' is not a purpose; {EXPECTED}"),
        ([], f"{EXPECTED}, got []"),
    ],
)  # fmt: skip
def test_a_wrong_purpose_is_named_with_the_closest_one(value: Any, message: str) -> None:
    with pytest.raises(RepSettingError) as raised:
        read_purposes({"REP_PURPOSE": value}, "REP_PURPOSE", ("search",))
    assert str(raised.value).startswith(f"REP_PURPOSE: {message}")


def test_right_purposes_are_read_in_any_case_once_each() -> None:
    settings = {"REP_PURPOSE": "AI-Train, search,ai-train"}
    assert read_purposes(settings, "REP_PURPOSE", ()) == ("ai-train", "search")


@pytest.mark.parametrize("value", ["", None, [], " , "])
def test_a_purpose_set_empty_is_refused_not_read_as_search(value: Any) -> None:
    """Only a ``REP_PURPOSE`` left out is the default: ``""`` (an empty shell variable after
    ``-s REP_PURPOSE=``), ``None`` and ``[]`` in a settings file stop the crawl."""
    with pytest.raises(RepSettingError) as raised:
        RepConfig.from_settings({"REP_PURPOSE": value})
    assert str(raised.value) == (
        f"REP_PURPOSE: {EXPECTED}, got {value!r} (leave it out for a search crawl)"
    )


def test_a_purpose_left_out_is_search() -> None:
    assert RepConfig.from_settings({}).purpose == ("search",)


def test_a_did_you_mean_names_the_closest_known_word_or_nothing() -> None:
    """The one "did you mean" of the four parts (a setting, a purpose, ``audit list``'s
    options, ``audit bundle --site``): the closest known words, closest first and in the
    same order whatever the order they are known in."""
    from rep_engine.settings.readers import closest, did_you_mean

    assert did_you_mean("serch", ("ai-train", "search")) == " (did you mean 'search'?)"
    assert did_you_mean("crawl", ("ai-train", "search")) == ""
    sites = ["https://a.example", "http://a.example", "http://b.example", "http://zz.test"]
    near = closest("http://a.example:8080", sites, at_most=3, cutoff=0)
    assert near == ["http://a.example", "https://a.example", "http://b.example"]
    assert closest("http://a.example:8080", reversed(sites), at_most=3, cutoff=0) == near
    assert closest("REP_PURPOS", {"REP_PURPOSE", "REP_PROFILE"}) == ["REP_PURPOSE"]
