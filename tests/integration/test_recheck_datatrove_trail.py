"""The datatrove step on datatrove's local executor, as a lab runs it: each of 4 tasks
writes its trail, and ``audit verify`` of the four gives one verdict whose counts are
the command's on the same items (docs/recheck.md, "Past one machine"; docs/audit-trail.md,
"Several tasks"); a wrong ``url_key`` stops the pipeline."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from rep_recheck.command import EXIT_REMOVED
from rep_recheck.datasets import DatasetError
from tests.support.recheck import (
    TASK_AGENT,
    TASK_URLS,
    needs,
    recheck_tool,
    task_step,
    task_warc,
    write_jsonl,
)
from tests.support.tools import audit_streams


def _task_files(folder: Path, files: int) -> Path:
    """:data:`TASK_URLS` in ``files`` JSON Lines files (datatrove splits them by file)."""
    data = folder / "data"
    data.mkdir()
    for number in range(files):
        write_jsonl(data / f"part{number}.jsonl", TASK_URLS[number::files])
    return data


def _executed(folder: Path, data: Path, step: Any, tasks: int, workers: int) -> Any:
    """``step`` run by datatrove's local executor on ``data``'s files, the documents
    passed on written to ``folder/kept``."""
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import JsonlReader
    from datatrove.pipeline.writers import JsonlWriter

    return LocalPipelineExecutor(
        pipeline=[JsonlReader(str(data), text_key="text", id_key="title"), step,
                  JsonlWriter(str(folder / "kept"), compression="gzip")],
        tasks=tasks, workers=workers, logging_dir=str(folder / "logs"),
    ).run()  # fmt: skip


def test_four_datatrove_tasks_write_four_trails_that_verify_as_one(tmp_path: Path) -> None:
    """Four tasks, two workers: four trails; ``audit verify`` of them is one clean
    verdict counting the items the command's trail counts (and keeps), and one task's
    trail edited, or left out, is found."""
    needs("datatrove")
    data = _task_files(tmp_path, 4)
    _executed(tmp_path, data, task_step(tmp_path), 4, 2)
    trails = sorted((tmp_path / "trails").glob("*.jsonl"))
    assert [trail.name for trail in trails] == [f"0000{n}.jsonl" for n in range(4)]
    code, out, _ = audit_streams("verify", *map(str, trails))
    lines = out.splitlines()
    assert code == 0 and lines[-1] == "4 trails as one: clean", out
    whole, own, out_path = tmp_path / "items.jsonl", tmp_path / "own.jsonl", tmp_path / "out"
    write_jsonl(whole, TASK_URLS)
    code, _ = recheck_tool(str(whole), "--purpose", "ai-train", "--documents",
                           str(task_warc(tmp_path)), "-A", TASK_AGENT, f"--trail={own}",
                           f"--out={out_path}")  # fmt: skip
    assert code == EXIT_REMOVED
    (end,) = [json.loads(line) for line in own.read_text().splitlines() if '"type":"end"' in line]
    counts = end["counts"]
    pipeline = json.loads((tmp_path / "trails" / "pipeline.json").read_text())["pipeline"]
    assert lines[-2] == (
        f"pipeline run {pipeline}: the trails of 4 of its 4 task(s), {counts['items']} "
        f"item(s): {counts['items_kept']} kept, {counts['items_refused']} refused, "
        f"{counts['items_unknown']} unknown"
    )
    kept = sorted(
        json.loads(line)["metadata"]["url"]
        for path in (tmp_path / "kept").glob("*.jsonl.gz")
        for line in gzip.decompress(path.read_bytes()).decode().splitlines()
    )
    assert kept == sorted(json.loads(line)["url"] for line in out_path.read_text().splitlines())
    assert len(kept) == counts["items_kept"]
    text = trails[2].read_text()
    trails[2].write_text(text.replace('"status":"kept"', '"status":"refused"', 1))
    code, out, _ = audit_streams("verify", *map(str, trails))
    assert code == 1 and f"{trails[2]}: line " in out, out
    code, out, _ = audit_streams("verify", *map(str, trails[:3]))
    assert code == 1 and "no trail given holds a run of 1 of them (task 3)" in out, out


def test_a_wrong_url_key_stops_the_pipeline_naming_the_field(tmp_path: Path) -> None:
    """``url_key`` names a field no document has: the executor's run raises the step's
    error, naming the field (the pipeline ended well, every document dropped as
    unreadable, and a line without a reason); no document was passed on."""
    needs("datatrove")
    from scrapy_rep import RepRecheckFilter

    data = _task_files(tmp_path, 2)
    step = RepRecheckFilter(str(task_warc(tmp_path)), "ai-train", {"USER_AGENT": TASK_AGENT},
                            url_key="link")  # fmt: skip
    with pytest.raises(DatasetError, match="has no 'link' field in its metadata"):
        _executed(tmp_path, data, step, 2, 1)
    assert not list((tmp_path / "kept").glob("*.jsonl.gz"))
