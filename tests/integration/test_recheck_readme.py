"""rep-recheck/README.md's example, run as written (its command line, in a shell, in a
folder of its ``items.jsonl`` and a robots.txt-only ``robots.warc.gz``, as Common Crawl
ships one): it kept nothing for ai-train (every item unknown, no tdmrep.json captured)
and said nothing of it; now it decides on robots.txt alone and says so. The README's
install lines are run in a fresh venv without Scrapy by ``.ci/run`` (job 1c)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from rep_recheck.command import EXIT_REMOVED
from tests.support.recheck import ROBOTSTXT_ONLY_KEPT, readme_collection, readme_example

#: The origins whose robots.txt could not be had, and how they answered.
UNREACHABLE = {"https://down.example": "503", "https://slow.example": "429"}


def test_the_readme_example_as_written_keeps_what_robotstxt_allows(tmp_path: Path) -> None:
    example = readme_example()
    assert "--consult robots.txt" in example and "--purpose ai-train" in example
    readme_collection(tmp_path)
    python = Path(sys.executable).parent  # the example's `python`: this one
    done = subprocess.run(example, shell=True, cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{python}:{os.environ['PATH']}"},
                          check=False, timeout=120)  # fmt: skip
    assert done.returncode == EXIT_REMOVED, done.stderr
    kept = [json.loads(line)["url"] for line in (tmp_path / "kept.jsonl").read_text().splitlines()]
    assert kept == ROBOTSTXT_ONLY_KEPT
    assert "- Not consulted: tdmrep.json, rsl (--consult robots.txt)" in done.stdout
    assert "recheck: Not consulted: tdmrep.json, rsl" in done.stderr
    assert "holds no capture at all" not in done.stderr
    removed = {
        record["url"]: (record["rep_status"], record["rep_why"])
        for record in map(json.loads, (tmp_path / "removed.jsonl").read_text().splitlines())
    }
    assert removed["https://no.example/a"][0] == "refused"
    assert "Content-Usage: train-ai=n" in removed["https://no.example/a"][1]
    assert removed["https://never.example/a"][0] == "unknown"  # not captured: not had
    for origin, status in UNREACHABLE.items():
        said, why = removed[f"{origin}/a"]
        assert said == "refused" and f"captured as {status} in record <urn:uuid:" in why
