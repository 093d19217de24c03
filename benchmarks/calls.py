"""Python function calls per request, by what became of it (deterministic: cProfile's call
counts, which the machine's load cannot move; docs/benchmarks-crawl.md).

A child process serves ``--origins`` local sites (the pages and robots.txt of
``benchmarks/crawl.py``; robots.txt answered after ``--robots-delay`` seconds in
``held``). Each scenario is one crawl in a fresh process, profiled from the crawl's start
to its end (imports and interpreter start left out), with the add-on on:

- ``base``: one start request per origin (``/p/0``), whose callback yields nothing: the
  robots.txt download, the first request held for it and released, one page each;
- ``allowed``: the same, and ``/p/0``'s callback yields ``--per`` requests robots.txt
  allows (the origin's robots.txt is known by then: the usual case of a link);
- ``refused``: the same, with ``--per`` requests robots.txt disallows;
- ``held``: every request of ``allowed`` yielded at once from ``start()`` while every
  robots.txt takes a second to answer: held, then released.

A request's cost is the scenario's calls less ``base``'s, over ``--origins`` × ``--per``
requests; ``held``: its calls less ``allowed``'s, over the requests it held more (how many
are held depends on how fast ``start()`` is consumed while robots.txt is awaited).
Two counts: calls of functions in scrapy_rep's own files, and every call (Scrapy's,
Twisted's, the standard library's: what the add-on makes the crawl do). With the spider
yielding an item per page (``--items``), the page pass's calls are in the figures too.
Then, per request, three counts by function: the calls of
:func:`rep_engine.verdict.decide.decide`, the scheduler passes (the engine's
``_schedule_request``, which sends ``request_scheduled``: a request handed back to be held
is caught there) and the requests queued (``Scheduler.enqueue_request``); a held
request's: an allowed request's, plus what holding adds over the requests held.

``--code DIR`` runs another checkout's four parts (before/after on the same machine).
Usage: ``python benchmarks/calls.py [--origins 20] [--per 50] [--purpose ai-train]
[--audit] [--report] [--code DIR]``. About 30 s. With ``CALLS_PROFILE_DIR`` set, each scenario's
profile is written there as ``SCENARIO.prof`` (to compare two of them function by function).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SCENARIOS = ("base", "allowed", "refused", "held")
#: Functions whose calls are counted by name (file ending, function): the verdict, and the
#: scheduler's passes: the engine's ``_schedule_request`` (``request_scheduled`` sent, where
#: a request handed back to be held is caught) and ``Scheduler.enqueue_request`` (queued).
COUNTED = {
    "decide": ("rep-engine/rep_engine/verdict/decide.py", "decide"),
    "scheduled": ("scrapy/core/engine.py", "_schedule_request"),
    "enqueued": ("scrapy/core/scheduler.py", "enqueue_request"),
}
REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"


def allowed_paths(per: int) -> list[str]:
    """``per`` paths robots.txt allows (``/p/N``, none ending in 9), after ``/p/0``."""
    paths = [f"/p/{n}" for n in range(1, per * 2) if not str(n).endswith("9")]
    return paths[:per]


def refused_paths(per: int) -> list[str]:
    """``per`` paths robots.txt disallows (``/p/N9``)."""
    return [f"/p/{n}9" for n in range(per)]


def serve(origins: int, pages: int, robots_delay: float) -> None:
    """``benchmarks/crawl.py``'s sites, robots.txt answered after ``robots_delay`` s; the
    ports printed as JSON; stops when stdin closes."""
    sys.path.insert(0, str(HERE))
    import crawl as site
    from twisted.internet import reactor, stdio
    from twisted.internet.protocol import Protocol
    from twisted.web.resource import Resource
    from twisted.web.server import NOT_DONE_YET, Request, Site

    bodies = {path.encode(): site.page_body(path, pages) for path in site.page_paths(pages)}

    class Pages(Resource):
        isLeaf = True

        def render_GET(self, request: Request) -> Any:
            path = request.path
            if path == b"/robots.txt":
                request.setHeader(b"content-type", b"text/plain")
                if robots_delay:

                    def answer() -> None:
                        request.write(site.ROBOTS_TXT)
                        request.finish()

                    reactor.callLater(robots_delay, answer)  # type: ignore[attr-defined]
                    return NOT_DONE_YET
                return site.ROBOTS_TXT
            body = bodies.get(path)
            if body is None:
                request.setResponseCode(404)
                return b"not found"
            request.setHeader(b"content-type", b"text/html; charset=utf-8")
            return body

    class StopOnEOF(Protocol):
        def connectionLost(self, reason: object = None) -> None:
            reactor.stop()  # type: ignore[attr-defined]

    resource = Pages()
    ports = []
    for _ in range(origins):
        web = Site(resource)
        web.log = lambda request: None  # type: ignore[method-assign]
        ports.append(reactor.listenTCP(0, web, interface="127.0.0.1").getHost().port)  # type: ignore[attr-defined]
    print(json.dumps(ports), flush=True)
    stdio.StandardIO(StopOnEOF())
    reactor.run()  # type: ignore[attr-defined]


def child(scenario: str, ports: list[int], per: int, settings: dict[str, Any]) -> dict[str, Any]:
    """One profiled crawl; its counts."""
    from scrapy.utils.reactor import install_reactor

    install_reactor(REACTOR)
    import scrapy
    from scrapy.crawler import CrawlerRunner
    from scrapy.utils.log import configure_logging
    from twisted.internet import defer, task

    import rep_audit
    import rep_engine
    import rep_recheck
    import scrapy_rep

    PARTS = (rep_engine, rep_audit, rep_recheck, scrapy_rep)

    configure_logging({"LOG_LEVEL": "ERROR"})
    first = [f"http://127.0.0.1:{port}/p/0" for port in ports]
    more = {"allowed": allowed_paths(per), "refused": refused_paths(per)}

    class CallsSpider(scrapy.Spider):
        name = "calls"

        async def start(self) -> Any:
            for url in first:
                yield scrapy.Request(url, dont_filter=True)
            if scenario == "held":
                for path in allowed_paths(per):
                    for port in ports:
                        yield scrapy.Request(f"http://127.0.0.1:{port}{path}", dont_filter=True)

        def parse(self, response: Any) -> Any:
            if ITEMS:
                yield {"title": response.css("title::text").get()}
            if response.url.endswith("/p/0") and scenario in more:
                base = response.url.removesuffix("/p/0")
                for path in more[scenario]:
                    yield scrapy.Request(base + path, dont_filter=True)

    runner = CrawlerRunner(settings)
    crawler = runner.create_crawler(CallsSpider)
    profile = cProfile.Profile()
    result: dict[str, Any] = {}

    async def go(_reactor: object) -> None:
        profile.enable()
        await runner.crawl(crawler)
        profile.disable()

    try:
        task.react(lambda reactor: defer.Deferred.fromCoroutine(go(reactor)))
    except SystemExit as exit_:
        if exit_.code:
            raise
    if os.environ.get("CALLS_PROFILE_DIR"):  # the profiles, to compare by function
        profile.dump_stats(Path(os.environ["CALLS_PROFILE_DIR"]) / f"{scenario}.prof")
    # every part's package: the calls of the engine, the trail's format and the add-on
    ours = tuple(str(Path(part.__file__).parent) for part in PARTS)
    stats = pstats.Stats(profile)
    total = mine = 0
    by_function: dict[str, int] = {}
    counted = dict.fromkeys(COUNTED, 0)
    for (filename, _line, name), (_, calls, *_rest) in stats.stats.items():  # type: ignore[attr-defined]
        total += calls
        for label, (ending, function) in COUNTED.items():
            if name == function and filename.endswith(ending):
                counted[label] += calls
        base = next((base for base in ours if filename.startswith(base)), None)
        if base is not None:
            mine += calls
            key = f"{filename[len(str(Path(base).parent)) + 1 :]}:{name}"
            by_function[key] = by_function.get(key, 0) + calls
    crawl_stats = crawler.stats.get_stats() if crawler.stats else {}
    result.update(
        scenario=scenario,
        code=ours,
        total=total,
        mine=mine,
        by_function=by_function,
        counted=counted,
        pages=int(crawl_stats.get("response_received_count", 0)),
        forbidden=int(crawl_stats.get("robotstxt/forbidden", 0)),
        held=int(crawl_stats.get("rep/requests/held", 0)),
    )
    return result


ITEMS = False


def run_scenario(
    scenario: str, ports: list[int], args: argparse.Namespace, settings: dict[str, Any]
) -> dict[str, Any]:
    environment = dict(os.environ)
    if args.code:  # its four parts, the engine's too, before the venv's
        code = Path(args.code).resolve()
        parts = [code, *(code / part for part in ("rep-engine", "rep-audit", "rep-recheck"))]
        environment["PYTHONPATH"] = os.pathsep.join(map(str, parts))
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                scenario,
                "--ports",
                json.dumps(ports),
                "--per",
                str(args.per),
                "--settings",
                json.dumps(settings),
                "--out",
                out.name,
            ]
            + ["--items"] * args.items,
            check=True,
            env=environment,
        )
        return json.loads(Path(out.name).read_text())  # type: ignore[no-any-return]


def settings_of(args: argparse.Namespace, workdir: str) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "TWISTED_REACTOR": REACTOR,
        "ADDONS": {"scrapy_rep.Addon": 0},
        "CONCURRENT_REQUESTS": 64,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
        "LOG_LEVEL": "ERROR",
        "TELNETCONSOLE_ENABLED": False,
        "COOKIES_ENABLED": False,
        "REP_REPORT": False,
    }
    if args.purpose:
        settings["REP_PURPOSE"] = args.purpose
    if args.audit:
        settings["REP_AUDIT_FILE"] = str(Path(workdir) / "trail.jsonl")
    if args.report:  # written to a file: the report's whole cost, none of a terminal's
        settings["REP_REPORT_FILE"] = str(Path(workdir) / "report.txt")
    return settings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--origins", type=int, default=20)
    parser.add_argument("--per", type=int, default=50, help="requests per origin and scenario")
    parser.add_argument("--purpose", help="REP_PURPOSE (default: not set, a search crawl)")
    parser.add_argument("--audit", action="store_true", help="with REP_AUDIT_FILE")
    parser.add_argument("--report", action="store_true", help="with REP_REPORT_FILE")
    parser.add_argument("--items", action="store_true", help="an item per page")
    parser.add_argument("--code", help="a checkout whose four parts to run")
    parser.add_argument("--top", type=int, default=12, help="functions listed per scenario")
    parser.add_argument("--robots-delay", type=float, default=1.0, help="seconds, in held")
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--ports", help=argparse.SUPPRESS)
    parser.add_argument("--settings", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    global ITEMS
    ITEMS = args.items
    if args.serve is not None:
        serve(args.origins, args.per * 10 + 10, args.serve)
        return 0
    if args.child:
        result = child(args.child, json.loads(args.ports), args.per, json.loads(args.settings))
        Path(args.out).write_text(json.dumps(result))
        return 0
    results = {}
    with tempfile.TemporaryDirectory() as workdir:
        settings = settings_of(args, workdir)
        for name in SCENARIOS:
            delay = args.robots_delay if name == "held" else 0.0
            server = subprocess.Popen(
                [sys.executable, __file__, f"--serve={delay}", f"--origins={args.origins}",
                 f"--per={args.per}"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )  # fmt: skip
            try:
                assert server.stdout is not None
                ports: list[int] = json.loads(server.stdout.readline())
                results[name] = run_scenario(name, ports, args, settings)
            finally:
                assert server.stdin is not None
                server.stdin.close()
                server.wait(timeout=10)
    requests = args.origins * args.per
    base = results["base"]
    print(f"code: {base['code']}")
    print(
        f"{args.origins} origins × {args.per} requests per scenario; purpose "
        f"{args.purpose or '(not set)'}; audit trail {'on' if args.audit else 'off'}; "
        f"report {'on' if args.report else 'off'}; "
        f"items {'on' if args.items else 'off'}"
    )
    print()
    print(
        "| request | scrapy_rep calls / request | all calls / request | pages | forbidden | held |"
    )
    print("|---|---|---|---|---|---|")
    for name, against in (("allowed", "base"), ("refused", "base"), ("held", "allowed")):
        row, other = results[name], results[against]
        # A held request's cost: what holding adds, over the requests held (how many are
        # held depends on how fast start() is consumed while robots.txt is awaited).
        count = max(1, row["held"] - other["held"]) if name == "held" else requests
        mine = (row["mine"] - other["mine"]) / count
        total = (row["total"] - other["total"]) / count
        label = "held (added to allowed, per request held)" if name == "held" else name
        print(
            f"| {label} | {mine:.1f} | {total:.1f} | {row['pages']} | {row['forbidden']} | "
            f"{row['held']} |"
        )
    print()
    print(
        "| request | `decide` calls / request | scheduler passes (`_schedule_request`) / "
        "request | queued (`enqueue_request`) / request |"
    )
    print("|---|---|---|---|")
    base_counts, allowed_counts = base["counted"], results["allowed"]["counted"]
    held_more = max(1, results["held"]["held"] - results["allowed"]["held"])
    for name in ("allowed", "refused", "held"):
        counts = results[name]["counted"]
        per = {  # allowed, refused: over their requests; held: an allowed request's, plus
            # what holding adds over the requests held (as the calls above)
            label: (counts[label] - base_counts[label]) / requests
            if name != "held"
            else (allowed_counts[label] - base_counts[label]) / requests
            + (counts[label] - allowed_counts[label]) / held_more
            for label in COUNTED
        }
        label = "held (per request held)" if name == "held" else name
        print(f"| {label} | {per['decide']:.2f} | {per['scheduled']:.2f} | {per['enqueued']:.2f} |")
    for name in ("allowed", "refused", "held"):
        against = results["allowed" if name == "held" else "base"]["by_function"]
        print(f"\n{name}: scrapy_rep functions by calls per request (scenario less its base)")
        rows = sorted(
            ((calls - against.get(key, 0)) / requests, key)
            for key, calls in results[name]["by_function"].items()
        )
        for calls, key in sorted(rows, reverse=True)[: args.top]:
            print(f"  {calls:7.2f}  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
