"""The manifest of a folder of a recheck's outputs: what a run adds to it keeps what it
named."""

from __future__ import annotations

from pathlib import Path

from rep_recheck.files import (
    add_to_manifest,
    announce_outputs,
    known_output,
    recorded_outputs,
    stamp_of,
    unnamed_outputs,
)


def test_a_report_added_keeps_the_files_a_stopped_run_was_putting_in_place(
    tmp_path: Path,
) -> None:
    """A run that stopped between its renames left its outputs named ``pending``; a later
    run writing its report there (:func:`add_to_manifest`) rewrote the manifest with
    ``files`` alone, and the next run into the folder refused the stopped run's outputs
    as no recheck's. What the manifest named, pending too, is kept."""
    shard = tmp_path / "a.jsonl"
    shard.write_text('{"url": "http://a.test/"}\n', encoding="utf-8")
    announce_outputs(tmp_path, [("a.jsonl", shard)])
    report = tmp_path / "report.jsonl"
    report.write_text('{"line": 1, "url": "http://a.test/", "status": "kept"}\n')
    add_to_manifest(tmp_path, [report])
    recorded = recorded_outputs(tmp_path)
    assert known_output(recorded, "a.jsonl", stamp_of(shard), loose=True)
    assert known_output(recorded, "report.jsonl", stamp_of(report))
    assert unnamed_outputs(tmp_path, ["a.jsonl"], recorded) == []
