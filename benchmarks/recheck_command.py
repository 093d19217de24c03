"""The whole recheck command against the filter a dataset builder writes by hand, end to
end (docs/recheck.md, "Scale"): CPU seconds, peak RSS and items a second of
``python -m rep_recheck DATASET --purpose search --documents W.warc.gz --out kept.jsonl``
(and with every output: ``--removed --report --summary --trail``), each run in a fresh
process, interleaved with :func:`hand_written_filter` (warcio over the WARC, each
origin's 200 body kept in a dict, Protego parsing it on the origin's first item,
``can_fetch(url, "*")`` per item, the kept lines written out), ``--rounds`` rounds, the
load average printed before each (a warning at 1.0 or more: read the CPU seconds, the
wall seconds move with the load).

The WARC: ``--origins`` N robots.txt captures (100,000; ``--million`` adds a shape of
1,000,000), one gzip member per record as Common Crawl writes them (warcio), origin
``https://oN.example`` given one of the corpus's real files (``../shared/corpus/real``),
each body made unique by a last comment line naming its origin. The corpus holds every
file of 20 KB or more of its sources (160, 8 % of its files) and a sample of the others;
they are 1.3 % of the sources' files, and Protego's parse of one takes about 36 times a
small one's: ``--big-share`` (0.013) of the origins, spread evenly, get one of them (in
turn), the others a small one (in turn); ``--big-share 0.08`` weighs them as the corpus
does. A few captures are what a crawl of the web also meets (:func:`capture_of`): of
each 200 origins, 4 a 404, 2 a 503, 1 a ``Content-Signal: search=no`` group added and 1
cut (``WARC-Truncated: length``, half its body). The datasets (``--per-origin`` K, 2 and
20): K items an origin, the file's own URLs on its host, as JSON Lines (``{"url": …,
"id": N}``), over the first ``min(N, 2N / K)`` origins (K = 20: a tenth of the WARC's
origins, 2N items), sorted by origin and shuffled (``--seed``); written once in
``--work`` and used again by a run of the same sizes. The 1,000,000-origin shape runs
the command only (the hand-written filter holds every body in memory).

Printed per shape and order: each run's CPU seconds (user + sys of the child, from its
rusage, forked from a small launcher: :data:`LAUNCHER`) by round and their median, wall
seconds, peak RSS, items a second per core (of CPU), the median of the per-round ratios
(the filter's CPU over the command's: the command's speed as a multiple of the filter's;
every output's CPU over ``--out``'s) and their spread; the SHA-256 of the command's kept
and removed lines (the same in every round and in the ``--out`` run, so a change can
show the same output) and their order-free checksums (the same sorted and shuffled: the
same decision for every item); the targets met or not; and the kept sets compared, each
difference named by its cause as the engine's report says why (usage signals,
5xx/unreachable, cut documents; a robots.txt line: the crawler's own group,
``Scrapy``'s, or Google's reading against Protego's, by asking Protego with the
crawler's name too).

``--profile``: instead, the filter, one ``--out`` run and one every-output run of the
first shape sorted, each under cProfile in a fresh process: each one's call tree (the
calls of ``--share`` of its time or more, with calls per item: where the WARC's read,
its index, each capture's entry, the parse, the decisions, the writes, the report and
the trail take it) and the functions of most own time. ``--readers``: the WARC's records
read by warcio and by FastWARC (if installed), each in a fresh process.

Usage: ``python benchmarks/recheck_command.py [--origins N] [--per-origin 2,20]
[--million] [--rounds 3] [--work DIR] [--profile [--share 0.02]] [--readers]
[--json FILE]``
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[1] / "shared" / "corpus"
#: The least size of a big robots.txt file (the corpus holds every one of its sources').
BIG = 20_000
#: The origins of the large shape (``--million``), where only the command runs.
MILLION = 1_000_000
#: What each run is: the hand-written filter, the command with ``--out``, and with every
#: output.
VARIANTS = ("filter", "out", "every")
EVERY = ["--removed=removed.jsonl", "--report=report.jsonl", "--summary=summary.md",
         "--trail=trail.jsonl"]  # fmt: skip
#: The ratios printed (the second run's CPU over the first's), the targets' two first.
FASTER, DEARER = "--out's speed / the filter's", "every output's CPU / --out's"
RATIOS = {FASTER: ("out", "filter"), DEARER: ("out", "every"),
          "every output's speed / the filter's": ("every", "filter")}  # fmt: skip
#: Where a profile's tree starts: the command's run, the filter.
ROOTS = (("command.py", "run"), ("recheck_command.py", "hand_written_filter"))


def hand_written_filter(dataset: str, warc: str, out: str) -> None:
    """The filter a dataset builder writes by hand today, the baseline."""
    import json
    from urllib.parse import urlsplit

    from protego import Protego
    from warcio.archiveiterator import ArchiveIterator

    bodies = {}  # each origin's robots.txt, as captured with a 200
    with open(warc, "rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type != "response" or record.http_headers is None:
                continue
            if record.http_headers.get_statuscode() != "200":
                continue
            url = urlsplit(record.rec_headers.get_header("WARC-Target-URI"))
            body = record.content_stream().read()
            bodies[f"{url.scheme}://{url.netloc}"] = body.decode("utf-8", "replace")
    parsed = {}  # each origin's Protego, parsed on its first item
    with open(dataset, "rb") as items, open(out, "wb") as kept:
        for line in items:
            url = json.loads(line)["url"]
            parts = urlsplit(url)
            origin = f"{parts.scheme}://{parts.netloc}"
            if origin not in parsed:
                body = bodies.get(origin)
                parsed[origin] = Protego.parse(body) if body is not None else None
            robots = parsed[origin]
            if robots is None or robots.can_fetch(url, "*"):
                kept.write(line)


# ------------------------------------------------------------------------- the inputs


def assigned(args: argparse.Namespace, origins: int) -> list[tuple[bytes, list[str]]]:
    """Each origin's real file (its body and URLs' paths): one of 20 KB or more for a
    ``--big-share`` of the origins, spread evenly, else one of the others, each kind's
    files in turn."""
    sys.path.insert(0, str(HERE))
    from recheck import corpus

    files = corpus(args.corpus)
    if args.max_bytes:
        files = [file for file in files if len(file[0]) < args.max_bytes]
    big = [file for file in files if len(file[0]) >= BIG] or files
    small = [file for file in files if len(file[0]) < BIG]
    share = round(args.big_share * 1000)
    return [big[n % len(big)] if n * 7919 % 1000 < share else small[n % len(small)]
            for n in range(origins)]  # fmt: skip


def capture_of(number: int, files: list[tuple[bytes, list[str]]]) -> tuple[int, bytes, str]:
    """Origin ``number``'s capture: its status, body and what it is (``200``, ``404``,
    ``503``, ``content-signal``, ``cut``)."""
    body = files[number % len(files)][0] + b"\n# https://o%d.example\n" % number
    kind = {7: "503", 107: "503", 13: "404", 63: "404", 113: "404", 163: "404",
            21: "content-signal", 42: "cut"}.get(number % 200, "200")  # fmt: skip
    if kind in ("503", "404"):
        return int(kind), b"<html>not here</html>", kind
    if kind == "content-signal":
        body += b"User-agent: *\nContent-Signal: search=no\n"
    return 200, body, kind


def write_warc(path: Path, files: list[tuple[bytes, list[str]]], origins: int) -> dict[str, int]:
    """The WARC of ``origins`` captures, one gzip member per record; the captures by kind."""
    import io

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    kinds: dict[str, int] = {}
    with path.open("wb") as file:
        writer = WARCWriter(file, gzip=True)
        for number in range(origins):
            status, body, kind = capture_of(number, files)
            kinds[kind] = kinds.get(kind, 0) + 1
            headers = [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))]
            warc = {"WARC-Date": "2025-04-01T12:00:00Z"}
            if kind == "cut":
                body, warc["WARC-Truncated"] = body[: len(body) // 2], "length"
            http = StatusAndHeaders(f"{status} X", headers, protocol="HTTP/1.1")
            record = writer.create_warc_record(
                f"https://o{number}.example/robots.txt", "response", payload=io.BytesIO(body),
                http_headers=http, warc_headers_dict=warc,
            )  # fmt: skip
            writer.write_record(record)
    return kinds


def inputs(args: argparse.Namespace, origins: int, per_origin: int) -> tuple[Path, Path, int]:
    """The WARC and the datasets' folder of a shape (written unless ``--work`` holds them
    already), and the items."""
    sys.path.insert(0, str(HERE))
    from recheck_order import write_datasets

    files = assigned(args, origins)
    name = f"w{origins}-{args.big_share:g}-{args.max_bytes}"
    warc, made = args.work / f"{name}.warc.gz", args.work / f"{name}.made"
    if not made.exists():
        started = time.monotonic()
        kinds = write_warc(warc, files, origins)
        made.write_text(json.dumps(kinds))
        print(f"WARC written: {origins:,} captures, {warc.stat().st_size / 2**20:,.0f} MiB "
              f"({time.monotonic() - started:,.0f} s); by kind {made.read_text()}",
              flush=True)  # fmt: skip
    covered = min(origins, 2 * origins // per_origin)
    items = covered * per_origin
    folder = args.work / f"d{origins}-{args.big_share:g}-{args.max_bytes}x{per_origin}"
    stamp = f"{items} {covered} {args.seed}"
    if not (folder / "made").exists() or (folder / "made").read_text() != stamp:
        write_datasets(folder, files, covered, items, args.seed)
        (folder / "made").write_text(stamp)
    for order in ("sorted", "random"):  # into the page cache before the clocks
        with (folder / order / "items.jsonl").open("rb") as file:
            while file.read(1 << 20):
                pass
    return warc, folder, items


# ------------------------------------------------------------------------- the runs


#: Runs a command in a process of its own and writes its exit status, wall and CPU seconds
#: and peak RSS: forked from this small process, not from the benchmark's (a child's peak
#: RSS counts its parent's at the fork, which an exec keeps).
LAUNCHER = """import json, os, sys, time
started = time.monotonic()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as file:
    json.dump([os.waitstatus_to_exitcode(status), time.monotonic() - started,
               usage.ru_utime + usage.ru_stime, usage.ru_maxrss], file)
"""


def measured(command: list[str], cwd: Path) -> dict[str, Any]:
    """``command`` run in ``cwd`` (a fresh process): its wall and CPU seconds (user +
    sys) and peak RSS, from its own rusage."""
    for name in ("kept.jsonl", "removed.jsonl", "report.jsonl", "summary.md", "trail.jsonl"):
        (cwd / name).unlink(missing_ok=True)
    shutil.rmtree(cwd / "trail.jsonl.d", ignore_errors=True)  # its snapshots: none kept
    with (cwd / "stdout").open("wb") as out, (cwd / "stderr").open("wb") as err:
        subprocess.run([sys.executable, "-c", LAUNCHER, cwd / "usage", *command], cwd=cwd,
                       stdout=out, stderr=err, check=True)  # fmt: skip
    code, wall, cpu, rss = json.loads((cwd / "usage").read_text())
    if code not in (0, 1):  # the command's 1: some items removed
        raise SystemExit(f"{' '.join(command)} failed ({code}):\n"
                         f"{(cwd / 'stderr').read_text()[-3000:]}")  # fmt: skip
    return {"wall": round(wall, 2), "cpu": round(cpu, 2), "rss_mib": round(rss / 1024, 1)}


def command_of(variant: str, dataset: Path, warc: Path) -> list[str]:
    """The command line of a run."""
    python = sys.executable
    if variant == "filter":
        return [python, __file__, "--filter", str(dataset), str(warc), "kept.jsonl"]
    return [python, "-m", "rep_recheck", str(dataset), "--purpose", "search", "--documents",
            str(warc), "--out=kept.jsonl", *(EVERY if variant == "every" else [])]  # fmt: skip


def load_line() -> float:
    """The load average printed, with a warning when the machine is not quiet."""
    load = os.getloadavg()
    print(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    if load[0] >= 1.0:
        print(f"WARNING: load average {load[0]:.2f} (1.0 or more): other work is running; "
              "the CPU seconds hold better than the wall seconds", flush=True)  # fmt: skip
    return load[0]


def rounds(args: argparse.Namespace, shapes: list[tuple[int, int]]) -> dict[str, Any]:
    """Every shape's runs, ``--rounds`` rounds, interleaved; the figures by shape."""
    from recheck_order import checksums

    found: dict[str, Any] = {"loads": [], "shapes": {}}
    prepared = {shape: inputs(args, *shape) for shape in shapes}
    for round_ in range(args.rounds):
        print(f"round {round_ + 1} of {args.rounds}", flush=True)
        found["loads"].append(load_line())
        for (origins, per_origin), (warc, folder, items) in prepared.items():
            for order in ("sorted", "random"):
                name = f"{origins}x{per_origin} {'sorted' if order == 'sorted' else 'shuffled'}"
                shape = found["shapes"].setdefault(name, {"items": items, "runs": {}})
                variants = VARIANTS if origins < MILLION else VARIANTS[1:]
                for variant in variants:
                    cwd = folder / order / variant
                    cwd.mkdir(exist_ok=True)
                    run = measured(command_of(variant, folder / order / "items.jsonl", warc), cwd)
                    ids = _order(folder) if order == "random" else None
                    run["checksums"] = checksums(cwd, ids)
                    shape["runs"].setdefault(variant, []).append(run)
                    print(f"  {name} {variant}: {run['cpu']:.1f} s CPU, {run['wall']:.1f} s, "
                          f"{run['rss_mib']:,.0f} MiB", flush=True)  # fmt: skip
                if round_ == 0 and order == "sorted" and "filter" in variants:
                    shape["differences"] = differences(args, origins, folder)
    return found


def _order(folder: Path) -> Any:
    from array import array

    order = array("I")
    order.frombytes((folder / "random" / "order").read_bytes())
    return order


# ------------------------------------------------------------------------- the results


def figures(found: dict[str, Any]) -> None:
    """Each shape's medians, ratios, checksums and targets, printed (and added)."""
    for name, shape in found["shapes"].items():
        runs, items = shape["runs"], shape["items"]
        print(f"\n{name}: {items:,} items")
        for variant, each in runs.items():
            cpu = [run["cpu"] for run in each]
            median = statistics.median(cpu)
            rss = max(run["rss_mib"] for run in each)
            shown = ", ".join(f"{c:.1f}" for c in cpu)
            print(f"  {variant:6} CPU {median:8.1f} s (rounds {shown}), wall "
                  f"{statistics.median(r['wall'] for r in each):.1f} s, peak RSS {rss:,.0f} "
                  f"MiB, {items / median:,.0f} items/s per core")  # fmt: skip
        ratios = {}
        for said, (ours, theirs) in RATIOS.items():
            if ours in runs and theirs in runs:
                each = [b["cpu"] / a["cpu"] for a, b in zip(runs[ours], runs[theirs], strict=True)]
                ratios[said] = round(statistics.median(each), 3)
                print(f"  {said}: median {statistics.median(each):.2f}x "
                      f"(rounds {', '.join(f'{r:.2f}' for r in each)}; "
                      f"spread {min(each):.2f}-{max(each):.2f})")  # fmt: skip
        shape["ratios"] = ratios
        _same_output(name, runs)
        _targets(name, shape)
    _orders_agree(found)
    for name, shape in found["shapes"].items():
        if "differences" in shape:
            _print_differences(name, shape["differences"])


def _same_output(name: str, runs: dict[str, list[dict[str, Any]]]) -> None:
    every = runs["every"][0]["checksums"]
    for output in ("out", "removed"):
        print(f"  {output} SHA-256 {every[output][0]} (order-free {every[output][1][:16]}…)")
    same = all(run["checksums"][k][0] == every[k][0] for k in ("out", "removed")
               for run in runs["every"]) and all(
        run["checksums"]["out"][0] == every["out"][0] for run in runs["out"])  # fmt: skip
    print(f"  the same kept and removed lines in every round and in the --out run: "
          f"{'yes' if same else 'NO'}")  # fmt: skip


def _orders_agree(found: dict[str, Any]) -> None:
    shapes = found["shapes"]
    for name, shape in shapes.items():
        if name.endswith(" sorted"):
            other = shapes.get(name.replace(" sorted", " shuffled"))
            if other:
                mine, theirs = shape["runs"]["every"][0], other["runs"]["every"][0]
                same = all(mine["checksums"][k][1] == theirs["checksums"][k][1]
                           for k in ("out", "removed", "report"))  # fmt: skip
                shape["orders_agree"] = same
                print(f"{name.removesuffix(' sorted')}: the same decisions sorted and "
                      f"shuffled (order-free checksums): {'yes' if same else 'NO'}")  # fmt: skip


def _targets(name: str, shape: dict[str, Any]) -> None:
    """The targets set for the command end to end: ``--out`` at least twice the filter's
    speed, every output at most 1.5 times ``--out``'s CPU, 10,000 items a second per
    core with every output at 1,000,000 origins, the command's peak RSS at most 1 GiB."""
    runs, ratios, items = shape["runs"], shape["ratios"], shape["items"]
    said = []
    if FASTER in ratios:
        said.append(("--out at least 2x the filter's speed", ratios[FASTER] >= 2))
    if DEARER in ratios:
        said.append(("every output at most 1.5x --out's CPU", ratios[DEARER] <= 1.5))
    if name.startswith(f"{MILLION}x"):
        rate = items / statistics.median(run["cpu"] for run in runs["every"])
        said.append(("10,000 items/s per core with every output", rate >= 10_000))
    rss = max(run["rss_mib"] for variant in ("out", "every") for run in runs[variant])
    said.append(("the command's peak RSS at most 1 GiB", rss <= 1024))
    for what, met in said:
        print(f"  {'met' if met else 'NOT met'}: {what}")


# ------------------------------------------------------------------------- the differences


def differences(args: argparse.Namespace, origins: int, folder: Path) -> dict[str, Any]:
    """The items the filter and the command keep differently (the sorted dataset), each
    named by its cause as the command's report says why."""
    from protego import Protego

    files = assigned(args, origins)

    def kept(path: Path) -> set[int]:
        with path.open("rb") as file:
            return {json.loads(line)["id"] for line in file}

    theirs = kept(folder / "sorted" / "filter" / "kept.jsonl")
    ours = kept(folder / "sorted" / "every" / "kept.jsonl")
    causes: dict[str, dict[str, Any]] = {}
    parsed: dict[int, Any] = {}
    with (folder / "sorted" / "every" / "report.jsonl").open("rb") as file:
        for number, raw in enumerate(file):
            if (number in ours) == (number in theirs):
                continue
            line = json.loads(raw)
            origin = int(re.match(r"https?://o(\d+)\.", line["url"])[1])  # type: ignore[index]
            if origin not in parsed:
                body = capture_of(origin, files)[1].decode("utf-8", "replace")
                parsed[origin] = Protego.parse(body)
            named = parsed[origin].can_fetch(line["url"], "Scrapy") == (number in ours)
            cause = _cause(line, named)
            entry = causes.setdefault(cause, {"items": 0, "origins": set(), "example": line})
            entry["items"] += 1
            entry["origins"].add(origin)
    for entry in causes.values():
        entry["origins"] = len(entry["origins"])
    return {"kept_by_filter": len(theirs), "kept_by_command": len(ours),
            "only_filter": len(theirs - ours), "only_command": len(ours - theirs),
            "causes": causes}  # fmt: skip


def _cause(line: dict[str, Any], named: bool) -> str:
    """Why the command decided an item otherwise than the filter, from its report line
    (``named``: Protego asked with the crawler's name, ``Scrapy``, decides as the command)."""
    why = line.get("why") or ""
    if line.get("signal") == "robotstxt_unreachable":
        return "5xx/unreachable (robots.txt captured as a 5xx: everything disallowed)"
    if line["status"] == "unknown":
        if "was cut" in why:
            return "cut document (cut before 500 KiB: its lines may refuse, never allow)"
        return "unknown: " + re.sub(r"https?://\S+|<urn:\S+>", "…", why)[:100]
    if line["status"] == "refused" and line.get("signal") not in ("robots.txt", None):
        return f"usage signal ({line['signal']}: {line.get('text', '')})"
    if named:
        return "the crawler's own group (Protego asked for Scrapy decides as the command)"
    return "Google's reading against Protego's (robots.txt)"


def _print_differences(name: str, found: dict[str, Any]) -> None:
    print(f"\n{name}: kept by the filter {found['kept_by_filter']:,}, by the command "
          f"{found['kept_by_command']:,}; only by the filter {found['only_filter']:,}, only by "
          f"the command {found['only_command']:,}")  # fmt: skip
    for cause, entry in sorted(found["causes"].items(), key=lambda kv: -kv[1]["items"]):
        example = entry["example"]
        print(f"  {entry['items']:,} items of {entry['origins']:,} origins: {cause}")
        print(f"    e.g. {example['url']}: {example['status']}, "
              f"{example.get('text', '')[:140]}")  # fmt: skip


# ------------------------------------------------------------------------- profiles


def profiles(args: argparse.Namespace, origins: int, per_origin: int) -> None:
    """The filter, one ``--out`` run and one every-output run, each under cProfile in a
    fresh process: each one's call tree (the calls of ``--share`` of its time or more)
    and hottest functions, with calls per item. cProfile's clock is the wall's: on a
    busy machine read the shares."""
    import pstats

    warc, folder, items = inputs(args, origins, per_origin)
    load_line()
    for variant in VARIANTS:
        cwd = folder / "sorted" / f"profile-{variant}"
        cwd.mkdir(exist_ok=True)
        plain = measured(command_of(variant, folder / "sorted" / "items.jsonl", warc), cwd)
        python = [sys.executable, "-m", "cProfile", "-o", str(cwd / "profile")]
        command = command_of(variant, folder / "sorted" / "items.jsonl", warc)[1:]
        profiled = measured(python + command, cwd)
        print(f"\n{origins:,}x{per_origin} sorted, {variant}: {items:,} items; {plain['cpu']:.1f}"
              f" s CPU without the profiler, {profiled['cpu']:.1f} s with it")  # fmt: skip
        stats = pstats.Stats(str(cwd / "profile"))
        table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
        total = sum(own for _, _, own, _, _ in table.values())
        print(f"  where the time goes (cumulative s under the profiler, of {total:.1f} s; the "
              f"share; calls an item), each call of {args.share:.0%} of it or more:")  # fmt: skip
        callees: dict[Any, Any] = {}
        for callee, (*_, cum, callers) in table.items():
            callees["~", callee] = cum
            for caller, (calls, _, _, edge) in callers.items():
                callees.setdefault(caller, []).append((edge, calls, callee))
        root = max((key for key in table if (Path(key[0]).name, key[2]) in ROOTS),
                   key=lambda key: table[key][3])  # fmt: skip
        _tree(callees, (table[root][3], 1, root), total * args.share, total, items, ())
        print("  the 25 functions of most own time (own s, cumulative s, calls per item):")
        ranked = sorted(table.items(), key=lambda kv: -kv[1][2])[:25]
        for (path, line, name), (_, calls, own, cum, _) in ranked:
            where = f"{'/'.join(Path(path).parts[-2:])}:{line}" if line else path
            print(f"    {own:7.2f} {cum:7.2f} {calls / items:8.2f}  {name} ({where})")


def _tree(callees: dict[Any, Any], node: tuple[float, int, Any], least: float, total: float,
          items: int, path: tuple[Any, ...]) -> None:  # fmt: skip
    """A profile's call tree from ``node`` (its calls taking ``least`` seconds or more).
    cProfile keeps one level of callers: a function's calls are shared among its callers
    in the ratio of their time in it."""
    cum, calls, key = node
    where = f"{'/'.join(Path(key[0]).parts[-2:])}:{key[1]}" if key[1] else "~"
    print(f"    {'  ' * len(path)}{cum:6.1f} s {cum / total:4.0%} {calls / items:6.2f}  "
          f"{key[2]} ({where})")  # fmt: skip
    whole = callees["~", key]  # the function's time from every caller
    share = cum / whole if whole else 0
    for child_cum, child_calls, child in sorted(callees.get(key, []), key=lambda e: -e[0]):
        if child_cum * share >= least and child not in path and len(path) < 12:
            _tree(callees, (child_cum * share, round(child_calls * share), child), least,
                  total, items, (*path, key))  # fmt: skip


def readers(args: argparse.Namespace, origins: int) -> None:
    """The WARC's records (headers and payload) read by warcio and by FastWARC, each in a
    fresh process: CPU seconds."""
    warc, _, _ = inputs(args, origins, 2)
    load_line()
    for reader in ("warcio", "fastwarc"):
        cwd = args.work / f"read-{reader}"
        cwd.mkdir(exist_ok=True)
        try:
            run = measured([sys.executable, __file__, "--read", reader, str(warc)], cwd)
        except SystemExit as failed:
            print(f"{reader}: {str(failed).splitlines()[-1]}")
            continue
        said = (cwd / "stdout").read_text().strip()
        print(f"{reader}: {run['cpu']:.2f} s CPU, {run['wall']:.2f} s, "
              f"{run['rss_mib']:,.0f} MiB; {said}")  # fmt: skip


def read_with(reader: str, warc: str) -> None:
    """Every record of ``warc`` read (its type, target URI, status and payload)."""
    records = payload = 0
    with open(warc, "rb") as stream:
        if reader == "warcio":
            from warcio.archiveiterator import ArchiveIterator

            for record in ArchiveIterator(stream):
                uri = record.rec_headers.get_header("WARC-Target-URI")
                status = record.http_headers.get_statuscode() if record.http_headers else None
                payload += len(record.raw_stream.read())
                records += bool(uri and status)
        else:
            from fastwarc.warc import ArchiveIterator as FastIterator  # type: ignore[import-not-found]

            for record in FastIterator(stream, parse_http=True):
                uri = record.headers.get("WARC-Target-URI")
                status = record.http_headers.status_code if record.http_headers else None
                payload += len(record.reader.read())
                records += bool(uri and status)
    print(f"{records:,} records, {payload:,} payload bytes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--origins", type=int, default=100_000, help="captures in the WARC")
    parser.add_argument("--per-origin", default="2,20", help="items an origin, each a shape")
    parser.add_argument("--million", action="store_true", help="and 1,000,000 origins x 2 items")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=Path, help="where the inputs and outputs go (kept; "
                        "default: a temporary folder, removed)")  # fmt: skip
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--big-share", type=float, default=0.013, help="the share of origins "
                        "given a file of 20 KB or more (their share in the corpus's sources; "
                        "the corpus's own: 0.08)")  # fmt: skip
    parser.add_argument("--max-bytes", type=int, default=0, help="only the corpus's files "
                        "under this size (1000: the common shape)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="the figures as JSON too")
    parser.add_argument("--profile", action="store_true", help="profile the first shape instead")
    parser.add_argument("--share", type=float, default=0.02, help="the least share of a "
                        "call shown in a profile's tree")  # fmt: skip
    parser.add_argument("--readers", action="store_true", help="warcio against FastWARC instead")
    parser.add_argument("--filter", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--read", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # a line as it comes
    if args.filter:
        hand_written_filter(*args.filter)
        return
    if args.read:
        read_with(*args.read)
        return
    shapes = [(args.origins, int(k)) for k in args.per_origin.split(",")]
    shapes += [(MILLION, 2)] if args.million else []
    remove = args.work is None
    args.work = args.work or Path(tempfile.mkdtemp(prefix="recheck-command-"))
    args.work.mkdir(parents=True, exist_ok=True)
    try:
        if args.profile or args.readers:
            profiles(args, *shapes[0]) if args.profile else readers(args, shapes[0][0])
            return
        found = rounds(args, shapes)
        figures(found)
        load_line()
        if args.json:
            args.json.write_text(json.dumps(found, indent=1, default=str))
    finally:
        if remove:
            shutil.rmtree(args.work, ignore_errors=True)


if __name__ == "__main__":
    main()
