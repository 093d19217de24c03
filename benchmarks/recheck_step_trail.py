"""What a task's trail costs the datatrove step (docs/recheck.md, "The tasks' trails"):
the step's CPU time over the same documents with ``trail`` and without, and ``audit
verify``'s of the trail written.

A WARC of ``--origins`` robots.txt captures (the corpus's real files in turn,
``../shared/corpus/real``, each with that file's own URLs from ``urls.jsonl``; a
tdmrep.json answering 404 for each), and ``--documents`` datatrove documents taking the
origins in turn, as a crawl's output mixes its sites. Each round runs the step (one
task, ``RepRecheckFilter.run``, purpose ai-train) in a fresh process over the same
documents, without and with a trail (a new folder each time), in turn: CPU seconds
(user + sys of the process, less the same process's reading of the WARC and making of
the documents, timed apart in it), the trail's bytes and lines; the median of
``--rounds`` and of the per-round ratios. The load average is printed before each
round (``uptime``): the machine is shared. ``--verify`` times ``audit verify`` of the
last trail too.

    python benchmarks/recheck_step_trail.py --documents 5000 --origins 500 --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CHECKOUT = Path(__file__).resolve().parent.parent
CORPUS = CHECKOUT.parent / "shared" / "corpus"


def documents_of(origins: int, documents: int, corpus: Path) -> tuple[list[Any], list[str]]:
    """The robots.txt captures of ``origins`` origins (the corpus's files in turn) and
    ``documents`` URLs taking them in turn (each file's own URLs)."""
    files = sorted(path for path in (corpus / "real").rglob("*") if path.is_file())
    urls: dict[str, list[str]] = {}
    with (corpus / "urls.jsonl").open() as lines:
        for line in lines:
            said = json.loads(line)
            if "file" in said:
                urls.setdefault(said["file"], []).extend(said["urls"])
    captures, paths = [], []
    for number in range(origins):
        file = files[number % len(files)]
        origin = f"https://o{number}.example"
        captures.append((f"{origin}/robots.txt", 200, file.read_bytes(), {}))
        captures.append((f"{origin}/.well-known/tdmrep.json", 404, b"", {}))
        own = urls.get(str(file.relative_to(corpus))) or ["https://x/"]
        paths.append([origin + "/" + url.split("/", 3)[-1] for url in own])
    items = [paths[n % origins][(n // origins) % len(paths[n % origins])] for n in range(documents)]
    return captures, items


def one_run(warc: Path, items: Path, trail: str) -> dict[str, float]:
    """The child: the step over the documents of ``items`` (``trail``: its folder, ``""``:
    none); CPU seconds of the step alone."""
    from datatrove.data import Document

    from scrapy_rep import RepRecheckFilter

    urls = json.loads(items.read_text())
    documents = [Document("a b", str(n), metadata={"url": url}) for n, url in enumerate(urls)]
    step = RepRecheckFilter(str(warc), "ai-train", {"USER_AGENT": "mybot/1.0"},
                            trail=trail or None)  # fmt: skip
    start = time.process_time()
    kept = sum(1 for _ in step.run(iter(documents), 0, 1))
    return {"cpu": time.process_time() - start, "kept": kept}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=5_000)
    parser.add_argument("--origins", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--child", nargs=3, metavar=("WARC", "ITEMS", "TRAIL"))
    options = parser.parse_args()
    if options.child:
        warc, items, trail = options.child
        print(json.dumps(one_run(Path(warc), Path(items), trail)))
        return
    sys.path.insert(0, str(CHECKOUT))
    from tests.support.recheck import write_warc

    work = Path(tempfile.mkdtemp(prefix="step-trail-"))
    captures, urls = documents_of(options.origins, options.documents, options.corpus)
    warc, items = work / "robots.warc.gz", work / "items.json"
    write_warc(warc, captures, compress=True)
    items.write_text(json.dumps(urls))
    said: dict[str, list[float]] = {"without": [], "with": [], "ratio": []}
    for number in range(options.rounds):
        print(f"round {number + 1}: {os.getloadavg()[0]:.2f} load", flush=True)
        times = {}
        for mode in ("without", "with"):
            trail = str(work / f"trails-{number}") if mode == "with" else ""
            command = [sys.executable, __file__, "--child", str(warc), str(items), trail]
            env = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
            out = subprocess.run(command, capture_output=True, text=True, check=True,
                                 cwd=CHECKOUT, env=env)  # fmt: skip
            result = json.loads(out.stdout.splitlines()[-1])
            times[mode] = result["cpu"]
            said[mode].append(result["cpu"])
            print(f"  {mode} trail: {result['cpu']:.3f} s CPU, {result['kept']:,} kept")
        said["ratio"].append(times["with"] / times["without"])
    written = work / f"trails-{options.rounds - 1}" / "00000.jsonl"
    lines = written.read_bytes().count(b"\n")
    without, with_trail = statistics.median(said["without"]), statistics.median(said["with"])
    more = (with_trail - without) / options.documents * 1e6
    print(f"documents {options.documents:,}, origins {options.origins:,}: without "
          f"{without:.3f} s, with {with_trail:.3f} s, ratio {statistics.median(said['ratio']):.3f} "
          f"(per round: {', '.join(f'{r:.3f}' for r in said['ratio'])}); per document "
          f"{more:.1f} µs more; trail {written.stat().st_size:,} bytes, {lines:,} "
          "lines")  # fmt: skip
    if options.verify:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "scrapy_rep", "audit", "verify", str(written)],
                       stdout=subprocess.DEVNULL, cwd=CHECKOUT, check=False)  # fmt: skip
        print(f"audit verify of the trail: {time.perf_counter() - start:.2f} s wall")


if __name__ == "__main__":
    main()
