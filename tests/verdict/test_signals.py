"""The one table of signals (rep_engine.verdict.signals): what each row says of itself
holds for what the crawl reads."""

from __future__ import annotations

from rep_engine.records import Action
from rep_engine.usage.purpose import PURPOSES
from rep_engine.verdict.signals import (
    HEADER_FIELDS,
    HEADER_KEYS,
    OTHER_ROWS,
    PAGE_ROWS,
    SIGNALS,
    Binds,
    Where,
    meta_names,
    rows_for,
)


def test_every_page_row_has_a_reader_and_names_its_fields() -> None:
    for row in PAGE_ROWS:
        assert row.read is not None, row.name
        assert row.fields and all(name == name.lower() for name in row.fields), row.name
        assert row.where in (Where.HEADER, Where.META), row.name
    for row in OTHER_ROWS:
        assert row.read is None and row.fields == (), row.name


def test_every_row_speaks_to_known_purposes_and_actions() -> None:
    names = [row.name for row in SIGNALS]
    assert len(names) == len(set(names))
    for row in SIGNALS:
        assert row.purposes and set(row.purposes) <= set(PURPOSES), row.name
        assert row.actions and row.actions <= set(Action), row.name
        assert row.standard, row.name


def test_the_header_fields_read_are_the_header_rows_fields() -> None:
    assert {"x-robots-tag", "robots-tag", "content-usage", "content-signal"} <= HEADER_FIELDS
    assert {"tdm-reservation", "tdm-policy"} <= HEADER_FIELDS
    assert {name.encode().title() for name in HEADER_FIELDS} == HEADER_KEYS
    assert b"Robots-Tag" in HEADER_KEYS and b"X-Robots-Tag" in HEADER_KEYS


def test_tdmrep_rows_are_read_for_ai_purposes_only() -> None:
    ai_only = {row.name for row in PAGE_ROWS if row.ai_only}
    assert ai_only == {"tdm-reservation header", "tdm-reservation meta tag"}
    assert not ai_only & {row.name for row in rows_for(False)}
    assert rows_for(True) == PAGE_ROWS


def test_meta_names_are_robots_our_names_and_tdmreps_for_ai() -> None:
    assert meta_names(("mybot",), False) == {"robots", "mybot"}
    assert meta_names(("mybot",), True) == {"robots", "mybot", "tdm-reservation", "tdm-policy"}


def test_statements_scoped_to_crawlers_bind_our_names_only() -> None:
    scoped = {row.name for row in PAGE_ROWS if row.binds is Binds.OUR_NAMES}
    assert scoped == {"X-Robots-Tag header", "Robots-Tag header", "robots meta tag"}
    (robots_tag,) = [row for row in PAGE_ROWS if row.fields == ("robots-tag",)]
    assert robots_tag.read is not None
    (said,) = robots_tag.read([("robots-tag", "OtherBot;noindex, MyBot;nofollow")], ("mybot",))
    assert said.words == ("nofollow",)
    assert said.source == "Robots-Tag: OtherBot;noindex, MyBot;nofollow"
    assert robots_tag.read([("robots-tag", "OtherBot;noindex")], ("mybot",)) == ()
