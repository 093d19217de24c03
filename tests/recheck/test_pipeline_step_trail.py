"""The datatrove step's trail (rep_recheck/pipeline_step.py, ``trail``): each task's
own, in one folder, tied to its pipeline run by the folder's ``pipeline.json``; as a
careless user leaves it (a task that failed or was killed, run again; another pipeline
run into the same folder), and a task stopped by a later step. The tasks are the step run
as datatrove runs it (a copy each), in this process; their trails read as one run:
tests/audit/test_across_pipelines.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rep_engine.trail.file import TrailFileError
from rep_recheck.options import UsageError
from tests.support.recheck import (
    TASK_URLS,
    needs,
    step_documents,
    step_tasks,
    task_step,
    task_trails,
)
from tests.support.tools import audit_streams


def _verdict(*trails: Path) -> tuple[int, list[str]]:
    """``audit verify TRAILS``: its exit status and its lines."""
    code, out, _ = audit_streams("verify", *map(str, trails))
    return code, out.splitlines()


def _trail_lines_of_task(trail: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in trail.read_text().splitlines()]


def test_each_task_writes_its_trail_in_the_folder_one_with_no_document_too(
    tmp_path: Path,
) -> None:
    """21 tasks for 20 documents: 21 trails, the last task's a run of no item (the
    pipeline run has 21 tasks: a trail missing would be a task missing); the folder's
    pipeline.json names the run their headers name, and the task's documents are its
    items, in the order it was given them."""
    needs("datatrove")
    tasks = len(TASK_URLS) + 1
    trails = task_trails(tmp_path, tasks)
    assert len(trails) == tasks
    said = json.loads((tmp_path / "trails" / "pipeline.json").read_text())
    assert said["tasks"] == tasks and len(said["arguments"]) == 64
    for rank, trail in enumerate(trails):
        lines = _trail_lines_of_task(trail)
        assert lines[0]["recheck"]["pipeline"] == {"id": said["pipeline"], "task": rank,
                                                   "tasks": tasks}  # fmt: skip
        assert lines[0]["recheck"]["format"] == "datatrove"
        items = [line for line in lines if line["type"] == "item"]
        assert [(i["line"], i["url"]) for i in items] == list(enumerate(TASK_URLS[rank::tasks], 1))
    assert not [line for line in _trail_lines_of_task(trails[-1]) if line["type"] == "item"]
    code, lines = _verdict(*trails)
    assert code == 0 and lines[-1] == f"{tasks} trails as one: clean", lines


def test_a_task_a_later_step_stops_ends_its_trail_failed_and_is_run_again(
    tmp_path: Path,
) -> None:
    """The pipeline takes two documents of a task and stops (a later step failed): the
    task's run ends ``failed``, which verify says is not a whole pipeline run; datatrove
    runs the task again, its run appended to the trail: the run is whole, the failure an
    event."""
    needs("datatrove")
    step = task_step(tmp_path)
    running: Iterator[Any] = step.run(iter(step_documents([{"url": u} for u in TASK_URLS])))
    next(running), next(running)
    running.close()  # type: ignore[attr-defined]
    (trail,) = sorted((tmp_path / "trails").glob("*.jsonl"))
    end = [line for line in _trail_lines_of_task(trail) if line["type"] == "end"][-1]
    assert end["reason"] == "failed" and end["error"].startswith(
        "the pipeline stopped taking documents after"
    ), end
    code, lines = _verdict(trail)
    assert code == 1, lines
    assert any(": the last run of task 0 (run " in line and "ended failed: the pipeline run is "
               "not whole" in line for line in lines), lines  # fmt: skip
    step_tasks(task_step(tmp_path), [{"url": url} for url in TASK_URLS])
    code, lines = _verdict(trail)
    assert code == 0 and any(line.startswith("line ") and ": event: run " in line
                             and " failed: the pipeline stopped taking documents after "
                             in line for line in lines), lines  # fmt: skip
    runs = [line for line in _trail_lines_of_task(trail) if line["type"] == "run"]
    assert len(runs) == 2 and runs[0]["recheck"]["pipeline"] == runs[1]["recheck"]["pipeline"]


def test_a_killed_task_run_again_makes_the_pipeline_run_whole(tmp_path: Path) -> None:
    """Task 2 is killed between two lines (its trail has no end line) and run again: its
    new run is appended and the four trails verify clean, the killed run an event."""
    needs("datatrove")
    trails = task_trails(tmp_path)
    lines = trails[2].read_bytes().splitlines(keepends=True)
    ends = [n for n, line in enumerate(lines) if b'"type":"end"' in line]
    trails[2].write_bytes(b"".join(lines[: ends[0]]))  # killed before its end line
    code, said = _verdict(*trails)
    assert code == 1 and any("has no end line" in line for line in said), said
    task_trails(tmp_path, 4, ranks=[2])
    code, said = _verdict(*trails)
    assert code == 0 and said[-1] == "4 trails as one: clean, 1 event(s)", said
    assert any(": event: run " in line and "has no end line" in line
               and "its task (2 of pipeline run " in line and "was run again after it" in line
               for line in said), said  # fmt: skip


def test_a_task_killed_in_a_line_is_repaired_then_run_again(tmp_path: Path) -> None:
    """Killed as it wrote a line, the task's trail ends with a cut line: run again, the
    task stops, saying to repair the trail; repaired and run again, the pipeline run is
    whole (the repair and the killed run are events)."""
    needs("datatrove")
    trails = task_trails(tmp_path)
    text = trails[1].read_bytes()
    cut = text.index(b'"type":"end"')
    trails[1].write_bytes(text[: cut + 5])
    with pytest.raises(TrailFileError, match="ends with a cut line; repair it"):
        task_trails(tmp_path, 4, ranks=[1])
    assert audit_streams("repair", str(trails[1]))[0] == 0
    task_trails(tmp_path, 4, ranks=[1])
    code, said = _verdict(*trails)
    assert code == 0 and said[-1] == "4 trails as one: clean, 2 event(s)", said


def test_another_pipeline_run_into_the_folder_is_refused(tmp_path: Path) -> None:
    """A run of other arguments (here, another purpose's settings), or of another number
    of tasks, writing into a folder of trails: each task stops, naming the folder, and
    the trails are as they were."""
    needs("datatrove")
    trails = task_trails(tmp_path)
    before = [trail.read_bytes() for trail in trails]
    other = task_step(tmp_path, keep_unknown=True)
    with pytest.raises(TrailFileError, match="holds the trails of a pipeline run of other step "
                       "arguments"):  # fmt: skip
        task_trails(tmp_path, 4, step=other)
    with pytest.raises(TrailFileError, match=r"of 4 task\(s\) \(its pipeline.json: .*has 2"):
        task_trails(tmp_path, 2)
    assert [trail.read_bytes() for trail in trails] == before


def test_the_same_pipeline_run_again_whole_supersedes_each_tasks_run(tmp_path: Path) -> None:
    """Every task run again with the same arguments (a run continued after its step
    ended, or the same script run twice into one folder): each trail holds two runs of
    its task; the last of each is the task's, and verify says each was run again."""
    needs("datatrove")
    task_trails(tmp_path)
    trails = task_trails(tmp_path)
    code, said = _verdict(*trails)
    assert code == 0 and said[-1] == "4 trails as one: clean, 4 event(s)", said
    assert sum("ended, and the task was run again" in line for line in said) == 4, said
    assert any(line.endswith("20 item(s): 8 kept, 7 refused, 5 unknown") for line in said), said


@pytest.mark.parametrize("given", ["s3://bucket/trails/", "a-file"])
def test_a_trail_that_is_no_folder_stops_the_step_as_it_is_made(tmp_path: Path, given: str) -> None:
    needs("datatrove")
    (tmp_path / "a-file").write_text("")
    trail = given if "://" in given else str(tmp_path / given)
    with pytest.raises(UsageError, match=f"^trail {trail}: "):
        task_step(tmp_path, trail=trail)
