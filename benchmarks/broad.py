"""Broad-crawl scale (docs/decisions.md, 'Cost targets: no dearer than Scrapy's own handling'):
500,000 requests over 100,000 origins, one local server.

Every origin is a host name of its own (``o0.test`` … ``o99999.test``) that the crawler's
own resolver (:class:`LoopbackResolver`, set as ``TWISTED_DNS_RESOLVER``) maps to
127.0.0.1, where ONE twisted.web server in a child process answers per ``Host`` header
(so the crawler's CPU is measured alone). Origin *n* behaves as kind ``KINDS[n % 17]`` of
the fault mix of ``tests/support/faultsite.py`` (rules, 404, 403, 500 forever, 503 then OK, 429,
redirect chains and a loop, over 500 KiB, binary garbage, an HTML page with status 200,
connection resets, stalls), scripted by the same ``script_origin`` as the tests; with
``--kinds``, as the kinds given, in turn (``--kinds rules``: a good robots.txt everywhere,
the like-for-like crawl).

The spider requests every page of every origin, path-major (the first page of every
origin, then the second…, so an origin comes back after all the others: the robots.txt
cache must keep it). Each mode is crawled with a ``JOBDIR``, paused by SIGINT (as a
person would, through Scrapy's graceful shutdown) after ``--pause-at`` of the requests
have an outcome, and resumed in a new process:

- ``none``: ``ROBOTSTXT_OBEY = False``, no add-on: the same crawl without robots handling;
- ``scrapy``: ``ROBOTSTXT_OBEY = True``, no add-on: Scrapy's own ``RobotsTxtMiddleware``
  with Protego, for comparison (it lets through what an unreachable robots.txt would
  forbid, so only its lost and twice-decided requests count against it);
- ``rep``: the add-on with ``REP_CACHE_MAX_ORIGINS`` and ``REP_CACHE_MAX_BYTES`` well
  below the working set, so entries are compressed and evicted.

It reports, per mode, pages/s (page responses over the crawl's wall time, both phases),
CPU seconds, peak RSS (each phase's process), and for ``rep``: every request's fate
against the site's rules (lost, decided twice, differing from the plan, forbidden pages
the server served), robots.txt downloads per origin by kind, the cache's stats, and the
peak RSS against the bound the settings predict (see ``predicted_rss``).

Usage: ``python benchmarks/broad.py [--origins 100000] [--requests 500000]
[--cache-origins N] [--cache-bytes N] [--pause-at 0.5] [--modes none,rep] [--json F]
[--audit] [--report] [--code DIR]``: ``--audit`` and ``--report`` crawl the add-on's mode
with the audit trail and the report, each written to a file beside the JOBDIR, as
``benchmarks/calls.py`` sets them; ``--code DIR`` runs another checkout's four parts.
``--requests`` is rounded to whole pages per origin: under 5 per origin, the first of
faultsite's paths in an order that puts an allowed and a forbidden page first (a short
run: ``--origins 20000 --requests 40000`` takes under 10 minutes for three modes).
``--rounds N`` crawls every mode N times, interleaved and rotated between rounds, and
reports the median of the per-round ratios and their range.

Counters beside time, which load cannot move: at ``--objects-at`` of the requests settled
(one point of the crawl, the same in every mode), the number of GC-tracked objects, and
in the add-on's modes those reachable from each of its components' attributes (by
owner); in every crawl, the number of full (generation 2) collections and the CPU they
took. The census's own time is left out of the crawl's wall and CPU time.
Exit status 1 if any request was lost, decided twice, differs from the plan or a
forbidden page was fetched.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import types
from array import array
from collections import Counter
from pathlib import Path
from typing import Any

CHECKOUT = Path(__file__).resolve().parents[1]  # tests.support.* from the checkout
sys.path.insert(0, str(Path(__file__).resolve().parent))
from quiet import LoadWindow, load, spread  # noqa: E402

REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
MIB = 1024 * 1024
#: Fate codes of a request, as the crawler saw it.
FATES = ("none", "downloaded", "forbidden", "unreachable", "other")
BASE_SETTINGS: dict[str, Any] = {
    "TWISTED_REACTOR": REACTOR,
    "TWISTED_DNS_RESOLVER": "__main__.LoopbackResolver",
    "CONCURRENT_REQUESTS": 64,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
    "DOWNLOAD_TIMEOUT": 5,
    "COOKIES_ENABLED": False,
    "LOG_LEVEL": "WARNING",
    "TELNETCONSOLE_ENABLED": False,
    # Each origin comes back only after all the others: no idle connection kept open.
    "DEFAULT_REQUEST_HEADERS": {"Accept": "text/html,*/*;q=0.8", "Connection": "close"},
    # Scrapy's default (DownloaderAwarePriorityQueue) keeps one disk queue per download
    # slot under JOBDIR: one open file per host, "Too many open files" at 20,000 hosts.
    "SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.ScrapyPriorityQueue",
}
REP_SETTINGS: dict[str, Any] = {
    "ADDONS": {"scrapy_rep.Addon": 0},
    "REP_ROBOTSTXT_TIMEOUT": 2,
    "REP_UNREACHABLE_RETRY_DELAY": 1,
    "REP_UNREACHABLE_MAX_WAIT": 10,
}


class LoopbackResolver:
    """``TWISTED_DNS_RESOLVER``: every host name resolves to 127.0.0.1 (no lookup)."""

    def __init__(self, reactor: Any) -> None:
        self.reactor = reactor

    @classmethod
    def from_crawler(cls, crawler: Any, reactor: Any) -> LoopbackResolver:
        return cls(reactor)

    def install_on_reactor(self) -> None:
        from twisted.internet.interfaces import IResolverSimple
        from zope.interface import directlyProvides

        directlyProvides(self, IResolverSimple)
        self.reactor.installResolver(self)

    def getHostByName(self, name: str, timeout: Any = ()) -> Any:
        from twisted.internet import defer

        return defer.succeed("127.0.0.1")


def page_paths(pages: int) -> tuple[str, ...]:
    """The paths requested on every origin: fewer than faultsite's five for a short run
    (``--requests`` under 5 per origin), taken so that an allowed and a forbidden page
    come first (``/`` and ``/private/b`` under the ``rules`` kind)."""
    from tests.support.faultsite import PATHS

    if pages < len(PATHS):
        short = ("/", "/private/b", *(path for path in PATHS if path not in ("/", "/private/b")))
        return short[:pages]
    return PATHS + tuple(f"/p/{n}" for n in range(pages - len(PATHS)))


#: ``--kinds``: the faultsite kinds the origins cycle through (all of them by default).
MIX: tuple[str, ...] = ()


def kind_of(number: int) -> str:
    """The robots.txt behaviour of origin ``number``: the mix's kinds in turn."""
    from tests.support.faultsite import KINDS

    mix = MIX or KINDS
    return mix[number % len(mix)]


def origin_plan(number: int, seed: int, paths: tuple[str, ...], origin: Any = None) -> Any:
    """The faultsite plan of origin ``number`` (scripting ``origin`` if given)."""
    from tests.support.faultsite import script_origin
    from tests.support.robotsite import ScriptedOrigin

    kind = kind_of(number)
    target = origin if origin is not None else ScriptedOrigin(f"o{number}", [])
    return script_origin(
        target, f"o{number}", kind, random.Random(seed * 1_000_003 + number), paths
    )


# --- server (child process) -------------------------------------------------------------


class Recorder:
    """What the server was asked, per phase: robots.txt downloads per origin, page
    fetches per request, forbidden pages served."""

    def __init__(self, origins: int, paths: tuple[str, ...]) -> None:
        self.origins = origins
        self.path_index = {path: index for index, path in enumerate(paths)}
        self.robots = array("H", bytes(2 * origins))
        self.fetched = bytearray(origins * len(paths))
        self.other = 0
        self.not_allowed_served = 0
        self.examples: list[str] = []


def serve(origins: int, pages: int, seed: int) -> None:
    """Serve every origin on one port by ``Host``; commands on stdin: reset, report."""
    sys.path.insert(0, str(CHECKOUT))
    from scrapy.utils.reactor import install_reactor

    install_reactor(REACTOR)
    from twisted.internet import reactor, threads
    from twisted.web.resource import Resource
    from twisted.web.server import Request, Site

    from tests.support.robotsite import ScriptedOrigin

    paths = page_paths(pages)
    recorder = Recorder(origins, paths)
    live: dict[int, tuple[ScriptedOrigin, dict[str, str]]] = {}

    class Sink(list[tuple[str, str]]):
        def append(self, entry: tuple[str, str]) -> None:
            number, path = int(entry[0][1:]), entry[1]
            if path == "/robots.txt":
                recorder.robots[number] += 1
                return
            index = recorder.path_index.get(path)
            if index is None:
                recorder.other += 1  # redirect hops
                return
            slot = index * origins + number
            recorder.fetched[slot] = min(255, recorder.fetched[slot] + 1)
            if live[number][1][path] != "downloaded":
                recorder.not_allowed_served += 1
                if len(recorder.examples) < 10:
                    recorder.examples.append(f"o{number}.test{path}")

    sink = Sink()

    class ByHost(Resource):
        isLeaf = True

        def render_GET(self, request: Request) -> bytes | int:
            host = (request.getHeader("host") or "").split(":")[0]
            number = int(host.split(".")[0][1:])
            if number not in live:
                origin = ScriptedOrigin(f"o{number}", sink)
                origin.times = _NoTimes()
                plan = origin_plan(number, seed, paths, origin)
                live[number] = (origin, plan.fates(paths))
            return live[number][0].render_GET(request)

    site = Site(ByHost(), timeout=10)
    site.log = lambda request: None  # type: ignore[method-assign]  # no access log
    port = reactor.listenTCP(0, site, interface="127.0.0.1", backlog=1024)  # type: ignore[attr-defined]
    print(port.getHost().port, flush=True)

    def report() -> str:
        per_kind: dict[str, Counter[int]] = {}
        for number in range(origins):
            kind = kind_of(number)
            per_kind.setdefault(kind, Counter())[recorder.robots[number]] += 1
        return json.dumps(
            {
                "robots_by_kind": {k: dict(v) for k, v in per_kind.items()},
                "robots_total": sum(recorder.robots),
                "pages_served": sum(recorder.fetched),
                "pages_served_twice": sum(1 for count in recorder.fetched if count > 1),
                "not_allowed_served": recorder.not_allowed_served,
                "examples": recorder.examples,
                "hops": recorder.other,
            }
        )

    def reset() -> None:
        nonlocal recorder
        for origin, _ in live.values():
            for hanging in origin.hanging:
                if not hanging.finished and not hanging._disconnected:
                    hanging.finish()
        live.clear()
        recorder = Recorder(origins, paths)

    def commands() -> None:
        for line in sys.stdin:
            if line.strip() == "report":
                print(threads.blockingCallFromThread(reactor, report), flush=True)
            elif line.strip() == "reset":
                threads.blockingCallFromThread(reactor, reset)
                print("ok", flush=True)
        reactor.callFromThread(reactor.stop)  # type: ignore[attr-defined]

    threads.deferToThread(commands)
    reactor.run()  # type: ignore[attr-defined]


class _NoTimes(dict[str, list[float]]):
    """ScriptedOrigin's arrival times, not kept (memory)."""

    def setdefault(self, key: str, default: Any = None) -> list[float]:
        return []


# --- crawler (child process, one per phase) ---------------------------------------------


class FullCollections:
    """``gc.callbacks``: the full (generation 2) collections and the CPU they took."""

    def __init__(self) -> None:
        self.count = 0
        self.cpu = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.process_time()
        else:
            self.count += 1
            self.cpu += time.process_time() - self._started


#: Types a census never walks into: code and the process's furniture.
_FURNITURE = (
    types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
    types.FrameType, types.CodeType, types.CellType,
)  # fmt: skip


def _reach(roots: list[Any], seen: set[int], ours: bool, kinds: Counter[str] | None = None) -> int:
    """The GC-tracked objects reachable from ``roots`` not in ``seen`` (added to it). In
    the add-on's components (``ours``), no Scrapy or Twisted object but a request's or
    response's is walked into (the engine, the scheduler and their callbacks are
    Scrapy's, counted under their own owners)."""
    import gc

    count = 0
    stack = list(roots)
    while stack:
        obj = stack.pop()
        if id(obj) in seen or not gc.is_tracked(obj) or isinstance(obj, _FURNITURE):
            continue
        module = type(obj).__module__
        if (
            ours
            and module.startswith(("scrapy.", "twisted.", "asyncio."))
            and not module.startswith("scrapy.http")
        ):
            continue
        seen.add(id(obj))
        count += 1
        if kinds is not None:
            kinds[f"{module}.{type(obj).__qualname__}"] += 1
        stack.extend(gc.get_referents(obj))
    return count


def census(crawler: Any) -> dict[str, Any]:
    """The GC-tracked objects of the process, and those reachable from each owner: every
    attribute of each of the add-on's components (first, so that what they share with
    Scrapy counts as theirs), then Scrapy's scheduler and downloader. An object counts
    once, under the first owner that reaches it."""
    import gc

    gc.collect()
    total = len(gc.get_objects())
    engine = crawler.engine
    components = [
        *engine.downloader.middleware.middlewares,
        *engine.scraper.spidermw.middlewares,
        *crawler.extensions.middlewares,
        *engine.scraper.itemproc.middlewares,
    ]
    ours = [c for c in components if type(c).__module__.startswith("scrapy_rep")]
    scheduler = getattr(getattr(engine, "_slot", None), "scheduler", None)
    seen = {id(x) for x in (crawler, crawler.spider, engine, crawler.settings, *components)}
    owners: dict[str, int] = {}
    kinds: dict[str, Counter[str]] = {}
    for component in ours:
        for name, value in vars(component).items():
            key = f"{type(component).__name__}.{name}"
            found = kinds.setdefault(key, Counter())
            owners[key] = owners.get(key, 0) + _reach([value], seen, True, found)
    owners["scrapy: scheduler"] = _reach([scheduler], seen, ours=False)
    owners["scrapy: downloader"] = _reach([engine.downloader], seen, ours=False)
    return {
        "tracked": total,
        "owners": {k: v for k, v in sorted(owners.items(), key=lambda kv: -kv[1]) if v},
        "kinds": {owner: dict(found.most_common(8)) for owner, found in kinds.items() if found},
    }


def apply_gc(how: str, crawler: Any) -> None:
    """``--gc``: what a project may do to the collector of its crawl process (the add-on
    never does it itself): ``freeze`` (``gc.freeze()`` when the spider opens, every
    component loaded, as docs/broad-crawls.md shows), ``threshold=A,B,C``
    (``gc.set_threshold``), both joined by ``+``; ``default``: nothing. Frozen objects
    are out of the census's count."""
    from scrapy import signals

    def freeze() -> None:
        gc.collect()
        gc.freeze()

    for part in filter(None, how.split("+")):
        if part == "freeze":
            crawler.signals.connect(freeze, signal=signals.spider_opened, weak=False)
        elif part.startswith("threshold="):
            gc.set_threshold(*(int(n) for n in part.removeprefix("threshold=").split(",")))
        elif part != "default":
            raise SystemExit(f"--gc: unknown {part!r}")


def crawl_phase(args: argparse.Namespace) -> None:
    """One crawler process: crawl (from the JOBDIR state) and write the outcome file."""
    from scrapy.utils.reactor import install_reactor

    install_reactor(REACTOR)  # before faultsite imports the reactor
    from scrapy import Request, Spider, signals
    from scrapy.crawler import CrawlerProcess

    from tests.support.faultsite import AGENT

    paths = page_paths(args.pages)
    path_index = {path: index for index, path in enumerate(paths)}
    origins, total = args.origins, args.origins * len(paths)
    counts = bytearray(total)
    fates = bytearray(total)
    outcomes = 0
    paused = False
    counted: dict[str, Any] = {}
    census_cost = [0.0, 0.0]

    def record(url: str, fate: int) -> None:
        nonlocal outcomes, paused
        rest = url[url.index("//o") + 3 :]
        number = int(rest[: rest.index(".")])
        slot = path_index[rest[rest.index("/") :]] * origins + number
        counts[slot] = min(255, counts[slot] + 1)
        fates[slot] = fate
        outcomes += 1
        if outcomes == args.objects_after and not counted:
            started = time.perf_counter(), time.process_time()
            counted.update(census(crawler))
            census_cost[0] = time.perf_counter() - started[0]
            census_cost[1] = time.process_time() - started[1]
        if args.pause_after and outcomes >= args.pause_after and not paused:
            paused = True
            os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C: Scrapy's graceful stop

    class BroadSpider(Spider):
        name = "broad"

        async def start(self) -> Any:
            state: dict[str, int] = getattr(self, "state", {})
            index = state.get("next", 0)
            while index < total:
                path, number = divmod(index, origins)
                index += 1
                state["next"] = index
                yield Request(
                    f"http://o{number}.test:{args.port}{paths[path]}",
                    callback=self.parse,
                    errback=self.failed,
                    dont_filter=True,
                )

        def parse(self, response: Any) -> Any:
            record(response.url, 1)
            yield {"url": response.url}

        def failed(self, failure: Any) -> None:
            message = str(failure.value)
            if message.startswith("Forbidden by "):
                fate = 2
            elif message.startswith("Dropped: robots.txt of ") and "unreachable" in message:
                fate = 3
            else:
                fate = 4
            record(failure.request.url, fate)

    from scrapy_rep.crawl.internals import SCRAPY

    settings = {**BASE_SETTINGS, "USER_AGENT": AGENT, "JOBDIR": args.jobdir}
    if SCRAPY < (2, 15):  # the resolver setting's name before TWISTED_DNS_RESOLVER
        settings["DNS_RESOLVER"] = settings.pop("TWISTED_DNS_RESOLVER")
    if args.crawl in ("none", "scrapy"):
        settings["ROBOTSTXT_OBEY"] = args.crawl == "scrapy"
    else:
        settings.update(REP_SETTINGS)
        settings["REP_MAX_HELD_REQUESTS"] = args.held
        settings["REP_UNREACHABLE_MAX_WAIT"] = args.unreachable_wait
        if args.cache_origins > 0:  # 0: the settings' defaults (--default-cache)
            settings["REP_CACHE_MAX_ORIGINS"] = args.cache_origins
            settings["REP_CACHE_MAX_BYTES"] = args.cache_bytes
        # as benchmarks/calls.py sets them: beside the JOBDIR (the resumed phase goes on
        # with the same trail); the report to a file, none of a terminal's cost
        settings["REP_REPORT"] = False
        if args.audit:
            settings["REP_AUDIT_FILE"] = str(Path(args.jobdir).parent / f"{args.crawl}.trail.jsonl")
        if args.report:
            settings["REP_REPORT_FILE"] = str(Path(args.jobdir).parent / f"{args.crawl}.report.txt")
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(BroadSpider)
    closed: dict[str, str] = {}

    def on_closed(spider: Spider, reason: str) -> None:
        closed["reason"] = reason

    crawler.signals.connect(on_closed, signal=signals.spider_closed)  # a weak reference
    apply_gc(args.gc, crawler)
    collections = FullCollections()
    gc.callbacks.append(collections)
    profile = None
    if args.profile:
        import cProfile

        profile = cProfile.Profile()
    wall, cpu = time.perf_counter(), time.process_time()
    process.crawl(crawler)
    if profile is not None:
        profile.enable()
    process.start()
    if profile is not None:
        profile.disable()
        profile.dump_stats(f"{args.out}.prof")
    wall = time.perf_counter() - wall - census_cost[0]
    cpu = time.process_time() - cpu - census_cost[1]
    gc.callbacks.remove(collections)
    stats = {k: v for k, v in (crawler.stats.get_stats() if crawler.stats else {}).items()}
    result = {
        "counts": bytes(counts),
        "fates": bytes(fates),
        "wall": wall,
        "cpu": cpu,
        "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "reason": closed.get("reason", "?"),
        "census": counted,
        "full_collections": collections.count,
        "full_collections_cpu": collections.cpu,
        "stats": {k: v for k, v in stats.items() if isinstance(v, int | float | str)},
    }
    Path(args.out).write_bytes(pickle.dumps(result))


# --- orchestration (this process) -------------------------------------------------------


def run_mode(
    mode: str, args: argparse.Namespace, port: int, workdir: Path, round_: int = 0
) -> dict[str, Any]:
    """Crawl ``mode`` in two phases (paused by SIGINT, resumed) with one JOBDIR."""
    total = args.origins * args.pages
    pause_after = int(total * args.pause_at) if args.pause_at else 0
    objects_after = max(1, int(total * args.objects_at))
    phases = []
    name = f"{mode}-r{round_}" if args.rounds > 1 else mode
    jobdir = workdir / f"job-{name}"
    for phase, pause in enumerate((pause_after, 0) if pause_after else (0,)):
        out = workdir / f"{name}-{phase}.pickle"
        census_at = objects_after - (pause_after if phase else 0)
        if pause_after and (phase == 0) != (objects_after < pause_after):
            census_at = 0  # the census falls in the other phase
        command = (
            [
                sys.executable,
                __file__,
                f"--crawl={mode}",
                f"--origins={args.origins}",
                f"--pages={args.pages}",
                f"--port={port}",
                f"--jobdir={jobdir}",
                f"--out={out}",
                f"--pause-after={pause}",
                f"--cache-origins={args.cache_origins}",
                f"--cache-bytes={args.cache_bytes}",
                f"--held={args.held}",
                f"--unreachable-wait={args.unreachable_wait}",
                f"--kinds={args.kinds}",
                f"--objects-after={census_at}",
                f"--gc={args.gc}",
            ]
            + ["--profile"] * args.profile
            + ["--default-cache"] * args.default_cache
            + ["--audit"] * args.audit
            + ["--report"] * args.report
            + ([f"--code={args.code}"] if args.code else [])
        )
        log_path = workdir / f"{name}-{phase}.log"
        with log_path.open("w") as log:
            subprocess.run(command, check=True, stderr=log)
        logged = Counter(
            level
            for line in log_path.read_text().splitlines()
            for level in ("WARNING", "ERROR", "CRITICAL")
            if f"] {level}:" in line
        )
        phases.append(pickle.loads(out.read_bytes()))
        phases[-1]["logged"] = dict(logged)
        if phases[-1]["reason"] == "?" or logged["CRITICAL"]:
            print(log_path.read_text()[-5000:], file=sys.stderr)
            raise SystemExit(f"{mode}: the crawl did not run (see its log above)")
    return combine(phases)


def combine(phases: list[dict[str, Any]]) -> dict[str, Any]:
    counts = bytearray(len(phases[0]["counts"]))
    fates = bytearray(len(phases[0]["counts"]))
    for phase in phases:
        for slot, count in enumerate(phase["counts"]):
            if count:
                counts[slot] = min(255, counts[slot] + count)
                fates[slot] = phase["fates"][slot]
    merged: Counter[str] = Counter()
    for phase in phases:
        merged.update({k: v for k, v in phase["stats"].items() if isinstance(v, int)})
    return {
        "counts": counts,
        "fates": fates,
        "wall": sum(p["wall"] for p in phases),
        "cpu": sum(p["cpu"] for p in phases),
        "maxrss": max(p["maxrss"] for p in phases),
        "maxrss_phases": [p["maxrss"] for p in phases],
        "reasons": [p["reason"] for p in phases],
        "logged": [p["logged"] for p in phases],
        "stats": dict(merged),
        "census": next((p["census"] for p in phases if p["census"]), {}),
        "full_collections": sum(p["full_collections"] for p in phases),
        "full_collections_cpu": sum(p["full_collections_cpu"] for p in phases),
    }


def expected_fates(args: argparse.Namespace) -> bytearray:
    """The fate code of every request by the site's rules (faultsite's plan)."""
    paths = page_paths(args.pages)
    code = {name: FATES.index(name) for name in FATES}
    expected = bytearray(args.origins * len(paths))
    for number in range(args.origins):
        fates = origin_plan(number, args.seed, paths).fates(paths)
        for index, path in enumerate(paths):
            expected[index * args.origins + number] = code[fates[path]]
    return expected


def predicted_rss(args: argparse.Namespace, baseline: int) -> int:
    """The bound on the add-on's peak RSS that its settings set: the same crawl without
    robots handling, plus the cache's budget (``REP_CACHE_MAX_BYTES``, parsed and
    compressed tiers together), plus the held requests kept in memory (at most
    ``REP_MAX_HELD_REQUESTS``, 2 KiB each), plus the robots.txt bodies being downloaded
    (half of ``CONCURRENT_REQUESTS``, 500 KiB each at most), plus 64 MiB of slack for
    the add-on's code and per-origin bookkeeping."""
    in_flight = BASE_SETTINGS["CONCURRENT_REQUESTS"] // 2 * 500 * 1024
    return baseline + args.cache_bytes + args.held * 2048 + in_flight + 64 * MIB


def check(result: dict[str, Any], expected: bytearray, strict: bool) -> dict[str, int]:
    """Lost, decided twice and differing requests (``strict``: against the plan)."""
    lost = twice = wrong = 0
    for slot, count in enumerate(result["counts"]):
        if count == 0:
            lost += 1
        elif count > 1:
            twice += 1
        want = expected[slot] if strict else 1
        if count and result["fates"][slot] != want:
            wrong += 1
    return {"lost": lost, "twice": twice, "wrong": wrong}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--origins", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=500_000)
    parser.add_argument("--pages", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=20261123)
    parser.add_argument("--cache-origins", type=int, help="REP_CACHE_MAX_ORIGINS")
    parser.add_argument("--cache-bytes", type=int, help="REP_CACHE_MAX_BYTES")
    parser.add_argument("--held", type=int, default=20_000, help="REP_MAX_HELD_REQUESTS")
    parser.add_argument(
        "--unreachable-wait",
        type=float,
        default=REP_SETTINGS["REP_UNREACHABLE_MAX_WAIT"],
        help="REP_UNREACHABLE_MAX_WAIT: how long an unreachable robots.txt holds its "
        "origin's requests (the suite's check of the accounting waits less)",
    )
    parser.add_argument("--pause-at", type=float, default=0.5, help="0: no pause")
    parser.add_argument("--modes", default="none,rep")
    parser.add_argument(
        "--kinds",
        default="",
        help="comma-separated faultsite kinds the origins cycle through (default: all 17; "
        "'rules' alone: every origin has a good robots.txt)",
    )
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument(
        "--default-cache",
        action="store_true",
        help="leave REP_CACHE_MAX_ORIGINS and REP_CACHE_MAX_BYTES at their defaults",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="each crawl under cProfile (its stats beside its result, in --workdir)",
    )
    parser.add_argument("--workdir", help="keep the JOBDIRs and crawl logs here")
    parser.add_argument(
        "--audit", action="store_true", help="the add-on's modes with REP_AUDIT_FILE"
    )
    parser.add_argument(
        "--report", action="store_true", help="the add-on's modes with REP_REPORT_FILE"
    )
    parser.add_argument("--code", help="a checkout whose four parts the crawls run (before/after)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--crawl", help=argparse.SUPPRESS)
    parser.add_argument(
        "--rounds", type=int, default=1, help="crawl every mode this many times, interleaved"
    )
    parser.add_argument(
        "--objects-at",
        type=float,
        default=0.5,
        help="count GC-tracked objects when this share of the requests is settled",
    )
    parser.add_argument(
        "--gc",
        default="default",
        help="the crawl processes' collector: default, freeze, threshold=A,B,C or "
        "freeze+threshold=A,B,C (what a project may set; the add-on never does)",
    )
    for hidden in ("--port", "--pause-after", "--objects-after"):
        parser.add_argument(hidden, type=int, default=0, help=argparse.SUPPRESS)
    for hidden in ("--jobdir", "--out"):
        parser.add_argument(hidden, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(CHECKOUT))
    if args.code:  # its four parts before the checkout's (tests.support still from here)
        code = Path(args.code).resolve()
        for part in ("rep-recheck", "rep-audit", "rep-engine", ""):
            sys.path.insert(0, str(code / part))
    global MIX
    MIX = tuple(kind for kind in args.kinds.split(",") if kind)
    args.pages = args.pages or max(1, round(args.requests / args.origins))
    # Well below the working set: 1 % of the origins parsed, and a byte budget whose
    # half (the compressed tier's share at least) holds every origin compressed (under
    # 1 KB each) and a few parsed robots.txt over 500 KiB (one origin in 17, each
    # estimated at 3 MB parsed): a small share of the working set (18 GB parsed).
    if args.default_cache:
        args.cache_origins, args.cache_bytes = 0, 512 * MIB  # the defaults, for the bound
    else:
        args.cache_origins = args.cache_origins or max(10, args.origins // 100)
        args.cache_bytes = args.cache_bytes or args.origins * 2000 + 16 * MIB
    if args.serve:
        serve(args.origins, args.pages, args.seed)
        return 0
    if args.crawl:
        crawl_phase(args)
        return 0
    from tests.support.faultsite import KINDS  # here only: the children install their reactor first

    unknown_modes = sorted(set(args.modes.split(",")) - {"none", "scrapy", "rep"})
    if unknown_modes:
        parser.error(f"--modes: unknown {', '.join(unknown_modes)} (of none, scrapy, rep)")
    unknown = sorted(set(MIX) - set(KINDS))
    if unknown:
        parser.error(f"--kinds: unknown {', '.join(unknown)} (of {', '.join(KINDS)})")
    return orchestrate(args)


def orchestrate(args: argparse.Namespace) -> int:
    window = LoadWindow(own_cores=1.0)
    print(f"start: {window.line()}", flush=True)
    server = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--serve",
            f"--origins={args.origins}",
            f"--pages={args.pages}",
            f"--seed={args.seed}",
            f"--kinds={args.kinds}",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    port = int(server.stdout.readline())
    modes = args.modes.split(",")
    rounds: list[dict[str, dict[str, Any]]] = []
    try:
        with tempfile.TemporaryDirectory(prefix="scrapy_rep-broad-") as temporary:
            workdir = args.workdir or temporary
            Path(workdir).mkdir(parents=True, exist_ok=True)
            for number in range(args.rounds):
                shift = number % len(modes)  # rotated: each mode in each place in turn
                results: dict[str, dict[str, Any]] = {}
                for mode in modes[shift:] + modes[:shift]:
                    server.stdin.write("reset\n")
                    server.stdin.flush()
                    assert server.stdout.readline().strip() == "ok"
                    results[mode] = run_mode(mode, args, port, Path(workdir), number)
                    server.stdin.write("report\n")
                    server.stdin.flush()
                    results[mode]["served"] = json.loads(server.stdout.readline())
                    print(
                        f"round {number + 1}: {mode:6} wall {results[mode]['wall']:7.1f} s, "
                        f"CPU {results[mode]['cpu']:7.1f} s (load {load():.2f})",
                        flush=True,
                    )
                rounds.append({mode: results[mode] for mode in modes})
    finally:
        server.stdin.close()
        server.wait(timeout=60)
    window.close()
    return report(args, rounds, window)


def report(
    args: argparse.Namespace, rounds: list[dict[str, dict[str, Any]]], window: LoadWindow
) -> int:
    expected = expected_fates(args)
    total = len(expected)
    plan = Counter(FATES[code] for code in expected)
    cache = (
        "REP_CACHE_MAX_ORIGINS and REP_CACHE_MAX_BYTES at their defaults"
        if args.default_cache
        else f"REP_CACHE_MAX_ORIGINS={args.cache_origins:,}, "
        f"REP_CACHE_MAX_BYTES={args.cache_bytes / MIB:.1f} MiB"
    )
    print(
        f"\n{args.origins:,} origins × {args.pages} pages = {total:,} requests "
        f"({plan['downloaded']:,} allowed, {plan['forbidden']:,} forbidden, "
        f"{plan['unreachable']:,} behind an unreachable robots.txt); {cache}, "
        f"REP_MAX_HELD_REQUESTS={args.held:,}; "
        f"REP_UNREACHABLE_MAX_WAIT={args.unreachable_wait:g} s; pause at {args.pause_at:.0%}; "
        f"the collector: {args.gc}; "
        f"{len(rounds)} round(s), modes interleaved and rotated; the medians of the rounds\n"
    )
    figures: dict[str, Any] = {
        "origins": args.origins,
        "requests": total,
        "load": {"start": window.start, "end": window.end, "quiet": window.quiet},
        "modes": {},
        "rounds": [],
    }
    ok = True
    print(
        "| mode | wall s | CPU s | pages | pages/s | CPU ms/request | peak RSS MB (phases) "
        "| GC-tracked objects | full collections (CPU s) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for mode in rounds[0]:
        rows = []
        for results in rounds:
            result = results[mode]
            pages = sum(1 for fate in result["fates"] if fate == 1)
            rows.append(
                {
                    "wall": result["wall"],
                    "cpu": result["cpu"],
                    "pages": pages,
                    "pages_per_s": pages / result["wall"],
                    "cpu_ms_per_request": 1000 * result["cpu"] / total,
                    "maxrss": result["maxrss"],
                    "maxrss_phases": result["maxrss_phases"],
                    "reasons": result["reasons"],
                    "logged": result["logged"],
                    "served": result["served"],
                    "stats": {k: v for k, v in result["stats"].items() if k.startswith("rep/")},
                    "census": result["census"],
                    "full_collections": result["full_collections"],
                    "full_collections_cpu": result["full_collections_cpu"],
                    **check(result, expected, strict=mode == "rep"),
                }
            )
        median = {
            key: statistics.median(row[key] for row in rows)
            for key in ("wall", "cpu", "pages_per_s", "cpu_ms_per_request", "maxrss")
        }
        row = {**rows[-1], **median, "rounds": rows}
        figures["modes"][mode] = row
        phases = ", ".join(f"{rss / MIB:.0f}" for rss in rows[-1]["maxrss_phases"])
        tracked = row["census"].get("tracked", 0)
        print(
            f"| {mode} | {row['wall']:.1f} | {row['cpu']:.1f} | {row['pages']:,} | "
            f"{row['pages_per_s']:.0f} | {row['cpu_ms_per_request']:.2f} | "
            f"{row['maxrss'] / MIB:.0f} ({phases}) | {tracked:,} | "
            f"{row['full_collections']} ({row['full_collections_cpu']:.1f}) |"
        )
    for mode, row in figures["modes"].items():
        for number, checked in enumerate(row["rounds"], 1):
            print(
                f"\n{mode} (round {number}): closed {checked['reasons']}; log lines "
                f"{checked['logged']}; lost {checked['lost']:,}, decided twice "
                f"{checked['twice']:,}, fate differs from the plan {checked['wrong']:,}; "
                f"server: {checked['served']['pages_served']:,} pages served, "
                f"{checked['served']['pages_served_twice']:,} twice, "
                f"{checked['served']['robots_total']:,} robots.txt downloads"
            )
            # Scrapy's middleware decides by its own reading; only loss counts against it.
            wrong = checked["wrong"] if mode != "scrapy" else 0
            ok = ok and not (checked["lost"] or checked["twice"] or wrong)
    census_at = f"at {args.objects_at:.0%} of the requests settled"
    for mode, row in figures["modes"].items():
        owners = row["census"].get("owners", {})
        if owners:
            print(f"\n{mode}: GC-tracked objects by owner {census_at} (an object counts once):")
            kinds = row["census"].get("kinds", {})
            for owner, count in list(owners.items())[:12]:
                top = ", ".join(
                    f"{k.rsplit('.', 1)[-1]} {v:,}" for k, v in kinds.get(owner, {}).items()
                )
                print(f"  {owner:40} {count:>10,}  {top}")
    if "rep" in figures["modes"]:
        ok = report_rep(args, figures, rounds) and ok
    print(f"\n{window.line()}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1, default=str))
    print(f"\nall requests accounted for, none let through: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


def ratios(rounds: list[dict[str, dict[str, Any]]], mode: str, other: str, key: str) -> list[float]:
    """``mode``'s figure over ``other``'s, round by round."""
    return [results[mode][key] / results[other][key] for results in rounds]


def report_rep(
    args: argparse.Namespace, figures: dict[str, Any], rounds: list[dict[str, dict[str, Any]]]
) -> bool:
    rep = figures["modes"]["rep"]
    served = rep["served"]
    print(
        f"rep: forbidden or unreachable pages the server served: {served['not_allowed_served']:,}"
    )
    for example in served["examples"]:
        print(f"  served: {example}")
    print("rep: robots.txt downloads per origin, by kind (downloads: origins):")
    for kind, histogram in served["robots_by_kind"].items():
        origins = sum(histogram.values())
        downloads = sum(int(k) * v for k, v in histogram.items())
        shares = ", ".join(
            f"{k}: {v:,}" for k, v in sorted(histogram.items(), key=lambda kv: int(kv[0]))
        )
        print(f"  {kind:20} {downloads / origins:5.2f} per origin  ({shares})")
    print(f"rep: stats: {json.dumps(rep['stats'], sort_keys=True)}")
    decided = args.origins * args.pages
    settled = [{m: {"rate": decided / r["wall"]} for m, r in results.items()} for results in rounds]
    paged = [
        {m: {"rate": sum(1 for f in r["fates"] if f == 1) / r["wall"]} for m, r in results.items()}
        for results in rounds
    ]
    if "none" in figures["modes"]:
        none = figures["modes"]["none"]
        print(
            f"rep: requests settled/s vs none {spread(ratios(settled, 'rep', 'none', 'rate'))}; "
            f"CPU per request vs none {spread(ratios(rounds, 'rep', 'none', 'cpu'))}; "
            f"pages/s vs none {spread(ratios(paged, 'rep', 'none', 'rate'))}"
        )
        if none["census"].get("tracked") and rep["census"].get("tracked"):
            print(
                f"rep: GC-tracked objects "
                f"{rep['census']['tracked'] / none['census']['tracked']:.3f}× none's "
                f"at {args.objects_at:.0%} of the requests settled"
            )
        predicted = predicted_rss(args, none["maxrss"])
        print(
            f"rep: peak RSS {rep['maxrss'] / MIB:.0f} MB, predicted at most "
            f"{predicted / MIB:.0f} MB (none's {none['maxrss'] / MIB:.0f} MB + settings)"
        )
        rep["predicted_rss"] = predicted
    if "scrapy" in figures["modes"]:
        scrapy = figures["modes"]["scrapy"]
        print(
            f"rep: pages/s vs scrapy (Protego) {spread(ratios(paged, 'rep', 'scrapy', 'rate'))}; "
            f"CPU per request vs scrapy {spread(ratios(rounds, 'rep', 'scrapy', 'cpu'))}; "
            f"forbidden or unreachable-origin pages scrapy fetched: "
            f"{scrapy['served']['not_allowed_served']:,}"
        )
    return served["not_allowed_served"] == 0


if __name__ == "__main__":
    sys.exit(main())
