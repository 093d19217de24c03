"""robots.txt ``Content-Usage`` rules (draft-ietf-aipref-attach-05, "attach", §3) and the
file-wide ``Content-Signal`` / ``Content-Usage`` lines written before the first group.

The parser collects each group's ``Content-Usage`` lines (line number and value as the
file has them); :meth:`RobotsTxt.content_usage` compiles those of the group set that
applies to a crawler, selected exactly as allow/disallow are. Lines before the first
``user-agent`` line apply to every crawler, in addition to its group's own
(docs/deviations.md).
"""

from __future__ import annotations

import gc

import pytest

from rep_engine.robotstxt import ALLOW_ALL, DISALLOW_ALL, ContentSignals, parse_robotstxt
from rep_engine.robotstxt.aipref import NO_CONTENT_USAGE, UNKNOWN, ContentUsageRules
from tests.support.answers import train_ai_and_search
from tests.support.documents import ATTACH_EXAMPLE

Y, N, U = True, False, None
PROFILES = ("google", "rfc9309", "legacy")


def lines_of(rules: ContentUsageRules) -> list[int]:
    return [rule.line for rule in rules.rules]


# --------------------------------------------------------------------------- attach §3.4


#: attach §3.4 Table 1 and the paragraph after it: (agent, path, crawl, expected
#: (train-ai, search), deciding lines). ``None``: "N/A", disallowed, nothing implied.
ATTACH_TABLE = [
    ("OtherBot", "/test", True, (N, U), [4]),
    ("OtherBot", "/never/test", False, None, []),
    ("OtherBot", "/ai-ok/test", True, (Y, U), [5]),
    ("ExampleBot/1.0", "/test", True, (Y, U), [9]),
    ("ExampleBot/1.0", "/never/test", True, (Y, U), [9]),
    ("ExampleBot/1.0", "/ai-ok/test", True, (Y, U), [9]),
]


@pytest.mark.parametrize("profile", ["google", "rfc9309"])
@pytest.mark.parametrize(
    ("agent", "path", "crawl", "expected", "deciding"),
    ATTACH_TABLE,
    ids=[f"{r[0].split('/')[0]}-{r[1]}" for r in ATTACH_TABLE],
)
def test_attach_3_4_example_table(
    profile: str,
    agent: str,
    path: str,
    crawl: bool,
    expected: tuple[bool | None, bool | None] | None,
    deciding: list[int],
) -> None:
    """ "Of those resources, those under "/ai-ok/" have an associated usage preference
    of "train-ai=y" and all other resources have a usage preference of "train-ai=n"";
    "A crawler that identifies as "ExampleBot" uses the second group"."""
    robots = parse_robotstxt(ATTACH_EXAMPLE, profile)
    url = "https://example.com" + path
    assert robots.allowed(url, agent) is crawl
    if expected is None:
        return  # "no preferences are implied for resources that are disallowed" (§3.1)
    attached = robots.content_usage(agent).attach(url)
    assert train_ai_and_search(attached.prefs) == expected
    assert [rule.line for rule in attached.rules] == deciding


def test_attach_3_4_example_in_the_legacy_profile() -> None:
    """SPEC §2 legacy: the first matching line decides, so ``Allow: /`` lets
    ``/never/test`` through; the Content-Usage rules are the same."""
    robots = parse_robotstxt(ATTACH_EXAMPLE, "legacy")
    assert robots.allowed("https://example.com/never/test", "OtherBot")
    rules = robots.content_usage("OtherBot")
    assert train_ai_and_search(rules.prefs("https://example.com/never/test")) == (N, U)
    assert train_ai_and_search(rules.prefs("https://example.com/ai-ok/test")) == (Y, U)
    assert lines_of(robots.content_usage("ExampleBot")) == [9]


def test_attach_3_4_example_group_rules_as_written() -> None:
    robots = parse_robotstxt(ATTACH_EXAMPLE)
    rules = robots.content_usage("OtherBot")
    assert lines_of(rules) == [4, 5]
    assert [rule.source for rule in rules.rules] == [
        "robots.txt line 4: Content-Usage: train-ai=n",
        "robots.txt line 5: Content-Usage: /ai-ok/ train-ai=y",
    ]
    assert [rule.path for rule in rules.rules] == [None, b"/ai-ok/"]
    assert lines_of(robots.content_usage("ExampleBot")) == [9]


def test_attach_3_content_usage_never_changes_allow_deny() -> None:
    body = "User-agent: *\nDisallow: /x\nContent-Usage: / train-ai=n, search=n\n"
    robots = parse_robotstxt(body)
    assert robots.allowed("https://example.com/y", "mybot")
    assert not robots.allowed("https://example.com/x", "mybot")
    assert robots.decide("https://example.com/y", "mybot").reason == "no rule matches"


# --------------------------------------------------------------------------- selection

#: (body, agent, profile, expected lines of the rules that apply, id).
SELECTION_CASES = [
    (
        "User-agent: *\nContent-Usage: train-ai=n\nAllow: /\n\n"
        "User-agent: *\nContent-Usage: /a search=n\n",
        "mybot",
        "google",
        [2, 6],
        "spec1-merged-star-groups",
    ),
    (
        "User-agent: mybot\nContent-Usage: train-ai=n\nAllow: /\n\n"
        "User-agent: other\nDisallow: /\n\nUser-agent: MyBot\nContent-Usage: /a search=n\n",
        "mybot/2.0",
        "google",
        [2, 9],
        "spec1-merged-named-groups",
    ),
    (
        "User-agent: *\nContent-Usage: train-ai=n\nAllow: /\n\nUser-agent: mybot\nDisallow: /p\n",
        "mybot",
        "google",
        [],
        "spec1-specific-group-beats-star-even-without-content-usage",
    ),
    (
        "User-agent: *\nContent-Usage: train-ai=n\nAllow: /\n\n"
        "User-agent: mybot\nContent-Usage: train-ai=y\n",
        "mybot",
        "google",
        [6],
        "spec1-specific-group-beats-star",
    ),
    (
        "User-agent: *\nContent-Usage: train-ai=n\nAllow: /\n\n"
        "User-agent: mybot\nContent-Usage: train-ai=y\n",
        "otherbot",
        "google",
        [2],
        "spec1-star-for-the-others",
    ),
    (
        "User-agent: a\nUser-agent: mybot\nContent-Usage: train-ai=n\nDisallow: /x\n",
        "mybot",
        "google",
        [3],
        "spec1-one-group-several-agents",
    ),
    (
        "User-agent: a\nDisallow: /\n\nContent-Usage: train-ai=n\n",
        "a",
        "google",
        [4],
        "spec1-blank-line-does-not-end-a-group",
    ),
    (
        "User-agent: a\nDisallow: /\n\nContent-Usage: train-ai=n\n",
        "a",
        "legacy",
        [],
        "spec2-legacy-blank-line-ends-the-record",
    ),
    (
        "User-agent: mybot\nContent-Usage: train-ai=n\n\n"
        "User-agent: mybot\nContent-Usage: search=n\n",
        "mybot",
        "legacy",
        [2],
        "spec2-legacy-first-matching-record-only",
    ),
    (
        "User-agent: bot\nContent-Usage: train-ai=n\n\nUser-agent: *\nContent-Usage: search=n\n",
        "mybot",
        "legacy",
        [2],
        "spec2-legacy-substring-agent-match",
    ),
    (
        "User-agent: bot\nContent-Usage: train-ai=n\nAllow: /\n\n"
        "User-agent: *\nContent-Usage: search=n\n",
        "mybot",
        "rfc9309",
        [6],
        "spec2-rfc9309-exact-token",
    ),
    ("User-agent: other\nContent-Usage: train-ai=n\n", "mybot", "google", [], "no-group-applies"),
    ("Disallow: /\n", "mybot", "google", [], "no-groups-at-all"),
]


@pytest.mark.parametrize(
    ("body", "agent", "profile", "expected"),
    [c[:4] for c in SELECTION_CASES],
    ids=[c[4] for c in SELECTION_CASES],
)
def test_content_usage_follows_the_allow_disallow_group_selection(
    body: str, agent: str, profile: str, expected: list[int]
) -> None:
    rules = parse_robotstxt(body, profile).content_usage(agent)
    assert lines_of(rules) == expected
    if not expected:
        assert rules is NO_CONTENT_USAGE


def test_merged_groups_combine_like_one_group() -> None:
    """attach §3.1: identical paths apply separately and combine (any ``n`` wins),
    also when the lines come from two groups merged for the crawler (SPEC §1)."""
    body = (
        "User-agent: *\nContent-Usage: /a train-ai=y\nDisallow: /x\n\n"
        "User-agent: *\nContent-Usage: /a train-ai=n, search=y\n"
    )
    attached = parse_robotstxt(body).content_usage("mybot").attach("https://example.com/a/1")
    assert train_ai_and_search(attached.prefs) == (N, Y)
    assert [rule.line for rule in attached.rules] == [2, 6]


@pytest.mark.parametrize("profile", PROFILES)
def test_a_content_usage_line_ends_a_user_agent_run_for_usage_only(profile: str) -> None:
    """attach-05 §3: ``content-usage`` is a ``rule``, so it ends a run of user-agent lines:
    a's Content-Usage is not b's. Allow/disallow keep Google's grouping (unknown lines
    ignored; SPEC §1), so b's Disallow still applies to a too (docs/behaviour.md)."""
    body = "User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /x\n"
    robots = parse_robotstxt(body, profile)
    assert lines_of(robots.content_usage("a")) == [2]
    assert lines_of(robots.content_usage("b")) == []
    assert not robots.allowed("https://example.com/x", "b")
    assert not robots.allowed("https://example.com/x", "a")


#: The file that showed the leak: two groups under attach-05, one merged group before the
#: fix.
TWO_GROUPS_UNDER_ATTACH05 = (
    "User-agent: *\nContent-Usage: train-ai=n\n\nUser-agent: mybot\nContent-Usage: /a train-ai=y\n"
)


@pytest.mark.parametrize("profile", PROFILES)
def test_only_the_named_group_gets_its_content_usage(profile: str) -> None:
    robots = parse_robotstxt(TWO_GROUPS_UNDER_ATTACH05, profile)
    assert train_ai_and_search(robots.content_usage("otherbot").prefs("/a/x")) == (N, U)
    assert train_ai_and_search(robots.content_usage("mybot").prefs("/a/x")) == (Y, U)
    assert train_ai_and_search(robots.content_usage("mybot").prefs("/b")) == (U, U)


@pytest.mark.parametrize("profile", PROFILES)
def test_a_content_signal_line_ends_no_user_agent_run(profile: str) -> None:
    """RFC 9309 §2.2.4: other records "MUST NOT terminate a group"; Content-Signal is one
    (no grammar makes it a rule). Both signals are the one group's: one "no" wins."""
    body = (
        "User-agent: *\nContent-Signal: ai-train=no\n"
        "User-agent: mybot\nContent-Signal: ai-train=yes\n"
    )
    robots = parse_robotstxt(body, profile)
    assert robots.content_signals("otherbot") == ContentSignals(ai_train=False)
    assert robots.content_signals("mybot") == ContentSignals(ai_train=False)


#: A line between two user-agent lines -> does it split the Content-Usage group?
BETWEEN_CASES = [
    ("Content-Usage: /p train-ai=y", True, "content-usage-attach-05-rule"),
    ("DisallowAITraining: /q", True, "ai-training-rule"),
    ("Content-Signal: ai-train=no", False, "content-signal"),
    ("Sitemap: https://example.com/s.xml", False, "sitemap"),
    ("Crawl-delay: 5", False, "crawl-delay"),
    ("License: https://example.com/l.xml", False, "license"),
    ("Unknown-Key: x", False, "unknown"),
    ("# a comment", False, "comment"),
]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("between", "splits"), [c[:2] for c in BETWEEN_CASES], ids=[c[2] for c in BETWEEN_CASES]
)
def test_which_lines_split_the_content_usage_group(
    profile: str, between: str, splits: bool
) -> None:
    """Only the rules of attach-05 §3 (and draft-canel's) end a run of user-agent lines
    for Content-Usage; every other record ends none (RFC 9309 §2.2.4)."""
    body = f"User-agent: a\n{between}\nUser-agent: b\nContent-Usage: train-ai=n\n"
    robots = parse_robotstxt(body, profile)
    assert robots.content_usage("b").prefs("/x").train_ai is False
    assert (robots.content_usage("a").prefs("/x").train_ai is False) is not splits


def test_where_the_two_groupings_part() -> None:
    """The file where Google's grouping (allow/disallow) and attach-05's (Content-Usage)
    part: one allow/disallow group for a and b, two Content-Usage groups."""
    body = (
        "User-agent: a\nContent-Usage: /p train-ai=y\nContent-Signal: search=no\n"
        "User-agent: b\nDisallow: /x\nContent-Usage: train-ai=n\n"
    )
    robots = parse_robotstxt(body)
    for agent in ("a", "b"):
        assert not robots.allowed("https://example.com/x", agent)
    assert lines_of(robots.content_usage("a")) == [2]
    assert lines_of(robots.content_usage("b")) == [6]
    assert robots.content_signals("a") == ContentSignals(search=False)
    assert robots.content_signals("b") == ContentSignals()
    # An agent named by neither falls back to no group at all, in both readings.
    assert robots.content_usage("c") is NO_CONTENT_USAGE


def test_rules_are_compiled_once_per_group_set() -> None:
    """Crawlers that fall back to the same groups share one compiled set."""
    robots = parse_robotstxt("User-agent: *\nContent-Usage: train-ai=n\n")
    first = robots.content_usage("Googlebot")
    assert robots.content_usage("Googlebot") is first
    assert robots.content_usage("mybot/1.0 (+https://example.com)") is first


@pytest.mark.parametrize("robots", [ALLOW_ALL, DISALLOW_ALL], ids=["allow-all", "disallow-all"])
def test_stand_ins_have_no_content_usage(robots: object) -> None:
    assert robots.content_usage("mybot") is NO_CONTENT_USAGE  # type: ignore[attr-defined]


def test_no_content_usage_attaches_nothing() -> None:
    assert len(NO_CONTENT_USAGE) == 0
    assert NO_CONTENT_USAGE.attach("https://example.com/x").prefs == UNKNOWN
    assert NO_CONTENT_USAGE.attach("https://example.com/x").rules == ()


def test_content_usage_agent_must_be_text() -> None:
    robots = parse_robotstxt("User-agent: *\nContent-Usage: train-ai=n\n")
    with pytest.raises(TypeError):
        robots.content_usage(None)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- file-wide lines

#: Lines before the first user-agent line: (body, agent, expected lines, id).
FILE_WIDE_USAGE_CASES = [
    (
        "Content-Usage: train-ai=n\n\nUser-agent: *\nDisallow: /x\n",
        "mybot",
        [1],
        "star-group",
    ),
    (
        "Content-Usage: train-ai=n\n\nUser-agent: *\nDisallow: /x\n\nUser-agent: mybot\nAllow: /\n",
        "mybot",
        [1],
        "specific-group",
    ),
    ("Content-Usage: train-ai=n\n\nUser-agent: a\nDisallow: /\n", "mybot", [1], "no-group-applies"),
    ("Content-Usage: train-ai=n\nSitemap: https://example.com/s.xml\n", "mybot", [1], "no-groups"),
    (
        "# policy\nContent-Usage: train-ai=n\nUser-agent: mybot\nContent-Usage: /a train-ai=y\n",
        "mybot",
        [2, 4],
        "added-to-the-groups-own",
    ),
]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("body", "agent", "expected"),
    [c[:3] for c in FILE_WIDE_USAGE_CASES],
    ids=[c[3] for c in FILE_WIDE_USAGE_CASES],
)
def test_group_less_content_usage_applies_to_every_crawler(
    profile: str, body: str, agent: str, expected: list[int]
) -> None:
    robots = parse_robotstxt(body, profile)
    assert lines_of(robots.content_usage(agent)) == expected
    assert lines_of(robots.content_usage("someone-else")) == expected[:1]


def test_group_less_content_usage_only_adds_restrictions() -> None:
    """A file-wide line keeps its file-wide reading but only adds restrictions: it is
    matched on its own and combined with the group's answer (any ``n`` wins), so the
    group's more specific ``/ok/ train-ai=y`` does not lift the file-wide ``n``."""
    body = (
        "Content-Usage: train-ai=n\nUser-agent: *\nContent-Usage: train-ai=y, search=y\n"
        "Content-Usage: /ok/ train-ai=y\n"
    )
    rules = parse_robotstxt(body).content_usage("mybot")
    assert train_ai_and_search(rules.prefs("https://example.com/x")) == (N, Y)
    attached = rules.attach("https://example.com/ok/x")
    assert train_ai_and_search(attached.prefs) == (N, U)
    assert [rule.line for rule in attached.rules] == [1, 4]


@pytest.mark.parametrize("profile", PROFILES)
def test_a_file_wide_yes_never_lifts_a_groups_no(profile: str) -> None:
    """The file that showed it: ``/a train-ai=y`` before the first group is longer than
    the group's path-less ``n``, but may not lift it."""
    body = "Content-Usage: /a train-ai=y\nUser-agent: *\nContent-Usage: train-ai=n\n"
    rules = parse_robotstxt(body, profile).content_usage("mybot")
    assert train_ai_and_search(rules.prefs("https://example.com/a/x")) == (N, U)
    assert train_ai_and_search(rules.prefs("https://example.com/b")) == (N, U)
    # Where the group is silent, the file-wide reading stands.
    body = "Content-Usage: /a train-ai=y\nUser-agent: *\nContent-Usage: /b train-ai=n\n"
    rules = parse_robotstxt(body, profile).content_usage("mybot")
    assert train_ai_and_search(rules.prefs("https://example.com/a/x")) == (Y, U)
    assert train_ai_and_search(rules.prefs("https://example.com/b")) == (N, U)
    assert rules.attach("https://example.com/a/x") is rules.attach("https://example.com/a/y")


#: Content-Signal before the first group: (body, agent, expected signals, id).
FILE_WIDE_SIGNAL_CASES = [
    (
        "Content-Signal: ai-train=no\n\nUser-agent: *\nContent-Signal: search=yes, ai-train=yes\n",
        "mybot",
        ContentSignals(search=True, ai_input=None, ai_train=False),
        "no-beats-the-groups-yes",
    ),
    (
        "Content-Signal: search=yes, ai-train=yes\nUser-agent: *\nContent-Signal: ai-train=no\n",
        "mybot",
        ContentSignals(search=True, ai_input=None, ai_train=False),
        "groups-no-beats-the-file-yes",
    ),
    (
        "Content-Signal: ai-input=no\nUser-agent: *\nAllow: /\nUser-agent: gptbot\nDisallow: /\n",
        "GPTBot/1.1",
        ContentSignals(search=None, ai_input=False, ai_train=None),
        "specific-group-without-signals",
    ),
    (
        "Content-Signal: search=yes, ai-input=no, ai-train=no\nSitemap: https://e.com/s.xml\n",
        "mybot",
        ContentSignals(search=True, ai_input=False, ai_train=False),
        "no-groups",
    ),
    (
        "content-signal: ai-train=no\nCONTENT-SIGNAL: ai-train=yes, search=yes\nUser-agent: x\n",
        "mybot",
        ContentSignals(search=True, ai_input=None, ai_train=False),
        "two-file-wide-lines-no-wins",
    ),
]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("body", "agent", "expected"),
    [c[:3] for c in FILE_WIDE_SIGNAL_CASES],
    ids=[c[3] for c in FILE_WIDE_SIGNAL_CASES],
)
def test_group_less_content_signal_applies_to_every_crawler(
    profile: str, body: str, agent: str, expected: ContentSignals
) -> None:
    robots = parse_robotstxt(body, profile)
    assert robots.content_signals(agent) == expected
    assert robots.allowed("https://example.com/", "mybot")


def test_crawl_delay_before_any_group_is_file_wide_too() -> None:
    """A crawl-delay there asks every crawler to slow down (docs/decisions.md)."""
    robots = parse_robotstxt("Crawl-delay: 5\nContent-Signal: ai-train=no\nUser-agent: *\n")
    assert robots.crawl_delay("mybot") == 5.0
    assert robots.content_signals("mybot").ai_train is False


def test_legacy_settings_after_a_blank_line_belong_to_no_group() -> None:
    """1994 standard: a blank line ends the record, so later lines without a
    user-agent line belong to none, and they are not file-wide either."""
    body = "User-agent: *\nDisallow: /x\n\nContent-Signal: ai-train=no\nContent-Usage: train-ai=n\n"
    legacy = parse_robotstxt(body, "legacy")
    assert legacy.content_signals("mybot") == ContentSignals()
    assert legacy.content_usage("mybot") is NO_CONTENT_USAGE
    google = parse_robotstxt(body)
    assert google.content_signals("mybot").ai_train is False
    assert lines_of(google.content_usage("mybot")) == [5]


# --------------------------------------------------------------------------- Cloudflare

#: Cloudflare's managed robots.txt as served (2025): the Content Signals Policy comment
#: block, then the managed groups, then the site's own rules.
CLOUDFLARE_MANAGED = """\
# As a condition of accessing this website, you agree to abide by the following
# content signals:

# (a)  If a content-signal = yes, you may collect content for the corresponding
#      use.
# (b)  If a content-signal = no, you may not collect content for the
#      corresponding use.
# (c)  If the website operator does not include a content signal for a
#      corresponding use, the website operator neither grants nor restricts
#      permission via content signal with respect to the corresponding use.

# The content signals and their meanings are:

# search:   building a search index and providing search results (e.g., returning
#           hyperlinks and short excerpts from your website's contents). Search does not
#           include providing AI-generated search summaries.
# ai-input: inputting content into one or more AI models (e.g., retrieval
#           augmented generation, grounding, or other real-time taking of content for
#           generative AI search answers).
# ai-train: training or fine-tuning AI models.

# ANY RESTRICTIONS EXPRESSED VIA CONTENT SIGNALS ARE EXPRESS RESERVATIONS OF
# RIGHTS UNDER ARTICLE 4 OF THE EUROPEAN UNION DIRECTIVE 2019/790 ON COPYRIGHT
# AND RELATED RIGHTS IN THE DIGITAL SINGLE MARKET.

# BEGIN Cloudflare Managed content

User-Agent: *
Content-signal: search=yes,ai-train=no
Allow: /

User-agent: Amazonbot
Disallow: /

User-agent: Applebot-Extended
Disallow: /

User-agent: Bytespider
Disallow: /

User-agent: CCBot
Disallow: /

User-agent: ClaudeBot
Disallow: /

User-agent: Google-Extended
Disallow: /

User-agent: GPTBot
Disallow: /

User-agent: meta-externalagent
Disallow: /

# END Cloudflare Managed Content

User-agent: *
Disallow: /cart
Disallow: /checkout

Sitemap: https://www.example.com/sitemap.xml
"""

#: (agent, expected signals, allowed "/page", id).
CLOUDFLARE_CASES = [
    ("Scrapy/2.13 (+https://scrapy.org)", ContentSignals(True, None, False), True, "star"),
    ("mybot", ContentSignals(True, None, False), True, "star-token"),
    ("GPTBot/1.1", ContentSignals(), False, "named-ai-group"),
    ("CCBot/2.0", ContentSignals(), False, "named-ai-group-2"),
]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("agent", "signals", "crawl"),
    [c[:3] for c in CLOUDFLARE_CASES],
    ids=[c[3] for c in CLOUDFLARE_CASES],
)
def test_cloudflare_managed_robotstxt_content_signal_under_star(
    profile: str, agent: str, signals: ContentSignals, crawl: bool
) -> None:
    robots = parse_robotstxt(CLOUDFLARE_MANAGED, profile)  # legacy: the first `*` record
    assert robots.content_signals(agent) == signals
    assert robots.content_usage(agent) is NO_CONTENT_USAGE
    assert robots.allowed("https://www.example.com/page", agent) is crawl
    assert robots.sitemaps == ("https://www.example.com/sitemap.xml",)


def test_cloudflare_managed_robotstxt_star_groups_merge() -> None:
    """SPEC §1: both `*` groups are one: the managed signal and the site's rules."""
    robots = parse_robotstxt(CLOUDFLARE_MANAGED)
    assert not robots.allowed("https://www.example.com/cart", "mybot")
    assert robots.content_signals("mybot").ai_train is False


def test_cloudflare_style_signal_before_the_first_group() -> None:
    """Real files also put the line above every group (FINDINGS.md): it now applies
    to every crawler, the named AI crawlers included."""
    body = CLOUDFLARE_MANAGED.replace(
        "# BEGIN Cloudflare Managed content\n",
        "# BEGIN Cloudflare Managed content\nContent-Signal: ai-input=no\n",
    )
    robots = parse_robotstxt(body)
    assert robots.content_signals("mybot") == ContentSignals(True, False, False)
    assert robots.content_signals("GPTBot") == ContentSignals(None, False, None)


# --------------------------------------------------------------------------- field names

#: How the field is written -> is it a Content-Usage line? (profile google).
FIELD_NAME_CASES = [
    ("Content-Usage: train-ai=n", True, "canonical"),
    ("content-usage: train-ai=n", True, "lower"),
    ("CONTENT-USAGE: train-ai=n", True, "upper"),
    ("cOnTeNt-UsAgE : train-ai=n", True, "mixed-space-before-colon"),
    ("  Content-Usage:train-ai=n", True, "leading-space-no-space-after-colon"),
    ("Content-Usage train-ai=n", True, "google-missing-colon"),
    ("Content-Usages: train-ai=n", False, "no-prefix-matching-s"),
    ("Content-Usage-Policy: train-ai=n", False, "no-prefix-matching-suffix"),
    ("Content Usage: train-ai=n", False, "space-not-dash"),
    ("ContentUsage: train-ai=n", False, "no-dash"),
    ("Content-Use: train-ai=n", False, "other-name"),
]


@pytest.mark.parametrize(
    ("line", "read"), [c[:2] for c in FIELD_NAME_CASES], ids=[c[2] for c in FIELD_NAME_CASES]
)
def test_spec1_content_usage_field_name_is_case_insensitive_without_prefix_rule(
    line: str, read: bool
) -> None:
    """Keys are case-insensitive (SPEC §1); Google's "starts with a known key" rule is
    for allow/disallow/user-agent/sitemap only, so ``Content-Usages`` is unknown."""
    rules = parse_robotstxt(f"User-agent: *\n{line}\n").content_usage("mybot")
    assert lines_of(rules) == ([2] if read else [])
    if read:
        assert train_ai_and_search(rules.prefs("/x")) == (N, U)


@pytest.mark.parametrize("profile", ["rfc9309", "legacy"])
def test_spec2_strict_profiles_need_the_colon(profile: str) -> None:
    robots = parse_robotstxt("User-agent: *\nContent-Usage train-ai=n\n", profile)
    assert robots.content_usage("mybot") is NO_CONTENT_USAGE
    robots = parse_robotstxt("User-agent: *\nCONTENT-usage: train-ai=n\n", profile)
    assert lines_of(robots.content_usage("mybot")) == [2]


#: google profile, a line without a colon (read as Google reads its own keys: two words):
#: (line, train-ai, search, id). attach-05 §3's grammar requires the colon; a malformed
#: line gives its "no"s, never a "yes" (docs/deviations.md).
NO_COLON_CASES = [
    ("Content-Usage train-ai=n", N, U, "no-kept"),
    ("Content-Usage train-ai=y", U, U, "yes-never"),
    ("Content-Usage train-ai=n,search=y", N, U, "no-kept-yes-dropped"),
    ("Content-Usage search=n,train-ai=y", U, N, "other-no-kept"),
    ("Content-Usage Train-AI=n", N, U, "uppercase-key-no-kept"),
    ("Content-Usage train-ai=n, search=y", U, U, "three-words-not-a-line"),
]


@pytest.mark.parametrize(
    ("line", "train_ai", "search"),
    [c[:3] for c in NO_COLON_CASES],
    ids=[c[3] for c in NO_COLON_CASES],
)
def test_google_a_content_usage_line_without_colon_never_says_yes(
    line: str, train_ai: bool | None, search: bool | None
) -> None:
    rules = parse_robotstxt(f"User-agent: *\n{line}\n").content_usage("mybot")
    attached = rules.attach("https://example.com/a")
    assert train_ai_and_search(attached.prefs) == (train_ai, search)
    for rule in attached.rules:
        assert rule.source == f"robots.txt line 2: Content-Usage (no colon): {line.split()[1]}"


def test_google_a_colon_less_yes_cannot_lift_a_file_wide_or_group_no() -> None:
    body = "Content-Usage: train-ai=n\nUser-agent: *\nContent-Usage train-ai=y\n"
    assert parse_robotstxt(body).content_usage("mybot").prefs("/x").train_ai is False
    body = "User-agent: *\nContent-Usage train-ai=y\n"
    assert parse_robotstxt(body).content_usage("mybot").prefs("/x").train_ai is None


#: The other AI-usage lines without a colon (google profile): (line, signals, id).
NO_COLON_SIGNAL_CASES = [
    ("Content-Signal ai-train=no", ContentSignals(ai_train=False), "no-kept"),
    ("Content-Signal ai-train=yes", ContentSignals(), "yes-never"),
    ("Content-Signal search=yes,ai-train=no", ContentSignals(ai_train=False), "yes-dropped"),
    ("Content-Signal use=full", ContentSignals(), "use-level-dropped"),
]


@pytest.mark.parametrize(
    ("line", "signals"),
    [c[:2] for c in NO_COLON_SIGNAL_CASES],
    ids=[c[2] for c in NO_COLON_SIGNAL_CASES],
)
def test_google_a_content_signal_line_without_colon_never_says_yes(
    line: str, signals: ContentSignals
) -> None:
    assert parse_robotstxt(f"User-agent: *\n{line}\n").content_signals("mybot") == signals


def test_google_ai_training_rules_without_colon_keep_the_no_only() -> None:
    """``DisallowAITraining /x`` keeps its "no"; ``AllowAITraining /y`` gives no train-ai
    "yes". Both stay what Google reads them as: a disallow / an allow line."""
    body = "User-agent: *\nDisallow: /\nDisallowAITraining /x\nAllowAITraining /y\n"
    robots = parse_robotstxt(body)
    usage = robots.content_usage("mybot")
    assert usage.prefs("https://example.com/x").train_ai is False
    assert usage.prefs("https://example.com/y").train_ai is None
    assert [rule.key for rule in usage.rules] == ["DisallowAITraining"]
    assert robots.allowed("https://example.com/y", "mybot")
    assert not robots.allowed("https://example.com/x", "mybot")


# --------------------------------------------------------------------------- values

#: (rule value as written in the file, expected (train-ai, search) for /a/b, id).
VALUE_CASES = [
    ("train-ai=n # no training here", (N, U), "comment-stripped"),
    ("train-ai=n, search=y", (N, Y), "two-categories"),
    ("/a train-ai=n", (N, U), "path"),
    ("/a\ttrain-ai=n", (N, U), "attach-3.2-htab-ends-the-path"),
    ("train-ai=maybe", (U, U), "vocab-6.5-other-token-unknown"),
    ('train-ai="n"', (N, U), "vocab-6.5-string-n-kept-as-no-deviation"),
    ('train-ai="y"', (U, U), "vocab-6.5-string-y-unknown"),
    ("train-ai", (U, U), "vocab-6.5-boolean-unknown"),
    ("Train-AI=n", (N, U), "vocab-6.5.1-uppercase-key-n-kept-as-no-deviation"),
    ("Train-AI=y, search=y", (U, U), "vocab-6.5.1-uppercase-key-fails-whole-dictionary"),
    ("train-ai=n,,search=y", (U, U), "broken-dictionary"),
    ("train-ai=(", (U, U), "broken-inner-list"),
    ('train-ai="a#b"', (U, U), "attach-3.2-hash-ends-the-value-in-a-string"),
    ("*.pdf train-ai=n", (U, U), "attach-3.2-no-slash-no-path"),
    ("/a", (U, U), "path-without-statement"),
    ("bots=n, all=n", (U, U), "vocab-6.4-earlier-draft-labels-ignored"),
    ("train-ai=n;reason=legal", (N, U), "vocab-6.5.2-parameters-ignored"),
]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("value", "expected"), [c[:2] for c in VALUE_CASES], ids=[c[2] for c in VALUE_CASES]
)
def test_attach_3_2_rule_values_never_raise(
    profile: str, value: str, expected: tuple[bool | None, bool | None]
) -> None:
    body = f"User-agent: *\nDisallow: /private\nContent-Usage: {value}\n"
    robots = parse_robotstxt(body, profile)
    rules = robots.content_usage("mybot")
    assert lines_of(rules) == [3]
    assert train_ai_and_search(rules.prefs("https://example.com/a/b")) == expected
    assert robots.allowed("https://example.com/a/b", "mybot")


def test_a_broken_statement_next_to_good_ones() -> None:
    """A broken line is unknown on its own; the group's other lines still count."""
    body = "User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: search=(\n"
    rules = parse_robotstxt(body).content_usage("mybot")
    assert lines_of(rules) == [2, 3]
    assert train_ai_and_search(rules.prefs("/x")) == (N, U)


def test_an_empty_value_is_ignored_like_an_empty_rule() -> None:
    rules = parse_robotstxt("User-agent: *\nContent-Usage:\nContent-Usage:  # x\n")
    assert rules.content_usage("mybot") is NO_CONTENT_USAGE


def test_value_bytes_are_the_files_bytes() -> None:
    """The parser reads the file as Latin-1; the rule gets the file's bytes back: a
    UTF-8 path is matched as its percent-encoding, an invalid byte stays that byte."""
    body = "User-agent: *\nContent-Usage: /café/ train-ai=n\n".encode() + (
        b"Content-Usage: /\xff/ search=n\n"
    )
    rules = parse_robotstxt(body).content_usage("mybot")
    assert [rule.path for rule in rules.rules] == ["/café/".encode(), b"/\xff/"]
    assert train_ai_and_search(rules.prefs("https://example.com/caf%C3%A9/menu")) == (N, U)
    assert train_ai_and_search(rules.prefs("https://example.com/café/menu")) == (N, U)
    assert train_ai_and_search(rules.prefs("https://example.com/%FF/x")) == (U, N)
    assert rules.rules[0].value == "/café/ train-ai=n"


@pytest.mark.parametrize(
    ("profile", "path", "expected"),
    [
        ("google", "/a", (U, U)),  # %61 stays an escape
        ("rfc9309", "/a", (N, U)),  # RFC 9309 §2.2.2: unreserved escapes decoded
        ("google", "/x/y.pdf", (N, U)),  # wildcards
        ("rfc9309", "/x/y.pdf", (N, U)),
        ("legacy", "/x/y.pdf", (U, U)),  # legacy: `*` and `$` are plain characters
        ("legacy", "/x*.pdf$", (N, U)),
    ],
    ids=[
        "google-keeps-%61",
        "rfc9309-decodes-%61",
        "google-wildcards",
        "rfc9309-wildcards",
        "legacy-no-wildcards",
        "legacy-literal-star",
    ],
)
def test_spec2_profiles_match_paths_as_allow_disallow(
    profile: str, path: str, expected: tuple[bool | None, bool | None]
) -> None:
    """attach §3.1: "the same path prefix matching rules as defined for Allow and
    Disallow", under the profile's percent-encoding and wildcard switches."""
    body = "User-agent: *\nContent-Usage: /%61 train-ai=n\nContent-Usage: /x*.pdf$ train-ai=n\n"
    rules = parse_robotstxt(body, profile).content_usage("mybot")
    assert train_ai_and_search(rules.prefs("https://example.com" + path)) == expected


def test_switches_override_the_profile() -> None:
    body = "User-agent: *\nContent-Usage: /x*.pdf$ train-ai=n\n"
    rules = parse_robotstxt(body, "google", wildcards=False).content_usage("mybot")
    assert train_ai_and_search(rules.prefs("/x/y.pdf")) == (U, U)


# --------------------------------------------------------------------------- cost


def tracked_per_file(robots: object) -> list[str]:
    """The GC-tracked objects a parsed file holds of its own (not the shared options)."""
    gc.collect()
    options = getattr(robots, "options", None)
    return sorted(
        type(o).__name__
        for o in gc.get_referents(robots)
        if gc.is_tracked(o) and o is not options and not isinstance(o, type)
    )


def test_a_file_without_ai_usage_lines_holds_no_extra_objects() -> None:
    """FINDINGS.md: every container a parsed file holds is walked by each collection
    in a broad crawl. Collecting the lines costs a file that has none nothing."""
    plain = parse_robotstxt("User-agent: *\nDisallow: /x\nCrawl-delay: 2\nSitemap: /s.xml\n")
    with_usage = parse_robotstxt("User-agent: *\nDisallow: /x\nContent-Usage: train-ai=n\n")
    assert tracked_per_file(plain) == ["array", "array"]
    # With them, a table of tuples of atoms, which the collector stops tracking.
    assert tracked_per_file(with_usage) == ["array", "array"]
    assert len(with_usage.content_usage("mybot")) == 1


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("text", "says_nothing"),
    [
        ("User-agent: *\nDisallow: /private\nCrawl-delay: 2\nSitemap: /s.xml\n", True),
        ("", True),
        ("Content-Usage: train-ai=n\nUser-agent: *\nDisallow: /x\n", False),
        ("User-agent: *\nDisallow: /x\n\nUser-agent: other\nContent-Usage: /a train-ai=n\n", False),
        ("User-agent: somebot\nContent-Signal: search=no\n", False),
        ("Content-Signal: ai-train=no\n", False),
        ("User-agent: *\nAllow: /\nLicense: https://example.com/license.xml\n", False),
    ],
)
def test_states_no_usage_only_when_no_line_anywhere_speaks_of_usage(
    text: str, says_nothing: bool, profile: str
) -> None:
    """The purpose check skips a robots.txt that says nothing of usage to any crawler; a
    Content-Usage, Content-Signal or License line in any group, or before the first
    group, is something."""
    assert parse_robotstxt(text, profile=profile).states_no_usage is says_nothing
    assert ALLOW_ALL.states_no_usage and DISALLOW_ALL.states_no_usage


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("rule", "path"),
    [
        ("/%C3", "/%c3%a9"),  # the URL's escapes are compared with uppercase hex
        ("/%c3", "/%c3%a9"),
        ("/caf%C3%A9", "/caf%c3%a9/menu"),
        ("/%a", "/%aa"),  # a dangling escape keeps its "no" (as Disallow's)
        ("/%a", "/%AB"),
    ],
)
def test_a_content_usage_path_matches_a_url_with_lowercase_escapes(
    profile: str, rule: str, path: str
) -> None:
    """An earlier version's bug: Content-Usage compared an ASCII URL path as written, so
    the URL's ``%c3`` missed a rule's ``%C3`` (normalised): ``train-ai=n`` was lost for it
    in the default profile, while ``Disallow`` with the same path refused it."""
    robots = parse_robotstxt(
        f"User-agent: *\nAllow: /\nContent-Usage: {rule} train-ai=n\nDisallow: {rule}\n", profile
    )
    url = "https://example.com" + path
    assert train_ai_and_search(robots.content_usage("mybot").prefs(url)) == (N, U)
    if profile != "legacy":  # its Allow: / comes first and decides
        assert not robots.allowed(url, "mybot")


@pytest.mark.parametrize("profile", ["google", "rfc9309"])
def test_a_content_usage_path_with_utf8_matches_the_url_escaped_in_lowercase(
    profile: str,
) -> None:
    robots = parse_robotstxt("User-agent: *\nContent-Usage: /café train-ai=n\n", profile)
    assert train_ai_and_search(
        robots.content_usage("mybot").prefs("https://example.com/caf%c3%a9")
    ) == (N, U)


def test_a_dangling_escape_in_content_usage_keeps_its_no_only_where_it_may_continue() -> None:
    robots = parse_robotstxt(
        "User-agent: *\nContent-Usage: /%a$ train-ai=n\nContent-Usage: /%b*z train-ai=n\n"
    )
    usage = robots.content_usage("mybot")
    assert usage.prefs("https://example.com/%aa") == UNKNOWN  # "$": the URL ends there
    assert train_ai_and_search(usage.prefs("https://example.com/%a")) == (N, U)
    assert train_ai_and_search(usage.prefs("https://example.com/%bcz")) == (N, U)
    assert usage.prefs("https://example.com/%bc") == UNKNOWN


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
def test_each_content_signal_line_keeps_its_number(profile: str) -> None:
    """Which line said it (as for Content-Usage): each Content-Signal line that applies,
    file-wide and the crawler's groups', in file order, read alone with its number; their
    combination has none. Another group's line and a line of nothing known are not there."""
    body = (
        "Content-Signal: search=yes\n"
        "User-agent: a\nContent-Signal: ai-train=no\nAllow: /\n\n"
        "User-agent: b\nContent-Signal: ai-input=no\nContent-Signal: nothing=known\n"
        "Content-Signal: ai-train=yes, use=reference\nAllow: /\n"
    )
    rules = parse_robotstxt(body, profile)
    said = ContentSignals(search=True, line=1, written="Content-Signal: search=yes")
    assert rules.content_signal_lines("a") == (
        said,
        ContentSignals(ai_train=False, line=3, written="Content-Signal: ai-train=no"),
    )
    assert rules.content_signal_lines("b") == (
        said,
        ContentSignals(ai_input=False, line=7, written="Content-Signal: ai-input=no"),
        ContentSignals(ai_train=True, use="reference", line=9,
                       written="Content-Signal: ai-train=yes, use=reference"),
    )  # fmt: skip
    assert rules.content_signals("b") == ContentSignals(True, False, True, "reference")
    assert rules.content_signal_lines("other") == (said,)
    assert parse_robotstxt("User-agent: *\nAllow: /\n").content_signal_lines("a") == ()
    assert ALLOW_ALL.content_signal_lines("a") == ()
