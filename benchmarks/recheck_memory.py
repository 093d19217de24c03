"""A recheck's peak memory against its number of origins (docs/recheck.md, "Scale"): the
peak RSS of a recheck's loop (decision, evidence, counts) over items generated as they
are read, each size in a fresh process, with the documents held as ``main`` held them
(``--mode before``: every origin's parsed, in a dict, the Rechecker keeping each) or in
a :class:`~rep_recheck.store.DocumentStore` (``--mode after``: compact, in
memory up to 128 MiB then in an SQLite file, ``REP_RECHECK_PARSED_ORIGINS`` of them
parsed). ``--mode before`` runs on any checkout (``PYTHONPATH=/path/to/main``).

The dataset, as benchmarks/recheck.py's: ``--origins`` origins, each given one of the
corpus's real robots.txt files in turn (``../shared/corpus/real``, its ``urls.jsonl``)
with its body (zlib) and SHA-256 as a crawl's entry holds them, and an absent
tdmrep.json (purpose ai-train); ``--items`` URLs, that file's own URLs on its host,
visiting the origins round-robin (``--order round-robin``, as a crawl's output mixes its
sites: with more origins than the bound, every item's origin was evicted since its last
item, and is made again) or one origin after another (``--order grouped``, a dataset
sorted by origin: each origin made once). The documents are put in the store one origin
at a time, as the recheck's crawl does. Printed per run: the peak RSS
(``resource.getrusage``), seconds, and for ``after`` the origins made from their compact
form (``parses``, and how many times each: ``parsed_times``), the compact bytes in
memory and the origins in the SQLite file. Report with the load average (``uptime``,
printed): the machine is shared.

Usage: ``python benchmarks/recheck_memory.py --mode after --origins 20000,1000000
--items 1000000 [--order grouped] [--parsed 10000]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rep_engine.fetch.cache import CacheEntry
from rep_engine.robotstxt import parse_robotstxt, unplain
from rep_engine.settings import RepConfig
from rep_engine.urls.origins import origin_of
from rep_engine.usage.tdmrep import NO_FILE
from rep_engine.verdict.decide import ROBOTS, TDM
from rep_recheck.datasets import Item
from rep_recheck.documents import OriginDocuments
from rep_recheck.outputs import EvidenceMemo, Tally
from rep_recheck.rechecker import Identity, Rechecker

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recheck import corpus

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
AGENT = "mybot"
NEVER = float("inf")


def urls(
    files: list[tuple[bytes, list[str]]], origins: int, items: int, grouped: bool
) -> Iterator[str]:
    """``items`` URLs over ``origins`` origins, generated as they are read: round-robin,
    or (``grouped``) each origin's items together."""
    each = -(-items // origins)
    for number in range(items):
        if grouped:
            origin, turn = divmod(number, each)
        else:
            turn, origin = divmod(number, origins)
        paths = files[origin % len(files)][1]
        yield f"https://o{origin}.example/{paths[turn % len(paths)]}"


def documents(
    files: list[tuple[bytes, list[str]]], origins: int
) -> Iterator[tuple[str, OriginDocuments]]:
    """Each origin's documents as a crawl hands them: its own parsed robots.txt (an
    object of its own, made from the file's parsed form without another parse), its
    body and SHA-256; an absent tdmrep.json."""
    parsed = [(parse_robotstxt(body).plain(), zlib.compress(body),
               hashlib.sha256(body).hexdigest(), len(body)) for body, _ in files]  # fmt: skip
    for number in range(origins):
        plain, body_zlib, sha, size = parsed[number % len(parsed)]
        name = f"https://o{number}.example"
        origin = origin_of(name + "/")
        assert origin is not None
        found = OriginDocuments(origin, now=1_700_000_000.0)
        robots = CacheEntry(unplain(plain), f"200 ({size:,} bytes)", 0.0, NEVER, NEVER, 200,
                            body_zlib, False, 2048 + 6 * size, sha, origin.robots_url)  # fmt: skip
        found.add(ROBOTS, origin, robots)
        found.add(TDM, origin, CacheEntry(NO_FILE, "404", 0.0, NEVER, NEVER, 404))
        yield name, found


def one(args: argparse.Namespace) -> None:
    """One recheck's loop over generated items; its peak RSS and counts (a fresh process)."""
    if args.tracemalloc:
        import tracemalloc

        tracemalloc.start()
    files = corpus(args.corpus)
    started = time.monotonic()
    settings: dict[str, Any] = {"REP_PURPOSE": "ai-train"}
    store: Any = None
    if args.mode == "after":
        from rep_recheck.store import DocumentStore

        settings["REP_RECHECK_PARSED_ORIGINS"] = args.parsed
        store = DocumentStore(args.parsed)
        for name, found in documents(files, args.origins):
            store[name] = found
        source: Any = store
    else:
        held = dict(documents(files, args.origins))
        source = lambda origin: held.get(str(origin))  # noqa: E731
    filled = time.monotonic() - started
    config = RepConfig.from_settings(settings)
    rechecker = Rechecker(config, Identity(AGENT), source, explain=False)
    tally = Tally(("ai-train",))
    memo = EvidenceMemo()
    if args.mode == "after":  # as the command holds it: let go when the origins are
        from rep_recheck.store import OriginsEvidence

        memo = OriginsEvidence(rechecker)
    grouped = args.order == "grouped"
    for number, url in enumerate(urls(files, args.origins, args.items, grouped), 1):
        outcome = rechecker.decide(url)
        said_of = memo.of(url, outcome)
        if not args.counts:
            continue
        parts = url.split("/", 3)
        tally.add(Item(number, url), str(outcome.status), said_of, f"{parts[0]}//{parts[2]}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    said: dict[str, Any] = {
        "mode": args.mode, "origins": args.origins, "items": args.items, "order": args.order,
        "peak_rss_mib": round(peak, 1), "seconds": round(time.monotonic() - started),
        "fill_seconds": round(filled), "kept": tally.statuses["kept"],
        "refused": tally.statuses["refused"], "counts": args.counts,
    }  # fmt: skip
    if store is not None:
        said |= {
            "parsed_origins": args.parsed, "parses": store.parses, "reparses": store.reparses,
            "parsed_times": store.parsed_times(), "compact_mib_in_memory":
            round(store.bytes / 2**20, 1), "origins_in_sqlite": store.spilled,
        }  # fmt: skip
    print(json.dumps(said))
    if args.tracemalloc:
        top = tracemalloc.take_snapshot().statistics("filename")[:20]
        for stat in top:
            print(
                f"{stat.size / 2**20:9.1f} MiB {stat.count:>10,} blocks  "
                f"{stat.traceback[0].filename}"
            )
        print(
            f"traced now {tracemalloc.get_traced_memory()[0] / 2**20:.1f} MiB, peak "
            f"{tracemalloc.get_traced_memory()[1] / 2**20:.1f} MiB"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("before", "after"), default="after")
    parser.add_argument("--origins", default="20000,1000000", help="comma-separated")
    parser.add_argument("--items", default="1000000", help="comma-separated")
    parser.add_argument("--order", choices=("round-robin", "grouped"), default="round-robin")
    parser.add_argument("--parsed", type=int, default=20_000, help="REP_RECHECK_PARSED_ORIGINS")
    parser.add_argument("--no-counts", dest="counts", action="store_false", help="no counts "
                        "per origin (the Tally): the documents' memory alone")  # fmt: skip
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--tracemalloc", action="store_true", help="the 20 files holding "
                        "most memory at the end (tracemalloc; slower, RSS higher)")  # fmt: skip
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        args.origins, args.items = int(args.origins), int(args.items)
        one(args)
        return
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(), flush=True)
    for origins in args.origins.split(","):
        for items in args.items.split(","):
            command = [sys.executable, __file__, "--one", "--mode", args.mode, "--origins",
                       origins, "--items", items, "--order", args.order, "--parsed",
                       str(args.parsed), "--corpus", str(args.corpus),
                       *([] if args.counts else ["--no-counts"]),
                       *(["--tracemalloc"] if args.tracemalloc else [])]  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True)
            print(done.stdout.strip() or done.stderr.strip()[-2000:], flush=True)
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(), flush=True)


if __name__ == "__main__":
    main()
