"""RSL 1.0 license documents: parsing (hostile XML included), URL matching and the
answer per purpose (rep_engine.usage.rsl.document, rep_engine.usage.rsl.terms)."""

from __future__ import annotations

import pytest

from rep_engine.usage.purpose import usage_decision as decide_signals
from rep_engine.usage.rsl.document import (
    ABSENT,
    UNREACHABLE,
    make_content,
    parse_rsl,
)
from rep_engine.usage.rsl.terms import owned_licenses, purpose_answers, rsl_signals

NS = "https://rslstandard.org/rsl"
LICENSE = "https://a.example/license.xml"


def doc(*contents: str) -> bytes:
    return f'<rsl xmlns="{NS}">{"".join(contents)}</rsl>'.encode()


def content(url: str, *licenses: str, server: str = "") -> str:
    attribute = f' server="{server}"' if server else ""
    return f'<content url="{url}"{attribute}>{"".join(licenses)}</content>'


def lic(*terms: str) -> str:
    return f"<license>{''.join(terms)}</license>"


def permits(values: str, kind: str = "usage") -> str:
    return f'<permits type="{kind}">{values}</permits>'


def prohibits(values: str, kind: str = "usage") -> str:
    return f'<prohibits type="{kind}">{values}</prohibits>'


def rsl_answers(body: bytes, url: str, owned: tuple[str, ...] = ()) -> tuple[bool | None, ...]:
    document = parse_rsl(body)
    return tuple(a.allowed for a in purpose_answers(document, url, owned_licenses(owned), LICENSE))


# ------------------------------------------------------------------------ parsing


BILLION_LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + b"".join(
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">'.encode()
        for i in range(1, 10)
    )
    + b']><rsl xmlns="https://rslstandard.org/rsl"><content url="/">&lol9;</content></rsl>'
)
EXTERNAL_ENTITY = (
    b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/">'
    b'<license><prohibits type="usage">&x;</prohibits></license></content></rsl>'
)
DEEP = (
    b'<rsl xmlns="https://rslstandard.org/rsl">'
    + b"<x>" * 5000
    + b"</x>" * 5000
    + b'<content url="/"/></rsl>'
)


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"", "not XML"),
        (b"User-agent: *\nDisallow: /", "not XML"),
        (b"<html><body>license</body></html>", "root 'html' is not <rsl>"),
        (b'<rsl><content url="/"/></rsl>', "root 'rsl' is not <rsl>"),  # no namespace
        (b'<rsl xmlns="http://rslstandard.org/rsl"><content url="/"/></rsl>', "is not <rsl>"),
        (b'<rsl xmlns="https://rslstandard.org/RSL"><content url="/"/></rsl>', "is not <rsl>"),
        (b'<RSL xmlns="https://rslstandard.org/rsl"><content url="/"/></RSL>', "is not <rsl>"),
        (doc(), "no <content>"),
        (b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/">', "not XML"),
        (BILLION_LAUGHS, "has a DTD"),
        (EXTERNAL_ENTITY, "has a DTD"),
        (b'<!DOCTYPE rsl><rsl xmlns="https://rslstandard.org/rsl"><content url="/"/></rsl>', "DTD"),
        (DEEP, "not XML"),
        (EXTERNAL_ENTITY.decode().encode("utf-16"), "has a DTD"),
        ('<rsl xmlns="https://rslstandard.org/rsl"><content url=\u201d/\u201d><license>'
         '<prohibits type="usage">train-ai</prohibits></license></content></rsl>'.encode(),
         "not XML"),
        (doc(content("/")) + b" " * 600_000, "or more (cut)"),
    ],
    ids=[
        "empty", "robots.txt", "html", "no namespace", "http namespace", "namespace case",
        "root case", "no content", "truncated", "billion laughs", "external entity",
        "bare doctype", "deep nesting", "utf-16 dtd", "curly quotes", "huge",
    ],
)  # fmt: skip
def test_bodies_that_are_not_rsl_documents_are_unreadable(body: bytes, problem: str) -> None:
    document = parse_rsl(body)
    assert document.problem is not None and problem in document.problem
    assert document.contents == ()
    # Unreadable terms lose no "no": no AI use anywhere, search not concerned.
    assert tuple(a.allowed for a in purpose_answers(document, "http://a.example/x")) == (
        None,
        False,
        False,
    )


def test_hostile_documents_expand_nothing() -> None:
    for body in (BILLION_LAUGHS, EXTERNAL_ENTITY, DEEP, EXTERNAL_ENTITY.decode().encode("utf-16")):
        document = parse_rsl(body)
        assert document.problem is not None and document.contents == ()
        assert "root:" not in repr(document) and "lollol" not in repr(document)


def test_a_document_is_read_into_frozen_values() -> None:
    body = doc(
        content(
            "/news/*",
            lic(permits("search AI-Input, ai-train"), prohibits("commercial", "user")),
            lic(prohibits("AI-TRAIN"), '<payment type="Purchase"><amount>9</amount></payment>'),
        ),
        content("https://a.example/x$", lic(), server=" https://ls.example/api "),
        "<!-- comment --><other/>",
    )
    document = parse_rsl(body)
    assert document.problem is None
    first, second = document.contents
    assert (first.index, first.url, first.server) == (1, "/news/*", None)
    one, two = first.licenses
    assert one.permits == frozenset({"search", "ai-input", "ai-train"})
    assert one.conditions == ("prohibits user: commercial",) and one.conditional
    assert two.prohibits == frozenset({"ai-train"}) and two.payments == ("purchase",)
    assert two.permits is None and two.conditional
    assert second.server == "https://ls.example/api" and str(second.origin) == "https://a.example"
    assert second.licenses[0].permits is None and not second.licenses[0].conditional
    with pytest.raises(AttributeError):
        first.url = "/"  # type: ignore[misc]


def test_an_rss_feed_with_the_rsl_module_is_read() -> None:
    feed = (
        f'<rss xmlns:rsl="{NS}" version="2.0"><channel><item><title>t</title>'
        '<rsl:content url="/post/1"><rsl:license><rsl:prohibits type="usage">ai-all'
        "</rsl:prohibits></rsl:license></rsl:content></item></channel></rss>"
    ).encode()
    assert rsl_answers(feed, "http://a.example/post/1") == (None, False, False)
    assert rsl_answers(feed, "http://a.example/post/2") == (None, None, None)


def test_absent_and_unreachable_terms() -> None:
    # How a download comes to these: tests/fetch/test_procedure.py.
    assert purpose_answers(ABSENT, "http://a.example/") == purpose_answers(
        parse_rsl(doc(content("/"))), "/"
    )
    assert tuple(a.allowed for a in purpose_answers(ABSENT, "http://a.example/")) == (None,) * 3
    assert tuple(a.allowed for a in purpose_answers(UNREACHABLE, "/")) == (None, False, False)


# ------------------------------------------------------------------------ matching


@pytest.mark.parametrize(
    ("pattern", "url", "expected"),
    [
        ("/", "http://a.example/", True),
        ("/", "http://a.example/anything?q=1", True),
        ("/news/", "http://a.example/news/today", True),
        ("/news/", "http://a.example/News/today", False),  # case-sensitive paths
        ("/news/*", "http://a.example/news/", True),
        ("/*.pdf$", "http://a.example/a/b.pdf", True),
        ("/*.pdf$", "http://a.example/a/b.pdf?x", False),
        ("/a$", "http://a.example/a", True),
        ("/a$", "http://a.example/ab", False),
        ("/a*b*c", "http://a.example/axxbyyc", True),
        ("/%7Euser/", "http://a.example/~user/x", True),  # RFC 9309 §2.2.2 unreserved
        ("/caf%C3%A9", "http://a.example/café", True),
        ("/p$q", "http://a.example/p$q", True),  # a $ before the end is literal
        ("https://a.example/x/*", "https://a.example/x/1", True),
        ("https://A.example:443/x/", "https://a.example/x/1", True),
        ("https://a.example/x/", "http://a.example/x/1", False),  # scheme differs
        ("https://a.example/x/", "https://b.example/x/1", False),  # host differs
        ("https://a.example:8443/x/", "https://a.example/x/1", False),
        ("", "http://a.example/anything", True),  # no url: covers everything
        ("/%C3", "http://a.example/%c3%a9", True),  # escapes compared in uppercase
        ("/%a", "http://a.example/%aa", True),  # a dangling escape keeps its scope
        ("/%a*z", "http://a.example/%abz", True),
        ("/%a$", "http://a.example/%aa", False),  # "$": the URL ends after %a
        ("/%a$", "http://a.example/%A", False),
        ("/%a$", "http://a.example/%a", True),
    ],
)
def test_content_urls_match_with_robots_txt_rules(pattern: str, url: str, expected: bool) -> None:
    assert make_content(1, pattern, None, ()).matches(url) is expected


# ------------------------------------------------------------------------ decisions

SEARCH_ONLY = doc(content("/", lic(permits("search"))))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (doc(content("/", lic(prohibits("ai-all")))), (None, False, False)),
        (doc(content("/", lic(prohibits("all")))), (False, False, False)),
        (doc(content("/", lic(prohibits("ai-train")))), (None, False, None)),
        (doc(content("/", lic(prohibits("ai-input")))), (None, None, False)),
        (doc(content("/", lic(prohibits("ai-index")))), (None, None, False)),
        (doc(content("/", lic(prohibits("search")))), (False, None, None)),
        (doc(content("/", lic(prohibits("Ai-Train")))), (None, False, None)),  # case
        (doc(content("/", lic(prohibits("ai-train,ai-input")))), (None, False, False)),
        (SEARCH_ONLY, (True, False, False)),  # not listed: not permitted
        (doc(content("/", lic(permits("all")))), (True, True, True)),
        (doc(content("/", lic(permits("ai-all")))), (False, True, True)),
        (doc(content("/", lic(permits("ai-index")))), (False, False, False)),
        (doc(content("/", lic(permits("")))), (False, False, False)),  # permits nothing
        (doc(content("/", lic(permits("all"), prohibits("ai-train")))), (True, False, True)),
        (doc(content("/", lic(permits("all")), lic(prohibits("ai-input")))), (True, True, False)),
        (doc(content("/", lic(permits("bots ai-summarize")))), (False, False, False)),  # unknown
        (doc(content("/", lic(prohibits("ai-summarize")))), (None, None, None)),  # unknown
        # Tokens of the RSL guides and IETF aipref, outside the 1.0 list.
        (doc(content("/", lic(prohibits("train-ai")))), (None, False, None)),
        (doc(content("/", lic(prohibits("train-genai")))), (None, False, None)),
        (doc(content("/", lic(prohibits("ai-use")))), (None, None, False)),
        (doc(content("/", lic(prohibits("tdm")))), (None, False, False)),
        (doc(content("/", lic(permits("tdm")))), (False, True, True)),
        (doc(content("/", lic(permits("train-ai")))), (False, True, False)),
        (doc(content("/", lic())), (None, None, None)),
        (doc(content("/")), (None, None, None)),
        (doc(content("/other/", lic(prohibits("all")))), (None, None, None)),  # no match
        # Two licenses: offers. The best grant counts; silence beats a no.
        (doc(content("/", lic(permits("search")), lic(permits("ai-train")))), (True, True, False)),
        (doc(content("/", lic(permits("search")), lic())), (True, None, None)),
        # Two contents covering the URL: any no wins.
        (doc(content("/", lic(permits("all"))), content("/x", lic(permits("search")))),
         (True, False, False)),
        # Paid or conditional licenses grant nothing unless held.
        (doc(content("/", lic(permits("all"), '<payment type="purchase"/>'))),
         (False, False, False)),
        (doc(content("/", lic(permits("all"), '<payment type="free"/>'))), (True, True, True)),
        (doc(content("/", lic(permits("all"), '<payment type="attribution"/>'))),
         (False, False, False)),
        (doc(content("/", lic(permits("all"), permits("EU", "geo")))), (False, False, False)),
        (doc(content("/", lic(permits("all")), server="https://ls.example/")),
         (False, False, False)),
        (doc(content("/", lic(), server="https://ls.example/")), (False, False, False)),
        (doc(content("/", lic(permits("search")), lic(permits("all"), '<payment type="use"/>'))),
         (True, False, False)),
    ],
)  # fmt: skip
def test_answers_per_purpose(body: bytes, expected: tuple[bool | None, ...]) -> None:
    assert rsl_answers(body, "http://a.example/x") == expected


def test_a_held_license_grants_what_it_permits_but_never_lifts_a_prohibits() -> None:
    paid = doc(
        content(
            "/", lic(permits("search")), lic(permits("ai-all"), '<payment type="subscription"/>')
        )
    )
    assert rsl_answers(paid, "http://a.example/") == (True, False, False)
    assert rsl_answers(paid, "http://a.example/", (LICENSE,)) == (True, True, True)
    assert rsl_answers(paid, "http://a.example/", ("HTTPS://A.EXAMPLE:443/license.xml/",)) == (
        True, True, True,
    )  # fmt: skip
    assert rsl_answers(paid, "http://a.example/", ("https://b.example/license.xml",)) == (
        True, False, False,
    )  # fmt: skip
    served = doc(
        content("/", lic(permits("all"), prohibits("ai-train")), server="https://ls.example/api")
    )
    assert rsl_answers(served, "/", ("https://ls.example/api",)) == (True, False, True)
    assert rsl_answers(served, "/", ()) == (False, False, False)


def test_the_deciding_element_is_named() -> None:
    body = doc(
        content("/", lic(permits("search"))),
        content("/books/*", lic(prohibits("ai-train")), server="https://ls.example/"),
    )
    document = parse_rsl(body)
    search, train, input_ = purpose_answers(
        document, "http://a.example/books/1", frozenset(), LICENSE
    )
    assert train.source == (
        f'RSL {LICENSE} <content url="/books/*" server="https://ls.example/"> license 1: '
        '<prohibits type="usage">ai-train</prohibits>'
    )
    assert train.row == "prohibits ai-train"
    assert input_.row == "permits (purpose not listed)" and "(ai-input not listed)" in input_.source
    # search: content 1 grants it, content 2 needs a license not held: any no wins.
    assert search.allowed is False and search.row == "license required (not held)"
    assert 'server="https://ls.example/" (license not held)' in search.source
    _, unreadable, _ = purpose_answers(parse_rsl(b"junk"), "/", license_url=LICENSE)  # ai-train
    assert unreadable.source.startswith(f"RSL {LICENSE}: license document unreadable: not XML")


def test_signals_join_the_other_vocabularies() -> None:
    document = parse_rsl(doc(content("/", lic(permits("search ai-input")))))
    signals = rsl_signals(document, "http://a.example/", frozenset(), LICENSE)
    assert {s.vocabulary for s in signals} == {"rsl"}
    decision = decide_signals(signals)
    assert decision.allowed("search") is True
    assert decision.allowed("ai-input") is True
    assert decision.allowed("ai-train") is False
    assert "(ai-train not listed)" in str(decision.decided_by("ai-train"))


def test_several_license_documents_combine_with_any_no_winning() -> None:
    from rep_engine.usage.rsl.terms import licenses_signals

    open_ = parse_rsl(doc(content("/", lic(permits("all")))))
    closed = parse_rsl(doc(content("/books/", lic(prohibits("ai-input")))))
    documents = [(LICENSE, open_), ("https://b.example/l.xml", closed), ("x", ABSENT)]
    on_books = decide_signals(licenses_signals(documents, "http://a.example/books/1"))
    assert (on_books.allowed("search"), on_books.allowed("ai-train")) == (True, True)
    assert on_books.allowed("ai-input") is False
    assert "https://b.example/l.xml" in str(on_books.decided_by("ai-input"))
    elsewhere = decide_signals(licenses_signals(documents, "http://a.example/"))
    assert elsewhere.allowed("ai-input") is True
    unreachable = decide_signals(licenses_signals([(LICENSE, UNREACHABLE)], "/"))
    assert unreachable.allowed("ai-train") is False and unreachable.allowed("search") is None


# ------------------------------------------------ tokens and extension elements


@pytest.mark.parametrize(
    "written",
    ["ai-train ai-input", "ai-train\tai-input", "\n    ai-train\n    ai-input\n  ",
     "ai-train   ai-input", "ai-train\r\nai-input", "AI-TRAIN ai-input"],
)  # fmt: skip
def test_usage_tokens_are_separated_by_whitespace(written: str) -> None:
    """RSL 1.0 §3.4.1: a usage value is a space-separated list of tokens."""
    document = parse_rsl(doc(content("/", lic(prohibits(written), permits(written)))))
    (license_,) = document.contents[0].licenses
    assert license_.prohibits == license_.permits == frozenset({"ai-train", "ai-input"})


def test_every_token_of_the_list_is_mapped() -> None:
    """``all ai-all ai-train ai-input ai-index search`` in one element: each token counts."""
    every = "all ai-all ai-train ai-input ai-index search"
    assert rsl_answers(doc(content("/", lic(prohibits(every)))), "http://a.example/x") == (
        False, False, False,
    )  # fmt: skip
    assert rsl_answers(doc(content("/", lic(permits(every)))), "http://a.example/x") == (
        True, True, True,
    )  # fmt: skip
    # Each token maps as its own row: ai-index prohibits only ai-input, search only search.
    no_index_search = doc(content("/", lic(prohibits("ai-index search"))))
    assert rsl_answers(no_index_search, "http://a.example/x") == (False, None, False)


EXT = 'xmlns:ext="https://example.com/rsl-ext"'


@pytest.mark.parametrize(
    "body",
    [
        # Unknown elements in another namespace, at every level.
        f'<rsl xmlns="{NS}" {EXT}><ext:meta>x</ext:meta><content url="/"><ext:note/>'
        '<license><ext:terms a="1">t</ext:terms><prohibits type="usage">ai-train'
        "</prohibits></license></content><ext:after/></rsl>",
        # Unknown elements in the RSL namespace (a later revision's), at every level.
        f'<rsl xmlns="{NS}"><publisher>p</publisher><content url="/"><schema/><license>'
        '<legal>see</legal><prohibits type="usage">ai-train</prohibits><future/>'
        "</license></content></rsl>",
        # Inside <prohibits>: ignored with its content; the tokens around it count.
        f'<rsl xmlns="{NS}" {EXT}><content url="/"><license><prohibits type="usage">'
        "search <ext:why>ai-train</ext:why>ai-train</prohibits></license></content></rsl>",
        # A comment or a processing instruction between tokens separates them.
        f'<rsl xmlns="{NS}"><content url="/"><license><prohibits type="usage">'
        "search<!-- and -->ai-train</prohibits></license></content></rsl>",
        f'<rsl xmlns="{NS}"><content url="/"><license><prohibits type="usage">'
        "search<?x y?>ai-train</prohibits></license></content></rsl>",
    ],
    ids=["other namespace", "rsl namespace", "inside prohibits", "comment", "pi"],
)
def test_unknown_extension_elements_are_ignored_and_the_document_read(body: str) -> None:
    """Errata 2026-08-07: unknown extension elements are ignored; the document is read."""
    document = parse_rsl(body.encode())
    assert document.problem is None
    (license_,) = document.contents[0].licenses
    assert "ai-train" in license_.prohibits and "ext:why" not in repr(license_)
    assert rsl_answers(body.encode(), "http://a.example/x")[1] is False


def test_a_unicode_host_in_content_url_matches_the_punycode_url_requests_are_sent_to() -> None:
    """Scrapy sends ``exämple.com`` as ``xn--exmple-cua.com``: an RSL ``<content url>``
    written with the Unicode host covers it, as robots.txt origins are compared (one
    ``origin_of`` for every floor); a prohibits there is never lost."""
    body = (
        '<rsl xmlns="https://rslstandard.org/rsl"><content url="https://exämple.com/books/*">'
        '<license><prohibits type="usage">ai-train</prohibits></license></content></rsl>'
    ).encode()
    document = parse_rsl(body)
    sent = "https://xn--exmple-cua.com/books/1"
    assert document.contents[0].matches(sent)
    assert not document.contents[0].matches("https://example.com/books/1")
