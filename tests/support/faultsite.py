"""A seeded mix of misbehaving origins (SPEC §4 outcomes, SPEC §7): what each robots.txt
does, what each page says, and what a correct crawler must end up doing with every URL.

Used by the fault-injection crawl test and by ``benchmarks/load.py``. Every origin is a
:class:`robotsite.ScriptedOrigin` on its own 127.0.0.1 port; :func:`build` returns the
plan (kinds, URLs, expected fates) so the caller can compare it with the server's access
log and the crawl's stats.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Final

from rep_engine.robotstxt import RobotsTxt, parse_robotstxt
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from tests.support.robotsite import Reply, ScriptedOrigin, Sites, redirect, robots

AGENT: Final = "TestBot/1.0 (+https://example.com/bot)"
RULES: Final = "User-agent: *\nDisallow: /private\nDisallow: /*.pdf$\n"
PATHS: Final = ("/", "/a", "/private/b", "/c.pdf", "/d?x=1")
#: Each kind of robots.txt behaviour, in the order the seeded mix cycles through them.
KINDS: Final = (
    "rules",
    "404",
    "403",
    "500_forever",
    "503_then_ok",
    "429_retry_after",
    "redirect_1",
    "redirect_3",
    "redirect_5",
    "redirect_6",
    "redirect_8",
    "redirect_loop",
    "over_500_kib",
    "binary_garbage",
    "html_error_page_200",
    "connection_reset",
    "stall",
)
#: Kinds whose robots.txt never becomes available: their requests end up dropped.
UNREACHABLE: Final = frozenset({"500_forever", "connection_reset", "stall"})
DIRECTIVES: Final = (
    "",
    "",
    "noindex",
    "nofollow",
    "none",
    "noarchive",
    "unavailable_after: 2001-01-01",
)


@dataclass
class OriginPlan:
    name: str
    kind: str
    #: The robots.txt body the rules come from (None: no rules, everything allowed).
    body: bytes | None
    #: The X-Robots-Tag of each page path ("" for none).
    directives: dict[str, str] = field(default_factory=dict)
    #: How many /robots.txt downloads the policy allows at most (retries included).
    max_robots_downloads: int = 1

    def fates(self, paths: Iterable[str]) -> dict[str, str]:
        """Path → "downloaded", "forbidden" or "unreachable": what a crawler must do."""
        if self.kind in UNREACHABLE:
            return dict.fromkeys(paths, "unreachable")
        rules = _parse(self.body) if self.body is not None else None
        return {
            path: "forbidden"
            if rules is not None and not rules.allowed("http://origin" + path, AGENT)
            else "downloaded"
            for path in paths
        }


@dataclass
class FaultPlan:
    sites: Sites
    origins: dict[str, OriginPlan]
    #: The page paths of every origin.
    paths: tuple[str, ...] = PATHS

    def urls(self) -> list[str]:
        """Every page URL the spider requests, origins interleaved."""
        return [self.sites.url(name, path) for path in self.paths for name in self.origins]

    def expected(self) -> dict[str, str]:
        """URL → "downloaded", "forbidden" or "unreachable"."""
        fates: dict[str, str] = {}
        for name, plan in self.origins.items():
            for path, fate in plan.fates(self.paths).items():
                fates[self.sites.url(name, path)] = fate
        return fates

    def expected_items(self) -> set[str]:
        """Downloaded URLs whose page does not forbid indexing."""
        blocking = ("noindex", "none", "unavailable_after")
        fates = self.expected()
        return {
            self.sites.url(name, path)
            for name, plan in self.origins.items()
            for path in self.paths
            if fates[self.sites.url(name, path)] == "downloaded"
            and not plan.directives[path].startswith(blocking)
        }


def _chain(origin: ScriptedOrigin, hops: int, final: Reply) -> None:
    origin.script("/robots.txt", redirect("/hop1") if hops else final)
    for hop in range(1, hops + 1):
        origin.script(f"/hop{hop}", redirect(f"/hop{hop + 1}") if hop < hops else final)


@lru_cache(maxsize=64)
def _parse(body: bytes) -> RobotsTxt:
    """Parsed once per distinct body (most origins share :data:`RULES`)."""
    return parse_robotstxt(body)


@cache
def _over_500_kib() -> bytes:
    """The one robots.txt over 500 KiB (shared by every origin of that kind)."""
    padding = "# padding\n" * (MAX_BODY_BYTES // 10)
    return (RULES + padding + "Disallow: /a\n" + padding).encode()


def start_fault_mix(
    count: int, seed: int = 20261122, kinds: Iterable[str] = KINDS, extra_pages: int = 0
) -> FaultPlan:
    """Start ``count`` origins with a seeded mix of behaviours; returns the plan.

    Each origin has the pages :data:`PATHS` plus ``extra_pages`` more (``/p/0``…)."""
    rng = random.Random(seed)
    paths = PATHS + tuple(f"/p/{n}" for n in range(extra_pages))
    kinds = tuple(kinds)
    sites = Sites()
    origins: dict[str, OriginPlan] = {}
    for number in range(count):
        kind = kinds[number % len(kinds)]
        name = f"o{number:04d}-{kind}"
        origins[name] = script_origin(sites.add(name), name, kind, rng, paths)
    return FaultPlan(sites, origins, paths)


def script_origin(
    origin: ScriptedOrigin, name: str, kind: str, rng: random.Random, paths: Iterable[str]
) -> OriginPlan:
    """Script ``origin`` to behave as ``kind`` (robots.txt and pages); returns its plan.

    Also used by ``benchmarks/broad.py``, which serves many such origins by ``Host``."""
    plan = OriginPlan(name, kind, RULES.encode())
    good = robots(RULES)
    if kind == "rules":
        origin.script("/robots.txt", good)
    elif kind in ("404", "403"):
        origin.script("/robots.txt", Reply(int(kind), b"User-agent: *\nDisallow: /\n"))
        plan.body = None
    elif kind == "500_forever":
        origin.script("/robots.txt", Reply(500, b"<html>oops</html>"))
        plan.max_robots_downloads = 12
    elif kind == "503_then_ok":
        failures = rng.randint(1, 2)
        origin.script("/robots.txt", *[Reply(503)] * failures, good)
        plan.max_robots_downloads = failures + 1
    elif kind == "429_retry_after":
        origin.script("/robots.txt", Reply(429, b"", {"Retry-After": "1"}), good)
        plan.max_robots_downloads = 2
    elif kind.startswith("redirect_") and kind != "redirect_loop":
        hops = int(kind.split("_")[1])
        _chain(origin, hops, good)
        if hops > 5:
            plan.body = None  # more than 5 hops: as 404
        plan.max_robots_downloads = min(hops, 5) + 1
    elif kind == "redirect_loop":
        origin.script("/robots.txt", redirect("/loop"))
        origin.script("/loop", redirect("/robots.txt"))
        plan.body = None  # a loop: as 404, found when /robots.txt comes round again
    elif kind == "over_500_kib":
        plan.body = _over_500_kib()
        origin.script("/robots.txt", Reply(200, plan.body, {"Content-Type": "text/plain"}))
    elif kind == "binary_garbage":
        garbage = bytes(rng.getrandbits(8) for _ in range(rng.randint(10, 5000)))
        origin.script("/robots.txt", Reply(200, garbage, {"Content-Type": "text/plain"}))
        plan.body = garbage
    elif kind == "html_error_page_200":
        page = b"<html><body><h1>Oops</h1><p>Disallow nothing. Error 500.</p></body></html>"
        origin.script("/robots.txt", Reply(200, page, {"Content-Type": "text/html"}))
        plan.body = page
    elif kind == "connection_reset":
        origin.script("/robots.txt", Reply(reset=True))
        plan.max_robots_downloads = 12
    elif kind == "stall":
        origin.script("/robots.txt", Reply(hang=True))
        plan.max_robots_downloads = 12
    else:
        raise ValueError(f"unknown kind {kind!r}")
    for path in paths:
        directive = rng.choice(DIRECTIVES)
        plan.directives[path] = directive
        headers = {"Content-Type": "text/html"}
        if directive:
            headers["X-Robots-Tag"] = directive
        origin.script(path, Reply(200, f"<html><body>{name}{path}</body></html>".encode(), headers))
    return plan
