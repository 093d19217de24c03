"""Where RSL licenses are named: robots.txt's License line, the Link header, the HTML
<link rel="license">; the RSL document kind through shared records (and through the
crawl's JOBDIR store: tests/crawl/documents/test_stores_rsl.py); REP_RSL_LICENSES."""

from __future__ import annotations

import pytest

from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import ROBOTS_TXT, TDMREP
from rep_engine.fetch.rsl_kind import RSL, license_key, licenses_to_wait_for
from rep_engine.robotstxt import ALLOW_ALL, parse_robotstxt
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError
from rep_engine.usage.rsl.discovery import link_header_licenses, page_licenses
from rep_engine.usage.rsl.document import ABSENT, UNREACHABLE, RslDocument
from rep_engine.usage.rsl.terms import purpose_answers

PAGE = "http://a.example/dir/page"
L = "https://a.example/license.xml"


# --------------------------------------------------------------- robots.txt License:


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
def test_robots_txt_license_lines_are_all_collected_and_end_no_group(profile: str) -> None:
    body = (
        b"License: https://a.example/license.xml\n"
        b"User-agent: *\nlicense: https://b.example/l.xml\nDisallow: /private\n\n"
        b"User-agent: other\nLICENSE: https://a.example/license.xml\nDisallow: /\n"
        b"License:\nSitemap: https://a.example/s.xml\n"
    )
    rules = parse_robotstxt(body, profile)
    assert rules.licenses == (L, "https://b.example/l.xml")
    assert rules.sitemaps == ("https://a.example/s.xml",)
    # The License lines change no group: the rules read as without them.
    kept = [line for line in body.split(b"\n") if b"icense" not in line.lower()]
    without = parse_robotstxt(b"\n".join(kept), profile)
    for path in ("/", "/private", "/x"):
        for agent in ("bot", "other"):
            url = "http://a.example" + path
            assert rules.allowed(url, agent) == without.allowed(url, agent)


def test_no_license_line_and_stand_ins() -> None:
    assert parse_robotstxt(b"User-agent: *\nDisallow:\n").licenses == ()
    assert ALLOW_ALL.licenses == ()


FILE, A, B, STAR, END = (f"https://l.example/{n}.xml" for n in ("file", "a", "b", "star", "end"))
#: Two groups with their own License lines, one without, and a file-wide one.
GROUPED = f"""License: {FILE}
User-agent: BotA
License: {A}
Disallow: /a

User-agent: BotB
User-agent: BotC
License: {B}
Disallow: /b

User-agent: NoLicense
Disallow: /n

User-agent: *
License: {STAR}
Disallow: /s
""".encode()


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
def test_rsl_every_license_line_is_every_crawler_s(profile: str) -> None:
    """The guide "Adding RSL to robots.txt": the License directive "is global (not tied to
    any specific user agent)": every line of the file, wherever it stands (before the
    groups, in one, after a blank line), in file order, as Sitemap lines are
    (docs/decisions.md, "A group's License lines add to the file-wide ones")."""
    rules = parse_robotstxt(GROUPED + f"\nLicense: {END}\n".encode(), profile)
    assert rules.licenses == (FILE, A, B, STAR, END)
    assert rules.states_no_usage is False


# --------------------------------------------------------------- Link header


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([f'<{L}>; rel="license"; type="application/rsl+xml"'], (L,)),
        (['</license.xml>; rel=license; type=application/rsl+xml'], (L.replace("https", "http"),)),
        (['<l.xml>;type="Application/RSL+XML; charset=utf-8";REL="nofollow License"'],
         ("http://a.example/dir/l.xml",)),
        ([f'<{L}>; rel="license"'], ()),  # no type: not an RSL document (a CC license…)
        ([f'<{L}>; rel="licence"; type="application/rsl+xml"'], ()),
        ([f'<{L}>; rel="alternate"; type="application/rsl+xml"'], ()),
        (['<javascript:alert(1)>; rel=license; type=application/rsl+xml'], ()),
        ([b'</a>; rel="next", </b.xml>; title="x, y; z"; rel="license"; '
          b'type="application/rsl+xml"'], ("http://a.example/b.xml",)),
        ([f"<{L}>; rel=license; type=application/rsl+xml"] * 2, (L,)),
        (["<unterminated; rel=license; type=application/rsl+xml"], ()),
        (["garbage ;;; ,,, <>"], ()),
        ([], ()),
    ],
)  # fmt: skip
def test_link_header(values: list[str | bytes], expected: tuple[str, ...]) -> None:
    assert link_header_licenses(values, PAGE) == expected


def test_a_huge_link_header_is_read_in_linear_time() -> None:
    value = "<x>; rel=" + '"' * 100_000 + ", " * 100_000
    assert link_header_licenses([value], PAGE) == ()


# --------------------------------------------------------------- HTML <link>


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ('<link rel="license" type="application/rsl+xml" href="/license.xml">',
         ("http://a.example/license.xml",)),
        (f'<head><LINK REL="License" TYPE="application/RSL+xml" HREF="{L}"></head>', (L,)),
        ('<link rel="license" href="https://creativecommons.org/licenses/by/4.0/">'
         '<p>application/rsl+xml</p>', ()),
        ('<template><link rel="license" type="application/rsl+xml" href="/t.xml"></template>', ()),
        ('<link rel="license" type="application/rsl+xml">', ()),  # no href
        ('<link rel="license" type="application/rsl+xml" href="data:text/xml,<rsl/>">', ()),
        ("<p>no links</p>", ()),
        ('<?xml version="1.0" encoding="iso-8859-1"?><html><head><link rel="license" '
         'type="application/rsl+xml" href="/caf\u00e9.xml"/></head></html>',
         ("http://a.example/caf\u00e9.xml",)),
        ("", ()),
        ("\x00<<<rsl+xml>>>", ()),
    ],
)  # fmt: skip
def test_html_link(html: str, expected: tuple[str, ...]) -> None:
    assert page_licenses(html, PAGE).urls == expected


# --------------------------------------------------------------- the document kind

BODY = (
    b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/books/*"><license>'
    b'<prohibits type="usage">ai-train</prohibits></license></content></rsl>'
)
PROBES = ("http://a.example/", "http://a.example/books/1")


def _round_trip(document: RslDocument, body: bytes) -> RslDocument:
    import zlib

    entry = CacheEntry(document, "200", 1.0, 2.0, 3.0, 200, zlib.compress(body) if body else b"")
    record = RSL.record_of(L, entry, 0, None, 0.0, "200", 1.0)
    assert record.origin == L + "#rsl"
    return RSL.entry_of(record).rules


@pytest.mark.parametrize(
    ("document", "body"),
    [(RSL.parse(BODY), BODY), (ABSENT, b""), (UNREACHABLE, b""), (RSL.parse(b"junk"), b"junk")],
    ids=["parsed", "absent", "unreachable", "unreadable"],
)
def test_the_rsl_kind_round_trips_through_a_shared_record(
    document: RslDocument, body: bytes
) -> None:
    back = _round_trip(document, body)
    if not body:
        assert back is document  # the stand-in itself, not a copy
    for url in PROBES:
        assert purpose_answers(back, url, frozenset(), L) == purpose_answers(
            document, url, frozenset(), L
        )


def test_the_rsl_kind() -> None:
    assert RSL.path == "" and RSL.url(L) == L
    assert RSL.stand_in(True) is ABSENT and RSL.stand_in(False) is UNREACHABLE
    assert RSL.verdict_of(ABSENT) is True and RSL.verdict_of(UNREACHABLE) is False
    assert RSL.verdict_of(RSL.parse(BODY)) is None
    assert str(RSL.hold_key(L)) == f"{L} (rsl)"
    # Its records never take the name of another kind's, whatever the license URL.
    tdm_url = "https://a.example/.well-known/tdmrep.json"
    assert RSL.store_name(tdm_url) != TDMREP.store_name("https://a.example")
    assert RSL.store_name("https://a.example") != ROBOTS_TXT.store_name("https://a.example")
    assert RSL.stat_prefix not in (ROBOTS_TXT.stat_prefix, TDMREP.stat_prefix)


# --------------------------------------------------------------- REP_RSL_LICENSES


def test_rsl_licenses_setting() -> None:
    assert RepConfig.defaults().rsl_licenses == ()
    config = RepConfig.from_settings({"REP_RSL_LICENSES": f"{L}, https://ls.example/api,{L}"})
    assert config.rsl_licenses == (L, "https://ls.example/api")
    assert RepConfig.from_settings({"REP_RSL_LICENSES": [L]}).rsl_licenses == (L,)


@pytest.mark.parametrize("value", ["license.xml", ["ftp://a/l"], [L, 3], "https://", 42])
def test_rsl_licenses_setting_errors(value: object) -> None:
    with pytest.raises(RepSettingError, match=r"^REP_RSL_LICENSES: expected"):
        RepConfig.from_settings({"REP_RSL_LICENSES": value})


@pytest.mark.parametrize(
    ("url", "key"),
    [
        (f" {L}#frag ", L),
        ("HTTP://a.example/l.xml", "HTTP://a.example/l.xml"),
        ("/license.xml", None),
        ("ftp://a.example/l.xml", None),
        ("https://", None),
        ("", None),
    ],
)
def test_license_keys(url: str, key: str | None) -> None:
    assert license_key(url) == key


def test_licenses_to_wait_for_are_the_usable_named_urls_once() -> None:
    """Every purpose waits (a search crawl too: an RSL can prohibit search)."""
    named = (L, f"{L}#x", "relative.xml", "https://b.example/l.xml")
    assert licenses_to_wait_for(named) == (L, "https://b.example/l.xml")
    assert licenses_to_wait_for(()) == ()


def test_inline_licenses_in_script_elements() -> None:
    from rep_engine.usage.rsl.discovery import page_licenses

    inline = (
        '<script type="application/rsl+xml"><rsl xmlns="https://rslstandard.org/rsl">'
        '<content url="/"><license><prohibits type="usage">ai-all</prohibits></license>'
        "</content></rsl></script>"
    )
    page = page_licenses(
        f'<html><head>{inline}<link rel="license" type="application/rsl+xml" href="/l.xml">'
        '<script type="text/javascript">var rsl = "application/rsl+xml";</script></head>'
        f"<body><template>{inline}</template></body></html>",
        PAGE,
    )
    assert page.urls == ("http://a.example/l.xml",)
    (document,) = page.inline
    assert tuple(a.allowed for a in purpose_answers(document, PAGE)) == (None, False, False)
    broken = page_licenses('<script type="application/rsl+xml">not xml</script>', PAGE)
    assert broken.inline[0].problem is not None  # unreadable: no AI use
    assert page_licenses("<p>nothing</p>", PAGE).inline == ()
