"""Worst-case robots.txt input (SPEC §1 "linear time", §7 "hostile input is bounded").

Each test's name states its bound. The bound is enforced by a generous alarm (about 20-50×
the time measured on a 2-core machine), never by comparing timings: a failure means
"did not finish", which a backtracking matcher would not.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from rep_engine import parse_robotstxt
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from rep_engine.urls.encoding import MAX_DANGLING
from rep_engine.usage.rsl.document import make_content
from rep_engine.usage.tdmrep import parse_tdmrep
from tests.support.bounds import DidNotFinish, finishes_within


def busy_for(seconds: float) -> None:
    """Spin in pure Python (as a backtracking matcher would) for ``seconds`` of CPU time."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_finishes_within_really_aborts() -> None:
    """The guard itself must be able to fail, or the tests below prove nothing."""
    with pytest.raises(DidNotFinish), finishes_within(0.2):
        # Far longer than the alarm, so that only a stalled machine could let the loop
        # end first; the loop is in its own frame (see finishes_within).
        busy_for(60)


def test_50000_groups_parse_and_match_within_2s() -> None:
    body = "".join(
        f"User-agent: bot{i}\nDisallow: /p{i}/\nAllow: /p{i}/ok\n\n" for i in range(50_000)
    ).encode()
    with finishes_within(2):
        rules = parse_robotstxt(body)
        assert not rules.allowed("/p7/x", "bot7")
        assert rules.allowed("/p7/ok", "bot7")
        # Beyond 500 KiB nothing counts: group 40,000 starts far after the cap.
        assert body.index(b"bot40000") > MAX_BODY_BYTES
        assert rules.allowed("/p40000/x", "bot40000")


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
def test_pattern_with_1000_stars_on_100kb_urls_within_1s(profile: str) -> None:
    pattern = "/" + "*a" * 1000 + "b$"
    rules = parse_robotstxt(f"User-agent: *\nDisallow: {pattern}\n", profile)
    with finishes_within(1):
        allowed_long = rules.allowed("/" + "a" * 100_000, "bot")
        allowed_match = rules.allowed("/" + "a" * 100_000 + "b", "bot")
    assert allowed_long
    # Wildcards only exist outside the legacy profile.
    assert allowed_match is (profile == "legacy")


def test_100_patterns_of_1000_stars_on_a_100kb_url_within_1s() -> None:
    body = "User-agent: *\n" + "".join(f"Disallow: /{'*a' * 1000}{i}$\n" for i in range(100))
    rules = parse_robotstxt(body)
    with finishes_within(1):
        assert rules.allowed("/" + "a" * 100_000, "bot")
        assert not rules.allowed("/" + "a" * 100_000 + "7", "bot")


def test_redos_shape_cve_2026_55520_within_1s() -> None:
    body = "User-agent: *\n" + "".join(f"Disallow: /{'*a' * n}*b$\n" for n in range(1, 60))
    rules = parse_robotstxt(body)
    with finishes_within(1):
        for length in (10, 1_000, 30_000):
            assert rules.allowed("/" + "a" * length, "bot")


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
def test_a_rule_of_2000_dangling_escapes_parses_and_matches_within_2s(profile: str) -> None:
    """Each dangling escape (``%a`` at the end or before ``*``) doubled a rule's variants,
    so ``/%a*%a*…`` made 2**n of them: 21 took a second, 30 would exhaust memory. Only the
    first two get variants (:data:`MAX_DANGLING`)."""
    rule = "/x" + "%a*" * 2000 + "%a"
    body = f"User-agent: *\nDisallow: {rule}\nContent-Usage: {rule} train-ai=n\nDisallow: /y%a*%b\n"
    with finishes_within(2):
        rules = parse_robotstxt(body, profile)
        assert rules.allowed("/x" + "%ab" * 100, "bot")  # the rule's last %a is not met
        assert rules.content_usage("bot").prefs("/x" + "%ab" * 100).train_ai is None
        # The first two keep their "no" (legacy: "*" is literal, so no match).
        assert rules.allowed("/y%ab%bc", "bot") is (profile == "legacy")
        tdm = parse_tdmrep(json.dumps([{"location": rule, "tdm-reservation": 1}]))
        assert tdm.lookup("/x" + "%ab" * 100) is None
        assert not make_content(1, rule, None, ()).matches("/x" + "%ab" * 100)
    assert MAX_DANGLING == 2


STRESS_URLS = [
    "http://example.com/",
    "http://example.com/a/b/c?x=1",
    "http://example.com/" + "a" * 100_000,
    "http://example.com/" + "ab" * 50_000,
    "http://example.com/" + "a/" * 50_000,
    "http://example.com/" + "%E2%82%AC" * 10_000,
]


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
def test_synthetic_stress_files_parse_and_100kb_urls_within_5s_each(
    corpus_dir: Path, profile: str
) -> None:
    files = sorted((corpus_dir / "synthetic").glob("*.txt"))
    assert len(files) >= 10
    for path in files:
        body = path.read_bytes()
        with finishes_within(5):
            rules = parse_robotstxt(body, profile)
            verdicts = [
                rules.allowed(url, agent) for url in STRESS_URLS for agent in ("Googlebot", "mybot")
            ]
        # Deterministic: the same answers a second time.
        assert verdicts == [
            rules.allowed(url, agent) for url in STRESS_URLS for agent in ("Googlebot", "mybot")
        ]
