"""Robustness of the robots.txt engine (SPEC §1 "never raises on content", §7).

- every file of ``../shared/corpus`` (real, junk, synthetic) parses in every profile and
  answers a few URLs without raising;
- answers are deterministic: twice in one process (in fresh processes with other
  ``PYTHONHASHSEED`` values: tests/integration/test_robotstxt_robustness.py);
- Hypothesis: random bytes, robots-like text and random URLs never make it raise;
- hand-made hostile bodies: invalid UTF-8, NUL bytes, a 2 MiB line, an HTML error page;
- a wrong argument type raises ``TypeError``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rep_engine import ContentSignals, parse_robotstxt
from tests.support.corpus import (
    AGENTS,
    PROFILES,
    check_types,
    corpus_files,
    own_urls,
    sample_answers,
    sample_files,
    urls_for,
)

# ---------------------------------------------------------------------------------------
# The corpus
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("kind", ["real", "junk", "synthetic"])
def test_corpus_never_raises(corpus_dir: Path, kind: str, profile: str) -> None:
    files = corpus_files(corpus_dir, kind)
    assert files, f"no files under {corpus_dir / kind}"
    urls = own_urls(corpus_dir)
    failures: list[str] = []
    for path in files:
        relative = path.relative_to(corpus_dir).as_posix()
        try:
            rules = parse_robotstxt(path.read_bytes(), profile)
            check_types(rules, urls_for(relative, urls))
        except Exception as exc:  # collect every failing file, with its reason
            failures.append(f"{relative}: {type(exc).__name__}: {exc}")
    assert not failures, "\n".join(failures[:20])


@pytest.mark.parametrize("profile", PROFILES)
def test_code_is_allowed_and_the_deciding_line(corpus_dir: Path, profile: str) -> None:
    """``code()`` (one match, the recheck's per-item call) is ``allowed()`` by its sign, and
    a refusing code is the line ``decide()`` names, on files of every kind."""
    urls = own_urls(corpus_dir)
    for path in sample_files(corpus_dir):
        rules = parse_robotstxt(path.read_bytes(), profile)
        for url in urls_for(path.relative_to(corpus_dir).as_posix(), urls):
            for agent in AGENTS:
                code, decision = rules.code(url, agent), rules.decide(url, agent)
                assert (code >= 0) is rules.allowed(url, agent) is decision.allowed, (path, url)
                if code < 0:
                    assert decision.line == -code, (path, url, agent)
    everything = parse_robotstxt(b"User-agent: *\nDisallow: /\n", profile)
    assert everything.code("https://e.com/x", "mybot") == -2
    always = everything.options.robots_txt_always_allowed  # RFC 9309 §2.2.2
    assert everything.code("https://e.com/robots.txt", "mybot") == (0 if always else -2)


def test_corpus_answers_are_deterministic_in_process(corpus_dir: Path) -> None:
    files = sample_files(corpus_dir)
    first = sample_answers(corpus_dir, files)
    assert sample_answers(corpus_dir, files) == first
    # and they say something: the sample holds both allowed and disallowed answers
    flat = json.dumps(first)
    assert "true" in flat
    assert "false" in flat


# ---------------------------------------------------------------------------------------
# Hand-made hostile bodies
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    "body",
    [
        b"User-agent: *\n# caf\xe9 au lait\nDisallow: /private\n",
        b"# \xe9t\xe9 2024\nUser-agent: *\nDisallow: /private\n",
        b"User-agent: *\nDisallow: /caf\xe9\nDisallow: /private\n",
        b"User-agent: *\r\n# \xff\xfe\xc0\xaf\xed\xa0\x80\r\nDisallow: /private\r\n",
        b"User-agent: caf\xe9bot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n",
    ],
    ids=[
        "latin1-comment",
        "latin1-first-line",
        "latin1-other-rule",
        "garbage-bytes",
        "latin1-agent",
    ],
)
def test_invalid_utf8_does_not_make_the_file_allow_all(profile: str, body: bytes) -> None:
    rules = parse_robotstxt(body, profile)
    assert rules.allowed("https://example.com/private/x", "mybot") is False
    assert rules.allowed("https://example.com/public", "mybot") is True


@pytest.mark.parametrize("profile", PROFILES)
def test_nul_bytes(profile: str) -> None:
    body = b"\x00\x00\nUser-agent: *\n# \x00 nul\nDisallow: /x\nDisallow: /a\x00b\n\x00\n"
    rules = parse_robotstxt(body, profile)
    assert rules.allowed("https://example.com/x", "mybot") is False
    assert rules.allowed("https://example.com/y", "mybot") is True
    assert isinstance(rules.allowed("https://example.com/a%00b", "mybot"), bool)
    assert isinstance(parse_robotstxt(b"\x00" * 100_000, profile).allowed("/", "mybot"), bool)


TWO_MIB = 2 * 1024 * 1024


@pytest.mark.parametrize("profile", PROFILES)
def test_two_mib_line(profile: str) -> None:
    body = b"User-agent: *\nDisallow: /x\nDisallow: /" + b"a" * TWO_MIB + b"\n"
    rules = parse_robotstxt(body, profile)
    assert rules.allowed("https://example.com/x", "mybot") is False
    assert rules.allowed("https://example.com/y", "mybot") is True
    assert rules.allowed("https://example.com/" + "a" * 100, "mybot") is True
    # a single 2 MiB line with no line end at all
    assert parse_robotstxt(b"a" * TWO_MIB, profile).allowed("/", "mybot") is True
    assert parse_robotstxt(b"Disallow: /" + b"*a" * TWO_MIB, profile).allowed("/a", "x") is True


def test_two_mib_line_google_keeps_16663_bytes() -> None:
    # SPEC §1: the long line is cut at 16663 bytes, so the pattern is "/" + 16652 a's.
    body = b"User-agent: *\nDisallow: /" + b"a" * TWO_MIB + b"\n"
    rules = parse_robotstxt(body)
    assert rules.allowed("https://example.com/" + "a" * 16652, "mybot") is False
    assert rules.allowed("https://example.com/" + "a" * 16651, "mybot") is True


HTML_404 = (
    b"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\n"
    b"<title>404 Not Found</title><style>body { font: 12px/1.4 sans-serif; }</style>\n"
    b"<script>var disallow = '/'; // Disallow: /\n</script></head>\n"
    b"<body><h1>Not Found</h1><p>The requested URL /robots.txt was not found.</p>\n"
    b"<!-- User-agent: * Disallow: / -->\n<a href='/'>Home</a></body></html>\n"
)


@pytest.mark.parametrize("profile", PROFILES)
def test_html_error_page_allows_everything(profile: str) -> None:
    rules = parse_robotstxt(HTML_404, profile)
    for target in ("https://example.com/", "https://example.com/robots.txt", "/a/b?c"):
        for agent in AGENTS:
            assert rules.allowed(target, agent) is True
    assert rules.sitemaps == ()
    assert rules.crawl_delay("mybot") is None


@pytest.mark.parametrize("profile", PROFILES)
def test_utf16_body_does_not_raise(profile: str) -> None:
    body = "User-agent: *\nDisallow: /private\n".encode("utf-16")
    assert isinstance(parse_robotstxt(body, profile).allowed("/private", "mybot"), bool)


@pytest.mark.parametrize("profile", PROFILES)
def test_hostile_wildcards_answer_correctly(profile: str) -> None:
    # ReDoS-shaped rules (Protego CVE-2026-55520): the answer must come, and be right.
    body = "User-agent: *\nDisallow: /" + "*a" * 60 + "*b$\n"
    rules = parse_robotstxt(body, profile)
    assert rules.allowed("https://example.com/" + "a" * 20_000, "mybot") is True
    expected = profile == "legacy"  # legacy: no wildcards, so the rule is literal
    assert rules.allowed("https://example.com/" + "a" * 20_000 + "b", "mybot") is expected


# ---------------------------------------------------------------------------------------
# Wrong argument types raise TypeError (and only they)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [123, None, 1.5, ["User-agent: *"], {"a": 1}])
def test_parse_wrong_body_type_raises_type_error(body: Any) -> None:
    with pytest.raises(TypeError):
        parse_robotstxt(body)


RULES = parse_robotstxt(b"User-agent: *\nDisallow: /x\n")


@pytest.mark.parametrize(
    "call",
    [
        lambda: RULES.allowed(None, "mybot"),  # type: ignore[arg-type]
        lambda: RULES.allowed(123, "mybot"),  # type: ignore[arg-type]
        lambda: RULES.allowed(b"https://example.com/x", "mybot"),  # type: ignore[arg-type]
        lambda: RULES.allowed("https://example.com/x", None),  # type: ignore[arg-type]
        lambda: RULES.allowed("https://example.com/x", 7),  # type: ignore[arg-type]
        lambda: RULES.decide(None, "mybot"),  # type: ignore[arg-type]
        lambda: RULES.decide("/x", None),  # type: ignore[arg-type]
        lambda: RULES.crawl_delay(None),  # type: ignore[arg-type]
        lambda: RULES.content_signals(None),  # type: ignore[arg-type]
        lambda: RULES.content_usage(None),  # type: ignore[arg-type]
    ],
    ids=[
        "allowed-url-none",
        "allowed-url-int",
        "allowed-url-bytes",
        "allowed-agent-none",
        "allowed-agent-int",
        "decide-url-none",
        "decide-agent-none",
        "crawl-delay-none",
        "content-signals-none",
        "content-usage-none",
    ],
)
def test_wrong_argument_types_raise_type_error(call: Any) -> None:
    with pytest.raises(TypeError):
        call()


ODD_URLS = [
    "",
    "/",
    "?",
    "#",
    "http://[::1",
    "http://[not-ipv6]/x",
    "https://example.com:99999999/x",
    "https://exa mple.com/ a b",
    "javascript:alert(1)",
    "mailto:someone@example.com",
    "//example.com",
    "https://example.com/%",
    "https://example.com/%zz%",
    "https://example.com/\x00\r\n",
    "https://example.com/é?ü=ß#ö",
    "https://example.com/" + "%" * 5000,
]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("target", ODD_URLS, ids=[repr(u)[:40] for u in ODD_URLS])
def test_odd_urls_never_raise(profile: str, target: str) -> None:
    rules = parse_robotstxt("User-agent: *\nDisallow: /x\nAllow: /*$\n", profile)
    for agent in ("", "*", " ", "mybot", "\x00", "é/1.0", "x" * 10_000):
        assert isinstance(rules.allowed(target, agent), bool)


# ---------------------------------------------------------------------------------------
# Hypothesis
# ---------------------------------------------------------------------------------------

HYPOTHESIS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SAMPLE_URLS = ("https://example.com/", "https://example.com/a/b?c=d", "/x*y$", "/%E3%83%84")


@HYPOTHESIS
@given(body=st.binary(max_size=4000), profile=st.sampled_from(PROFILES))
def test_random_bytes_never_raise(body: bytes, profile: str) -> None:
    rules = parse_robotstxt(body, profile)
    for target in SAMPLE_URLS:
        assert isinstance(rules.allowed(target, "mybot"), bool)
    assert isinstance(rules.sitemaps, tuple)


@HYPOTHESIS
@given(body=st.text(max_size=2000), profile=st.sampled_from(PROFILES))
def test_random_text_never_raises(body: str, profile: str) -> None:
    rules = parse_robotstxt(body, profile)
    for target in SAMPLE_URLS:
        assert isinstance(rules.allowed(target, "mybot"), bool)


KEYS = [
    "User-agent",
    "user-agent",
    "useragent",
    "user agent",
    "Allow",
    "Disallow",
    "disalow",
    "Sitemap",
    "site-map",
    "Crawl-delay",
    "Content-Signal",
    "Content-Usage",
    "Request-rate",
    "Host",
    "Clean-param",
    "Unknown",
    "#",
    "",
]
VALUE_CHARS = "ab/*$?%#=;:,. \tZ-_é\x00ツ0123456789"
robots_lines = st.builds(
    lambda key, sep, value: f"{key}{sep}{value}",
    st.sampled_from(KEYS),
    st.sampled_from([": ", ":", " ", "\t", " : ", ""]),
    st.text(alphabet=VALUE_CHARS, max_size=20),
)
robots_bodies = st.builds(
    lambda lines, eol: eol.join(lines),
    st.lists(robots_lines, max_size=30),
    st.sampled_from(["\n", "\r", "\r\n"]),
)
switch_sets = st.fixed_dictionaries(
    {},
    optional={
        "precedence": st.sampled_from(["longest", "first"]),
        "wildcards": st.booleans(),
        "agent_match": st.sampled_from(["token", "substring"]),
        "merge_groups": st.booleans(),
        "blank_line_ends_group": st.booleans(),
        "lenient_syntax": st.booleans(),
        "max_line_length": st.sampled_from([None, 16663, 5]),
        "index_html_is_directory": st.booleans(),
        "robots_txt_always_allowed": st.booleans(),
        "percent_encoding": st.sampled_from(["google", "rfc9309", "none"]),
        "obey_crawl_delay": st.booleans(),
    },
)
random_urls = st.one_of(
    st.text(max_size=60),
    st.builds(
        lambda path: "https://example.com/" + path, st.text(alphabet=VALUE_CHARS, max_size=40)
    ),
)
random_agents = st.one_of(
    st.text(max_size=20), st.sampled_from(["a", "b", "*", "Z-_", "mybot/1.0"])
)


@HYPOTHESIS
@given(
    body=robots_bodies,
    profile=st.sampled_from(PROFILES),
    switches=switch_sets,
    targets=st.lists(random_urls, min_size=1, max_size=5),
    agent=random_agents,
)
def test_robots_like_text_and_random_urls_never_raise(
    body: str, profile: str, switches: dict[str, Any], targets: list[str], agent: str
) -> None:
    rules = parse_robotstxt(body.encode("utf-8", "surrogatepass"), profile, **switches)
    again = parse_robotstxt(body.encode("utf-8", "surrogatepass"), profile, **switches)
    for target in targets:
        decision = rules.decide(target, agent)
        assert decision.allowed is rules.allowed(target, agent)
        assert again.decide(target, agent) == decision  # deterministic
    delay = rules.crawl_delay(agent)
    assert delay is None or isinstance(delay, float)
    assert isinstance(rules.content_signals(agent), ContentSignals)
    usage = rules.content_usage(agent)
    for target in targets:
        assert usage.attach(target) == again.content_usage(agent).attach(target)  # deterministic
