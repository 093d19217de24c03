"""What the purpose check (``REP_PURPOSE``) costs per request, before the fetch.

Over ``../shared/corpus`` (every real file, its 50 URLs): per file the robots.txt is
parsed (not timed), then each URL is checked the way the downloader middleware does it,
one pass per mode, each on freshly parsed files so that every first call (the
compilation of a group's rules and of its ``Content-Usage`` rules) is included:

- ``robots``: ``allowed()`` alone (no purpose check: the cost before this feature);
- ``search``: ``allowed()`` + the purpose check for ``search`` (the default) on the real
  files, which rarely carry signals;
- ``ai-train``: ``allowed()`` + the check for ``ai-train`` on the same files with
  signals added before the first group (``Content-Usage`` with and without a path,
  ``Content-Signal``), and a three-entry tdmrep.json: every request meets signals;
- ``+agents``: the ``ai-train`` check plus ``REP_PURPOSE_AGENTS = [GPTBot, CCBot,
  Google-Extended]`` (three more ``allowed()`` calls).

The garbage collector is on, nothing is warmed up, each figure is the median of 5
rounds of CPU time (``time.process_time``: steadier than wall time on a shared
machine). The purpose check's cost is the difference to ``robots``, in µs per request.
Target (docs/benchmarks.md, 'Purpose and audit trail'): under 10 µs per request with cached
signals (the documents parsed and cached, as in a crawl; first calls included).

Then the audit trail's own cost per request (``REP_AUDIT_FILE``): a real
:class:`scrapy_rep.crawl.audit.audit.AuditTrail` on a real (not running) crawler, driven through
what it does for one fetched page (the three Scrapy signals it listens to, sent as
Scrapy sends them, then the page's output passed on and one record written to a file),
with the robots.txt verdict on the request as the middleware leaves it. Also CPU time,
median of 5 rounds, GC on.

Usage: ``python benchmarks/purpose.py [--corpus DIR] [--files N]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rep_engine.robotstxt import RobotsTxt, parse_robotstxt
from rep_engine.usage.tdmrep import parse_tdmrep
from rep_engine.verdict.policy import UsagePolicy

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
AGENT = "mybot"
AI_AGENTS = ("GPTBot", "CCBot", "Google-Extended")
SIGNALS = (
    b"Content-Usage: train-ai=n\n"
    b"Content-Usage: /blog/ train-ai=y, search=y\n"
    b"Content-Signal: search=yes, ai-input=no\n\n"
)
TDMREP = parse_tdmrep(
    b'[{"location": "/books/*", "tdm-reservation": 1},'
    b' {"location": "/*.pdf$", "tdm-reservation": 1}, {"location": "/", "tdm-reservation": 0}]'
)
TARGET_US = 10.0
ROUNDS = 5


def load(corpus: Path, limit: int | None) -> list[tuple[bytes, list[str]]]:
    sites = []
    with (corpus / "urls.jsonl").open() as lines:
        next(lines)
        for line in lines:
            entry = json.loads(line)
            sites.append(((corpus / entry["file"]).read_bytes(), entry["urls"]))
            if limit is not None and len(sites) >= limit:
                break
    return sites


Check = Callable[[RobotsTxt, str], Any]


def robots_only(rules: RobotsTxt, url: str) -> Any:
    return rules.allowed(url, AGENT)


def purpose_check(policy: UsagePolicy, agents: tuple[str, ...] = ()) -> Check:
    """What ``UsageGate.check`` does for an allowed request."""
    tdm = TDMREP if policy.needs_tdmrep else None

    def check(rules: RobotsTxt, url: str) -> Any:
        if not rules.allowed(url, AGENT):
            return False
        for token in agents:
            if not rules.allowed(url, token):
                return False
        return policy.refuse_before(policy.before_fetch(rules, url, AGENT, tdm))

    return check


def one_pass(sites: list[tuple[bytes, list[str]]], check: Check, signals: bool) -> float:
    """Seconds for every URL of every site, on freshly parsed files (parse not timed)."""
    parsed = [(parse_robotstxt(SIGNALS + body if signals else body), urls) for body, urls in sites]
    start = time.process_time()
    for rules, urls in parsed:
        for url in urls:
            check(rules, url)
    return time.process_time() - start


def audit_cost(requests: int = 20_000, name: str = "audit.jsonl") -> tuple[float, float]:
    """µs of CPU per fetched page that the audit trail adds (its handlers of the signals
    Scrapy sends, the robots.txt decision with its line, one chained record written: the
    same loop without a trail subtracted), and bytes per ``url`` record before
    compression."""
    import tempfile
    import zlib

    from scrapy import Request, Spider, signals
    from scrapy.http import HtmlResponse
    from scrapy.utils.test import get_crawler

    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.records import PageOutput
    from rep_engine.urls.origins import origin_of
    from rep_engine.verdict.decide import ROBOTS, Allowed, RequestFacts
    from scrapy_rep.crawl.audit.audit import AuditTrail
    from scrapy_rep.crawl.requeststate import KEY

    text = b"User-agent: *\nDisallow: /private/\nAllow: /p/\n"
    rules = parse_robotstxt(text)
    sha = hashlib.sha256(text).hexdigest()
    entry = CacheEntry(
        rules, "200 (48 bytes)", time.time(), 1e18, 1e18, 200, zlib.compress(text), sha256=sha
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        crawler = get_crawler(Spider, {"REP_AUDIT_FILE": str(path)})
        trail = AuditTrail.from_crawler(crawler)  # the crawl's URL ledger, which writes it
        origin = origin_of("https://example.com/")
        used = ((ROBOTS, origin, entry),)
        send = crawler.signals.send_catch_log  # what Scrapy does for each signal
        send(signals.spider_opened, spider=None)
        pages = []
        for n in range(requests):
            url = f"https://example.com/p/{n}"
            pages.append(HtmlResponse(url, body=b"<html></html>", request=Request(url)))
        rounds = []
        for _ in range(5):
            start = time.process_time()
            for response in pages:
                request = response.request
                assert request is not None
                request.meta.pop(KEY, None)  # a new record each round
                send(signals.request_scheduled, request=request, spider=None)
                # the verdict as the performer tells it (the middleware's, with its line)
                facts = RequestFacts(request.url, origin, "b")
                verdict = Allowed(used, rules.decide(request.url, "b"), obeyed=True)
                trail.decided(request, facts, verdict)
                send(signals.request_reached_downloader, request=request, spider=None)
                send(signals.response_received, response=response, request=request, spider=None)
                trail.page_done(response, PageOutput(passed=1))
            rounds.append(time.process_time() - start)
        written = trail.writer.file.bytes if trail.writer.file else 0
        records = trail.settled.fates().get("fetched", 0)
        send(signals.spider_closed, spider=None, reason="finished")
    without = _without_trail(pages, rules)
    return (statistics.median(rounds) - without) / requests * 1e6, written / max(records, 1)


def _without_trail(pages: list[Any], rules: Any) -> float:
    """CPU seconds of the same loop without a trail: the signals Scrapy sends anyway (to
    no receiver of ours) and ``allowed()`` in place of ``decide()``; median of 5."""
    from scrapy import Spider, signals
    from scrapy.utils.test import get_crawler

    send = get_crawler(Spider, {}).signals.send_catch_log
    rounds = []
    for _ in range(5):
        start = time.process_time()
        for response in pages:
            request = response.request
            send(signals.request_scheduled, request=request, spider=None)
            rules.allowed(request.url, "b")
            send(signals.request_reached_downloader, request=request, spider=None)
            send(signals.response_received, response=response, request=request, spider=None)
        rounds.append(time.process_time() - start)
    return statistics.median(rounds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--files", type=int, help="only the first N files")
    args = parser.parse_args()
    if not (args.corpus / "urls.jsonl").exists():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    sites = load(args.corpus, args.files)
    requests = sum(len(urls) for _, urls in sites)
    modes: list[tuple[str, Check, bool]] = [
        ("robots", robots_only, False),
        ("search", purpose_check(UsagePolicy.of(["search"])), False),
        ("robots (files with signals)", robots_only, True),
        ("ai-train", purpose_check(UsagePolicy.of(["ai-train"])), True),
        ("ai-train +agents", purpose_check(UsagePolicy.of(["ai-train"]), AI_AGENTS), True),
    ]
    seconds = {}
    for name, check, signals in modes:
        seconds[name] = statistics.median(one_pass(sites, check, signals) for _ in range(ROUNDS))
    how = f"GC on, first calls included, CPU time, median of {ROUNDS}"
    print(f"{len(sites):,} files, {requests:,} requests; {how}")
    print()
    print("| mode | µs per request | purpose check, µs per request |")
    print("|---|---|---|")
    base = {"search": "robots", "ai-train": "robots (files with signals)"}
    base["ai-train +agents"] = "robots (files with signals)"
    worst = 0.0
    for name, _, _ in modes:
        per = seconds[name] / requests * 1e6
        if name in base:
            extra = (seconds[name] - seconds[base[name]]) / requests * 1e6
            worst = max(worst, extra) if name != "ai-train +agents" else worst
            print(f"| {name} | {per:.2f} | {extra:+.2f} |")
        else:
            print(f"| {name} | {per:.2f} | – |")
    verdict = "met" if worst < TARGET_US else "NOT met"
    print(f"\ntarget: purpose check under {TARGET_US:g} µs per request: {verdict} ({worst:.2f} µs)")
    for name in ("audit.jsonl", "audit.jsonl.gz"):
        micros, size = audit_cost(name=name)
        print(
            f"\naudit trail ({name}): {micros:.1f} µs of CPU per fetched page added (its "
            "handlers, the deciding line, one chained record written), "
            f"{size:.0f} bytes per record before compression"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
