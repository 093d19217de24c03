"""Several crawler processes over the same sites: robots.txt cache per process vs Redis.

A child process serves ``--origins`` local origins (one port each, a 20-line robots.txt
and ``--pages`` small pages each) and counts every request. ``--workers`` crawler
processes (the add-on) then crawl all pages, each taking every ``--workers``-th URL, so
every worker meets every origin, as workers of one shared queue do. Twice:

- ``memory``: ``REP_ROBOTSTXT_CACHE = "memory"`` (each worker on its own);
- ``redis``: ``REP_ROBOTSTXT_CACHE`` = a fresh local ``redis-server``.

Reported: robots.txt requests the sites received (per origin), pages/s of the whole
cluster (pages over the slowest worker's wall time), and the store's own cost per
robots.txt lookup (load of a cached record, in this process).

Usage: ``python benchmarks/cluster.py [--workers 4] [--origins 500] [--pages 20]``;
needs Debian's ``redis-server`` and ``pip install -e ".[redis]"``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
ROBOTS = (
    b"User-agent: BadBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n"
    b"Disallow: /*.pdf$\nAllow: /private/press/\n" + b"# padding comment line\n" * 14
)


def serve(origins: int) -> None:
    """Child process: the sites; prints the ports, then request counts on "count"."""
    from scrapy.utils.reactor import install_reactor

    install_reactor(REACTOR)
    from twisted.internet import reactor, threads
    from twisted.web.resource import Resource
    from twisted.web.server import Request, Site

    counts = {"robots": 0, "pages": 0}

    class Origin(Resource):
        isLeaf = True

        def render_GET(self, request: Request) -> bytes:
            if request.path == b"/robots.txt":
                counts["robots"] += 1
                request.setHeader("Content-Type", "text/plain")
                return ROBOTS
            counts["pages"] += 1
            request.setHeader("Content-Type", "text/html")
            return b"<html><head><title>page</title></head><body>" + b"x" * 500 + b"</body></html>"

    site = Site(Origin())
    ports = [
        reactor.listenTCP(0, site, interface="127.0.0.1").getHost().port  # type: ignore[attr-defined]
        for _ in range(origins)
    ]
    print(json.dumps(ports), flush=True)

    def commands() -> None:
        for line in sys.stdin:
            if line.strip() == "count":
                print(json.dumps(counts), flush=True)
                counts.update(robots=0, pages=0)
        reactor.callFromThread(reactor.stop)  # type: ignore[attr-defined]

    threads.deferToThread(commands)
    reactor.run()  # type: ignore[attr-defined]


def worker(urls: list[str], store: str) -> None:
    """Worker process: crawl ``urls`` with the add-on; print pages, wall and CPU time."""
    from scrapy.utils.reactor import install_reactor

    install_reactor(REACTOR)
    from scrapy import Request, Spider
    from scrapy.crawler import CrawlerRunner
    from twisted.internet import defer, task

    result: dict[str, Any] = {}

    class ClusterSpider(Spider):
        name = "cluster"
        pages = 0

        async def start(self) -> Any:
            for url in urls:
                yield Request(url, meta={"download_slot": url.split("/")[2]})

        def parse(self, response: Any) -> None:
            type(self).pages += 1

    async def go(_reactor: object) -> None:
        runner = CrawlerRunner(
            {
                "TWISTED_REACTOR": REACTOR,
                "ADDONS": {"scrapy_rep.Addon": 0},
                "REP_ROBOTSTXT_CACHE": store,
                "CONCURRENT_REQUESTS": 32,
                "LOG_LEVEL": "WARNING",
                "TELNETCONSOLE_ENABLED": False,
                "COOKIES_ENABLED": False,
            }
        )
        crawler = runner.create_crawler(ClusterSpider)
        start, cpu = time.perf_counter(), time.process_time()
        await runner.crawl(crawler)
        result.update(
            pages=ClusterSpider.pages,
            wall=time.perf_counter() - start,
            cpu=time.process_time() - cpu,
        )

    try:
        task.react(lambda reactor: defer.Deferred.fromCoroutine(go(reactor)))
    except SystemExit as exit_:
        if exit_.code:
            raise
    print(json.dumps(result), flush=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_redis(directory: str) -> tuple[subprocess.Popen[bytes], str]:
    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("redis-server is not installed (Debian: apt-get install redis-server)")
    port = free_port()
    process = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--dir", directory],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    return process, f"redis://127.0.0.1:{port}/0"


def run_cluster(urls: list[list[str]], workers: int, store: str) -> list[dict[str, Any]]:
    """Run ``workers`` crawler processes, worker ``n`` crawling ``urls[n]``."""
    processes = [
        subprocess.Popen(
            [sys.executable, __file__, "--worker", store],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(workers)
    ]
    for number, process in enumerate(processes):
        assert process.stdin is not None
        process.stdin.write(json.dumps(urls[number]))
        process.stdin.close()
    results = []
    for process in processes:
        assert process.stdout is not None
        out = process.stdout.read()
        process.wait(timeout=600)
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def lookup_cost(url: str) -> float:
    """µs per load of a cached record from the store (the shared store's own cost)."""
    import asyncio

    from rep_engine.fetch.records import SharedRecord
    from scrapy_rep.crawl.documents.stores import RedisStore

    async def measure() -> float:
        store = RedisStore(url)
        record = SharedRecord("http://bench.example", b"x" * 600, None, 200, "200", 0, 1e12, 1e12)
        await store.save(record, 3600)
        for _ in range(100):
            await store.load(record.origin)
        start = time.perf_counter()
        for _ in range(2000):
            await store.load(record.origin)
        elapsed = (time.perf_counter() - start) / 2000 * 1e6
        await store.close()
        return elapsed

    return asyncio.run(measure())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--origins", type=int, default=500)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return 0
    if args.worker:
        worker(json.loads(sys.stdin.read()), args.worker)
        return 0
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(args.origins)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    ports = json.loads(server.stdout.readline())
    # Page n of origin p goes to worker (n + p) % workers: every worker meets every origin.
    urls: list[list[str]] = [[] for _ in range(args.workers)]
    for page in range(args.pages):
        for number, port in enumerate(ports):
            urls[(page + number) % args.workers].append(f"http://127.0.0.1:{port}/p/{page}")
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        redis, redis_url = start_redis(directory)
        try:
            for store in ("memory", redis_url):
                results = run_cluster(urls, args.workers, store)
                server.stdin.write("count\n")
                server.stdin.flush()
                counts = json.loads(server.stdout.readline())
                pages = sum(r["pages"] for r in results)
                wall = max(r["wall"] for r in results)
                name = "memory" if store == "memory" else "redis"
                rows.append((name, counts["robots"], pages, pages / wall))
            cost = lookup_cost(redis_url)
        finally:
            redis.kill()
            server.stdin.close()
            server.wait(timeout=30)
    print(
        f"\n{args.workers} workers, {args.origins} origins × {args.pages} pages "
        f"({sum(map(len, urls)):,} URLs, each worker meets every origin)\n"
    )
    print("| store | robots.txt requests | per origin | pages | cluster pages/s |")
    print("|---|---|---|---|---|")
    for name, robots, pages, rate in rows:
        print(f"| {name} | {robots:,} | {robots / args.origins:.2f} | {pages:,} | {rate:.0f} |")
    ratio = rows[1][3] / rows[0][3]
    print(f"\nredis / memory pages/s: {ratio:.3f} ({(ratio - 1) * 100:+.1f} %)")
    print(f"shared-store lookup (load of a cached record): {cost:.0f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
