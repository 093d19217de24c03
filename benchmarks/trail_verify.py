"""``audit verify`` on large trails: time and peak memory against the number of origins
and of findings.

Writes trails of one run (``tests/support/trailfactory.py``: ``write_many_origins``): N records
over 10 origins and over 10,000, each origin with its own robots.txt snapshot (``--rules``
more Disallow lines each: 30 by default, about 1 KB, a real file's size), the records
taking the origins in turn as a crawl interleaves them; and the 10-origin trail with every
decision reversed (one or two findings each). Each is verified by
``python -m scrapy_rep audit verify`` in a fresh process (its output to /dev/null),
median of ``--rounds``; wall and CPU seconds, and the process's peak RSS (``wait4``).
``--corpus DIR``: real robots.txt files instead (``../shared/corpus/real``).

    python benchmarks/trail_verify.py                      # 1,000,000 records
    python benchmarks/trail_verify.py --records 200000 --code ../main   # another checkout

``--code DIR`` runs the verify of that checkout (its ``PYTHONPATH``, from its folder):
the code before a change against the code after it, on the same trails.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent


def verify_once(trail: Path, code: Path) -> tuple[float, float, float, int]:
    """Wall s, CPU s, peak RSS MB and exit status of one ``audit verify``."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    command = [sys.executable, "-m", "scrapy_rep", "audit", "verify", str(trail)]
    start = time.perf_counter()
    # run from the checkout: ``-m`` puts the working directory first on sys.path
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, cwd=code)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, process.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--origins", type=int, nargs="+", default=[10, 10_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--rules", type=int, default=30, help="Disallow lines more per robots.txt (default 30)"
    )
    parser.add_argument("--code", type=Path, action="append", default=[])
    parser.add_argument(
        "--corpus",
        type=Path,
        help="real robots.txt files (e.g. ../shared/corpus/real) instead of generated ones",
    )
    parser.add_argument("--no-findings", action="store_true", help="skip the wrong trail")
    options = parser.parse_args()
    sys.path.insert(0, str(CHECKOUT))
    from tests.support.trailfactory import write_many_origins

    codes = options.code or [CHECKOUT]
    bodies: tuple[bytes, ...] = ()
    if options.corpus:
        files = sorted(p for p in options.corpus.rglob("*") if p.is_file())
        bodies = tuple(p.read_bytes() for p in files)
        print(f"# {len(bodies)} robots.txt files from {options.corpus}")
    with tempfile.TemporaryDirectory() as folder:
        trails = []
        for origins in options.origins:
            start = time.perf_counter()
            path = Path(folder) / f"o{origins}.jsonl"
            write_many_origins(path, origins, options.records, rules=options.rules, bodies=bodies)
            trails.append((f"{origins} origins, clean", path))
            took = time.perf_counter() - start
            size = path.stat().st_size / 1e6
            print(f"# wrote {path.name}: {options.records} records, {size:.0f} MB, {took:.0f} s")
        if not options.no_findings:
            path = Path(folder) / "wrong.jsonl"
            origins = min(options.origins)
            write_many_origins(
                path, origins, options.records, wrong=True, rules=options.rules, bodies=bodies
            )
            trails.append((f"{origins} origins, every decision reversed", path))
        print("| code | trail | records | wall s | CPU s | peak RSS MB | exit |")
        print("|---|---|---|---|---|---|---|")
        for code in codes:
            for label, path in trails:
                runs = [verify_once(path, code) for _ in range(options.rounds)]
                wall = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[1] for r in runs)
                rss = max(r[2] for r in runs)
                print(
                    f"| {code.name} | {label} | {options.records:,} | {wall:.1f} | {cpu:.1f} "
                    f"| {rss:.0f} | {runs[0][3]} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
