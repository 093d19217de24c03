"""A cut robots.txt whose last group has no rule read (rep-engine/rep_engine/robotstxt/_parser.py
``without_open_group``; docs/decisions.md, 'A cut robots.txt reads no part of a line that
could allow'): the cut may have parted the group's user-agent lines from its rules, and
read, the group would be empty, allowing its crawlers everything and setting the ``*``
group aside. The whole trailing group is dropped; its crawlers fall back to the groups
read whole."""

from __future__ import annotations

import pytest

from rep_engine.robotstxt import parse_robotstxt

WHOLE = b"User-agent: *\nDisallow: /\n\nUser-agent: testbot\nDisallow: /\n"
START = WHOLE[: WHOLE.index(b"User-agent: testbot")]
PROFILES = ["google", "rfc9309", "legacy"]

#: id -> what of testbot's group the cut left.
CUTS = {
    "after the user-agent line": b"User-agent: testbot\n",
    "after two user-agent lines": b"User-agent: otherbot\nUser-agent: testbot\n",
    "in the disallow key": b"User-agent: testbot\nDisall",
    "after the disallow colon": b"User-agent: testbot\nDisallow:",
    "after the disallow colon and a space": b"User-agent: testbot\nDisallow: ",
    "after a whole empty disallow line": b"User-agent: testbot\nDisallow:\n",
    "after a crawl-delay line": b"User-agent: testbot\nCrawl-delay: 1\n",
    "after a content-usage line": b"User-agent: testbot\nContent-Usage: train-ai=n\n",
    "in the user-agent line's comment": b"User-agent: testbot # the crawler of te",
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("cut", CUTS)
def test_rfc9309_2_5_a_cut_before_a_groups_rules_drops_the_group(cut: str, profile: str) -> None:
    assert not parse_robotstxt(WHOLE, profile).allowed("https://a.example/x", "testbot")
    read = parse_robotstxt(START + CUTS[cut], profile, truncated=True)
    assert not read.allowed("https://a.example/x", "testbot")


@pytest.mark.parametrize("profile", PROFILES)
def test_a_cut_after_a_groups_first_rule_keeps_the_group(profile: str) -> None:
    """A group with a rule read is a group: its crawler does not fall back to ``*``."""
    read = parse_robotstxt(START + b"User-agent: testbot\nAllow: /x\nDisallow: /y", profile,
                           truncated=True)  # fmt: skip
    assert read.allowed("https://a.example/x", "testbot")
    assert not read.allowed("https://a.example/y", "testbot")
    assert read.allowed("https://a.example/z", "testbot")


@pytest.mark.parametrize("profile", PROFILES)
def test_a_whole_documents_empty_last_group_is_read(profile: str) -> None:
    """Not said to be cut, an empty last group is the site's: it allows everything."""
    read = parse_robotstxt(START + b"User-agent: testbot\n", profile)
    assert read.allowed("https://a.example/x", "testbot")


def test_a_cut_after_a_google_ai_training_rule_keeps_the_group() -> None:
    """Google reads ``DisallowAITraining: /`` as a Disallow rule of its group."""
    read = parse_robotstxt(START + b"User-agent: testbot\nDisallowAITraining: /x\n", "google",
                           truncated=True)  # fmt: skip
    assert read.allowed("https://a.example/y", "testbot")
    assert not read.allowed("https://a.example/x", "testbot")


def test_a_cut_document_of_user_agent_lines_only_has_no_group() -> None:
    read = parse_robotstxt(b"User-agent: *\nUser-agent: testbot\n", "google", truncated=True)
    assert read.allowed("https://a.example/x", "testbot")
    assert read.allowed("https://a.example/x", "otherbot")


#: A group of no rule whose License and Sitemap lines are whole, before the cut.
FILE_WIDE = (
    b"User-agent: *\nContent-Usage: train-ai=n\nLicense: https://a.example/l.xml\n"
    b"Sitemap: https://a.example/sitemap.xml\n# padding\n"
)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("where", ["only group", "after a whole group"])
def test_a_dropped_groups_file_wide_lines_are_kept(profile: str, where: str) -> None:
    """RSL 1.0's ``License`` and RFC 9309's ``Sitemap`` belong to no group: dropping the
    group their lines follow kept no license, and a cut robots.txt (over 500 KiB) whose
    only group names a license that refuses the crawl's purpose let its pages through
    (the whole-crawl run, seed 475)."""
    body = (START if where == "after a whole group" else b"") + FILE_WIDE
    read = parse_robotstxt(body, profile, truncated=True)
    assert read.licenses == ("https://a.example/l.xml",)
    assert read.sitemaps == ("https://a.example/sitemap.xml",)
    assert read.licenses == parse_robotstxt(body, profile).licenses
    if where == "after a whole group":  # the group stays dropped
        assert not read.allowed("https://a.example/x", "testbot")


def test_a_cut_over_500_kib_keeps_a_license_its_only_group_names() -> None:
    padding = b"# padding padding padding padding padding\n" * 13_000
    read = parse_robotstxt(FILE_WIDE + padding)  # over 500 KiB: cut here
    assert read.licenses == ("https://a.example/l.xml",)


#: Comment lines enough to take a robots.txt past 500 KiB.
PADDING = b"# padding padding padding padding padding\n" * 13_000

#: id -> (a document whose last group has no rule but Sitemap and License lines,
#: whether testbot is allowed /x once that group is dropped).
GLOBAL_LINES = {
    "the * group": (
        b"User-agent: *\nLicense: https://a.example/l.xml\nSitemap: https://a.example/s.xml\n",
        True,  # no group left
    ),
    "a named group after a whole one": (
        b"User-agent: *\nDisallow: /\n\nUser-agent: testbot\n"
        b"Sitemap: https://a.example/s.xml\nLicense: https://a.example/l.xml\n",
        False,  # testbot falls back to *
    ),
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("case", GLOBAL_LINES)
def test_a_dropped_groups_license_and_sitemap_lines_are_read(case: str, profile: str) -> None:
    """A ``License`` line belongs to no group (RSL's guide: "global (not tied to any
    specific user agent)"), nor does ``Sitemap``: dropped with the group a cut left
    without a rule, the license was never read and its "no" lost (found by the
    whole-crawl run, seed 666: a robots.txt over 500 KiB whose ``*`` group held only a
    ``License`` line, whose license was unreadable and refused ai-train)."""
    group, allowed = GLOBAL_LINES[case]
    for read in (
        parse_robotstxt(group + PADDING, profile),  # over 500 KiB: cut here
        parse_robotstxt(group, profile, truncated=True),
    ):
        assert read.licenses == ("https://a.example/l.xml",)
        assert read.sitemaps == ("https://a.example/s.xml",)
        assert not read.states_no_usage
        assert read.allowed("https://a.example/x", "testbot") is allowed


def test_a_cut_license_line_is_still_dropped() -> None:
    """The unended last line is another matter (``counted_body``): a ``License`` URL
    cut may name another document, so it is not read."""
    read = parse_robotstxt(b"User-agent: *\nLicense: https://a.example/l.x", truncated=True)
    assert read.licenses == ()


#: A ``*`` group with no rule read but AI-usage statements, as the cut leaves it last.
STATED = b"User-agent: *\nContent-Usage: train-ai=n\nContent-Signal: ai-input=no\nCrawl-delay: 2\n"


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    "before", [b"", b"User-agent: otherbot\nDisallow: /\n\n"], ids=["alone", "after a group"]
)
def test_a_cut_star_groups_statements_are_read(before: bytes, profile: str) -> None:
    """A ``*`` group with no rule read adds no rule, read or not (every crawler without
    a group of its own is allowed what the ``*`` groups read whole allow), so only its
    statements are at stake: dropped, its "no" was lost for all of them (found by the
    whole-crawl run, seeds 348 and 999: a robots.txt over 500 KiB whose ``*`` group held
    only a ``Content-Usage: train-ai=n`` line, and ai-train fetched the pages)."""
    url = "https://a.example/x"
    for read in (
        parse_robotstxt(before + STATED + PADDING, profile),  # over 500 KiB: cut here
        parse_robotstxt(before + STATED, profile, truncated=True),
    ):
        assert read.content_usage("testbot").prefs(url).train_ai is False
        assert read.content_signals("testbot").ai_input is False
        assert read.crawl_delay("testbot") == 2
        assert read.allowed(url, "testbot")
        assert read.allowed(url, "otherbot") is not before


@pytest.mark.parametrize("profile", PROFILES)
def test_a_named_group_after_a_cut_star_group_is_still_dropped(profile: str) -> None:
    """From the first user-agent line naming a crawler, the lines are dropped as before:
    testbot, parted from its rules, falls back to ``*`` and its statements."""
    read = parse_robotstxt(STATED + b"User-agent: testbot\nCrawl-delay: 1\n", profile,
                           truncated=True)  # fmt: skip
    assert read.user_agents == ("*",)
    assert read.content_usage("testbot").prefs("https://a.example/x").train_ai is False
    assert read.crawl_delay("testbot") == 2


#: id -> a cut robots.txt whose last group has an AI-usage statement but no allow or
#: disallow rule read, and the crawler whose statement it is.
USAGE_CUTS = {
    "the only group, a path-scoped content-usage line": (
        b"User-agent: *\nContent-Usage: /p/1 search=n\n# padding\n# padd",
        "testbot",
    ),
    "a named group after the star group": (
        b"User-agent: *\nDisallow: /x\n\nUser-agent: testbot\nContent-Usage: /p/1 search=n\n",
        "testbot",
    ),
    "a content-signal line": (b"User-agent: *\nContent-Signal: search=no\n# padd", "testbot"),
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("cut", USAGE_CUTS)
def test_attach_05_3_a_cut_group_keeps_its_usage_noes(cut: str, profile: str) -> None:
    """The group dropped for allow/disallow keeps its whole Content-Usage / Content-Signal
    lines for the usage grouping (their "no" was lost: whole-crawl seed 790's robots.txt
    over 500 KiB let /p/1 be fetched for search), its allow/disallow still dropped."""
    body, agent = USAGE_CUTS[cut]
    read = parse_robotstxt(body, profile, truncated=True)
    assert not read.states_no_usage
    url = "https://a.example/p/1"
    said = str(read.content_usage(agent).prefs(url))
    assert "search=n" in said or read.content_signals(agent).search is False
    assert read.allowed(url, agent)


def test_attach_05_3_a_cut_after_a_usage_group_user_agent_drops_that_run() -> None:
    """A run of user-agent lines with no usage line read after it is no usage group: its
    crawlers keep the ``*`` group's statements."""
    body = b"User-agent: *\nContent-Signal: search=no\n\nUser-agent: testbot\n"
    read = parse_robotstxt(body, truncated=True)
    assert read.content_signals("testbot").search is False
    assert read.content_signals("otherbot").search is False


def test_a_robots_txt_over_500_kib_keeps_its_only_groups_usage_line() -> None:
    """As the crawl reads a download over 500 KiB (whole-crawl seed 790)."""
    body = b"User-agent: *\nContent-Usage: /p/1 search=n\n" + b"# padding\n" * 52_000
    read = parse_robotstxt(body + b"Disallow: /p/1\n")
    assert read.allowed("http://localhost/p/1", "TestBot")
    assert not read.states_no_usage
    assert str(read.content_usage("TestBot").prefs("http://localhost/p/1")) == "search=n"


#: id -> a cut robots.txt whose last run of user-agent lines goes on the group of a
#: Content-Signal line above it (which ends no run), and the crawler it names.
JOINED_CUTS = {
    "a second user-agent line after the signal": (
        b"User-agent: testbot\nContent-Signal: ai-train=no\nUser-agent: otherbot\n",
        "otherbot",
    ),
    "after a crawl-delay line": (
        b"User-agent: *\nAllow: /\n\nUser-agent: testbot\nContent-Signal: ai-train=no\n"
        b"Crawl-delay: 3\nUser-agent: otherbot\n",
        "otherbot",
    ),
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("cut", JOINED_CUTS)
def test_rfc9309_2_2_4_a_cut_run_going_on_a_signal_group_keeps_its_no(
    cut: str, profile: str
) -> None:
    """Read whole, the last user-agent line belongs to the Content-Signal line's group
    (RFC 9309 §2.2.4: such a record "MUST NOT terminate a group"): its crawler's "no"
    is kept when the document is cut there, not dropped with the run."""
    body, agent = JOINED_CUTS[cut]
    assert parse_robotstxt(body, profile).content_signals(agent).ai_train is False
    assert parse_robotstxt(body, profile, truncated=True).content_signals(agent).ai_train is False


@pytest.mark.parametrize("profile", PROFILES)
def test_a_cut_run_after_a_usage_line_ending_it_is_still_dropped(profile: str) -> None:
    """A Content-Usage line ends the run: the user-agent line after it starts an empty
    usage group, which the cut drops (its crawler keeps the ``*`` group's "no")."""
    body = (b"User-agent: *\nContent-Signal: ai-train=no\nDisallow: /x\n\n"
            b"User-agent: testbot\nContent-Signal: search=no\nContent-Usage: search=n\n"
            b"User-agent: otherbot\n")  # fmt: skip
    read = parse_robotstxt(body, profile, truncated=True)
    assert read.content_signals("otherbot").ai_train is False
    assert read.content_signals("testbot").search is False
