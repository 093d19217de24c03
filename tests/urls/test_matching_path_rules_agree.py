"""Every path rule of the package matches a URL as ``Disallow`` does (SPEC §1 "Rule
matching", "Percent-encoding"): a ``Content-Usage`` path in every profile, a tdmrep.json
``location`` and an RSL ``<content url>`` (both RFC 9309's reading, as the ``rfc9309``
profile's).

A rule that matches fewer URLs than ``Disallow`` with the same path loses a site owner's
"no". One was found: ``Content-Usage`` compared an ASCII URL as written, so the URL's
``%c3`` missed the rule's ``%C3``.
"""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from rep_engine.robotstxt import parse_robotstxt
from rep_engine.usage.rsl.document import make_content
from rep_engine.usage.tdmrep import parse_tdmrep
from tests.support.answers import disallow_forbids

#: Escapes (hex digits of both cases, a dangling ``%``), an unreserved ``~`` and its
#: escape ``%7E``, non-ASCII text, wildcards. Paths hold no ``$``, ``*``, ``2`` or ``4``
#: here: the google profile matches a URL's ``$`` and ``*`` as written, tdmrep.json, RSL
#: and the rfc9309 profile as ``%24`` and ``%2A`` (TDMRep §3.1, RFC 9309 §2.2.3).
ALPHABET = "/%aAcCe3*$é~7Eb"
PATTERNS = st.text(alphabet=ALPHABET, max_size=7).map(lambda text: "/" + text)
PATHS = st.text(alphabet=ALPHABET.replace("*", "").replace("$", ""), max_size=8).map(
    lambda text: "/" + text
)
#: For the documents read as RFC 9309 reads robots.txt: paths with ``*``, ``$`` and
#: their escapes too.
RFC9309_PATTERNS = st.text(alphabet=ALPHABET + "2A4", max_size=7).map(lambda text: "/" + text)
RFC9309_PATHS = st.text(alphabet=ALPHABET + "2A4", max_size=8).map(lambda text: "/" + text)
URL = "https://example.com"


@settings(max_examples=600, deadline=None)
@given(profile=st.sampled_from(["google", "rfc9309", "legacy"]), pattern=PATTERNS, path=PATHS)
@example(profile="google", pattern="/%C3", path="/%c3%a9")
@example(profile="google", pattern="/é", path="/%c3%a9")
@example(profile="rfc9309", pattern="/%a", path="/%aa")
def test_a_content_usage_path_matches_what_disallow_matches(
    profile: str, pattern: str, path: str
) -> None:
    robots = parse_robotstxt(f"User-agent: *\nContent-Usage: {pattern} train-ai=n\n", profile)
    applies = robots.content_usage("mybot").prefs(URL + path).train_ai is False
    assert applies is disallow_forbids(pattern, path, profile, URL)


@settings(max_examples=300, deadline=None)
@given(pattern=RFC9309_PATTERNS, path=RFC9309_PATHS)
@example(pattern="/%C3", path="/%c3%a9")
@example(pattern="/%a", path="/%aa")
@example(pattern="/a%2A", path="/a*")
@example(pattern="/a%24", path="/a$")
@example(pattern="/a$b", path="/a$b")
def test_a_tdmrep_location_matches_what_disallow_matches(pattern: str, path: str) -> None:
    tdm = parse_tdmrep(json.dumps([{"location": pattern, "tdm-reservation": 1}]))
    assert (tdm.lookup(URL + path) is not None) is disallow_forbids(pattern, path, "rfc9309", URL)


@settings(max_examples=300, deadline=None)
@given(pattern=RFC9309_PATTERNS, path=RFC9309_PATHS)
@example(pattern="/%C3", path="/%c3%a9")
@example(pattern="/%a", path="/%aa")
@example(pattern="/a%2A", path="/a*")
@example(pattern="/a%24", path="/a$")
@example(pattern="/a$b", path="/a$b")
def test_an_rsl_content_url_matches_what_disallow_matches(pattern: str, path: str) -> None:
    content = make_content(1, pattern, None, ())
    assert content.matches(URL + path) is disallow_forbids(pattern, path, "rfc9309", URL)


AGENT_NAMES = st.sampled_from(
    ["mybot", "MyBot", "mybot/1.0", "my", "mybot-news", "*", "other", "Mozilla/5.0 mybot"]
)


@settings(max_examples=400, deadline=None)
@given(
    profile=st.sampled_from(["google", "rfc9309", "legacy"]),
    groups=st.lists(st.lists(AGENT_NAMES, min_size=1, max_size=3), min_size=1, max_size=4),
    crawler=st.sampled_from(["mybot", "MyBot/2.1", "Mozilla/5.0 (compatible; mybot/1.0)"]),
)
def test_content_usage_applies_in_the_groups_disallow_applies_in(
    profile: str, groups: list[list[str]], crawler: str
) -> None:
    """SPEC §1 "User-agent matching" and attach §3: a group's Content-Usage lines apply
    to the crawlers its Allow/Disallow lines apply to, whatever the names."""
    body = "".join(
        "".join(f"User-agent: {name}\n" for name in names)
        + f"Disallow: /g{index}\nContent-Usage: /g{index} train-ai=n\n\n"
        for index, names in enumerate(groups)
    )
    robots = parse_robotstxt(body, profile)
    usage = robots.content_usage(crawler)
    for index in range(len(groups)):
        url = f"{URL}/g{index}"
        opted_out = usage.prefs(url).train_ai is False
        assert opted_out is (not robots.allowed(url, crawler)), index
