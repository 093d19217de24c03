"""Real crawls of hosts that cannot serve anything (SPEC §4; docs/decisions.md, "A host
that cannot be connected to is given up on quickly"): a port that refuses connections, a
name that does not exist, a TLS handshake that fails end the crawl within seconds, with
their stats, log lines and audit records; a 503, a reset and a lookup that failed for
now are held as long as before.

The schedule asserted is the one the crawl reports (its log lines say how long it holds
and when it gave up), not a wall-clock duration of a loaded machine.
"""

from __future__ import annotations

import io
import logging
import re
import socket
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted

from rep_audit.cli import main as audit
from tests.support.audittrail import by_url
from tests.support.localhttp import refusing_port
from tests.support.robotsite import Reply, Sites, crawl, stat

#: The waits as a project that sets nothing has them (the tests' own are shorter).
DEFAULT_WAITS: dict[str, Any] = {
    "REP_UNREACHABLE_RETRY_DELAY": 30,
    "REP_UNREACHABLE_MAX_WAIT": 600,
}
#: Held for 600 s before this change: a crawl that is not over by then failed.
BOUND = {"CLOSESPIDER_TIMEOUT": 60}
UNTIL = (
    r"retrying(?P<counted>.*); giving up at \d\d:\d\d:\d\d "
    r"\(in (?P<seconds>[\d.,]+) s, (?P<setting>REP_UNREACHABLE_\w+)\)"
)


def messages(caplog: Any, level: int, logger: str = "scrapy_rep") -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.levelno == level and r.name.startswith(logger)
    ]


def waited(reason: str) -> float:
    """The seconds a drop reason says its robots.txt was waited for."""
    found = re.search(r" unreachable for ([\d.]+) s \(", reason)
    assert found, reason
    return float(found[1])


@pytest_twisted.ensureDeferred
async def test_two_start_urls_on_a_port_that_refuses_connections_end_the_crawl_in_seconds(
    tmp_path: Path, caplog: Any
) -> None:
    """The 600 s wait of a 5xx is not a refused connection's: one more try after
    ``REP_UNREACHABLE_CONNECT_MAX_WAIT`` (10 s), then the two requests are dropped with
    their reason, the stats, a WARNING, the audit trail's records and a summary line."""
    with refusing_port() as port:
        base = f"http://127.0.0.1:{port}"
        urls = [f"{base}/a", f"{base}/b"]
        trail = tmp_path / "trail.jsonl"
        settings = {**DEFAULT_WAITS, **BOUND, "REP_AUDIT_FILE": str(trail)}
        with caplog.at_level(logging.DEBUG, logger="scrapy_rep"):
            crawler, spider = await crawl(urls, settings)
    assert spider.downloaded == [] and sorted(spider.dropped) == urls
    for reason in spider.dropped.values():
        assert reason.startswith(f"Dropped: robots.txt of {base} unreachable for 10 s (")
        assert "Connection refused" in reason and reason.endswith("requests dropped")
    assert stat(crawler, "finish_reason") == "finished"  # not the 60 s bound
    assert stat(crawler, "robotstxt/request_count") == 2  # the first try and one retry
    assert stat(crawler, "rep/robotstxt/failure/refused") == 2
    assert stat(crawler, "rep/robotstxt/retries") == 1
    assert stat(crawler, "rep/robotstxt/gave_up") == 1
    assert stat(crawler, "rep/robotstxt/gave_up_connect") == 1
    assert stat(crawler, "rep/requests/dropped/robotstxt_unreachable") == 2
    assert stat(crawler, "rep/requests/dropped/spider_closed") is None
    assert stat(crawler, "elapsed_time_seconds") < 60  # far below the old 600 s
    # The schedule the crawl reports: the wait announced once, its one retry, the end.
    [wait] = [m for m in messages(caplog, logging.INFO) if "is unreachable" in m]
    found = re.fullmatch(
        rf"robots.txt of {re.escape(base)} is unreachable \(connection refused\); "
        rf"holding (?P<held>\d) request\(s\) and {UNTIL}",
        wait,
    )
    assert found and found["seconds"] == "10" and found["held"] in ("1", "2"), wait
    assert found["setting"] == "REP_UNREACHABLE_CONNECT_MAX_WAIT" and not found["counted"]
    retries = [m for m in messages(caplog, logging.DEBUG) if ", retry " in m]
    assert len(retries) == 1 and retries[0].endswith("retry 1 in 10 s"), retries
    [warning] = messages(caplog, logging.WARNING)
    assert warning.startswith(
        f"robots.txt of {base} given up on after 10 s (REP_UNREACHABLE_CONNECT_MAX_WAIT; "
        "last try: unreachable ("
    )
    assert warning.endswith("); 2 held request(s) dropped")
    summary = "scrapy_rep: 1 robots.txt given up on as unreachable in this crawl"
    assert [m for m in messages(caplog, logging.INFO) if m.startswith(summary)] == [
        f"{summary} (1 connection refused)"
    ]
    records = by_url(trail)
    for url in urls:
        assert records[url]["fate"] == "refused" and records[url]["refused_by"] == "unreachable"
        assert "unreachable for 10 s" in records[url]["why"]


@pytest_twisted.ensureDeferred
async def test_a_503_robotstxt_still_holds_for_the_long_wait(caplog: Any) -> None:
    """The server says to wait (RFC 9309 §2.3.1.4): REP_UNREACHABLE_MAX_WAIT (600 s), the
    first retry after 30 s; the crawl is stopped after 2 s with both requests held."""
    sites = Sites()
    sites.add("down").script("/robots.txt", Reply(503))
    urls = [sites.url("down", "/a"), sites.url("down", "/b")]
    try:
        with caplog.at_level(logging.DEBUG, logger="scrapy_rep"):
            crawler, _ = await crawl(urls, {**DEFAULT_WAITS, "CLOSESPIDER_TIMEOUT": 2})
    finally:
        await sites.close()
    [wait] = [m for m in messages(caplog, logging.INFO) if "is unreachable" in m]
    assert re.fullmatch(
        rf"robots.txt of {re.escape(sites.bases['down'])} is unreachable \(503\); "
        rf"holding \d request\(s\) and {UNTIL}",
        wait,
    ), wait
    assert wait.endswith("(in 600 s, REP_UNREACHABLE_MAX_WAIT)")
    # The 503 came back through Scrapy's engine as a response: Scrapy's stats (and its
    # "Crawled N pages" line) count it, as the line says.
    assert """(each answer counts as a page in Scrapy's "Crawled N pages")""" in wait
    assert stat(crawler, "response_received_count") == 1
    [retry] = [m for m in messages(caplog, logging.DEBUG) if ", retry " in m]
    assert retry.endswith("retry 1 in 30 s")
    assert stat(crawler, "rep/robotstxt/failure/server") == 1
    assert stat(crawler, "rep/robotstxt/gave_up") is None
    assert stat(crawler, "rep/requests/dropped/spider_closed") == 2
    assert sites.requested("down") == ["/robots.txt"]


@pytest_twisted.ensureDeferred
async def test_a_connection_reset_is_held_as_long_as_a_5xx(caplog: Any) -> None:
    """Something listens and drops the connection: a busy host, not a dead one."""
    sites = Sites()
    sites.add("reset").script("/robots.txt", Reply(reset=True))
    settings = {"REP_UNREACHABLE_MAX_WAIT": 1.5, "REP_UNREACHABLE_CONNECT_MAX_WAIT": 0.2}
    try:
        with caplog.at_level(logging.INFO, logger="scrapy_rep"):
            crawler, spider = await crawl([sites.url("reset", "/")], settings)
    finally:
        await sites.close()
    assert list(spider.dropped) == [sites.url("reset", "/")]
    assert stat(crawler, "rep/robotstxt/failure/connection_lost") >= 2
    assert stat(crawler, "rep/robotstxt/gave_up_connect") is None
    [wait] = [m for m in messages(caplog, logging.INFO) if "is unreachable" in m]
    assert "(connection lost)" in wait and wait.endswith("(in 1.5 s, REP_UNREACHABLE_MAX_WAIT)")
    assert waited(spider.dropped[sites.url("reset", "/")]) >= 1.5


@pytest.mark.parametrize(
    ("code", "failure", "words", "gave_up_after"),
    [
        (socket.EAI_NONAME, "no_such_host", "no such host", "0.3"),
        (socket.EAI_AGAIN, "dns_failed", "DNS lookup failed", "1.5"),
    ],
    ids=["nxdomain", "try-again"],
)
@pytest_twisted.ensureDeferred
async def test_a_name_that_does_not_exist_is_given_up_on_quickly_a_failed_lookup_is_not(
    monkeypatch: Any, caplog: Any, code: int, failure: str, words: str, gave_up_after: str
) -> None:
    """``.invalid`` never resolves (RFC 6761 §6.4); Twisted's resolver does not say why,
    so the system resolver is asked (here it answers ``code``, whatever this machine's
    resolver would: the test does not depend on its network)."""
    from scrapy_rep.crawl.documents import engine_fetch

    asked: list[str] = []

    def lookup(host: str) -> object:
        asked.append(host)
        raise socket.gaierror(code, "as the resolver says")

    monkeypatch.setattr(engine_fetch, "system_lookup", lookup)
    urls = ["http://gone.invalid/a", "http://gone.invalid/b"]
    settings = {"REP_UNREACHABLE_MAX_WAIT": 1.5, "REP_UNREACHABLE_CONNECT_MAX_WAIT": 0.3}
    with caplog.at_level(logging.INFO, logger="scrapy_rep"):
        crawler, spider = await crawl(urls, settings)
    assert sorted(spider.dropped) == urls and set(asked) == {"gone.invalid"}
    assert stat(crawler, f"rep/robotstxt/failure/{failure}") >= 2
    [wait] = [m for m in messages(caplog, logging.INFO) if "is unreachable" in m]
    assert (
        f"is unreachable ({words})" in wait and f"(in {gave_up_after} s, REP_UNREACHABLE_" in wait
    )
    for reason in spider.dropped.values():  # after the connect wait, or the long one
        assert waited(reason) >= float(gave_up_after)
        assert waited(reason) < 1.5 or failure == "dns_failed"
    assert stat(crawler, "rep/robotstxt/gave_up_connect") == (
        1 if failure == "no_such_host" else None
    )


# Scrapy 2.13 passes its default TLS method to Twisted's CertificateOptions, which
# Twisted deprecated (a warning is an error in this suite); Scrapy 2.19 does not.
@pytest.mark.filterwarnings(
    "ignore:Passing method to twisted.internet.ssl.CertificateOptions:DeprecationWarning"
)
@pytest_twisted.ensureDeferred
async def test_a_tls_handshake_that_fails_is_given_up_on_quickly(caplog: Any) -> None:
    """An https origin whose port answers something that is not TLS."""
    from twisted.internet import reactor
    from twisted.internet.protocol import Factory, Protocol

    class NotTls(Protocol):
        def connectionMade(self) -> None:
            self.transport.write(b"HTTP/1.1 400 Bad Request\r\n\r\n")  # type: ignore[union-attr]
            self.transport.loseConnection()  # type: ignore[union-attr]

    port = reactor.listenTCP(0, Factory.forProtocol(NotTls), interface="127.0.0.1")  # type: ignore[attr-defined]
    url = f"https://127.0.0.1:{port.getHost().port}/"
    settings = {"REP_UNREACHABLE_MAX_WAIT": 30, "REP_UNREACHABLE_CONNECT_MAX_WAIT": 0.3}
    try:
        with caplog.at_level(logging.INFO, logger="scrapy_rep"):
            crawler, spider = await crawl([url], settings)
    finally:
        await port.stopListening()
    assert list(spider.dropped) == [url]
    assert stat(crawler, "rep/robotstxt/failure/tls") >= 2  # retried (0.2 s) before 0.3 s
    assert stat(crawler, "rep/robotstxt/gave_up_connect") == 1
    [wait] = [m for m in messages(caplog, logging.INFO) if "is unreachable" in m]
    assert "(TLS handshake failed)" in wait and wait.endswith(
        "(in 0.3 s, REP_UNREACHABLE_CONNECT_MAX_WAIT)"
    )


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_allow_never_lets_through_a_host_that_cannot_be_connected_to(
    tmp_path: Path,
) -> None:
    """``REP_UNREACHABLE_ACTION = "allow"`` is for the long outage: a refused host's
    requests are dropped after the connect wait all the same (robots.txt never read:
    complete disallow), and ``audit verify`` finds the trail sound."""
    trail = tmp_path / "trail.jsonl"
    settings = {
        "REP_UNREACHABLE_ACTION": "allow", "REP_UNREACHABLE_CONNECT_MAX_WAIT": 0.3,
        "REP_AUDIT_FILE": str(trail),
    }  # fmt: skip
    with refusing_port() as port:
        base = f"http://127.0.0.1:{port}"
        crawler, spider = await crawl([f"{base}/a"], settings)
    assert list(spider.dropped) == [f"{base}/a"] and spider.downloaded == []
    assert "requests dropped" in spider.dropped[f"{base}/a"]
    assert stat(crawler, "rep/requests/allowed_unreachable") is None
    assert stat(crawler, "rep/requests/dropped/robotstxt_unreachable") == 1
    out = io.StringIO()
    assert audit(["verify", str(trail)], out) == 0, out.getvalue()


def test_the_setting_is_read_and_checked() -> None:
    """A wrong value stops the crawl at start, naming the setting."""
    from rep_engine.settings import RepConfig
    from rep_engine.settings.readers import RepSettingError
    from rep_engine.settings.rules import lifecycle_policy

    config = RepConfig.from_settings({"REP_UNREACHABLE_CONNECT_MAX_WAIT": "2.5"})
    assert config.unreachable_connect_max_wait == 2.5
    assert lifecycle_policy(config, {}, 30.0, None).connect_max_wait == 2.5
    assert RepConfig.defaults().unreachable_connect_max_wait == 10.0
    with pytest.raises(RepSettingError, match="REP_UNREACHABLE_CONNECT_MAX_WAIT"):
        RepConfig.from_settings({"REP_UNREACHABLE_CONNECT_MAX_WAIT": -1})
