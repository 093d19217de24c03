"""The recheck's fast path (the inline match, the outcomes' memo, refusals' verdicts let
go and decided again) says what the full decision says, over random robots.txt files,
those of the shared corpus, and hostile URLs: ``*``/``$``, escapes in both cases,
``;``/``?``/``#``, ``//``, ``/robots.txt`` spelt many ways, very long paths, non-ASCII,
lone surrogates, userinfo, ports, uppercase hosts and schemes; every profile, both
purposes, ``REP_PURPOSE_AGENTS`` (the first refusing name the one reported).

A bounded seeded run here; a long one: ``PYTHONPATH=$PWD python fuzz/recheck_differential.py
[seconds] [seed]``.
"""

from __future__ import annotations

import json
import pathlib
import random
import sys
import time
from typing import Any

import pytest

from rep_engine.fetch.cache import CacheEntry
from rep_engine.records import ItemStatus
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.settings import RepConfig
from rep_engine.urls.origins import Origin, origin_of
from rep_engine.usage.tdmrep import NO_FILE
from rep_engine.verdict.decide import ROBOTS, TDM, Refused
from rep_recheck import rechecker as module
from rep_recheck.documents import OriginDocuments
from rep_recheck.rechecker import Identity, Outcome, Rechecker

NEVER = float("inf")
CORPUS = pathlib.Path("/work/shared/corpus")
PIECES = [
    "/",
    "a",
    "b",
    "x",
    "*",
    "$",
    "%2F",
    "%2f",
    "%7E",
    "%7e",
    "~",
    "%41",
    "%c3%a9",
    "é",
    ";",
    "?",
    "#",
    "=",
    "&",
    "//",
    "robots.txt",
    "ROBOTS.TXT",
    ".",
    "..",
    "%",
    "%2",
    "%zz",
    "\ud800",
    "\U0001f600",
    " ",
    "+",
    "A",
    "tmp",
    "private",
    ":",
]
AGENTS = ["mybot", "*", "GPTBot", "CCBot", "Googlebot", "MyBot", "other-bot"]


def rand_path(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.05:
        return ""
    if kind < 0.08:
        return "/" + "a" * rng.choice([1000, 3000, 10000]) + rng.choice(["", "/x", "$"])
    parts = [rng.choice(PIECES) for _ in range(rng.randint(0, 7))]
    return ("/" if rng.random() < 0.9 else "") + "".join(parts)


def rand_robots(rng: random.Random, paths: list[str]) -> str:
    lines = []
    for _ in range(rng.randint(1, 4)):
        for _ in range(rng.randint(1, 2)):
            lines.append(f"User-agent: {rng.choice(AGENTS)}")
        for _ in range(rng.randint(0, 6)):
            rule = rng.choice(["Disallow", "Allow", "disallow", "ALLOW"])
            value = rng.choice(paths) if rng.random() < 0.3 else rand_path(rng)
            lines.append(f"{rule}: {value}")
        if rng.random() < 0.2:
            lines.append("")
    return "\n".join(lines) + "\n"


def rand_url(rng: random.Random, host: str, path: str) -> str:
    scheme = rng.choice(["https", "https", "http", "HTTPS"])
    prefix = rng.choice(["", "", "user@", "u:p@"])
    port = rng.choice(["", "", ":443", ":8080"])
    spelt = host.upper() if rng.random() < 0.1 else host
    return f"{scheme}://{prefix}{spelt}{port}{path}"


def said_by(outcome: Outcome) -> tuple[Any, ...]:
    refusal = outcome.refusal
    verdict = outcome.verdict
    return (
        outcome.status,
        type(verdict).__name__,
        getattr(refusal, "agent", None),
        getattr(refusal, "line", None),
        getattr(refusal, "reason", None),
        refusal.message if refusal is not None else outcome.why,
        outcome.documents is not None and outcome.documents.origin,
    )


def said_with_line(outcome: Outcome) -> tuple[Any, ...]:
    """:func:`said_by`, and robots.txt's decision its verdict names (an allowed item's
    line too, with ``explain``)."""
    return *said_by(outcome), getattr(outcome.verdict, "robots", None)


def one_round(rng: random.Random, files: list[str], corpus_urls: list[str]) -> int:
    profile = rng.choice(["google", "rfc9309", "legacy"])
    purpose = rng.choice(["search", "ai-train"])
    settings: dict[str, Any] = {"REP_PURPOSE": purpose, "REP_PROFILE": profile}
    if rng.random() < 0.3:
        settings["REP_PURPOSE_AGENTS"] = rng.sample(
            ["CCBot", "GPTBot", "*", "Googlebot"], rng.randint(1, 3)
        )
    config = RepConfig.from_settings(settings)
    hosts = ["a.example", "b.example", "c.example"]
    paths = [rand_path(rng) for _ in range(40)] + corpus_urls
    documents: dict[Origin, OriginDocuments] = {}
    for host in hosts:
        text = rng.choice(files) if files and rng.random() < 0.3 else rand_robots(rng, paths)
        for scheme in ("http", "https"):
            origin = origin_of(f"{scheme}://{host}/")
            assert origin is not None
            found = OriginDocuments(origin, now=time.time())
            found.add(
                ROBOTS,
                origin,
                CacheEntry(
                    parse_robotstxt(text.encode("utf-8", "surrogatepass"), profile),
                    "200",
                    time.time(),
                    NEVER,
                    NEVER,
                ),
            )
            found.add(TDM, origin, CacheEntry(NO_FILE, "200", time.time(), NEVER, NEVER))
            documents[origin] = found

    def known(origin: Origin) -> OriginDocuments | None:
        return documents.get(origin)

    agent = rng.choice(["mybot/1.0", "MyBot", "GPTBot", "other-bot/2"])
    fast = Rechecker(config, Identity(agent), known, False)
    lined = Rechecker(config, Identity(agent), known, True)  # a report's, a trail's
    full = Rechecker(config, Identity(agent), known, True)
    full._fast = False  # every item decided in full: the reference
    urls = [rand_url(rng, rng.choice(hosts), rng.choice(paths)) for _ in range(200)]
    urls += [u for u in urls if rng.random() < 0.5]
    rng.shuffle(urls)
    for url in urls:
        got, want, named = fast.decide(url), full.decide(url), lined.decide(url)
        if said_by(got) != said_by(want) or said_with_line(named) != said_with_line(want):
            print("MISMATCH", profile, purpose, settings, agent, repr(url))
            print(" fast", said_by(got), said_with_line(named))
            print(" full", said_by(want), said_with_line(want))
            for origin, d in documents.items():
                if origin == origin_of(url):
                    print(" robots:", repr(d.robots.rules) if d.robots else None)
            return 1
    return 0


def corpus() -> tuple[list[str], list[str]]:
    """The shared corpus's robots.txt files (under 200 kB) and paths of its URLs (none if
    it is not on this machine)."""
    files: list[str] = []
    corpus_urls: list[str] = []
    if not CORPUS.is_dir():
        return files, corpus_urls
    for sub in ("real", "synthetic", "junk"):
        for path in (CORPUS / sub).rglob("*"):
            if path.is_file() and path.stat().st_size < 200_000:
                files.append(path.read_bytes().decode("utf-8", "replace"))
    for line in (CORPUS / "urls.jsonl").read_text().splitlines()[1:50]:
        for url in json.loads(line).get("urls", [])[:20]:
            found = url.split("://", 1)[-1]
            corpus_urls.append(found[found.find("/") :] if "/" in found else "/")
    return files, corpus_urls


def run_recheck_fuzz() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    rng = random.Random(seed)
    files, corpus_urls = corpus()
    module.VERDICTS_HELD = 3  # type: ignore[misc]
    module.REFUSALS_MEMO = 5  # type: ignore[misc]
    end, rounds, bad = time.time() + seconds, 0, 0
    while time.time() < end:
        bad += one_round(rng, files, corpus_urls)
        rounds += 1
        if bad > 5:
            break
    print(f"rounds {rounds} mismatches {bad}")


@pytest.mark.parametrize("seed", range(4))
def test_the_fast_path_says_what_the_full_decision_says_on_random_files(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seeded rounds, the memo and the verdicts held made tiny so that outcomes are let go
    and their verdicts decided again (the same) many times."""
    monkeypatch.setattr(module, "VERDICTS_HELD", 3)
    monkeypatch.setattr(module, "REFUSALS_MEMO", 5)
    rng = random.Random(seed)
    files, corpus_urls = corpus()
    assert sum(one_round(rng, files, corpus_urls) for _ in range(40)) == 0


if __name__ == "__main__":
    run_recheck_fuzz()


HOSTILE_FILES = (
    "User-agent: *\nDisallow: /a*b$\nDisallow: /%2F\nAllow: /%2f/ok\nDisallow: /~x\n"
    "Disallow: /robots.txt\nDisallow: /;p\nDisallow: /?q\nDisallow: /$\n",
    "User-agent: mybot\nDisallow: /%7E\nDisallow: /*.pdf$\nDisallow: //double\n"
    "Disallow: /ROBOTS.TXT\nDisallow: /é\n\nUser-agent: *\nDisallow: /\nAllow: /open\n",
    "User-agent: GPTBot\nDisallow: /g\n\nUser-agent: CCBot\nDisallow: /c\n"
    "Disallow: /g/deeper\n\nUser-agent: *\nDisallow: /private\nDisallow: /" + "a" * 2000 + "\n",
)
HOSTILE_PATHS = (
    "", "/", "/a*b", "/a*b$", "/axxb", "/%2F", "/%2f", "/%2f/ok", "/%7E", "/%7e", "/~x",
    "/~", "/robots.txt", "/robots.txt?x", "/ROBOTS.TXT", "/;p", "/x;p", "/?q", "/#f", "/?",
    "//double", "/x.pdf", "/x.PDF", "/x.pdf?y", "/é", "/%C3%A9", "/%c3%a9", "/\ud800",
    "/\U0001f600", "/g/1", "/g/deeper/2", "/c/3", "/private", "/open", "/$",
    "/" + "a" * 2000, "/" + "a" * 5000 + "/x", "/" + "ab" * 3000 + "$",
)  # fmt: skip


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
@pytest.mark.parametrize("purpose", ["search", "ai-train"])
@pytest.mark.parametrize("agents", [(), ("CCBot", "GPTBot", "*")])
def test_hostile_paths_are_decided_by_the_fast_path_as_by_the_full_decision(
    profile: str, purpose: str, agents: tuple[str, ...]
) -> None:
    """Each hostile path, under each profile, purpose and set of names, has the status,
    line, name and sentence of the full decision; and it refuses exactly when one of the
    held names' :meth:`RobotsTxt.decide` disallows it (the first such name reported)."""
    settings: dict[str, Any] = {"REP_PURPOSE": purpose, "REP_PROFILE": profile}
    if agents:
        settings["REP_PURPOSE_AGENTS"] = list(agents)
    config = RepConfig.from_settings(settings)
    documents: dict[Origin, OriginDocuments] = {}
    parsed = {}
    for number, text in enumerate(HOSTILE_FILES):
        origin = origin_of(f"https://h{number}.example/")
        assert origin is not None
        found = OriginDocuments(origin, now=time.time())
        parsed[origin] = parse_robotstxt(text.encode("utf-8"), profile)
        found.add(ROBOTS, origin, CacheEntry(parsed[origin], "200", time.time(), NEVER, NEVER))
        found.add(TDM, origin, CacheEntry(NO_FILE, "200", time.time(), NEVER, NEVER))
        documents[origin] = found
    fast = Rechecker(config, Identity("mybot/1.0"), documents.get, False)
    lined = Rechecker(config, Identity("mybot/1.0"), documents.get, True)
    full = Rechecker(config, Identity("mybot/1.0"), documents.get, True)
    full._fast = False  # every item decided in full: the reference
    names = (fast.agent, *fast.rules.agents)
    for number in range(len(HOSTILE_FILES)):
        for start in (f"https://h{number}.example", f"http://u:p@H{number}.EXAMPLE:443"):
            for path in HOSTILE_PATHS:
                url = start + path
                got, want = fast.decide(url), full.decide(url)
                assert said_by(got) == said_by(want), url
                assert said_with_line(lined.decide(url)) == said_with_line(want), url
                origin = origin_of(url)
                if origin not in parsed:
                    continue
                refusing = [n for n in names if not parsed[origin].decide(url, n).allowed]
                assert (got.status is ItemStatus.REFUSED) == bool(refusing), url
                if refusing:
                    assert isinstance(got.refusal, Refused)
                    assert got.refusal.agent == refusing[0], url
    inline = [known for known in fast._by_origin.values() if known.one is not None]
    assert inline or profile != "google"  # the inline match was asked


def test_a_refusal_read_again_after_many_others_is_the_same() -> None:
    """A refusal's verdict let go after :data:`VERDICTS_HELD` others are read is decided
    again, the same: status, name, line, sentence and documents."""
    text = b"User-agent: *\nDisallow: /no\n"
    documents: dict[Origin, OriginDocuments] = {}

    def known(origin: Origin) -> OriginDocuments:
        if origin not in documents:
            found = OriginDocuments(origin, now=time.time())
            found.add(ROBOTS, origin, CacheEntry(parse_robotstxt(text), "200", 0.0, NEVER, NEVER))
            documents[origin] = found
        return documents[origin]

    config = RepConfig.from_settings({"REP_PURPOSE": "search"})
    fast = Rechecker(config, Identity("mybot/1.0"), known, False)
    first = fast.decide("https://o0.example/no/1")
    before = said_by(first), repr(first.verdict)
    for number in range(1, module.VERDICTS_HELD + 10):
        assert fast.decide(f"https://o{number}.example/no/2").verdict is not None
    assert all(held is not first for held in fast._verdicts_held)  # let go
    again = fast.decide("https://o0.example/no/3")
    assert again is first and (said_by(again), repr(again.verdict)) == before
    assert first.documents is documents[origin_of("https://o0.example/")]  # type: ignore[index]
