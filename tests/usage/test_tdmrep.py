"""The TDMRep reader: W3C TDM Reservation Protocol, Final Community Group Report 2024.

Clause numbers are those of the report's sections (§2 properties, §3.1 the file, §3.2 the
header, §3.3 HTML meta, §4 processing priority). Every example of the report is quoted
in a case table; then hostile input: nothing raises, a broken file says nothing and is
logged at DEBUG.
"""

from __future__ import annotations

import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from rep_engine.usage.tdmrep import (
    NO_FILE,
    NO_VALUES,
    WELL_KNOWN_PATH,
    TdmEntry,
    TdmRepFile,
    TdmValues,
    header_values,
    meta_values,
    parse_tdmrep,
    resolve,
)
from tests.support.bounds import finishes_within
from tests.support.reference_matcher import (
    dangling_candidates,
    decode_unreserved,
    normalise_url,
    wildcard_matches,
)
from tests.support.reference_matcher import normalise_pattern as ref_normalise

POLICY = "https://provider.com/policies/policy.json"

#: report §3.1, first example: "a rightsholder wants to "opt-out" for every file".
EXAMPLE_ALL = """\
[
  {
  "location": "/",
  "tdm-reservation": 1
  }
]
"""

#: report §3.1, second example: PDF documents reserved, HTML reserved with a policy,
#: JPEG images not reserved.
EXAMPLE_GROUPS = """\
[
  {
  "location": "/directory-a/",
  "tdm-reservation": 1
  },
  {
  "location": "/directory-b/html/",
  "tdm-reservation": 1,
  "tdm-policy":"https://provider.com/policies/policy.json"
  },
  {
  "location": "/directory-b/images/*.jpg",
  "tdm-reservation": 0
  }
]
"""

#: (file, path, expected (reservation, policy, entry index) or None: no match).
FILE_EXAMPLES = [
    (EXAMPLE_ALL, "/", (True, None, 1), "all-root"),
    (EXAMPLE_ALL, "/any/file.pdf?x=1", (True, None, 1), "all-any-file"),
    (EXAMPLE_GROUPS, "/directory-a/report.pdf", (True, None, 1), "groups-pdf-reserved"),
    (EXAMPLE_GROUPS, "/directory-b/html/page.html", (True, POLICY, 2), "groups-html-policy"),
    (EXAMPLE_GROUPS, "/directory-b/images/cat.jpg", (False, None, 3), "groups-jpeg-free"),
    (EXAMPLE_GROUPS, "/directory-b/images/sub/cat.jpg", (False, None, 3), "groups-star-any"),
    (EXAMPLE_GROUPS, "/directory-b/images/cat.png", None, "groups-png-unset"),
    (EXAMPLE_GROUPS, "/directory-b/", None, "groups-parent-unset"),
    (EXAMPLE_GROUPS, "/Directory-A/report.pdf", None, "case-sensitive"),
    (EXAMPLE_GROUPS, "/other", None, "no-match-unset"),
]


@pytest.mark.parametrize(
    ("body", "path", "expected"),
    [c[:3] for c in FILE_EXAMPLES],
    ids=[c[3] for c in FILE_EXAMPLES],
)
def test_spec_tdmrep_3_1_file_examples(
    body: str, path: str, expected: tuple[bool, str | None, int] | None
) -> None:
    """ "If no match is found, a TDM Agent MUST consider that tdm-reservation is unset";
    "The matching SHOULD be case sensitive"."""
    entry = parse_tdmrep(body.encode()).lookup("https://provider.com" + path)
    got = None if entry is None else (entry.reservation, entry.policy, entry.index)
    assert got == expected


def test_spec_tdmrep_3_1_the_first_match_in_sequence_wins() -> None:
    """ "The most specific match found MUST be used. The most specific match is the first
    in sequence." (not the longest, unlike robots.txt)."""
    body = json.dumps(
        [
            {"location": "/books/", "tdm-reservation": 0},
            {"location": "/books/rare/", "tdm-reservation": 1},
            {"location": "/", "tdm-reservation": 1},
        ]
    )
    tdm = parse_tdmrep(body)
    assert tdm.lookup("/books/rare/1.html") == TdmEntry(1, "/books/", False, None)
    assert tdm.lookup("/music/") == TdmEntry(3, "/", True, None)


#: report §3.1 "Use of regular expressions": (location, URL path, matches).
PATTERN_CASES = [
    ("/this/path/exactly$", "/this/path/exactly", True, "dollar-end"),
    ("/this/path/exactly$", "/this/path/exactly/more", False, "dollar-end-longer"),
    ("/this/path/exactly$", "/this/path/exactly?q", False, "dollar-end-query"),
    ("/this/*/then", "/this/a/b/then", True, "star"),
    ("/this/*/then", "/this//then/x", True, "star-empty-run"),
    ("/this/*/then", "/this/then", False, "star-needs-slashes"),
    # "If TDM Agents match special characters verbatim in the URI, they MUST use "%"
    # encoding. For example: Pattern /path/foo-%24, URI https://provider.com/path/foo-$"
    ("/path/foo-%24", "/path/foo-$", True, "percent-24-is-dollar"),
    ("/path/foo-%2A", "/path/foo-*", True, "percent-2a-is-star"),
    ("/path/foo-%24", "/path/foo-%24", True, "percent-24-both-sides"),
    ("/a$b", "/a$b", True, "dollar-inside-is-literal"),
    # "If a percent-encoded US-ASCII character is encountered in the URI, it MUST be
    # unencoded prior to comparison, unless it is a reserved character"
    ("/%7Euser/", "/~user/page", True, "unreserved-escape-in-pattern"),
    ("/~user/", "/%7euser/page", True, "unreserved-escape-in-url"),
    ("/a%2Fb", "/a/b", False, "reserved-escape-stays"),
    ("/caf%C3%A9/", "/café/x", True, "utf8-escape"),
    ("/café/", "/caf%c3%a9/x", True, "non-ascii-location"),
    ("books/", "/books/1", True, "relative-location-reads-as-rooted"),
    ("https://provider.com/books/*", "/books/1", True, "absolute-url-location"),
    # A dangling escape keeps its reservation for the URL's %ab, read as %AB.
    ("/%a", "/%ab", True, "dangling-escape"),
    ("/%a*z", "/%abz", True, "dangling-escape-before-star"),
    ("/%a$", "/%ab", False, "dangling-escape-then-dollar"),
    ("/%C3", "/%c3%a9", True, "lowercase-escape-in-url"),
]


@pytest.mark.parametrize(
    ("location", "path", "matches"),
    [c[:3] for c in PATTERN_CASES],
    ids=[c[3] for c in PATTERN_CASES],
)
def test_spec_tdmrep_3_1_location_patterns(location: str, path: str, matches: bool) -> None:
    tdm = parse_tdmrep(json.dumps([{"location": location, "tdm-reservation": 1}]))
    assert (tdm.lookup("https://provider.com" + path) is not None) is matches


def test_spec_tdmrep_3_1_entry_source_names_the_entry() -> None:
    tdm = parse_tdmrep(
        '[{"location": 5}, {"location": "/books/*", "tdm-reservation": 1, "tdm-policy": "p"}]'
    )
    entry = tdm.lookup("/books/x")
    assert entry is not None
    assert entry.source == 'tdmrep.json entry 2 (location "/books/*")'
    assert entry.values() == TdmValues(True, "p", entry.source)
    assert tdm.values("/other") == NO_VALUES


#: report §2.1: tdm-reservation values in the file.
JSON_RESERVATIONS = [
    (1, True, "one"),
    (0, False, "zero"),
    (1.0, True, "one-point-zero"),
    (2, None, "two-is-a-protocol-error"),
    (-1, None, "minus-one"),
    ("1", True, "string-1-lenient-reserves"),
    (" 1 ", True, "string-1-spaces"),
    ("0", None, "string-0-never-permits"),
    (True, True, "true-lenient-reserves"),
    (False, None, "false-never-permits"),
    (None, None, "null"),
    ("yes", None, "yes"),
    ([1], None, "list"),
    ({"v": 1}, None, "object"),
    (float("nan"), None, "nan"),
]


@pytest.mark.parametrize(
    ("value", "expected"),
    [c[:2] for c in JSON_RESERVATIONS],
    ids=[c[2] for c in JSON_RESERVATIONS],
)
def test_spec_tdmrep_2_1_reservation_values_in_the_file(
    value: object, expected: bool | None
) -> None:
    """ "Other values are considered protocol errors." Such an entry is invalid
    (docs/decisions.md, 'An invalid tdmrep.json entry is skipped'): it is skipped and
    counted, and the next entry that matches applies, so it never hides a later
    reservation."""
    body = json.dumps(
        [{"location": "/a", "tdm-reservation": value}, {"location": "/", "tdm-reservation": 1}]
    )
    tdm = parse_tdmrep(body)
    entry = tdm.lookup("/a")
    assert entry is not None
    if expected is None:
        assert (entry.index, entry.reservation, tdm.skipped) == (2, True, 1)
    else:
        assert (entry.index, entry.reservation, tdm.skipped) == (1, expected, 0)


def test_a_bad_tdmrep_entry_does_not_hide_later_ones(caplog: pytest.LogCaptureFixture) -> None:
    """The file that showed it: the first entry's "yes" is not 1 or 0."""
    body = '[{"location":"/a","tdm-reservation":"yes"},{"location":"/","tdm-reservation":1}]'
    with caplog.at_level(logging.DEBUG, logger="rep_engine"):
        tdm = parse_tdmrep(body)
    entry = tdm.lookup("/a/x")
    assert entry is not None and (entry.index, entry.reservation) == (2, True)
    assert tdm.skipped == 1
    messages = [r.getMessage() for r in caplog.records]
    assert "tdmrep.json entry 1 skipped: tdm-reservation 'yes' is not 1 or 0" in messages
    assert "tdmrep.json: skipped 1 invalid entry" in messages


def test_spec_tdmrep_2_1_missing_reservation_is_skipped() -> None:
    tdm = parse_tdmrep('[{"location": "/"}]')
    assert tdm.lookup("/x") is None and tdm.skipped == 1 and not tdm.entries


# --------------------------------------------------------------------------- headers, meta

#: report §3.2 (headers) and §3.3 (HTML meta): (reservation values, policy values,
#: expected (reservation, policy)).
VALUE_CASES = [
    (["1"], None, (True, None), "example-1-reserved-no-policy"),
    (["1"], [POLICY], (True, POLICY), "example-2-reserved-with-policy"),
    (["0"], None, (False, None), "not-reserved"),
    ([b" 1 "], None, (True, None), "whitespace-bytes"),
    (["2"], None, (None, None), "protocol-error-unset"),
    (["yes"], None, (None, None), "word-unset"),
    ([""], None, (None, None), "empty"),
    (["0", "1"], None, (True, None), "several-any-1-wins"),
    (["1", "0"], None, (True, None), "several-any-1-wins-first"),
    (["1, 0"], None, (True, None), "comma-joined-1-first"),
    (["0, 1"], None, (True, None), "comma-joined"),
    (["x", "0"], None, (False, None), "bad-then-0"),
    (None, [POLICY], (None, POLICY), "policy-alone"),
    ("1", POLICY, (True, POLICY), "single-values"),
    (["1"], ["", " ", POLICY, "second"], (True, POLICY), "first-usable-policy"),
    (["1"], ["x" * 3000], (True, None), "overlong-policy-ignored"),
    ([], [], (None, None), "nothing"),
]


@pytest.mark.parametrize(
    ("reservation", "policy", "expected"),
    [c[:3] for c in VALUE_CASES],
    ids=[c[3] for c in VALUE_CASES],
)
@pytest.mark.parametrize("reader", [header_values, meta_values], ids=["header", "meta"])
def test_spec_tdmrep_3_2_3_3_header_and_meta_values(
    reader: object,
    reservation: list[str] | str | None,
    policy: list[str] | str | None,
    expected: tuple[bool | None, str | None],
) -> None:
    values = reader(reservation, policy)  # type: ignore[operator]
    assert (values.reservation, values.policy) == expected


def test_spec_tdmrep_sources_quote_the_technique() -> None:
    assert header_values(["1"], POLICY).source == "header tdm-reservation: 1"
    assert meta_values(["1"]).source == '<meta name="tdm-reservation" content="1">'
    assert header_values(None, POLICY).source == ""


# --------------------------------------------------------------------------- §4 priority

FILE_ENTRY = parse_tdmrep(EXAMPLE_GROUPS).lookup("/directory-b/html/x")
HEADER_0 = header_values(["0"])
HEADER_1 = header_values(["1"], ["https://h/policy"])
META_1 = meta_values(["1"])
META_POLICY_ONLY = meta_values(None, ["https://m/policy"])

#: report §4 "Processing priority": (layers file, header, meta; expected).
PRIORITY_CASES = [
    ((FILE_ENTRY, None, None), (True, POLICY, "tdmrep.json entry 2"), "file-alone"),
    ((FILE_ENTRY, HEADER_0, None), (False, None, "header tdm-reservation: 0"), "header-supersedes"),
    ((None, HEADER_0, META_1), (True, None, "<meta name"), "meta-supersedes-header"),
    ((FILE_ENTRY, HEADER_0, META_1), (True, POLICY, "<meta name"), "meta-last-policy-kept"),
    ((FILE_ENTRY, NO_VALUES, NO_VALUES), (True, POLICY, "tdmrep.json"), "absence-no-reset"),
    ((FILE_ENTRY, header_values(["2"]), None), (True, POLICY, "tdmrep.json"), "error-no-reset"),
    ((None, HEADER_1, META_POLICY_ONLY), (True, "https://m/policy", "header"), "policy-only"),
    ((None, None, None), (None, None, ""), "nothing-unset"),
    ((None, HEADER_0, META_POLICY_ONLY), (False, None, "header"), "policy-ignored-when-0"),
]


@pytest.mark.parametrize(
    ("layers", "expected"),
    [c[:2] for c in PRIORITY_CASES],
    ids=[c[2] for c in PRIORITY_CASES],
)
def test_spec_tdmrep_4_processing_priority(
    layers: tuple[TdmEntry | TdmValues | None, ...], expected: tuple[bool | None, str | None, str]
) -> None:
    """ "The values ... found in this header supercede any value inferred from a TDM file";
    the HTML meta values "supercede previous values"; "At every step, the absence of
    tdm-reservation and tdm-policy MUST not reset current values"; "TDM Agents SHOULD
    NOT process tdm-policy" when the reservation is 0 (§2.2)."""
    got = resolve(*layers)
    assert (got.reservation, got.policy) == expected[:2]
    assert got.source.startswith(expected[2])


def test_spec_tdmrep_4_the_header_never_outranks_the_meta() -> None:
    """FINDINGS.md: one implementation ranks the header above the HTML meta, the reverse
    of the report. Meta 0 after header 1 is not reserved."""
    assert resolve(None, header_values("1"), meta_values("0")).reservation is False
    assert resolve(None, meta_values("0"), header_values("1")).reservation is True  # order given


def test_spec_tdmrep_3_1_no_file_means_no_reservation() -> None:
    """No file (how a download comes to it: tests/fetch/test_procedure.py) reserves
    nothing."""
    assert resolve(NO_FILE.lookup("/x"), None, None) == NO_VALUES
    assert WELL_KNOWN_PATH == "/.well-known/tdmrep.json"


# --------------------------------------------------------------------------- hostile

BROKEN_FILES = [
    (b"", "empty"),
    (b"   ", "blank"),
    (b"<!doctype html><html><body>Not found</body></html>", "soft-404-html"),
    (b'{"location": "/", "tdm-reservation": 1}', "object-not-array"),
    (b'"[]"', "string"),
    (b"1", "number"),
    (b"null", "null"),
    (b'[{"location": "/", "tdm-reservation": 1}', "unterminated"),
    (b'[{"location": "/", "tdm-reservation": 1},]', "trailing-comma"),
    (b'[{"location": "/", "tdm-reservation": 1}] x', "trailing-garbage"),
    (b'[{"location": "/", "tdm-reservation": 1}] []', "two-arrays"),
    (b"[{'location': '/', 'tdm-reservation': 1}]", "single-quotes"),
    (b'[{"location": "/", "tdm-reservation": 01}]', "leading-zero"),
    (b"[" * 100_000 + b"]" * 100_000, "deep-nesting"),
    (b'[{"location": "/", "tdm-reservation": 1' + b"0" * 10_000 + b"}]", "huge-integer"),
    (b"[]", "empty-array"),
]


@pytest.mark.parametrize("body", [b for b, _ in BROKEN_FILES], ids=[i for _, i in BROKEN_FILES])
def test_spec7_broken_files_say_nothing(body: bytes, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="rep_engine"), finishes_within(2):
        tdm = parse_tdmrep(body)
    assert tdm is NO_FILE and tdm.lookup("/") is None
    if body.strip() not in (b"[]",):
        assert any(r.levelno == logging.DEBUG for r in caplog.records)


SKIPPED_ENTRIES = [
    ('[1, {"location": "/a", "tdm-reservation": 1}]', "number"),
    ('["/", {"location": "/a", "tdm-reservation": 1}]', "string"),
    ('[null, [], {"location": "/a", "tdm-reservation": 1}]', "null-and-list"),
    ('[{"tdm-reservation": 1}, {"location": "/a", "tdm-reservation": 1}]', "no-location"),
    ('[{"location": 7, "tdm-reservation": 1}, {"location": "/a", "tdm-reservation": 1}]', "int"),
    ('[{"location": "", "tdm-reservation": 1}, {"location": "/a", "tdm-reservation": 1}]', "empty"),
    ('[{"location": ["/"]}, {"location": "/a", "tdm-reservation": 1}]', "list-location"),
    ('[{"location": {"p": "/"}}, {"location": "/a", "tdm-reservation": 1}]', "object-location"),
]


@pytest.mark.parametrize(
    "body", [b for b, _ in SKIPPED_ENTRIES], ids=[i for _, i in SKIPPED_ENTRIES]
)
def test_spec7_unusable_entries_are_skipped_and_logged(
    body: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="rep_engine"):
        tdm = parse_tdmrep(body)
    assert [entry.location for entry in tdm.entries] == ["/a"]
    entry = tdm.lookup("/a/b")
    assert entry is not None and entry.reservation is True
    assert entry.index == len(json.loads(body))  # indices count skipped entries
    assert any("skipped" in r.getMessage() for r in caplog.records)


def test_spec7_odd_but_valid_json_is_read() -> None:
    """A BOM, invalid UTF-8 inside strings, duplicate keys (the last one counts, as in
    every JSON parser we know), unknown keys, Infinity and NaN (accepted by Python)."""
    body = (
        b'\xef\xbb\xbf [ {"location": "/x\xff", "tdm-reservation": 0},'
        b' {"location": "/a", "tdm-reservation": 0, "tdm-reservation": 1, "extra": [1]},'
        b' {"location": "/b", "tdm-reservation": Infinity},'
        b' {"location": "/c", "tdm-reservation": NaN} ]'
    )
    tdm = parse_tdmrep(body)
    assert [e.reservation for e in tdm.entries] == [False, True]
    assert tdm.skipped == 2  # Infinity and NaN are not 1 or 0
    assert tdm.lookup("/x") is None  # U+FFFD is not the byte 0xFF
    assert tdm.lookup("/a") == TdmEntry(2, "/a", True, None)


def test_spec7_only_the_first_500_kib_count_even_for_10_mb() -> None:
    """Like robots.txt (SPEC §1): the entries wholly inside the first 500 KiB are kept,
    the rest is ignored."""
    entries = [{"location": f"/p{i}/", "tdm-reservation": 1} for i in range(300_000)]
    body = json.dumps(entries).encode()
    assert len(body) > 10_000_000
    with finishes_within(10):
        tdm = parse_tdmrep(body)
        kept = len(tdm.entries)
        assert 0 < kept < len(entries)
        assert len(json.dumps(entries[:kept]).encode()) <= MAX_BODY_BYTES
        assert tdm.lookup(f"/p{kept - 1}/x") is not None
        assert tdm.lookup(f"/p{kept}/x") is None
        assert tdm.lookup("/p299999/x") is None


def test_a_body_cut_at_exactly_500_kib_keeps_the_entries_before_the_cut() -> None:
    """The download stops at 500 KiB and hands over exactly that many bytes: that body is
    cut, not "invalid JSON" (it lost every reservation, entry 1 included)."""
    from rep_engine.fetch.kinds import TDMREP
    from rep_engine.fetch.procedure import Fetched, FetchProcedure

    entries = [{"location": "/books/*", "tdm-reservation": 1}]
    entries += [{"location": f"/p{i}/", "tdm-reservation": 0} for i in range(30_000)]
    huge = json.dumps(entries).encode()
    fetched = FetchProcedure(TDMREP, "http://a.example/.well-known/tdmrep.json").on_response(
        200, huge
    )
    assert isinstance(fetched, Fetched) and fetched.truncated
    assert len(fetched.body) == MAX_BODY_BYTES
    for body in (fetched.body, huge[:MAX_BODY_BYTES]):
        tdm = parse_tdmrep(body)
        assert tdm.lookup("/books/1") == TdmEntry(1, "/books/*", True, None)
        assert 1 < len(tdm.entries) < len(entries)
    # A complete array of exactly 500 KiB is still read whole.
    whole = b'[{"location": "/books/*", "tdm-reservation": 1}]'
    whole = whole[:-1] + b" " * (MAX_BODY_BYTES - len(whole)) + b"]"
    assert len(whole) == MAX_BODY_BYTES
    assert parse_tdmrep(whole).lookup("/books/1") == TdmEntry(1, "/books/*", True, None)


def test_spec7_a_10_mb_json_value_that_is_not_an_array_within_2s() -> None:
    body = b'{"location": "' + b"a" * 10_000_000 + b'"}'
    with finishes_within(2):
        assert parse_tdmrep(body) is NO_FILE
        assert parse_tdmrep(b"[" + b'"x",' * 3_000_000 + b'"x"]').entries == ()


def test_spec7_hostile_patterns_match_in_linear_time_within_1s() -> None:
    """ReDoS shape (CVE-2026-55520) in locations: matching stays linear."""
    body = json.dumps([{"location": "/*a" * 1000 + "b$", "tdm-reservation": 1}] * 50)
    tdm = parse_tdmrep(body)
    with finishes_within(1):
        assert tdm.lookup("/" + "a" * 100_000) is None


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["location", "tdm-reservation", "tdm-policy", "x"]),
            children,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON, st.text(max_size=10))
def test_spec7_any_json_never_raises(value: object, path: str) -> None:
    tdm = parse_tdmrep(json.dumps(value))
    entry = tdm.lookup("/" + path)
    assert entry is None or isinstance(entry.location, str)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_spec7_any_bytes_never_raise(body: bytes) -> None:
    assert isinstance(parse_tdmrep(body), TdmRepFile)
    assert isinstance(resolve(None, header_values([body]), meta_values(body, body)), TdmValues)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(alphabet="ab/*$%", max_size=6).map(lambda p: "/" + p), st.booleans()),
        min_size=1,
        max_size=6,
    ),
    st.text(alphabet="ab/*$%", max_size=8).map(lambda p: "/" + p),
)
def test_spec_tdmrep_3_1_first_match_against_reference(
    entries: list[tuple[str, bool]], path: str
) -> None:
    """Reference: the first entry whose location matches (tests/support/reference_matcher.py,
    RFC 9309 percent-encoding on both sides)."""
    body = json.dumps([{"location": loc, "tdm-reservation": int(r)} for loc, r in entries])
    expected = None
    for index, (location, _) in enumerate(entries, 1):
        pattern = decode_unreserved(ref_normalise(location))
        if "$" in pattern[:-1]:  # a $ before the end is literal, as in the URL
            pattern = pattern[:-1].replace("$", "%24") + pattern[-1]
        target = decode_unreserved(normalise_url(path)).replace("$", "%24").replace("*", "%2A")
        if any(wildcard_matches(p, target) for p in dangling_candidates(pattern)):
            expected = index
            break
    entry = parse_tdmrep(body).lookup("https://h" + path)
    assert (None if entry is None else entry.index) == expected


def test_wrong_argument_types_raise_type_error() -> None:
    with pytest.raises(TypeError):
        parse_tdmrep(12)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        header_values([12])  # type: ignore[list-item]
