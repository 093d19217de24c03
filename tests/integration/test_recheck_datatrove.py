"""The recheck as a datatrove pipeline step (``scrapy_rep.RepRecheckFilter``): run by
datatrove's local executor on 2 tasks, it keeps the same items as ``python -m
scrapy_rep recheck`` on the same documents (a WARC every task reads)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from rep_recheck.command import EXIT_REMOVED
from tests.support.recheck import needs, recheck_tool, robots_capture, write_jsonl, write_warc

ROBOTS = {
    "https://a.example": "User-agent: *\nDisallow: /private\nContent-Usage: /train train-ai=n\n",
    "https://b.example": "User-agent: mybot\nDisallow: /\n",
    "https://c.example": "User-agent: *\nAllow: /\n",
}
PATHS = ("/", "/private/1", "/train/2", "/x", "/y")


def test_two_datatrove_tasks_keep_what_the_command_keeps(tmp_path: Path) -> None:
    needs("datatrove")
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import JsonlReader
    from datatrove.pipeline.writers import JsonlWriter

    from scrapy_rep import RepRecheckFilter

    warc = tmp_path / "robots.warc.gz"
    captures = [robots_capture(origin, text) for origin, text in ROBOTS.items()]
    for origin in ROBOTS:
        captures.append((f"{origin}/.well-known/tdmrep.json", 404, b"", {}))
    write_warc(warc, captures, compress=True)
    urls = [origin + path for origin in [*ROBOTS, "https://d.example"] for path in PATHS]
    shards = tmp_path / "shards"
    shards.mkdir()
    for number in range(2):  # one file per task
        write_jsonl(shards / f"part{number}.jsonl", urls[number::2])
    whole = tmp_path / "items.jsonl"
    write_jsonl(whole, urls)
    out = tmp_path / "kept.jsonl"
    settings = {"USER_AGENT": "mybot/1.0"}
    code, _ = recheck_tool(str(whole), "--purpose", "ai-train", "--documents", str(warc),
                           "-A", settings["USER_AGENT"], f"--out={out}")  # fmt: skip
    assert code == EXIT_REMOVED
    by_command = sorted(json.loads(line)["url"] for line in out.read_text().splitlines())
    written = tmp_path / "written"
    step = RepRecheckFilter(str(warc), "ai-train", settings)
    LocalPipelineExecutor(
        pipeline=[JsonlReader(str(shards), text_key="text", id_key="title"), step,
                  JsonlWriter(str(written), compression="gzip")],
        tasks=2, workers=2, logging_dir=str(tmp_path / "logs"),
    ).run()  # fmt: skip
    by_step = sorted(
        json.loads(line)["metadata"]["url"]
        for path in written.glob("*.jsonl.gz")
        for line in gzip.decompress(path.read_bytes()).decode().splitlines()
    )
    assert by_step == by_command
    assert by_command == sorted(
        [f"https://a.example{p}" for p in ("/", "/x", "/y")]
        + [f"https://c.example{p}" for p in PATHS]
    )  # b: mybot disallowed; d: its robots.txt not captured (unknown, removed)
