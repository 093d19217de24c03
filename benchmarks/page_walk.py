"""The walk from a response to the item gate: which of the package's files a page's pass
visits, and how many times each is entered (deterministic: a trace of Python calls, which
the machine's load cannot move; docs/benchmarks-crawl.md).

One ``noindex`` page (so that its item goes through the gates, not around them) with an
``X-Robots-Tag`` and a robots meta tag, and one item, through the spider middleware as
Scrapy drives it: ``process_spider_input`` (the page read and decided, before the
callback), then ``process_spider_output`` over the item (the walk to the item gate),
each traced on its own with ``sys.setprofile``. A file is *entered* when a call runs in
it from a frame in another file of the package (Scrapy calling the middleware, and
resuming its generator, enters nothing: that is the framework's walk, not ours);
*visited* files are the distinct ones the pass runs code in. A cached call that runs
no Python (``functools.lru_cache`` hits) enters nothing. The crawler and the middleware
are built before the trace (their cost is the crawl's, once, not the page's); the page
itself starts cold.

``--code DIR`` runs another checkout's scrapy_rep (before/after on the same machine).
Usage: ``python benchmarks/page_walk.py [--purpose ai-train] [--code DIR] [--trace]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def walk(purpose: str | None, show: bool) -> dict[str, Any]:
    from scrapy import Request, Spider
    from scrapy.http import HtmlResponse
    from scrapy.utils.test import get_crawler

    import rep_audit
    import rep_engine
    import rep_recheck
    import scrapy_rep
    from scrapy_rep.crawl.page.spidermiddlewares import PageDirectivesMiddleware

    # the four parts' files, named from their packages (rep_engine/verdict/page.py)
    bases = tuple(
        str(Path(part.__file__).resolve().parent.parent) + os.sep
        for part in (rep_engine, rep_audit, rep_recheck, scrapy_rep)
    )

    def ours(filename: str) -> str:
        """``filename`` from its part's folder (``""``: not a file of the four parts)."""
        base = next((base for base in bases if filename.startswith(base)), "")
        name = filename[len(base) :] if base else ""
        return (
            name
            if name.startswith(("rep_engine", "rep_audit", "rep_recheck", "scrapy_rep"))
            else ""
        )

    settings: dict[str, Any] = {"USER_AGENT": "MyBot/1.0"}
    if purpose:
        settings["REP_PURPOSE"] = purpose
    crawler = get_crawler(Spider, settings)
    crawler.spider = Spider("walk")
    middleware = PageDirectivesMiddleware.from_crawler(crawler)
    body = b'<html><head><meta name="robots" content="noarchive"></head><body>x</body></html>'
    url = "https://example.com/page"
    response = HtmlResponse(url, body=body, headers={"X-Robots-Tag": "noindex"})
    response.request = Request(url)  # type: ignore[misc]

    def traced(run: Any) -> dict[str, Any]:
        entered: Counter[str] = Counter()
        visited: set[str] = set()
        order: list[str] = []

        def profile(frame: Any, event: str, arg: Any) -> None:
            if event != "call":
                return
            filename = frame.f_code.co_filename
            name = ours(filename)
            if not name:
                return
            visited.add(name)
            caller = frame.f_back.f_code.co_filename if frame.f_back is not None else ""
            if caller != filename and ours(caller):
                entered[name] += 1
                order.append(f"{ours(caller)}>{name}")

        sys.setprofile(profile)
        try:
            result = run()
        finally:
            sys.setprofile(None)
        if show:
            print("\n".join(order), file=sys.stderr)
        return {
            "visited": len(visited),
            "entered": sum(entered.values()),
            "twice": {name: count for name, count in entered.items() if count > 1},
            "files": sorted(visited),
            "result": result,
        }

    reading = traced(lambda: middleware.process_spider_input(response))
    method: Any = middleware.process_spider_output
    output = traced(lambda: repr(list(method(response, [{"title": "x"}]))))
    return {"input": reading, "output": output}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--purpose", help="REP_PURPOSE (default: not set, a search crawl)")
    parser.add_argument("--code", help="a checkout whose scrapy_rep to run")
    parser.add_argument("--trace", action="store_true", help="print the files in call order")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(walk(args.purpose, args.trace)))
        return
    env = dict(os.environ)
    code = Path(args.code).resolve() if args.code else HERE.parent
    env["PYTHONPATH"] = os.pathsep.join([str(code), env.get("PYTHONPATH", "")])
    command = [sys.executable, str(Path(__file__).resolve()), "--child"]
    if args.purpose:
        command += ["--purpose", args.purpose]
    if args.trace:
        command.append("--trace")
    found = json.loads(subprocess.run(command, env=env, check=True, capture_output=True,
                                      text=True, cwd=code).stdout)  # fmt: skip
    print(f"code: {code}/scrapy_rep; purpose: {args.purpose or '(not set)'}")
    for phase, what in (("input", "process_spider_input"), ("output", "process_spider_output")):
        walked = found[phase]
        print(f"{what}: {walked['visited']} files visited, entered {walked['entered']} times;"
              f" entered more than once: {walked['twice'] or 'none'}")  # fmt: skip
        print("  files: " + ", ".join(walked["files"]))
        if phase == "output":
            print(f"  output: {walked['result']}")


if __name__ == "__main__":
    main()
