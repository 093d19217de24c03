"""The datatrove step's URL field (``url_key``) read as ``recheck`` reads a dataset's URL
column (rep_recheck/pipeline_step.py, :class:`UrlField`): a file whose first document
lacks it stops the task, as the command stops at a file whose first item lacks it (exit
2); a later document without it is unreadable, as a later item is. The step's runs on
datatrove's executor: tests/integration/test_recheck_datatrove.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rep_recheck.command import EXIT_REMOVED, EXIT_USAGE
from rep_recheck.datasets import DatasetError
from tests.support.recheck import (
    needs,
    recheck_tool,
    robots_capture,
    step_documents,
    write_warc,
)

ORIGIN = "https://a.example"


def _url_step(tmp_path: Path, **given: Any) -> Any:
    """The step on a WARC of :data:`ORIGIN`'s robots.txt (``/private`` disallowed)."""
    needs("datatrove")
    from scrapy_rep import RepRecheckFilter

    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture(ORIGIN, "User-agent: *\nDisallow: /private\n")])
    return RepRecheckFilter(str(warc), "search", {"USER_AGENT": "mybot/1.0"}, **given)


def _jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def test_a_wrong_url_key_stops_the_task_naming_the_field(tmp_path: Path) -> None:
    """No document has the field (``url_key`` names another): the task stops at its
    first document, naming the field and its file, as ``recheck --column`` of a wrong
    name stops (it dropped every document as unreadable, and the pipeline ended well)."""
    step = _url_step(tmp_path)
    documents = step_documents([{"link": f"{ORIGIN}/{n}"} for n in range(3)], "data/a.jsonl")
    with pytest.raises(DatasetError) as raised:
        list(step.run(iter(documents)))
    said = str(raised.value)
    assert said.startswith(
        "data/a.jsonl: its first document ('data/a.jsonl/0') has no "
        "'url' field in its metadata (its fields: 'link', 'file_path')"
    ), said
    assert said.endswith("name the field that holds each document's URL with url_key")
    assert step.stats["kept"].total == step.stats["unreadable"].total == 0
    # named right, the same documents are decided
    kept = list(_url_step(tmp_path, url_key="link").run(iter(documents)))
    assert len(kept) == 3


def test_the_step_stops_where_the_command_stops_and_reads_on_where_it_reads_on(
    tmp_path: Path,
) -> None:
    """Two files: the first's second item lacks the field (unreadable, removed, the run
    goes on), the second's first item lacks it (the command stops, exit 2, naming it);
    the step, given the same documents as a datatrove reader gives them, reads on past
    the first and stops at the second, naming its file."""
    first = [{"url": f"{ORIGIN}/1"}, {"title": "no URL"}, {"url": f"{ORIGIN}/private/2"}]
    second = [{"title": "no URL"}, {"url": f"{ORIGIN}/3"}]
    one, two = _jsonl(tmp_path / "one.jsonl", first), _jsonl(tmp_path / "two.jsonl", second)
    step = _url_step(tmp_path)
    warc = str(tmp_path / "robots.warc")
    assert recheck_tool(str(one), "--purpose", "search", "--documents", warc)[0] == EXIT_REMOVED
    assert recheck_tool(str(two), "--purpose", "search", "--documents", warc)[0] == EXIT_USAGE
    documents = step_documents(first, str(one)) + step_documents(second, str(two))
    passed: list[Any] = []
    with pytest.raises(DatasetError, match=f"^{two}: its first document .* no 'url' field"):
        passed.extend(step.run(iter(documents)))
    assert [document.metadata["url"] for document in passed] == [f"{ORIGIN}/1"]
    stats = step.stats
    assert (stats["unreadable"].total, stats["refused"].total) == (1, 1)


def test_a_document_without_the_field_in_the_second_stage_is_unreadable(tmp_path: Path) -> None:
    """The second of the two stages reads the partitions, in which the first stage's
    files are mixed: a document of another file than the one before is no file's first
    there, and one without the field is unreadable (only the task's first stops it)."""
    step = _url_step(tmp_path)
    documents = [*step_documents([{"url": f"{ORIGIN}/1"}], "data/a.jsonl"),
                 *step_documents([{"title": "no URL"}], "data/b.jsonl")]  # fmt: skip
    for document in documents:
        document.metadata["rep_partition"] = "00001"
    assert [d.metadata["url"] for d in step.run(iter(documents))] == [f"{ORIGIN}/1"]
    assert step.stats["unreadable"].total == 1
    with pytest.raises(DatasetError, match="its first document"):
        list(_url_step(tmp_path).run(iter(documents[::-1])))


def test_the_partitioner_stops_at_a_file_whose_first_document_lacks_the_field() -> None:
    """The first stage reads the files as the reader gives them: a wrong ``url_key`` stops
    it too (every document went to partition 0), naming the field."""
    needs("datatrove")
    from rep_recheck.pipeline_step import origin_partition
    from scrapy_rep import RepOriginPartitioner

    documents = step_documents([{"url": f"{ORIGIN}/1"}, {"title": "no URL"}], "data/a.jsonl")
    tagged = list(RepOriginPartitioner(4).run(iter(documents)))
    partition = f"{origin_partition(f'{ORIGIN}/1', 4):05d}"
    assert [d.metadata["rep_partition"] for d in tagged] == [partition, "00000"]
    with pytest.raises(DatasetError, match="has no 'link' field in its metadata"):
        list(RepOriginPartitioner(4, url_key="link").run(iter(documents)))
