"""Web Bot Auth in real crawls (docs/keys.md; draft-ietf-webbotauth-httpsig-protocol-01):
every request that reaches a local site (robots.txt, tdmrep.json, an RSL license, pages, a
redirect's hop, a retry) carries a signature a site's verifier accepts, checked with
nothing of the signer's code (tests/support/signatures.py: pyauth's RFC 9421 verifier, the
key directory's key ids recomputed); the trail's run header says so; a crawl whose key or
agent is wrong stops at start naming the setting; and signing changes no decision."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted

from rep_engine import keys
from scrapy_rep.__main__ import main as scrapy_rep_main
from tests.support.audittrail import lines, url_records
from tests.support.robotsite import (
    ItemSpider,
    Reply,
    Sites,
    collecting_items,
    crawl,
    redirect,
    refused_at_start,
    robots,
    rsl_reply,
)
from tests.support.scrapyproject import make_project, scrapy_crawl
from tests.support.signatures import (
    AGENT,
    RFC9421_KID,
    RFC9421_PRIVATE,
    directory_keys,
    operator_key,
    signing,
    verified,
)

#: A tdmrep.json that reserves nothing, and the headers it is served with.
TDMREP = json.dumps([{"location": "/*", "tdm-reservation": 0}]).encode()
JSON = {"Content-Type": "application/json"}


def signed_site() -> Sites:
    """Origin ``a``: a robots.txt that disallows /private and names an RSL license of
    origin ``lic``, a tdmrep.json, a redirect (/r to /target) and a page answered 503 once
    (/flaky); origin ``lic``: the license, which permits everything."""
    sites = Sites()
    lic = sites.add("lic")
    lic.script("/permit.xml", rsl_reply('<permits type="usage">all</permits>'))
    a = sites.add("a")
    license_url = sites.url("lic", "/permit.xml")
    a.script("/robots.txt", robots(f"User-agent: *\nDisallow: /private\nLicense: {license_url}\n"))
    a.script("/.well-known/tdmrep.json", Reply(200, TDMREP, JSON))
    a.script("/r", redirect("/target"))
    a.script("/flaky", Reply(503), Reply(200, b"<html>ok</html>", {"Content-Type": "text/html"}))
    return sites


#: What the crawl of :func:`signed_site` asks for: a page, a redirect, a page retried once
#: and a page robots.txt refuses (never sent).
PATHS = ("/p", "/r", "/flaky", "/private/x")
#: An AI purpose (tdmrep.json and the RSL license are read), a retry on 503.
SETTINGS: dict[str, Any] = {
    "REP_PURPOSE": "ai-train",
    "RETRY_ENABLED": True,
    "RETRY_TIMES": 2,
    "RETRY_HTTP_CODES": [503],
}


def received(sites: Sites) -> list[tuple[str, str, str, list[tuple[str, str]]]]:
    """Every request the sites received: (origin, method, target, header lines)."""
    return [
        (name, method, target, headers)
        for name, origin in sites.origins.items()
        for method, target, headers in origin.received
    ]


def directory_of(key_file: Path) -> dict[str, Any]:
    """The key directory ``python -m scrapy_rep key-directory KEY_FILE`` prints."""
    import io

    out = io.StringIO()
    assert scrapy_rep_main(["key-directory", str(key_file)], out) == 0
    directory: dict[str, Any] = json.loads(out.getvalue())
    return directory


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_every_request_on_the_wire_is_signed_and_verifies(tmp_path: Path) -> None:
    """robots.txt, tdmrep.json, the RSL license, the pages, the redirect's second hop and
    the retried page: each verifies against the key directory the operator publishes,
    covers its own method, authority and path, and names the operator's directory."""
    key_file = tmp_path / "key.pem"
    operator_key(key_file)
    sites = signed_site()
    try:
        await crawl([sites.url("a", p) for p in PATHS], {**SETTINGS, **signing(key_file)})
    finally:
        await sites.close()
    directory = directory_keys(directory_of(key_file))
    seen = received(sites)
    targets = sorted(target for _, _, target, _ in seen)
    sent = ["/robots.txt", "/.well-known/tdmrep.json", "/permit.xml", "/p"]  # no /private/x
    assert targets == sorted([*sent, "/r", "/target", "/flaky", "/flaky"])
    for name, method, target, headers in seen:
        result = verified(method, target, headers, directory)
        components = result["components"]
        assert components['"@path"'] == target.split("?")[0], (name, target)
        assert components['"@method"'] == method == "GET"
        assert components['"@authority"'] == sites.bases[name].removeprefix("http://")
        assert components['"signature-agent";key="sig1"'] == f'"{AGENT}"'
        params = result["parameters"]
        assert params["tag"] == "web-bot-auth" and params["alg"] == "ed25519"
        assert params["keyid"] in directory
        assert params["expires"] - params["created"] == 86_400


@pytest_twisted.ensureDeferred
async def test_a_retry_and_a_redirect_are_signed_afresh_at_their_send(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With Scrapy's RetryMiddleware and RedirectMiddleware, AutoThrottle and the HTTP
    cache on, each request is signed as it leaves: the retry of a 503 with a ``created``
    of its own, later than the first try's (the clock the signer reads steps a second a
    read, so no two sends share one), the redirect's hop for its own path."""
    import time

    from scrapy_rep.crawl import webbotauth

    start = int(time.time()) - 3600
    reads = iter(range(start, start + 10_000))
    monkeypatch.setattr(webbotauth, "clock", lambda: next(reads))
    key_file = tmp_path / "key.pem"
    operator_key(key_file)
    more = {
        "AUTOTHROTTLE_ENABLED": True,
        "AUTOTHROTTLE_START_DELAY": 0.01,
        "HTTPCACHE_ENABLED": True,
        "HTTPCACHE_DIR": str(tmp_path / "cache"),
        "HTTPCACHE_IGNORE_HTTP_CODES": [503],  # the 503 is asked of the site again
    }
    sites = signed_site()
    try:
        await crawl([sites.url("a", p) for p in PATHS], {**SETTINGS, **more, **signing(key_file)})
        first = len(received(sites))
        await crawl([sites.url("a", p) for p in PATHS], {**SETTINGS, **more, **signing(key_file)})
    finally:
        await sites.close()
    directory = directory_keys(directory_of(key_file))
    seen = received(sites)
    assert len(seen) == first  # the second crawl's answers all came from the cache: unsent
    created = {}
    for _, method, target, headers in seen:
        created.setdefault(target, []).append(
            verified(method, target, headers, directory)["parameters"]["created"]
        )
    tries = created["/flaky"]
    assert len(tries) == 2 and tries[1] > tries[0]
    assert created["/target"][0] > created["/r"][0]
    every = [c for times in created.values() for c in times]
    assert len(set(every)) == len(every)  # no signature sent twice


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_signing_changes_no_decision_and_the_run_header_says_it(tmp_path: Path) -> None:
    """The same site crawled with and without signing: the same fates, the same items, and
    each trail verified clean (tests/conftest.py); the signed run's header names its
    Signature-Agent and key id, the other's says it signed nothing. ``audit show`` reads
    both."""
    from tests.support.tools import audit_tool

    key_file = tmp_path / "key.pem"
    key = operator_key(key_file)
    outcomes = []
    for name, more in (("plain", {}), ("signed", signing(key_file))):
        trail = tmp_path / f"{name}.jsonl"
        items: list[Any] = []
        sites = signed_site()
        urls = [sites.url("a", p) for p in PATHS]
        try:
            await crawl(urls, {**SETTINGS, **more, "REP_AUDIT_FILE": str(trail)}, ItemSpider,
                        on_crawler=collecting_items(items))  # fmt: skip
        finally:
            await sites.close()
        base = sites.bases["a"]
        fates = sorted(
            (r["url"].removeprefix(base), r["fate"], r.get("refused_by"))
            for r in url_records(trail)
        )
        kept = sorted(item["url"].removeprefix(base) for item in items)
        code, shown = audit_tool("show", str(trail), urls[0])
        assert code == 0 and urls[0] in shown
        outcomes.append((fates, kept, lines(trail)[0]))
    (plain, plain_items, plain_header), (signed, signed_items, signed_header) = outcomes
    assert signed == plain and signed_items == plain_items
    assert ("/private/x", "refused", "robots.txt") in signed
    assert plain_header["web_bot_auth"] is None
    assert signed_header["web_bot_auth"] == {
        "signature_agent": AGENT,
        "keyid": keys.thumbprint(key.public_key()),
        "tag": "web-bot-auth",
    }


def rsa_key(path: Path) -> Path:
    """An RSA private key (PEM), which Web Bot Auth's ed25519 signing cannot use."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
    )

    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    path.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    return path


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("missing", "REP_WEB_BOT_AUTH_KEY: {missing}: cannot be read (No such file or directory)"),
        ("rsa", "REP_WEB_BOT_AUTH_KEY: {rsa}: holds an RSA key, not an Ed25519 one"),
        ("http", "REP_WEB_BOT_AUTH_AGENT: expected an absolute https URL"),
        ("no key", "REP_WEB_BOT_AUTH_KEY: required with REP_WEB_BOT_AUTH_AGENT"),
        ("no agent", "REP_WEB_BOT_AUTH_AGENT: required with REP_WEB_BOT_AUTH_KEY"),
        (
            "test key",
            "REP_WEB_BOT_AUTH_KEY: {test}: RFC 9421 Appendix B.1.4's test key, "
            "published: anyone can sign with it",
        ),
        ("trail test key", "REP_AUDIT_SIGNING_KEY: {test}: RFC 9421 Appendix B.1.4's test key"),
    ],
)
@pytest_twisted.ensureDeferred
async def test_a_crawl_that_cannot_sign_stops_at_start_naming_the_setting(
    tmp_path: Path, case: str, said: str
) -> None:
    """Never a crawl that sends its requests unsigned when it was asked to sign them."""
    key_file = tmp_path / "key.pem"
    operator_key(key_file)
    files = {"missing": tmp_path / "missing.pem", "rsa": rsa_key(tmp_path / "rsa.pem"),
             "test": tmp_path / "rfc9421.pem"}  # fmt: skip
    files["test"].write_bytes(RFC9421_PRIVATE)
    settings: dict[str, Any] = {
        "test key": signing(files["test"]),
        "trail test key": {
            "REP_AUDIT_FILE": str(tmp_path / "t.jsonl"),
            "REP_AUDIT_SIGNING_KEY": str(files["test"]),
        },
        "missing": signing(files["missing"]),
        "rsa": signing(files["rsa"]),
        "http": {**signing(key_file), "REP_WEB_BOT_AUTH_AGENT": "http://crawler.example/keys"},
        "no key": {"REP_WEB_BOT_AUTH_AGENT": AGENT},
        "no agent": {"REP_WEB_BOT_AUTH_KEY": str(key_file)},
    }[case]
    line = await refused_at_start(settings)
    assert line.startswith("scrapy_rep: error: " + said.format(**files)), line


@pytest_twisted.ensureDeferred
async def test_the_test_key_signs_only_where_a_setting_names_it(tmp_path: Path) -> None:
    """REP_ALLOW_TEST_KEY names RFC 9421's key: a test crawl signs with it."""
    key_file = tmp_path / "rfc9421.pem"
    key_file.write_bytes(RFC9421_PRIVATE)
    sites = signed_site()
    allowed = {**signing(key_file), "REP_ALLOW_TEST_KEY": RFC9421_KID}
    try:
        await crawl([sites.url("a", "/p")], {**SETTINGS, **allowed})
    finally:
        await sites.close()
    assert all(dict(headers).get("Signature") for _, _, _, headers in received(sites))


@pytest_twisted.ensureDeferred
async def test_http_requests_go_unsigned_unless_a_setting_says_so(tmp_path: Path) -> None:
    """draft §6.1: a signature sent over http can be replayed by whoever sees it; by
    default no http:// request carries one, robots.txt's neither."""
    key_file = tmp_path / "key.pem"
    operator_key(key_file)
    sites = signed_site()
    try:
        await crawl(
            [sites.url("a", p) for p in PATHS], {**SETTINGS, **signing(key_file, http=False)}
        )
    finally:
        await sites.close()
    seen = received(sites)
    assert {target for _, _, target, _ in seen} >= {"/robots.txt", "/p", "/target"}
    for _, _, target, headers in seen:
        names = {name.lower() for name, _ in headers}
        assert not names & {"signature", "signature-input", "signature-agent"}, target


def test_scrapy_crawl_without_its_key_exits_2_naming_the_setting(tmp_path: Path) -> None:
    """``scrapy crawl`` as a user runs it, its key file gone: exit status 2, the one line,
    no traceback, nothing crawled."""
    settings = f'REP_WEB_BOT_AUTH_KEY = "gone.pem"\nREP_WEB_BOT_AUTH_AGENT = "{AGENT}"'
    project = make_project(tmp_path, settings, process=True)
    result = scrapy_crawl(project)
    assert result.status == 2, result.stderr
    assert "Traceback" not in result.stderr and "Spider opened" not in result.stderr
    assert result.error_lines() == [
        "scrapy_rep: error: REP_WEB_BOT_AUTH_KEY: gone.pem: cannot be read "
        "(No such file or directory)"
    ]


@pytest_twisted.ensureDeferred
async def test_where_the_send_cannot_be_reached_requests_are_signed_last_in_the_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A downloader whose send cannot be reached (another downloader class): each request
    is signed by the last downloader middleware instead, and still verifies."""
    from scrapy_rep.crawl import webbotauth

    monkeypatch.setattr(webbotauth, "send_through", lambda engine, sending: None)
    key_file = tmp_path / "key.pem"
    operator_key(key_file)
    sites = signed_site()
    try:
        await crawl([sites.url("a", p) for p in PATHS], {**SETTINGS, **signing(key_file)})
    finally:
        await sites.close()
    directory = directory_keys(directory_of(key_file))
    seen = received(sites)
    assert len(seen) == 8
    for _, method, target, headers in seen:
        verified(method, target, headers, directory)


@pytest_twisted.ensureDeferred
async def test_a_crawl_with_nowhere_to_sign_is_closed_before_it_sends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neither the send nor the downloader middlewares' chain can be reached: the crawl is
    closed (an ERROR says why) and no request reaches the site, signed or not."""
    from scrapy.utils.test import get_crawler

    from scrapy_rep.crawl import webbotauth
    from tests.support.robotsite import BASE_SETTINGS, ListSpider

    monkeypatch.setattr(webbotauth, "send_through", lambda engine, sending: None)
    monkeypatch.setattr(webbotauth, "append_downloader_method", lambda *args: False)
    key_file = tmp_path / "key.pem"
    operator_key(key_file)
    sites = signed_site()
    try:
        crawler = get_crawler(ListSpider, {**BASE_SETTINGS, **signing(key_file)})
        await crawler.crawl(urls=[sites.url("a", p) for p in PATHS])
    finally:
        await sites.close()
    assert crawler.stats is not None
    assert crawler.stats.get_value("finish_reason") == webbotauth.CLOSE_REASON
    assert crawler.stats.get_value("log_count/ERROR") == 1
    assert received(sites) == []


#: The components of a project that lists them by hand (docs/usage.md), without the add-on.
BY_HAND: dict[str, Any] = {
    "ADDONS": {},
    "ROBOTSTXT_OBEY": True,
    "DOWNLOADER_MIDDLEWARES": {
        "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
        "scrapy_rep.RobotsTxtMiddleware": 100,
        "scrapy_rep.RobotsTxtResponseGuard": 595,
        "scrapy_rep.SentRequestCheck": 899,
        "scrapy_rep.PageVerdictMiddleware": 20,
    },
}


@pytest_twisted.ensureDeferred
async def test_components_listed_by_hand_sign_with_the_middleware_and_never_without_it(
    tmp_path: Path,
) -> None:
    """Listed by hand with ``scrapy_rep.WebBotAuthMiddleware``, every request is signed;
    listed without it (the key set, nothing to sign with it), the crawl is closed as it
    opens, an ERROR saying what to list, and nothing reaches the site unsigned."""
    from scrapy.utils.test import get_crawler

    from scrapy_rep.crawl import webbotauth
    from tests.support.robotsite import BASE_SETTINGS, ListSpider

    key_file = tmp_path / "key.pem"
    operator_key(key_file)
    listed = {**BY_HAND["DOWNLOADER_MIDDLEWARES"], "scrapy_rep.WebBotAuthMiddleware": 950}
    sites = signed_site()
    try:
        await crawl([sites.url("a", "/p")],
                    {**BY_HAND, "DOWNLOADER_MIDDLEWARES": listed, **signing(key_file)})  # fmt: skip
        signed = received(sites)
        crawler = get_crawler(ListSpider, {**BASE_SETTINGS, **BY_HAND, **signing(key_file)})
        await crawler.crawl(urls=[sites.url("a", "/p")])
    finally:
        await sites.close()
    directory = directory_keys(directory_of(key_file))
    assert sorted(target for _, _, target, _ in signed) == ["/p", "/robots.txt"]
    for _, method, target, headers in signed:
        verified(method, target, headers, directory)
    assert crawler.stats is not None
    assert crawler.stats.get_value("finish_reason") == webbotauth.CLOSE_REASON
    assert received(sites) == signed  # the second crawl sent nothing
