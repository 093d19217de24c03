"""The aipref reader: draft-ietf-aipref-vocab-08 ("vocab") and -attach-05 ("attach").

Every example of both drafts is quoted in a case table below, then the processing rules
clause by clause, then hostile input (nothing raises; a broken statement is unknown and
logged at DEBUG).
"""

from __future__ import annotations

import logging
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rep_engine import parse_robotstxt
from rep_engine.robotstxt.aipref import (
    MAX_PREFS_BYTES,
    UNKNOWN,
    ContentUsageRule,
    ContentUsageRules,
    UsagePrefs,
    combine,
    parse_content_usage_value,
    parse_prefs,
    parse_prefs_header,
)
from tests.support.answers import train_ai_and_search
from tests.support.bounds import finishes_within
from tests.support.documents import ATTACH_EXAMPLE
from tests.support.reference_matcher import normalise_pattern as ref_normalise
from tests.support.reference_matcher import wildcard_matches as ref_matches

Y, N, U = True, False, None


# --------------------------------------------------------------------------- vocab examples

#: (quoted example, clause, expected (train-ai, search)).
VOCAB_EXAMPLES = [
    # §6: "the following states a preference to allow model training, disallow search,
    # with the preference for other categories being unknown"
    ("train-ai=y, search=n", "vocab-6-format", (Y, N)),
    # §6.5.1: "the following results in all preferences being unknown, because the type
    # of the parameter values (a boolean and a string respectively) are not tokens".
    # Deviation (docs/deviations.md): the String "n" keeps its "no".
    ('train-ai=y, train-ai, search=n, search="n"', "vocab-6.5.1-last-value", (U, N)),
    # §6.5.2: "the following preference carries no parameters, and a preference to allow"
    ("train-ai;allow=n, train-ai=y", "vocab-6.5.2-parameters-of-selected", (Y, U)),
    # §6.5.2: "the following train-ai preference has parameters even though the
    # preference is unknown" (as quoted, the trailing ";" is not RFC 9651 syntax, so the
    # whole dictionary fails: unknown either way)
    ('train-ai;has;parameters="?";', "vocab-6.5.2-unknown-with-parameters", (U, U)),
    ('train-ai;has;parameters="?"', "vocab-6.5.2-unknown-with-parameters-valid", (U, U)),
    # attach §1.2 header example: "Content-Usage: train-ai=n"
    ("train-ai=n", "attach-1.2-header", (N, U)),
]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(v, e) for v, _, e in VOCAB_EXAMPLES],
    ids=[i for _, i, _ in VOCAB_EXAMPLES],
)
def test_spec_vocab_examples(value: str, expected: tuple[bool | None, bool | None]) -> None:
    assert train_ai_and_search(parse_prefs(value)) == expected
    assert train_ai_and_search(parse_prefs(value.encode("ascii"))) == expected


def test_spec_vocab_6_5_1_uppercase_keys_fail_the_dictionary_but_keep_their_no() -> None:
    """vocab-08 §6.5.1: "If the parsing of the Dictionary fails, preferences are unknown.
    This includes where keys include uppercase characters". Deviation
    (docs/deviations.md): the statement's "no"s are kept, never its "yes"."""
    prefs = parse_prefs("Train-AI=n")
    assert (prefs.train_ai, prefs.search, prefs.ai_use) == (N, U, U)
    assert "docs/deviations.md" in prefs.error
    assert parse_prefs("Train-AI=y") == UsagePrefs(error=parse_prefs("Train-AI=y").error)
    assert train_ai_and_search(parse_prefs("train-ai=n, Search=y")) == (N, U)  # the y is not read
    assert train_ai_and_search(parse_prefs("TRAIN-AI=Y, search=N")) == (U, N)
    assert parse_prefs("AI-Use=n").ai_use is False
    assert train_ai_and_search(parse_prefs("train-ai=n, search=y")) == (N, Y)
    assert train_ai_and_search(parse_prefs("Train-AI=n,,")) == (U, U)  # broken beyond the case


# --------------------------------------------------------------------------- vocab §6.5

#: vocab §6.5 "Processing Algorithm", clause by clause.
PROCESSING_CASES = [
    ("train-ai=y", (Y, U), "token-y-allows"),
    ("train-ai=n", (N, U), "token-n-disallows"),
    ("search=y", (U, Y), "search-y"),
    ("search=n", (U, N), "search-n"),
    ('train-ai="y"', (U, U), "string-is-not-a-token"),
    ("train-ai", (U, U), "boolean-true-is-not-a-token"),
    ("train-ai=?0", (U, U), "boolean-false"),
    ("train-ai=1", (U, U), "integer"),
    ("train-ai=1.5", (U, U), "decimal"),
    ("train-ai=:eQ==:", (U, U), "byte-sequence"),
    ("train-ai=@1700000000", (U, U), "date"),
    ('train-ai=%"y"', (U, U), "display-string"),
    ("train-ai=(y)", (U, U), "inner-list"),
    ("train-ai=(n y);p=1", (U, U), "inner-list-with-parameters"),
    ("train-ai=yes", (U, U), "token-yes-is-not-y"),
    ("train-ai=Y", (U, U), "token-uppercase-Y"),
    ("train-ai=N", (N, U), "token-uppercase-N-kept-as-no-deviation"),
    ('train-ai="n"', (N, U), "string-n-kept-as-no-deviation"),
    ('search="N"', (U, N), "string-uppercase-N-kept-as-no-deviation"),
    ('train-ai="no"', (U, U), "string-no-is-not-n"),
    ("train-ai=*", (U, U), "token-star"),
    ('train-ai=n;reason="policy";until=@1', (N, U), "parameters-disregarded"),
    ("train-ai=y;n", (Y, U), "parameter-named-n-disregarded"),
    ("train-ai=n, train-ai=y", (Y, U), "repeated-key-last-value-y"),
    ("train-ai=y, train-ai=n", (N, U), "repeated-key-last-value-n"),
    ("train-ai=n, search=y, train-ai", (U, Y), "repeated-key-last-is-boolean"),
    ("ai-use=n, train-ai=y", (Y, U), "unknown-key-ignored"),
    ("bots=n, train-genai=n, ai-use=n, all=n, genai=n", (U, U), "older-draft-labels-ignored"),
    ("search=n, *=y, a.b_c-d=n", (U, N), "unusual-but-valid-keys-ignored"),
    ("  train-ai=n  ", (N, U), "surrounding-spaces"),
    ("train-ai=n ,\tsearch=y", (N, Y), "ows-around-comma"),
    ("train-ai=n,search=y", (N, Y), "no-space-after-comma"),
    ("\ttrain-ai=n", (U, U), "leading-tab-fails-rfc9651-4.2"),
    ("train-ai=n,", (U, U), "trailing-comma-fails"),
    (",train-ai=n", (U, U), "leading-comma-fails"),
    ("train-ai=n,,search=y", (U, U), "empty-member-fails"),
    ("train-ai = n", (U, U), "space-around-equals-fails"),
    ("train-ai=n search=y", (U, U), "missing-comma-fails"),
    ("train-ai=n; search=y", (N, U), "semicolon-starts-a-parameter"),
    ("train_ai=n", (U, U), "underscore-label-is-another-key"),
    ("", (U, U), "empty"),
    ("   ", (U, U), "only-spaces"),
]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(v, e) for v, e, _ in PROCESSING_CASES],
    ids=[i for _, _, i in PROCESSING_CASES],
)
def test_spec_vocab_6_5_processing(value: str, expected: tuple[bool | None, bool | None]) -> None:
    assert train_ai_and_search(parse_prefs(value)) == expected


def test_spec_vocab_6_5_unknown_is_not_an_error_but_broken_syntax_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A value that is not a Token is "not an error" (no message); a dictionary that
    does not parse is logged at DEBUG with the reason."""
    with caplog.at_level(logging.DEBUG, logger="rep_engine"):
        assert parse_prefs('train-ai="y"') == UNKNOWN
        assert not caplog.records
        broken = parse_prefs("train-ai=n,,")
    assert broken.error.startswith("not a Structured Fields Dictionary")
    assert [r.levelno for r in caplog.records] == [logging.DEBUG]
    assert "train-ai=n,," in caplog.records[0].getMessage()


def test_spec_vocab_6_3_text_is_encoded_before_processing() -> None:
    """vocab §6.3: strings are encoded (ASCII/UTF-8) before processing; non-ASCII bytes
    are not valid Structured Fields, so the whole statement is unknown."""
    assert train_ai_and_search(parse_prefs("train-ai=n")) == train_ai_and_search(
        parse_prefs(b"train-ai=n")
    )
    for value in ("train-ai=n, search=ÿ", "trаin-ai=n", b"train-ai=n, x=\xff", "train-ai=\ud800"):
        assert train_ai_and_search(parse_prefs(value)) == (U, U)


# --------------------------------------------------------------------------- vocab §5.1

COMBINE_CASES = [
    ([], (U, U), "nothing"),
    ([(Y, U)], (Y, U), "one"),
    ([(Y, U), (N, U)], (N, U), "any-n-wins"),
    ([(N, U), (Y, U)], (N, U), "any-n-wins-either-order"),
    ([(U, U), (Y, U)], (Y, U), "then-any-y"),
    ([(U, Y), (N, U)], (N, Y), "per-category"),
    ([(U, U), (U, U)], (U, U), "all-unknown"),
    ([(Y, N), (Y, Y), (U, Y)], (Y, N), "three"),
]


@pytest.mark.parametrize(
    ("statements", "expected"),
    [(s, e) for s, e, _ in COMBINE_CASES],
    ids=[i for _, _, i in COMBINE_CASES],
)
def test_spec_vocab_5_1_combining(
    statements: list[tuple[bool | None, bool | None]], expected: tuple[bool | None, bool | None]
) -> None:
    assert train_ai_and_search(combine(UsagePrefs(t, s) for t, s in statements)) == expected


# --------------------------------------------------------------------------- attach §2


def test_spec_attach_2_header_field_lines_are_one_dictionary() -> None:
    """attach §2: the field is a Dictionary; several field lines are one field (RFC 9110
    §5.3), so a later line's key overrides, and one broken line spoils the field."""
    assert train_ai_and_search(parse_prefs_header([b"train-ai=n"])) == (N, U)
    assert train_ai_and_search(parse_prefs_header([b"train-ai=n", b"search=y"])) == (N, Y)
    assert train_ai_and_search(parse_prefs_header(["train-ai=n", "train-ai=y"])) == (Y, U)
    assert train_ai_and_search(parse_prefs_header([b"train-ai=n", b"search=Y=Z"])) == (U, U)
    assert parse_prefs_header([]) == UNKNOWN
    assert train_ai_and_search(parse_prefs_header(b"search=n")) == (U, N)


# --------------------------------------------------------------------------- attach §3.2

#: attach §3.2 "Processing Content-Usage Rules": rule value -> (path, statement).
VALUE_CASES = [
    ("train-ai=n", None, (N, U), "no-path"),
    ("/ai-ok/ train-ai=y", b"/ai-ok/", (Y, U), "path-then-sp"),
    ("/ai-ok/\ttrain-ai=y", b"/ai-ok/", (Y, U), "path-then-htab"),
    ("/ai-ok/ \t  train-ai=y", b"/ai-ok/", (Y, U), "several-ws"),
    ("/ train-ai=n, search=y", b"/", (N, Y), "root-path"),
    ("/*.pdf$ train-ai=n", b"/*.pdf$", (N, U), "wildcard-path"),
    ("  /a train-ai=n  ", b"/a", (N, U), "surrounding-ws"),
    ("/only-a-path", b"/only-a-path", (U, U), "path-without-statement"),
    ("train-ai=n # no training", None, (N, U), "comment"),
    ("train-ai=n#x", None, (N, U), "comment-no-space"),
    ('train-ai=n, note="#1"', None, (U, U), "value-ends-at-#-even-in-a-string"),
    ("train-ai=n\rsearch=n", None, (N, U), "value-ends-at-cr"),
    ("train-ai=n\nsearch=n", None, (N, U), "value-ends-at-lf"),
    ("/a#b train-ai=n", b"/a", (U, U), "comment-in-path"),
    ("*.pdf train-ai=n", None, (U, U), "star-start-is-not-a-path"),
    ("ai-ok/ train-ai=y", None, (U, U), "relative-path-is-not-a-path"),
    ("", None, (U, U), "empty"),
]


@pytest.mark.parametrize(
    ("value", "path", "expected"),
    [(v, p, e) for v, p, e, _ in VALUE_CASES],
    ids=[i for _, _, _, i in VALUE_CASES],
)
def test_spec_attach_3_2_rule_value(
    value: str, path: bytes | None, expected: tuple[bool | None, bool | None]
) -> None:
    got_path, prefs = parse_content_usage_value(value)
    assert (got_path, train_ai_and_search(prefs)) == (path, expected)
    assert parse_content_usage_value(value.encode("utf-8"))[0] == path


# --------------------------------------------------------------------------- attach §3.1


def content_usage_rules(robots: str, lines: set[int] | None = None) -> ContentUsageRules:
    """The Content-Usage rules of a one-group test file (the robots.txt parser does not
    read them yet; the integrator wires that in): ``lines`` picks the group's lines."""
    rules = []
    for number, line in enumerate(robots.splitlines(), 1):
        match = re.match(r"[ \t]*content-usage[ \t]*:[ \t]*(.*)", line, re.IGNORECASE)
        if match and (lines is None or number in lines):
            rules.append(ContentUsageRule.parse(match.group(1).encode("utf-8"), number))
    return ContentUsageRules(rules)


#: attach §3.4 Table 1: path, crawl, usage preference (None: "N/A").
ATTACH_TABLE = [
    ("/test", True, (N, U)),
    ("/never/test", False, None),
    ("/ai-ok/test", True, (Y, U)),
]


@pytest.mark.parametrize(
    ("path", "crawl", "expected"), ATTACH_TABLE, ids=[r[0] for r in ATTACH_TABLE]
)
def test_spec_attach_3_4_example_table(
    path: str, crawl: bool, expected: tuple[bool | None, bool | None] | None
) -> None:
    """ "Of those resources, those under "/ai-ok/" have an associated usage preference of
    "train-ai=y" and all other resources have a usage preference of "train-ai=n"";
    "no preferences are implied for resources that are disallowed" (attach §3.1)."""
    robots = parse_robotstxt(ATTACH_EXAMPLE)
    url = "https://example.com" + path
    assert robots.allowed(url, "OtherBot") is crawl
    if crawl:
        rules = content_usage_rules(ATTACH_EXAMPLE, lines={4, 5})
        assert train_ai_and_search(rules.prefs(url)) == expected


def test_spec_attach_3_4_examplebot_uses_its_own_group() -> None:
    """ "A crawler that identifies as "ExampleBot" uses the second group. That crawler
    would be able to obtain all content and apply usage preferences of "ai=y"" (the
    draft's typo for train-ai=y)."""
    robots = parse_robotstxt(ATTACH_EXAMPLE)
    rules = content_usage_rules(ATTACH_EXAMPLE, lines={9})
    for path in ("/test", "/never/test", "/ai-ok/test"):
        assert robots.allowed("https://example.com" + path, "ExampleBot/1.0")
        assert train_ai_and_search(rules.prefs(path)) == (Y, U)


def test_spec_attach_1_2_robots_example() -> None:
    """attach §1.2: "User-Agent: * / Allow: / / Content-Usage: train-ai=n"."""
    body = "User-Agent: *\nAllow: /\nContent-Usage: train-ai=n\n"
    rules = content_usage_rules(body)
    attached = rules.attach("https://example.com/any/page?x=1")
    assert train_ai_and_search(attached.prefs) == (N, U)
    assert [r.source for r in attached.rules] == ["robots.txt line 3: Content-Usage: train-ai=n"]


def rules_of(*values: str) -> ContentUsageRules:
    return ContentUsageRules(ContentUsageRule.parse(v, n) for n, v in enumerate(values, 1))


#: attach §3.1: (rule values, path, expected (train-ai, search), deciding lines).
ATTACH_RULE_CASES = [
    (["train-ai=n", "/ai-ok/ train-ai=y"], "/ai-ok/x", (Y, U), [2], "longest-prefix-wins"),
    (["/ai-ok/ train-ai=y", "train-ai=n"], "/ai-ok/x", (Y, U), [1], "order-carries-no-semantics"),
    (["/a train-ai=y", "/a train-ai=n"], "/a/b", (N, U), [1, 2], "identical-paths-n-wins"),
    (["/a train-ai=n", "/a train-ai=y"], "/a/b", (N, U), [1, 2], "identical-paths-n-wins-2"),
    (["/a search=y", "/a train-ai=n"], "/a/b", (N, Y), [1, 2], "identical-paths-per-category"),
    (["/a train-ai=y", "/%61 train-ai=n"], "/a", (Y, U), [1], "google-encoding-keeps-%61"),
    (["/ab* train-ai=y", "/a*c train-ai=n"], "/abc", (N, U), [1, 2], "same-length-both-match"),
    (["/ab* train-ai=y", "/a*c train-ai=n"], "/abd", (Y, U), [1], "same-length-one-matches"),
    (
        ["/*.pdf$ train-ai=n", "/documents/ train-ai=y"],
        "/documents/a.pdf",
        (Y, U),
        [2],
        "longer-literal",
    ),
    (["/*.pdf$ train-ai=n", "/d/ train-ai=y"], "/d/a.pdf", (N, U), [1], "longer-wildcard"),
    (["/*.pdf$ train-ai=n"], "/d/a.pdf?x", (U, U), [], "dollar-anchors-path-and-query"),
    (["train-ai=n", "/ train-ai=y"], "/x", (Y, U), [2], "slash-beats-absent-path"),
    (["train-ai=n"], "/", (N, U), [1], "absent-path-applies-everywhere"),
    (["/Ai train-ai=n"], "/ai", (U, U), [], "case-sensitive"),
    (["/caf%c3%a9/ train-ai=n"], "/café/menu", (N, U), [1], "percent-encoding-utf8"),
    (["train-ai=n", "/a train-ai=Y"], "/a", (U, U), [2], "unknown-statement-decides-its-path"),
    (["train-ai=n", "/a search=y"], "/a/x", (U, Y), [2], "longest-rule-is-the-whole-statement"),
    ([], "/a", (U, U), [], "no-rules"),
]


@pytest.mark.parametrize(
    ("values", "path", "expected", "lines"),
    [c[:4] for c in ATTACH_RULE_CASES],
    ids=[c[4] for c in ATTACH_RULE_CASES],
)
def test_spec_attach_3_1_rule_semantics(
    values: list[str], path: str, expected: tuple[bool | None, bool | None], lines: list[int]
) -> None:
    attached = rules_of(*values).attach("https://example.com" + path)
    assert train_ai_and_search(attached.prefs) == expected
    assert [rule.line for rule in attached.rules] == lines


def test_spec_attach_3_1_legacy_profile_matches_plain_prefixes() -> None:
    """With the legacy profile's switches (SPEC §2), ``*`` and ``$`` are literal."""
    rules = ContentUsageRules(
        [ContentUsageRule.parse("/*.pdf train-ai=n", 1), ContentUsageRule.parse("/a$ search=n", 2)],
        encoding="none",
        wildcards=False,
    )
    assert rules.prefs("/x.pdf") == UNKNOWN
    assert train_ai_and_search(rules.prefs("/*.pdf")) == (N, U)
    assert train_ai_and_search(rules.prefs("/a$b")) == (U, N)
    assert rules.prefs("/a") == UNKNOWN


def test_spec_attach_3_1_rfc9309_encoding_decodes_unreserved_escapes() -> None:
    rules = ContentUsageRules([ContentUsageRule.parse("/%61bc train-ai=n", 1)], encoding="rfc9309")
    assert train_ai_and_search(rules.prefs("/abc")) == (N, U)
    assert train_ai_and_search(rules.prefs("/%61bc")) == (N, U)


def test_rule_source_names_the_line() -> None:
    rule = ContentUsageRule.parse(b"/ai-ok/ train-ai=y # ok", 12)
    assert rule.source == "robots.txt line 12: Content-Usage: /ai-ok/ train-ai=y"
    assert ContentUsageRule.parse("train-ai=n").source == "robots.txt: Content-Usage: train-ai=n"
    assert str(rule.prefs) == "train-ai=y"


# --------------------------------------------------------------------------- Hypothesis

LABELS = st.sampled_from(["train-ai", "search", "ai-use", "x"])
VALUES = st.sampled_from(["y", "n", '"y"', "?1", "(y n)", "yes", "1", "n;p=1", "y;q"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(LABELS, VALUES), min_size=1, max_size=8))
def test_spec_vocab_6_5_valid_dictionaries_take_the_last_value(
    members: list[tuple[str, str]],
) -> None:
    """For any valid dictionary: each category is the last value of its key, read as
    ``y``/``n`` Tokens only (parameters ignored)."""
    prefs = parse_prefs(", ".join(f"{k}={v}" for k, v in members))
    for label, got in (("train-ai", prefs.train_ai), ("search", prefs.search)):
        last = [v for k, v in members if k == label][-1:]
        token = last[0].split(";")[0] if last else None
        assert got == {"y": True, "n": False}.get(token or "")


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.binary(max_size=200), st.text(max_size=200)))
def test_spec7_any_statement_never_raises(value: bytes | str) -> None:
    prefs = parse_prefs(value)
    assert prefs.train_ai in (None, True, False)
    path, prefs = parse_content_usage_value(value)
    assert path is None or path.startswith(b"/")


PATTERN_CHARS = st.text(alphabet="ab/*$", min_size=0, max_size=6)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.one_of(st.none(), PATTERN_CHARS.map(lambda p: "/" + p)), st.booleans()),
        max_size=6,
    ),
    st.text(alphabet="ab/$*", max_size=8).map(lambda p: "/" + p),
)
def test_spec_attach_3_1_against_reference(rules: list[tuple[str | None, bool]], path: str) -> None:
    """The longest matching path (in bytes; an absent path has length 0) decides; equally
    long matching paths combine (any n wins). Reference: tests/support/reference_matcher.py."""
    values = [
        f"{p} train-ai={'y' if a else 'n'}" if p else f"train-ai={'y' if a else 'n'}"
        for p, a in rules
    ]
    best, answers_at_best = -1, []
    for pattern, allow in rules:
        if pattern is None:
            length, hit = 0, True
        else:
            norm = ref_normalise(pattern)
            length, hit = len(norm.encode()), ref_matches(norm, path)
        if hit and length > best:
            best, answers_at_best = length, [allow]
        elif hit and length == best:
            answers_at_best.append(allow)
    expected = None if not answers_at_best else all(answers_at_best)
    assert rules_of(*values).prefs("https://example.com" + path).train_ai is expected


# --------------------------------------------------------------------------- hostile


HOSTILE = [
    ("train-ai=" + "(" * 5000, "unbalanced-parentheses"),
    ("train-ai=((y))", "nested-inner-list"),
    ("train-ai=(" + " ".join(["y"] * 4000) + ")", "huge-inner-list"),
    ("train-ai" + ";p" * 4000, "many-parameters"),
    (", ".join(f"k{i}=y" for i in range(700)) + ", train-ai=n", "many-members"),
    ('train-ai="' + "x" * 8000 + '"', "long-string"),
    ("train-ai=" + "y" * 8000, "long-token"),
    ("train-ai=n\x00", "nul"),
    ("train-ai=n, search=\x7f", "del"),
    ('train-ai="\\x"', "bad-escape"),
    ("train-ai=:not base64!:", "bad-bytes"),
    ("train-ai=@", "bad-date"),
    ("train-ai=99999999999999999999", "integer-too-long"),
    ('train-ai=%"\\u"', "bad-display-string"),
    ("=n", "no-key"),
    ("🤖=n", "emoji-key"),
]


@pytest.mark.parametrize("value", [v for v, _ in HOSTILE], ids=[i for _, i in HOSTILE])
def test_spec7_hostile_statements_never_raise_within_1s(value: str) -> None:
    with finishes_within(1):
        prefs = parse_prefs(value)
        parse_content_usage_value("/x " + value)
    if value.endswith("train-ai=n") and len(value) <= MAX_PREFS_BYTES:
        assert prefs.train_ai is False
    else:
        assert prefs.train_ai is None


def test_spec7_statements_over_the_size_cap_are_unknown_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A statement longer than MAX_PREFS_BYTES is not parsed (bounded time: the parser's
    cost grows with the square of the length); one just inside the cap is."""
    inside = "train-ai=n, " + "x=y, " * ((MAX_PREFS_BYTES - 20) // 5)
    inside = inside.rstrip(", ")
    assert len(inside) <= MAX_PREFS_BYTES
    assert parse_prefs(inside).train_ai is False
    huge = inside + ", y=n" * 100_000
    with caplog.at_level(logging.DEBUG, logger="rep_engine"), finishes_within(1):
        assert parse_prefs(huge) == UsagePrefs(error=f"longer than {MAX_PREFS_BYTES} bytes")
        rules = rules_of("/ " + huge)
        assert rules.prefs("/") == UNKNOWN
    assert any(
        "longer than" in r.getMessage() and len(r.getMessage()) < 300 for r in caplog.records
    )


def test_spec7_a_robots_group_of_max_size_statements_within_5s() -> None:
    """500 KiB of Content-Usage rules, each a worst-case 8 KiB statement (inner lists):
    the whole group compiles and answers within the alarm."""
    statement = "train-ai=(" + " ".join(["y"] * (MAX_PREFS_BYTES // 2 - 8)) + ")"
    lines = [f"/p{i}/ {statement}" for i in range(512_000 // len(statement))]
    with finishes_within(5):
        rules = rules_of(*lines)
        assert rules.prefs("/p3/x") == UNKNOWN
        assert len(rules.attach("/p3/x").rules) == 1


def test_wrong_argument_types_raise_type_error() -> None:
    for call in (parse_prefs, parse_content_usage_value):
        with pytest.raises(TypeError):
            call(12)  # type: ignore[arg-type]
