"""Smoke test of ``benchmarks/recheck_command.py`` (docs/benchmarks.md, 'The whole
recheck command against a hand-written filter') at a small scale, not timed: every run
finishes, the command's outputs are the same in each run and order, and each item the
hand-written filter keeps otherwise is named by its cause."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.paths import BENCHMARKS

SCRIPT = BENCHMARKS / "recheck_command.py"


def test_recheck_command_benchmark_names_every_difference(tmp_path: Path, corpus_dir: Path) -> None:
    figures_file = tmp_path / "figures.json"
    command = [sys.executable, str(SCRIPT), "--origins=400", "--per-origin=2", "--rounds=1",
               f"--work={tmp_path / 'work'}", f"--corpus={corpus_dir}",
               f"--json={figures_file}"]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "load average: " in run.stdout
    shapes = json.loads(figures_file.read_text())["shapes"]
    assert set(shapes) == {"400x2 sorted", "400x2 shuffled"}
    for shape in shapes.values():
        assert shape["items"] == 800
        assert {variant: len(runs) for variant, runs in shape["runs"].items()} == {
            "filter": 1, "out": 1, "every": 1
        }  # fmt: skip
        out, every = shape["runs"]["out"][0], shape["runs"]["every"][0]
        assert out["checksums"]["out"] == every["checksums"]["out"]  # --out alone: the same
        assert every["cpu"] > 0 and every["rss_mib"] > 0
    assert shapes["400x2 sorted"]["orders_agree"] is True
    found = shapes["400x2 sorted"]["differences"]
    causes = found["causes"]
    assert sum(cause["items"] for cause in causes.values()) == (
        found["only_filter"] + found["only_command"]
    )
    kept_by_both = found["kept_by_filter"] - found["only_filter"]
    assert kept_by_both + found["only_command"] == found["kept_by_command"]
    # Origins 7, 107, 207 and 307 were captured as a 503: the filter, which reads only a
    # 200, keeps their 8 items; the command removes them, as a crawl would.
    unreachable = next(entry for cause, entry in causes.items() if cause.startswith("5xx"))
    assert (unreachable["items"], unreachable["origins"]) == (8, 4)
    named = {cause.split(" (")[0] for cause in causes}
    assert {"cut document", "usage signal"} <= named
