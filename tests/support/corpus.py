"""The robots.txt corpus (``REP_CORPUS``, or ``../shared/corpus``; the ``corpus_dir``
fixture) as the robustness tests read it: its files by kind, each real file's own URLs,
a sample of it, and everything the engine says about a file, in a comparable form."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rep_engine.robotstxt import ContentSignals, Decision, RobotsTxt, parse_robotstxt

PROFILES = ("google", "rfc9309", "legacy")


AGENTS = ("Googlebot", "mybot", "Scrapy/2.19 (+https://scrapy.org)")


#: URLs asked of every file, besides a few of its own from urls.jsonl.
GENERIC_URLS = (
    "https://example.com/",
    "https://example.com/robots.txt",
    "https://example.com/a/b;p?q=1#frag",
    "https://example.com/%E3%83%84/index.html",
    "/" + "ab*" * 700,
)


#: How many of each real file's own URLs (urls.jsonl gives 50) are asked.
OWN_URLS_PER_FILE = 3


Answers = list[Any]


def corpus_files(corpus_dir: Path, kind: str) -> list[Path]:
    return sorted(path for path in (corpus_dir / kind).rglob("*") if path.is_file())


def own_urls(corpus_dir: Path) -> dict[str, list[str]]:
    """File (relative to the corpus) -> its URLs from ``urls.jsonl`` (first line: agents)."""
    urls: dict[str, list[str]] = {}
    path = corpus_dir / "urls.jsonl"
    if not path.is_file():
        return urls
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if "file" in record:
                urls[record["file"]] = record["urls"]
    return urls


def everything_said(rules: RobotsTxt, urls: list[str]) -> Answers:
    """Everything the public API says about ``urls``, in a comparable (JSON) form."""
    out: Answers = [list(rules.sitemaps)]
    for agent in AGENTS:
        out.append(rules.crawl_delay(agent))
        signals = rules.content_signals(agent)
        out.append([signals.search, signals.ai_input, signals.ai_train])
        for target in urls:
            decision = rules.decide(target, agent)
            out.append([decision.allowed, decision.line, decision.rule, decision.pattern])
    return out


def check_types(rules: RobotsTxt, urls: list[str]) -> None:
    assert isinstance(rules.sitemaps, tuple)
    assert all(isinstance(sitemap, str) for sitemap in rules.sitemaps)
    for agent in AGENTS:
        delay = rules.crawl_delay(agent)
        assert delay is None or isinstance(delay, float)
        assert isinstance(rules.content_signals(agent), ContentSignals)
        for target in urls:
            allowed = rules.allowed(target, agent)
            assert isinstance(allowed, bool)
            decision = rules.decide(target, agent)
            assert isinstance(decision, Decision)
            assert decision.allowed is allowed
            assert decision.rule in (None, "allow", "disallow")
            assert (decision.line is None) is (decision.rule is None)


def urls_for(relative: str, urls: dict[str, list[str]]) -> list[str]:
    return urls.get(relative, [])[:OWN_URLS_PER_FILE] + list(GENERIC_URLS)


def sample_files(corpus_dir: Path) -> list[Path]:
    """Every 50th real and 20th junk file and every synthetic file: ~60 files."""
    return (
        corpus_files(corpus_dir, "real")[::50]
        + corpus_files(corpus_dir, "junk")[::20]
        + corpus_files(corpus_dir, "synthetic")
    )


def sample_answers(corpus_dir: Path, files: list[Path]) -> Answers:
    urls = own_urls(corpus_dir)
    out: Answers = []
    for path in files:
        body = path.read_bytes()
        targets = urls_for(path.relative_to(corpus_dir).as_posix(), urls)
        for profile in PROFILES:
            out.append(everything_said(parse_robotstxt(body, profile), targets))
    return out
