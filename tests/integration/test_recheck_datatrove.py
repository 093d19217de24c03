"""The recheck as a datatrove pipeline step (``scrapy_rep.RepRecheckFilter``): run by
datatrove's local executor on 2 tasks, it keeps the same items as ``python -m
scrapy_rep recheck`` on the same documents (a WARC every task reads)."""

from __future__ import annotations

import gzip
import json
import logging
import os
import random
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rep_recheck.command import EXIT_REMOVED
from tests.support.recheck import (
    ROBOTSTXT_ONLY,
    ROBOTSTXT_ONLY_KEPT,
    ROBOTSTXT_ONLY_URLS,
    needs,
    recheck_tool,
    robots_capture,
    robotstxt_only_warc,
    write_jsonl,
    write_warc,
)
from tests.support.tools import audit_streams

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


#: Twelve origins' robots.txt for the partitioned run: a Disallow, a Content-Usage "no"
#: for training, allowed; o9 to o11 not captured (their items unknown).
PARTITIONED = {
    f"https://o{n}.example": (
        "User-agent: *\nDisallow: /private\n",
        "User-agent: *\nContent-Usage: /train train-ai=n\n",
        "User-agent: *\nAllow: /\n",
    )[n % 3]
    for n in range(9)
}


def _partitioned_step(warc: Path, removed: Path) -> Any:
    from datatrove.pipeline.writers import JsonlWriter

    from scrapy_rep import RepRecheckFilter

    return RepRecheckFilter(str(warc), "ai-train", {"USER_AGENT": "mybot/1.0"},
                            exclusion_writer=JsonlWriter(str(removed)))  # fmt: skip


def _partitioned_written(folder: Path) -> list[tuple[str, str]]:
    """The URLs (and ``rep_status``) of the documents written under ``folder``."""
    found = []
    for path in folder.rglob("*.jsonl.gz"):
        for line in gzip.decompress(path.read_bytes()).decode().splitlines():
            metadata = json.loads(line)["metadata"]
            assert "rep_partition" not in metadata  # the partition's tag taken out
            found.append((metadata["url"], metadata.get("rep_status", "kept")))
    return sorted(found)


def test_four_tasks_by_origin_keep_what_one_keeps_each_origin_parsed_once(
    tmp_path: Path,
) -> None:
    """Items of 12 origins shuffled over three files: the first stage tags each with its
    origin's partition (4) and writes one folder per partition; the second reads them
    in 4 tasks, or in 1 (every partition in turn): the same documents kept and removed
    (with the same status) as ``recheck`` keeps, and each origin's documents read from
    the WARC once in all (a task per file would read an origin's in every task that
    meets it)."""
    needs("datatrove")
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import JsonlReader
    from datatrove.pipeline.writers import JsonlWriter

    from scrapy_rep import RepOriginPartitioner, RepOriginPartitions

    warc = tmp_path / "robots.warc.gz"
    captures = [robots_capture(origin, text) for origin, text in PARTITIONED.items()]
    captures += [(f"{origin}/.well-known/tdmrep.json", 404, b"", {}) for origin in PARTITIONED]
    write_warc(warc, captures, compress=True)
    urls = [f"https://o{n}.example{path}" for n in range(12) for path in PATHS]
    random.Random(5).shuffle(urls)
    data = tmp_path / "data"
    data.mkdir()
    for number in range(3):
        write_jsonl(data / f"part{number}.jsonl", urls[number::3])
    whole = tmp_path / "items.jsonl"
    write_jsonl(whole, urls)
    out, removed = tmp_path / "kept.jsonl", tmp_path / "removed.jsonl"
    code, _ = recheck_tool(str(whole), "--purpose", "ai-train", "--documents", str(warc), "-A",
                           "mybot/1.0", f"--out={out}", f"--removed={removed}")  # fmt: skip
    assert code == EXIT_REMOVED
    by_command = sorted(json.loads(line)["url"] for line in out.read_text().splitlines())
    removed_by_command = sorted(json.loads(x)["url"] for x in removed.read_text().splitlines())

    partitions = tmp_path / "partitions"
    LocalPipelineExecutor(
        pipeline=[JsonlReader(str(data), text_key="text", id_key="title"),
                  RepOriginPartitioner(4),
                  JsonlWriter(str(partitions),
                              output_filename="${rep_partition}/${rank}.jsonl.gz")],
        tasks=3, workers=1, logging_dir=str(tmp_path / "logs-partition"),
    ).run()  # fmt: skip
    assert sorted(p.name for p in partitions.iterdir()) <= ["00000", "00001", "00002", "00003"]
    said = {}
    for tasks in (4, 1):
        kept, dropped = tmp_path / f"kept-{tasks}", tmp_path / f"removed-{tasks}"
        stats = LocalPipelineExecutor(
            pipeline=[RepOriginPartitions(JsonlReader(str(partitions)), 4),
                      _partitioned_step(warc, dropped), JsonlWriter(str(kept))],
            tasks=tasks, workers=2, logging_dir=str(tmp_path / f"logs-{tasks}"),
        ).run()  # fmt: skip
        step = stats.stats[1].stats
        names = ("kept", "refused", "unknown", "origins_asked", "documents_read")
        counts = {name: step[name].total for name in names}
        said[tasks] = (_partitioned_written(kept), _partitioned_written(dropped), counts)
    assert said[4] == said[1]
    kept_urls, removed_urls, counts = said[4]
    assert [url for url, _ in kept_urls] == by_command
    assert sorted(url for url, _ in removed_urls) == removed_by_command
    assert {status for _, status in removed_urls} == {"refused", "unknown"}
    # each origin asked for once in all; its robots.txt and tdmrep.json read once
    assert counts["origins_asked"] == 12 and counts["documents_read"] == 2 * len(PARTITIONED)
    assert counts["kept"] + counts["refused"] + counts["unknown"] == len(urls)
    # the same files read by file, a task each: the same items kept, but every task
    # meets most origins and reads their documents again
    by_file = LocalPipelineExecutor(
        pipeline=[JsonlReader(str(data), text_key="text", id_key="title"),
                  _partitioned_step(warc, tmp_path / "removed-by-file"),
                  JsonlWriter(str(tmp_path / "kept-by-file"))],
        tasks=3, workers=2, logging_dir=str(tmp_path / "logs-by-file"),
    ).run().stats[1].stats  # fmt: skip
    assert _partitioned_written(tmp_path / "kept-by-file") == kept_urls
    assert by_file["origins_asked"].total > 12 and by_file["documents_read"].total > 18


# ------------------------------------------------------------- a robots.txt-only WARC
# The step on Common Crawl's kind of WARC (tests/recheck/test_command_robotstxt_only.py
# has the command's case): it warned nothing, its stats said only `unknown`, and
# keep_unknown kept the items of the origins whose robots.txt answered 503 or 429.


def _robotstxt_only(tmp_path: Path, **given: Any) -> tuple[Any, dict[str, dict[str, Any]]]:
    """The step run on :data:`ROBOTSTXT_ONLY_URLS` (its documents given as a datatrove
    reader gives them) against a robots.txt-only WARC: the step, and each document's
    metadata by URL (its rep_status ``kept`` when the step passed it on)."""
    needs("datatrove")
    from datatrove.data import Document

    from scrapy_rep import RepRecheckFilter

    warc = tmp_path / "robots.warc.gz"
    robotstxt_only_warc(warc)
    removed: list[Any] = []

    class Collected:  # an exclusion writer: what it is given
        def __enter__(self) -> Collected:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def write(self, document: Any, rank: int = 0) -> None:
            removed.append(document)

    step = RepRecheckFilter(str(warc), "ai-train", {"USER_AGENT": "mybot/1.0"},
                            exclusion_writer=Collected(), **given)  # fmt: skip
    documents = [Document("a b", str(n), metadata={"url": url})
                 for n, url in enumerate(ROBOTSTXT_ONLY_URLS)]  # fmt: skip
    kept = list(step.run(iter(documents)))
    said = {d.metadata["url"]: {"rep_status": "kept", **d.metadata} for d in kept}
    said |= {d.metadata["url"]: d.metadata for d in removed}
    assert len(said) == len(ROBOTSTXT_ONLY_URLS)
    return step, said


@pytest.mark.parametrize("given", [{}, {"keep_unknown": True}, {"consult": ["robots.txt"]}])
def test_the_step_refuses_an_unreachable_robotstxt_whatever_it_is_given(
    tmp_path: Path, given: dict[str, Any]
) -> None:
    step, said = _robotstxt_only(tmp_path, **given)
    for origin, status in (("https://down.example", "503"), ("https://slow.example", "429")):
        for url in (f"{origin}/a", f"{origin}/private/b"):
            metadata = said[url]
            assert metadata["rep_status"] == "refused"
            assert metadata["filter_reason"] == "robotstxt_unreachable"
            assert f"captured as {status} in record <urn:uuid:" in metadata["rep_why"]
    assert step.stats["dropped_robotstxt_unreachable"].total == 4


def test_the_step_warns_of_a_warc_without_tdmrep_json_and_of_its_unknown(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """No scope given: a WARNING as the first document comes, naming the three ways on,
    and at the end the unknown documents and that none was kept; the stats name the
    signal of each dropped one, as datatrove's own filters name their reasons."""
    with caplog.at_level(logging.WARNING, logger="rep_recheck"):
        step, said = _robotstxt_only(tmp_path)
    warned = [record.getMessage() for record in caplog.records if record.levelname == "WARNING"]
    assert len(warned) == 3, warned
    assert "the WARC holds no capture at all of tdmrep.json, which ai-train needs" in warned[0]
    for way in ('consult=["robots.txt"]', "keep_unknown=True", "--fetch-missing"):
        assert way in warned[0]
    assert "7 of 14 document(s) unknown, dropped" in warned[1]
    assert "every document (14) was dropped" in warned[2]
    assert {metadata["rep_status"] for metadata in said.values()} == {"refused", "unknown"}
    stats = step.stats
    assert (stats["dropped"].total, stats["dropped_unknown"].total) == (14, 7)
    assert (stats["dropped_aipref"].total, stats["dropped_robots.txt"].total) == (2, 1)


def test_the_step_decides_on_robotstxt_alone_when_told(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``consult=["robots.txt"]``: train-ai=y's and the 404's documents kept, train-ai=n's
    refused, every document naming tdmrep.json as not consulted; no warning of the
    tdmrep.json the WARC does not hold."""
    with caplog.at_level(logging.WARNING, logger="rep_recheck"):
        _, said = _robotstxt_only(tmp_path, consult=["robots.txt"])
    statuses = {url: metadata["rep_status"] for url, metadata in said.items()}
    assert [url for url, status in statuses.items() if status == "kept"] == [
        "https://ok.example/a", "https://gone.example/a", "https://gone.example/private/b",
        "https://yes.example/a", "https://yes.example/private/b",
    ]  # fmt: skip
    assert statuses["https://no.example/a"] == "refused"
    assert said["https://no.example/a"]["filter_reason"] == "aipref"
    assert all(m["rep_not_consulted"] == ["tdmrep.json", "rsl"]
               for url, m in said.items() if "never" not in url)  # fmt: skip
    warned = [record.getMessage() for record in caplog.records]
    assert not any("holds no capture" in message for message in warned), warned
    assert any("2 of 14 document(s) unknown" in message for message in warned), warned


def test_the_step_refuses_a_kind_it_does_not_know() -> None:
    needs("datatrove")
    from rep_recheck.options import UsageError
    from scrapy_rep import RepRecheckFilter

    with pytest.raises(UsageError, match="no such kind of document: tdmrep"):
        RepRecheckFilter("robots.warc.gz", "ai-train", consult="robots.txt,tdmrep")


# --------------------------------------------------------- the docs' pipelines, as scripts


def _docs_pipelines() -> list[str]:
    """docs/recheck.md's pipelines that run on this machine (the local executor's)."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "recheck.md").read_text()
    blocks = doc.split("```python\n")[1:]
    return [block.split("```")[0] for block in blocks if "LocalPipelineExecutor(" in block]


def _run_script(script: Path) -> tuple[int, str]:
    """``python script`` in its folder: its exit status and standard error. A worker that
    fails as datatrove's pool starts it (the script run again in each worker) kills it:
    the pool would start new ones for ever."""
    said = []
    with subprocess.Popen([sys.executable, script.name], cwd=script.parent, text=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          start_new_session=True) as process:  # fmt: skip
        assert process.stderr is not None
        for line in process.stderr:
            said.append(line)
            if "finished its bootstrapping phase" in line:
                os.killpg(process.pid, signal.SIGKILL)
                break
    return process.returncode, "".join(said)


@pytest.mark.parametrize("number", [0, 1])
def test_the_docs_pipelines_run_as_written_in_a_script(tmp_path: Path, number: int) -> None:
    """recheck.md's local pipelines (one stage, and the two stages by origin), pasted
    into a file and run with ``python``, on their ``data/`` and ``robots.warc.gz``: they
    end, keep what the command keeps and write the removed ones with their reason (as
    written before, without ``if __name__ == "__main__":``, datatrove's forkserver
    workers ran the script again and the pool never ended), and each task's trail, which
    ``audit verify trails/*.jsonl`` reads as one clean run of every item."""
    needs("datatrove")
    pipelines = _docs_pipelines()
    assert len(pipelines) == 2
    script = tmp_path / "pipeline.py"
    script.write_text(pipelines[number])
    (tmp_path / "data").mkdir()
    write_jsonl(tmp_path / "data" / "items.jsonl", ROBOTSTXT_ONLY_URLS)
    captures = [(f"{origin}/robots.txt", status, body, headers)
                for origin, (status, body, headers) in ROBOTSTXT_ONLY.items()]  # fmt: skip
    captures += [(f"{origin}/.well-known/tdmrep.json", 404, b"", {}) for origin in ROBOTSTXT_ONLY]
    write_warc(tmp_path / "robots.warc.gz", captures, compress=True)
    code, said = _run_script(script)
    assert code == 0, said[-3000:]
    kept = [url for url, _ in _partitioned_written(tmp_path / "kept")]
    assert kept == sorted(ROBOTSTXT_ONLY_KEPT)
    if number == 1:  # its exclusion_writer: the others, each with its reason
        removed = _partitioned_written(tmp_path / "removed")
        assert len(removed) == len(ROBOTSTXT_ONLY_URLS) - len(kept)
        assert dict(removed)["https://down.example/a"] == "refused"
        assert dict(removed)["https://never.example/a"] == "unknown"
    trails = sorted((tmp_path / "trails").glob("*.jsonl"))
    code, out, _ = audit_streams("verify", *map(str, trails))
    assert code == 0 and out.splitlines()[-1] == f"{len(trails)} trails as one: clean", out
    tasks = (2, 64)[number]
    assert out.splitlines()[-2].endswith(
        f": the trails of {tasks} of its {tasks} task(s), {len(ROBOTSTXT_ONLY_URLS)} item(s): "
        f"{len(kept)} kept, 7 refused, 2 unknown"
    ), out
