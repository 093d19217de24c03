"""A whole recheck (the command: its dataset's passes, decisions, counts, report, kept and
removed items, trail) of the same items sorted by origin and in random order
(docs/recheck.md, "Scale"): its seconds, the parses per origin, its peak RSS and a
checksum of each output, each order in a fresh process, and the ratio random/sorted.

The dataset, as benchmarks/recheck_memory.py's: ``--origins`` origins, each given one of
the corpus's real robots.txt files in turn (``../shared/corpus``) with its body and
SHA-256, and an absent tdmrep.json (purpose ai-train); ``--items`` items, that file's own
URLs on its host, as JSON Lines (``{"url": …, "id": N}``, N the item's place in the
sorted order), written once: ``sorted/items.jsonl`` origin by origin, and
``random/items.jsonl`` the same lines shuffled (``--seed``; kept in ``--work`` and used
again by a run of the same sizes). The crawl is a stand-in
that puts each origin's documents in the recheck's store as the crawl does (its
seconds are printed apart: ``fetch``); the rest is the command as a user runs it, with
``--report``, ``--out``, ``--removed``, ``--summary`` and ``--trail`` (``--no-trail``:
without it) and ``REP_RECHECK_PARSED_ORIGINS`` = ``--parsed``.

Printed per order: the seconds (the whole command, and its fetch; wall and CPU time:
the CPU time is the fairer measure on a shared machine), the origins parsed
(made from their compact form) and the parses per origin (mean and most), peak RSS
(``resource.getrusage``), and per output two SHA-256 checksums: of the file as written,
and an order-free one (the sum of each line's SHA-256, modulo 2**256; a report's or
trail's line numbers read as the item's ``id``, the trail's run ids, times, chain and
places (a site's records', its tree head's root) left out): the same order-free
checksum in both orders is the same decision for every item; the same checksum as
written is the same bytes. ``--reference`` runs the random
order a third time with every origin parsed at once (``REP_RECHECK_PARSED_ORIGINS``
above the origins: decided in the dataset's order, nothing grouped): its checksums as
written must be the random order's (only for origins that fit in memory: about 21 KB
each). Report with the load average (printed before and after): the machine is shared.

``--crowd N``: N items more of the first origin, a big site (shuffled, its group holds
most of them: decided as it is read, never held whole).

Usage: ``python benchmarks/recheck_order.py --items 2000000 --origins 200000
[--parsed 20000] [--crowd N] [--no-trail] [--reference] [--work DIR]``
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from array import array
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recheck import corpus
from recheck_memory import CORPUS, documents

#: The outputs written, by option.
OUTPUTS = ("report", "out", "removed", "summary", "trail")


def write_datasets(work: Path, files: list[tuple[bytes, list[str]]], origins: int,
                   items: int, seed: int, crowd: int = 0) -> None:  # fmt: skip
    """``sorted/items.jsonl`` and ``random/items.jsonl``: the same lines, origin by origin
    and shuffled; ``random/order`` the sorted place of each random line (4 bytes each).
    ``crowd``: as many items more of the first origin (a big site), its own pages."""
    each = -(-items // origins)
    lines = []
    for number in range(items):
        origin, turn = divmod(number, each)
        paths = files[origin % len(files)][1]
        url = f"https://o{origin}.example/{paths[turn % len(paths)]}"
        lines.append(json.dumps({"url": url, "id": len(lines)}) + "\n")
        if number == each - 1:  # the first origin's last item: the crowd after it
            for page in range(crowd):
                url = f"https://o0.example/crowd/{page}"
                lines.append(json.dumps({"url": url, "id": len(lines)}) + "\n")
    items = len(lines)
    for order in ("sorted", "random"):
        (work / order).mkdir(parents=True, exist_ok=True)
    with (work / "sorted" / "items.jsonl").open("w") as file:
        file.writelines(lines)
    places = array("I", range(items))
    random.Random(seed).shuffle(places)  # type: ignore[arg-type]
    with (work / "random" / "items.jsonl").open("w") as file:
        file.writelines(lines[place] for place in places)
    (work / "random" / "order").write_bytes(places.tobytes())


def one(args: argparse.Namespace) -> None:
    """One recheck in this process (its folder the current one): a JSON line."""
    from rep_recheck.command import FetchRequest, FetchResult, main
    from rep_recheck.store import DocumentStore

    files = corpus(args.corpus)
    store = DocumentStore(args.parsed)
    fetch = [0.0, 0.0]

    def fetcher(request: FetchRequest) -> FetchResult:
        started, cpu = time.monotonic(), time.process_time()
        wanted = set(request.origins)
        for name, found in documents(files, args.origins):
            if name in wanted:
                store[name] = found
        fetch[:] = [time.monotonic() - started, time.process_time() - cpu]
        return FetchResult(documents=store)

    argv = ["items.jsonl", "--purpose", "ai-train", "-A", "mybot", "--no-progress",
            "--report=report.jsonl", "--out=kept.jsonl", "--removed=removed.jsonl",
            "--summary=summary.md", "-s", f"REP_RECHECK_PARSED_ORIGINS={args.parsed}",
            *([] if args.no_trail else ["--trail=trail.jsonl"])]  # fmt: skip
    started, cpu = time.monotonic(), time.process_time()
    code = main(argv, io.StringIO(), fetcher)
    seconds, cpu = time.monotonic() - started, time.process_time() - cpu
    times = store.parsed_times()
    print(json.dumps({
        "exit": code, "seconds": round(seconds, 1), "fetch_seconds": round(fetch[0], 1),
        "cpu_seconds": round(cpu, 1), "fetch_cpu_seconds": round(fetch[1], 1),
        "parses": store.parses, "origins_parsed": sum(times.values()),
        "most_parses": max(times, default=0),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }))  # fmt: skip


def checksums(folder: Path, ids: Any) -> dict[str, tuple[str, str]]:
    """Each output's SHA-256 as written and its order-free checksum (``ids``: the sorted
    place of each line of the dataset, ``None``: the line's own place)."""
    found = {}
    names = {"report": "report.jsonl", "out": "kept.jsonl", "removed": "removed.jsonl",
             "summary": "summary.md", "trail": "trail.jsonl"}  # fmt: skip
    for output, name in names.items():
        path = folder / name
        if not path.exists():
            continue
        whole = hashlib.sha256()
        free = 0
        with path.open("rb") as file:
            for raw in file:
                whole.update(raw)
                free += int.from_bytes(
                    hashlib.sha256(_order_free(output, raw, ids)).digest(), "big"
                )
        found[output] = (whole.hexdigest(), f"{free % 2**256:064x}")
    return found


def _order_free(output: str, raw: bytes, ids: Any) -> bytes:
    """A line as the order-free checksum reads it."""
    if output == "summary" and raw.startswith(b"Trail: "):
        return b"Trail:"  # its path and head
    if output not in ("report", "trail"):
        return raw
    line = json.loads(raw)
    # the trail's chain and places: a site's records' (site_prev, last) and the tree's
    # (root, frontier) follow the order the lines were written in
    for key in ("run", "time", "prev", "site_prev", "last", "root", "frontier"):
        line.pop(key, None)
    if line.get("type") == "run":
        line.get("settings", {}).pop("REP_RECHECK_PARSED_ORIGINS", None)
    if "line" in line:
        line["line"] = ids[line["line"] - 1] if ids is not None else line["line"] - 1
    return json.dumps(line, sort_keys=True).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--origins", type=int, default=20_000)
    parser.add_argument("--parsed", type=int, default=2_000, help="REP_RECHECK_PARSED_ORIGINS")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--crowd", type=int, default=0, help="items more of the first origin")
    parser.add_argument("--no-trail", action="store_true", help="without --trail")
    parser.add_argument("--reference", action="store_true", help="the random order again, "
                        "every origin parsed at once (nothing grouped)")  # fmt: skip
    parser.add_argument("--work", type=Path, help="where the datasets and outputs go "
                        "(default: a temporary folder, removed)")  # fmt: skip
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args)
        return
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(), flush=True)
    work = args.work or Path(tempfile.mkdtemp(prefix="recheck-order-"))
    try:
        started = time.monotonic()
        made = f"{args.items} {args.origins} {args.seed} {args.crowd}"
        if (work / "made").exists() and (work / "made").read_text() == made:
            print("datasets as written before (--work)", flush=True)
        else:
            write_datasets(work, corpus(args.corpus), args.origins, args.items, args.seed,
                           args.crowd)  # fmt: skip
            (work / "made").write_text(made)
            crowd = f" and {args.crowd:,} more of one" if args.crowd else ""
            print(f"datasets written: {args.items:,} items over {args.origins:,} origins"
                  f"{crowd} ({time.monotonic() - started:,.0f} s)", flush=True)  # fmt: skip
        for folder in ("sorted", "random", "reference"):  # a run's outputs, not read again
            for output in ("report.jsonl", "kept.jsonl", "removed.jsonl", "summary.md",
                           "trail.jsonl"):  # fmt: skip
                (work / folder / output).unlink(missing_ok=True)
            shutil.rmtree(work / folder / "trail.jsonl.d", ignore_errors=True)
        runs = [("sorted", "sorted", args.parsed), ("random", "random", args.parsed)]
        if args.reference:
            shutil.copytree(work / "random", work / "reference")
            runs.append(("reference", "reference", args.origins + 1))
        results: dict[str, dict[str, Any]] = {}
        order = array("I")
        order.frombytes((work / "random" / "order").read_bytes())
        for name, folder, parsed in runs:
            command = [sys.executable, __file__, "--one", "--items", str(args.items),
                       "--origins", str(args.origins), "--parsed", str(parsed),
                       "--corpus", str(args.corpus),
                       *(["--no-trail"] if args.no_trail else [])]  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True, cwd=work / folder)
            if done.returncode:
                print(done.stderr[-3000:], flush=True)
                raise SystemExit(1)
            said = json.loads(done.stdout.strip().splitlines()[-1])
            said["parses_per_origin"] = round(said["parses"] / max(1, said["origins_parsed"]), 3)
            said["load"] = os.getloadavg()[0]
            ids = None if name == "sorted" else order
            said["checksums"] = checksums(work / folder, ids)
            results[name] = said
            print(json.dumps({"order": name, "items": args.items, "origins": args.origins,
                              "parsed_origins": parsed, **said}), flush=True)  # fmt: skip
        random_, sorted_ = results["random"], results["sorted"]
        free_same = all(random_["checksums"][k][1] == sorted_["checksums"][k][1]
                        for k in sorted_["checksums"])  # fmt: skip
        print(json.dumps({
            "ratio_random_sorted": round(random_["seconds"] / sorted_["seconds"], 3),
            "ratio_without_fetch": round((random_["seconds"] - random_["fetch_seconds"])
                                         / (sorted_["seconds"] - sorted_["fetch_seconds"]), 3),
            "cpu_ratio_random_sorted": round(random_["cpu_seconds"] / sorted_["cpu_seconds"], 3),
            "same_decisions_both_orders": free_same,
            **({"random_same_bytes_as_reference": all(
                random_["checksums"][k][0] == results["reference"]["checksums"][k][0]
                for k in ("report", "out", "removed"))
                and random_["checksums"].get("trail", ("", ""))[1]
                == results["reference"]["checksums"].get("trail", ("", ""))[1]}
               if "reference" in results else {}),
        }))  # fmt: skip
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(), flush=True)


if __name__ == "__main__":
    main()
