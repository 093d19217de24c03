"""SPEC §4: the redirect and status matrix of one robots.txt download, driven by hand.

The procedure is pure: these tests feed answers in and read what it says, the way the
middleware (over Scrapy's engine) and the checker (over urllib) drive it.
"""

from __future__ import annotations

from typing import Any

import pytest

from rep_engine.fetch.kinds import ROBOTS_TXT
from rep_engine.fetch.lifecycle.shared import downloaded_entry, gave_up_entry
from rep_engine.fetch.procedure import Fetched, FetchProcedure, Follow
from rep_engine.fetch.rules import Effect, FailureClass, Policy
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES

URL = "http://a.example/robots.txt"


def procedure() -> FetchProcedure:
    return FetchProcedure(ROBOTS_TXT, URL)


def final(step: Follow | Fetched) -> Fetched:
    assert isinstance(step, Fetched), step
    return step


@pytest.mark.parametrize(
    ("status", "effect", "kind", "outcome"),
    [
        (200, Effect.PARSE, "parsed", "200 (4 bytes)"),
        (204, Effect.PARSE, "parsed", "204 (4 bytes)"),
        (401, Effect.ALLOW_ALL, "allow_all", "401: no robots.txt, everything allowed"),
        (403, Effect.ALLOW_ALL, "allow_all", "403: no robots.txt, everything allowed"),
        (404, Effect.ALLOW_ALL, "allow_all", "404: no robots.txt, everything allowed"),
        (410, Effect.ALLOW_ALL, "allow_all", "410: no robots.txt, everything allowed"),
        (429, Effect.UNREACHABLE, "unreachable", "429: temporarily everything disallowed"),
        (500, Effect.UNREACHABLE, "unreachable", "500: temporarily everything disallowed"),
        (503, Effect.UNREACHABLE, "unreachable", "503: temporarily everything disallowed"),
        (100, Effect.ALLOW_ALL, "allow_all", "100: no usable robots.txt, everything allowed"),
        (301, Effect.ALLOW_ALL, "allow_all", "301: no usable robots.txt, everything allowed"),
    ],
    ids=lambda value: str(value),
)
def test_spec4_status_matrix(status: int, effect: Effect, kind: str, outcome: str) -> None:
    # The 301 has no Location: it cannot be followed, so it counts as absent.
    fetched = final(procedure().on_response(status, b"User"))
    assert (fetched.effect, fetched.kind, fetched.outcome) == (effect, kind, outcome)
    assert fetched.status == status


def test_spec4_retry_after_is_read_from_429_and_5xx() -> None:
    fetched = final(procedure().on_response(503, retry_after="120"))
    assert fetched.retry_after == 120.0
    assert final(procedure().on_response(503, retry_after="soon")).retry_after is None


def test_spec4_the_body_is_cut_at_500_kib_and_the_outcome_says_so() -> None:
    body = b"#" * (MAX_BODY_BYTES + 10)
    fetched = final(procedure().on_response(200, body))
    assert len(fetched.body) == MAX_BODY_BYTES and fetched.truncated
    assert fetched.outcome == "200 (512,000 bytes, cut at 500 KiB)"
    stopped = final(procedure().on_response(200, b"x" * 10, truncated=True))
    # Stopped before 500 KiB (by another component): the outcome says so, not "500 KiB".
    assert stopped.truncated
    assert stopped.outcome == "200 (10 bytes, cut short: the download was stopped)"


def test_spec4_three_redirects_are_followed_and_named_in_the_outcome() -> None:
    fetch = procedure()
    assert fetch.start == Follow(URL)
    assert fetch.on_response(301, location="/r1") == Follow("http://a.example/r1")
    assert fetch.on_response(302, location="r2") == Follow("http://a.example/r2")
    assert fetch.on_response(307, location="https://b.example/r3") == Follow("https://b.example/r3")
    fetched = final(fetch.on_response(200, b"User-agent: *", cache_control="max-age=60"))
    assert fetched.outcome == "200 (13 bytes, via redirect to https://b.example/r3)"
    assert fetched.final_url == "https://b.example/r3"
    assert fetched.cache_control == "max-age=60"


def test_spec4_five_hops_are_followed_the_sixth_redirect_counts_as_404() -> None:
    fetch = procedure()
    for hop in range(1, 6):
        assert fetch.on_response(301, location=f"/r{hop}") == Follow(f"http://a.example/r{hop}")
    fetched = final(fetch.on_response(301, location="/r6"))
    assert (fetched.effect, fetched.kind) == (Effect.ALLOW_ALL, "too_many_redirects")
    assert fetched.outcome == "more than 5 redirects: treated as 404"


def test_spec4_a_redirect_loop_counts_as_404() -> None:
    fetch = procedure()
    fetch.on_response(301, location="/a")
    fetched = final(fetch.on_response(302, location="/robots.txt"))
    assert fetched.kind == "redirect_loop"
    assert fetched.outcome == f"302: redirect loop at {URL}, treated as 404"


@pytest.mark.parametrize(
    "location",
    ["file:///etc/passwd", "data:,x", "ftp://a.example/robots.txt", "http://[oops/robots.txt",
     "http://a.example:99999/robots.txt"],
)  # fmt: skip
def test_spec7_a_redirect_that_cannot_be_followed_counts_as_404(location: str) -> None:
    fetched = final(procedure().on_response(301, location=location))
    assert (fetched.effect, fetched.kind) == (Effect.ALLOW_ALL, "bad_redirect")
    assert fetched.outcome.startswith("301: redirect to ") and "treated as 404" in fetched.outcome


def test_spec4_network_errors_ignored_requests_and_our_own_errors() -> None:
    network = procedure().on_network_error("TimeoutError: took longer than 30 s")
    assert (network.effect, network.kind) == (Effect.UNREACHABLE, "network_error")
    assert network.outcome == "unreachable (TimeoutError: took longer than 30 s)"
    ignored = procedure().on_ignored("IgnoreRequest: filtered")
    assert (ignored.effect, ignored.kind) == (Effect.ALLOW_ALL, "ignored")
    assert ignored.outcome == "not downloaded (IgnoreRequest: filtered): everything allowed"
    ours = procedure().on_internal_error("AttributeError: oops")
    assert ours.effect is Effect.UNREACHABLE and ours.kind == "internal_error"
    assert ours.outcome == "scrapy_rep internal error (AttributeError: oops)"


def test_spec4_an_unreachable_answer_says_what_failed_for_the_wait() -> None:
    """A 429/5xx is the server's; a network error is what the driver names (nothing named:
    OTHER, held as long as a 5xx); our own error is OTHER; a usable answer has none."""
    assert final(procedure().on_response(503)).failure is FailureClass.SERVER
    assert final(procedure().on_response(429)).failure is FailureClass.SERVER
    assert final(procedure().on_response(404)).failure is None
    assert final(procedure().on_response(200, b"")).failure is None
    refused = procedure().on_network_error("ConnectionRefusedError: …", FailureClass.REFUSED)
    assert refused.failure is FailureClass.REFUSED and refused.kind == "network_error"
    assert procedure().on_network_error("?").failure is FailureClass.OTHER
    assert procedure().on_internal_error("AttributeError: oops").failure is FailureClass.OTHER


def test_rsl_an_ignored_license_request_is_terms_not_read_never_no_terms() -> None:
    """A license robots.txt points at, kept from us by another component: read as an
    empty body, unreadable, so no ai-train and no ai-input (purpose-notes §9); as absent
    it would lose the license's "no"."""
    from rep_engine.fetch.rsl_kind import RSL
    from rep_engine.usage.rsl.document import ABSENT

    ignored = FetchProcedure(RSL, "http://lic.example/l.xml").on_ignored("IgnoreRequest: x")
    assert (ignored.effect, ignored.kind, ignored.body) == (Effect.PARSE, "ignored", b"")
    assert ignored.outcome == "not downloaded (IgnoreRequest: x): license terms not read, no AI use"
    document = RSL.parse(ignored.body)
    assert document is not ABSENT
    assert document.problem == "license document unreadable: not XML (empty)"


@pytest.mark.parametrize(("action", "reserved"), [("drop", True), ("allow", False)])
def test_tdmrep_an_ignored_request_is_given_up_on_at_once(action: str, reserved: bool) -> None:
    """A tdmrep.json kept from us by another component: what it reserves is not known,
    so it is given up on at once (its unreachable stand-in, flagged unreachable so its
    requests are dropped), unless REP_UNREACHABLE_ACTION is "allow"; robots.txt so
    refused stays absent (Scrapy's reading)."""
    from rep_engine.fetch.kinds import ROBOTS_TXT as ROBOTS_KIND
    from rep_engine.fetch.kinds import TDMREP
    from rep_engine.fetch.lifecycle.shared import downloaded_entry
    from rep_engine.fetch.rules import Policy
    from rep_engine.robotstxt import ALLOW_ALL
    from rep_engine.usage.tdmrep import NO_FILE, RESERVED_ALL

    policy = Policy(unreachable_action=action)
    ignored = FetchProcedure(TDMREP, "http://a.example").on_ignored("IgnoreRequest: x")
    assert ignored.outcome == (
        "not downloaded (IgnoreRequest: x): TDM rights taken as reserved for now"
    )
    entry = downloaded_entry(TDMREP, policy, ignored, 100.0)
    assert entry.unreachable and entry.rules is (RESERVED_ALL if reserved else NO_FILE)
    assert entry.fetched_at == 100.0 and entry.fresh_until == entry.stale_until > 100.0
    robots = FetchProcedure(ROBOTS_KIND, "http://a.example").on_ignored("IgnoreRequest: x")
    kept = downloaded_entry(ROBOTS_KIND, policy, robots, 100.0)
    assert kept.rules is ALLOW_ALL and not kept.unreachable


@pytest.mark.parametrize(
    ("location", "kind"),
    [("file:///etc/passwd", "bad_redirect"), ("data:,x", "bad_redirect"),
     ("ftp://lic.example/l.xml", "bad_redirect"), ("http://[oops/l.xml", "bad_redirect"),
     ("/l.xml", "redirect_loop"), (None, "bad_redirect")],
)  # fmt: skip
def test_rsl_a_license_that_cannot_be_followed_is_unreadable(
    location: str | None, kind: str
) -> None:
    """A redirect to file:, data: or ftp:, a broken Location, a loop, or no Location: the
    license is read as an empty body (no ai-train, no ai-input), as one another component
    refused; as absent it would lose the license's "no" (purpose-notes §9)."""
    from rep_engine.fetch.rsl_kind import RSL
    from rep_engine.usage.rsl.document import ABSENT

    fetched = final(
        FetchProcedure(RSL, "http://lic.example/l.xml").on_response(301, location=location)
    )
    assert (fetched.effect, fetched.kind, fetched.body) == (Effect.PARSE, kind, b"")
    assert fetched.outcome.startswith("301: ")
    assert fetched.outcome.endswith(": license terms not read, no AI use")
    document = RSL.parse(fetched.body)
    assert document is not ABSENT and document.problem is not None


def test_rsl_more_than_five_redirects_is_unreadable_five_are_followed() -> None:
    from rep_engine.fetch.rsl_kind import RSL

    fetch = FetchProcedure(RSL, "http://lic.example/l.xml")
    for hop in range(1, 6):
        assert fetch.on_response(302, location=f"/r{hop}") == Follow(f"http://lic.example/r{hop}")
    fetched = final(fetch.on_response(302, location="/r6"))
    assert (fetched.effect, fetched.kind, fetched.body) == (Effect.PARSE, "too_many_redirects", b"")
    assert fetched.outcome == "302: more than 5 redirects: license terms not read, no AI use"


def test_robots_txt_and_tdmrep_redirects_that_cannot_be_followed_stay_absent() -> None:
    from rep_engine.fetch.kinds import TDMREP

    for document in (ROBOTS_TXT, TDMREP):
        fetched = final(FetchProcedure(document, URL).on_response(301, location="data:,x"))
        assert (fetched.effect, fetched.kind) == (Effect.ALLOW_ALL, "bad_redirect")
        bare = final(FetchProcedure(document, URL).on_response(301))
        assert (bare.effect, bare.kind) == (Effect.ALLOW_ALL, "allow_all")


def kept(kind: Any, status: int, body: bytes = b"") -> Any:
    """What the crawl keeps of one answer of ``status`` to a document of ``kind``: parsed,
    or its absent stand-in, or (a status retried until given up on) its unreachable one."""
    fetched = final(FetchProcedure(kind, "http://a.example/doc").on_response(status, body))
    if fetched.effect is Effect.UNREACHABLE:
        return gave_up_entry(kind, False, 600.0, fetched.outcome, 60.0, 100.0).rules
    return downloaded_entry(kind, Policy(), fetched, 100.0).rules


def test_rsl_license_download_outcomes() -> None:
    """A 2xx license is parsed; a 4xx is no terms; 429 (as for robots.txt, SPEC §4) and
    5xx are unreachable: no AI use."""
    from rep_engine.fetch.rsl_kind import RSL
    from rep_engine.usage.rsl.document import ABSENT, UNREACHABLE

    body = b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/"></content></rsl>'
    assert kept(RSL, 404) is ABSENT
    assert kept(RSL, 429) is UNREACHABLE
    assert kept(RSL, 503) is UNREACHABLE
    assert kept(RSL, 200, body).problem is None


def test_spec_tdmrep_3_1_a_4xx_means_no_reservation() -> None:
    """ "Failure to provide access to such a representation implies that the origin server
    does not implement this protocol": a 4xx (or a redirect that cannot be followed) is no
    file; a 5xx is retried, and given up on as everything reserved (purpose notes)."""
    from rep_engine.fetch.kinds import TDMREP
    from rep_engine.usage.tdmrep import NO_FILE, RESERVED_ALL

    body = b'[{"location": "/", "tdm-reservation": 1}]'
    for status in (404, 410, 401, 403, 301):
        assert kept(TDMREP, status, body) is NO_FILE
    for status in (500, 503):
        assert kept(TDMREP, status, body) is RESERVED_ALL
    assert kept(TDMREP, 200, body).lookup("/x") is not None
