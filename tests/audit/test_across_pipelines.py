"""The trails of a datatrove pipeline's tasks read as one run (rep_audit/across.py,
:func:`pipelines`; docs/audit-trail.md, "Several tasks"): ``audit verify`` of the tasks'
trails gives one verdict for the pipeline run, whose counts are the command's on the
same items, and finds a task's trail missing, given twice or edited, as a forger would
leave them. The tasks are the step run as datatrove runs it (a copy each), in this
process; on datatrove's executor: tests/integration/test_recheck_datatrove_trail.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.support.recheck import (
    TASK_AGENT,
    TASK_URLS,
    forged_item,
    needs,
    recheck_tool,
    task_trails,
    task_warc,
    write_jsonl,
)
from tests.support.tools import audit_streams


def _tasks_verified(*trails: Path | str) -> tuple[int, list[str]]:
    """``audit verify TRAILS``: its exit status and its lines."""
    code, out, _ = audit_streams("verify", *map(str, trails))
    return code, out.splitlines()


def _pipeline_line(lines: list[str]) -> str:
    (line,) = [line for line in lines if line.startswith("pipeline run ")
               and ": the trails of " in line]  # fmt: skip
    return line.partition(": ")[2]


def _task_lines(trail: Path, kind: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in trail.read_text().splitlines()]
    return [line for line in lines if line["type"] == kind]


def test_four_tasks_trails_verify_as_one_run_with_the_commands_counts(tmp_path: Path) -> None:
    """Four tasks, four trails, one clean verdict: its pipeline line counts the items
    the command's own trail counts on the same items, and ``summary`` of the four says
    what it says of the command's."""
    needs("datatrove")
    trails = task_trails(tmp_path)
    assert [trail.name for trail in trails] == [f"0000{n}.jsonl" for n in range(4)]
    code, lines = _tasks_verified(*trails)
    assert code == 0 and lines[-1] == "4 trails as one: clean", lines
    dataset, own = tmp_path / "items.jsonl", tmp_path / "command.jsonl"
    write_jsonl(dataset, TASK_URLS)
    recheck_tool(str(dataset), "--purpose", "ai-train", "--documents", str(task_warc(tmp_path)),
                 "-A", TASK_AGENT, f"--trail={own}")  # fmt: skip
    (end,) = _task_lines(own, "end")
    counts = end["counts"]
    assert _pipeline_line(lines) == (
        f"the trails of 4 of its 4 task(s), {counts['items']} item(s): {counts['items_kept']} "
        f"kept, {counts['items_refused']} refused, {counts['items_unknown']} unknown"
    )
    assert (counts["items"], counts["items_kept"]) == (len(TASK_URLS), 8)
    headers = [_task_lines(trail, "run")[0]["recheck"]["pipeline"] for trail in trails]
    assert [header["task"] for header in headers] == [0, 1, 2, 3]
    assert len({header["id"] for header in headers}) == 1
    summaries = [audit_streams("summary", *map(str, given))[1].splitlines()[1]
                 for given in (trails, [own])]  # fmt: skip
    assert summaries[0] == summaries[1] == "20 item(s) re-checked (recheck --trail): 8 kept, " \
        "7 refused, 5 unknown"  # fmt: skip


def test_a_task_whose_trail_is_not_given_is_named(tmp_path: Path) -> None:
    """A forger drops one task's trail (its documents' refusals with it): each trail left
    is clean, the pipeline run is not: the task is named. One task's trail alone names
    the three others."""
    needs("datatrove")
    trails = task_trails(tmp_path)
    code, lines = _tasks_verified(*trails[:2], trails[3])
    missing = ("has 4 task(s); no trail given holds a run of 1 of them (task 2): their "
               "documents' decisions are missing")  # fmt: skip
    assert code == 1 and missing in "\n".join(lines), lines
    assert _pipeline_line(lines).startswith("the trails of 3 of its 4 task(s), 15 item(s)")
    assert lines[-1] == "3 trails as one: 1 problem(s)"
    code, lines = _tasks_verified(trails[1])
    assert code == 1, lines
    assert "no trail given holds a run of 3 of them (task 0, 2, 3)" in "\n".join(lines), lines


def test_two_tasks_trails_swapped_verify_as_they_are(tmp_path: Path) -> None:
    """Each trail's runs say their task: two trails renamed one for the other (their
    snapshot folders with them) are the same run's trails, and nothing was lost."""
    needs("datatrove")
    trails = task_trails(tmp_path)
    one, two = trails[1], trails[2]
    for path in (one, Path(f"{one}.d")):
        path.rename(f"{path}.swapped")
    for old, new in ((two, one), (Path(f"{two}.d"), Path(f"{one}.d"))):
        old.rename(new)
    for path in (one, Path(f"{one}.d")):
        Path(f"{path}.swapped").rename(str(path).replace(one.name, two.name))
    code, lines = _tasks_verified(*trails)
    assert code == 0 and lines[-1] == "4 trails as one: clean", lines
    assert [_task_lines(trail, "run")[0]["recheck"]["pipeline"]["task"] for trail in trails] == [
        0, 2, 1, 3
    ]  # fmt: skip


def test_one_tasks_trail_given_twice_is_found(tmp_path: Path) -> None:
    """A forger gives task 1's trail twice (a copy of it for task 2's): the copy is named,
    and task 2 is missing."""
    needs("datatrove")
    trails = task_trails(tmp_path)
    copy = tmp_path / "copy.jsonl"
    shutil.copy(trails[1], copy)
    shutil.copytree(f"{trails[1]}.d", f"{copy}.d")
    code, lines = _tasks_verified(trails[0], trails[1], copy, trails[3])
    said = "\n".join(lines)
    assert code == 1 and lines[-1] == "4 trails as one: 2 problem(s)", said
    header = _task_lines(trails[1], "run")[0]
    run, pipeline = header["run"], header["recheck"]["pipeline"]["id"]
    assert (f"{copy}: line 1: pipeline run {pipeline[:8]}: run {run[:8]} (task 1) is in "
            f"{trails[1]} too: a task's trail given twice, or copied") in said  # fmt: skip
    assert "(task 2): their documents' decisions are missing" in said


def test_a_kept_documents_record_edited_is_found(tmp_path: Path) -> None:
    """A forger edits one task's record of a document: in place, the chain breaks; with
    the chain made again, a refused document recorded kept, or a kept one's record moved
    to a refused URL, is decided again from the task's snapshots and found."""
    needs("datatrove")
    trails = task_trails(tmp_path)
    owner = next(t for t in trails if '"url":"https://b.example/"' in t.read_text())
    refused = "https://b.example/"
    text = owner.read_text()
    owner.write_text(text.replace('"status":"refused"', '"status":"kept"', 1))
    code, lines = _tasks_verified(*trails)
    assert code == 1 and any("prev" in line or "chain" in line for line in lines), lines
    owner.write_text(text)
    forged = forged_item(owner, refused, status="kept", refused_by=None, why=None)
    others = [trail for trail in trails if trail != owner]
    code, lines = _tasks_verified(*others, forged)
    said = "\n".join(lines)
    assert code == 1, said
    assert f"{forged}: line " in said and f"{refused}: " in said and "Disallow: /" in said, said
    owner, kept = next((trail, record) for trail in trails for record in _task_lines(trail, "item")
                       if record["status"] == "kept" and "a.example" in record["url"])  # fmt: skip
    moved = _moved(owner, kept["url"], "https://a.example/private/9")
    code, lines = _tasks_verified(*[trail for trail in trails if trail != owner], moved)
    said = "\n".join(lines)
    assert code == 1 and "https://a.example/private/9: " in said, said
    assert "Disallow: /private" in said, said


def _moved(trail: Path, url: str, to: str) -> Path:
    """A copy of ``trail`` beside it (``moved.jsonl``, its snapshots linked) whose item
    record of ``url`` says ``to``, the chain made again."""
    from tests.support.trailfactory import encode

    records = [json.loads(line) for line in trail.read_text().splitlines()]
    for record in records:
        record.pop("prev")
        if record.get("type") == "item" and record["url"] == url:
            record["url"] = to
    moved = trail.with_name("moved.jsonl")
    moved.write_bytes(b"".join(encode(records)))
    moved.with_name("moved.jsonl.d").symlink_to(f"{trail}.d")
    return moved


def test_the_pipeline_run_counts_its_tasks_records_not_their_end_lines(
    tmp_path: Path,
) -> None:
    """A task's end line that counts a refused item as kept (the chain made again) does
    not move the pipeline run's counts: they are its tasks' records'."""
    needs("datatrove")
    from tests.support.trailfactory import encode

    trails = task_trails(tmp_path)
    before = _pipeline_line(_tasks_verified(*trails)[1])
    records = [json.loads(line) for line in trails[0].read_text().splitlines()]
    for record in records:
        record.pop("prev")
        if record["type"] == "end":
            record["counts"]["items_kept"] += 1
            record["counts"]["items_refused"] -= 1
    trails[0].write_bytes(b"".join(encode(records)))
    assert _pipeline_line(_tasks_verified(*trails)[1]) == before
