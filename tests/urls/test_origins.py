"""SPEC §3: one robots.txt per origin (the seed 003 examples of robots.txt URLs)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rep_engine.urls.origins import Origin, _split_origin, origin_of

SAME = [
    ("https://example.com/", "https://example.com/folder/file"),
    ("https://example.com:443/", "https://example.com/"),
    ("http://example.com:80/a", "http://example.com/b"),
    ("https://EXAMPLE.com/", "https://example.com/"),
    ("https://www.exämple.com/", "https://www.xn--exmple-cua.com/"),
    ("ftp://example.com/x", "ftp://example.com:21/y"),
    ("https://212.96.82.21/a", "https://212.96.82.21/b"),
]
DIFFERENT = [
    ("https://example.com/", "https://other.example.com/"),
    ("https://example.com/", "http://example.com/"),
    ("https://example.com/", "https://example.com:8181/"),
    ("https://www.example.com/", "https://example.com/"),
    ("https://www.example.com/", "https://shop.www.example.com/"),
    ("https://www.exämple.com/", "https://www.example.com/"),
    ("https://example.com:443/", "https://example.com:444/"),
    ("ftp://example.com/", "https://example.com/"),
    ("https://212.96.82.21/", "https://example.com/"),
]


@pytest.mark.parametrize(("a", "b"), SAME, ids=[f"{a}={b}" for a, b in SAME])
def test_spec3_same_origin(a: str, b: str) -> None:
    assert origin_of(a) == origin_of(b) is not None


@pytest.mark.parametrize(("a", "b"), DIFFERENT, ids=[f"{a}!={b}" for a, b in DIFFERENT])
def test_spec3_different_origins(a: str, b: str) -> None:
    assert origin_of(a) != origin_of(b)


@pytest.mark.parametrize(
    "url",
    [
        "data:text/plain,hello",
        "file:///etc/passwd",
        "about:blank",
        "/relative",
        "http://:80/",
        "http://e.com:99999/",
    ],
)
def test_spec3_urls_never_checked(url: str) -> None:
    assert origin_of(url) is None


ROBOTS_URLS = [
    ("https://example.com/folder/file?q#f", "https://example.com/robots.txt"),
    ("http://example.com:8181/a", "http://example.com:8181/robots.txt"),
    ("https://example.com:443/a", "https://example.com/robots.txt"),
    ("ftp://example.com/pub/x", "ftp://example.com/robots.txt"),
    ("https://www.exämple.com/", "https://www.xn--exmple-cua.com/robots.txt"),
    ("http://[::1]:8080/x", "http://[::1]:8080/robots.txt"),
]


@pytest.mark.parametrize(("url", "robots"), ROBOTS_URLS, ids=[u for u, _ in ROBOTS_URLS])
def test_spec3_robots_txt_only_at_the_origin_root(url: str, robots: str) -> None:
    origin = origin_of(url)
    assert origin is not None and origin.robots_url == robots


def test_origin_is_hashable_and_readable() -> None:
    origin = Origin("https", "example.com", 8443)
    assert {origin: 1}[origin_of("https://Example.com:8443/x")] == 1  # type: ignore[index]
    assert str(origin) == "https://example.com:8443"


def test_wrong_argument_type_raises() -> None:
    with pytest.raises(TypeError):
        origin_of(b"https://example.com/")  # type: ignore[arg-type]


#: URLs near the shape whose origin is read off its start, on both sides of its edge.
NEAR_PLAIN = [
    "https://example.com", "https://example.com/", "http://a-b.example.com?q", "https://a.b#f",
    "https://127.0.0.1/x", "https://xn--exmple-cua.com/", "https://EXAMPLE.com/", "HTTPS://a.com/",
    "https://a.com:443/", "https://a.com:8080/", "https://u@a.com/", "https://a.com./",
    "https://a..com/", "https://.a.com/", "https://./", "https:///x", "https://a.com\\x",
    " https://a.com/", "https://a.com /", "https://a.co\tm/", "https://a.com\n", "https://a.com/\n",
    "https://[::1]/", "https://exämple.com/", "ftp://a.com/", "httpss://a.com/", "https:/a.com/",
    "https://a_b.com/", "https://a.com;x", "https://a.com%2F/",
]  # fmt: skip


@pytest.mark.parametrize("url", NEAR_PLAIN)
def test_the_usual_url_s_origin_read_off_its_start_is_the_split_one(url: str) -> None:
    assert origin_of(url) == _split_origin(url)
    assert type(origin_of(url)) is type(_split_origin(url))


@given(
    st.sampled_from(["http", "https", "HTTP", "ftp", "data"]),
    st.text(alphabet="aZ09-._:@[]\t\n %\u00e4", max_size=12),
    st.sampled_from(["", "/", "/x", "?q", "#f", ";p", "\\", " ", "\t/", ":80/"]),
)
def test_any_url_s_origin_is_the_split_one(scheme: str, host: str, rest: str) -> None:
    url = f"{scheme}://{host}{rest}"
    assert origin_of(url) == _split_origin(url)
