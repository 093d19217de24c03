"""``--out`` and ``--removed`` folders of a collection of shards re-checked again: the
files a previous recheck wrote there and this one does not are removed once this run's
are in place (never a file no recheck wrote, nor one changed since: the run stops
before work), a manifest names the run's files, and the set of outputs is renamed into
place whole, or put back as it was."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rep_recheck import files
from rep_recheck.command import EXIT_REMOVED, EXIT_USAGE
from rep_recheck.files import MANIFEST
from tests.support.recheck import (
    SHARDS,
    recheck_shards,
    recheck_tool,
    visible_files,
)


def _fourth_rename_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's fourth rename into place fails as a full disk makes it fail."""
    real, renamed = os.replace, []

    def failing(source: object, target: object) -> None:
        renamed.append(str(target))
        if len(renamed) == 4:
            raise OSError(28, "No space left on device", str(target))
        real(source, target)  # type: ignore[arg-type]

    monkeypatch.setattr(files.os, "replace", failing)


def test_a_rerun_of_fewer_shards_leaves_no_file_of_the_previous_run(tmp_path: Path) -> None:
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_REMOVED
    assert visible_files(tmp_path / "kept") == ["a.jsonl", "b.jsonl", "c.jsonl"]
    manifest = json.loads((tmp_path / "kept" / MANIFEST).read_text())
    assert sorted(manifest["files"]) == ["a.jsonl", "b.jsonl", "c.jsonl"]
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl"]) == EXIT_REMOVED
    for folder in ("kept", "removed"):
        assert visible_files(tmp_path / folder) == ["a.jsonl", "b.jsonl"], folder
        manifest = json.loads((tmp_path / folder / MANIFEST).read_text())
        assert sorted(manifest["files"]) == ["a.jsonl", "b.jsonl"]


@pytest.mark.parametrize("how", ["not-a-recheck's", "changed-since"])
def test_a_file_no_recheck_wrote_stops_the_run_and_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    kept = tmp_path / "kept"
    if how == "changed-since":
        assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_REMOVED
        (kept / "c.jsonl").write_text('{"url": "https://mine.example/"}\n')
    else:
        kept.mkdir()
        (kept / "c.jsonl").write_text('{"url": "https://mine.example/"}\n')
    (kept / "notes.txt").write_text("not of a dataset format: never looked at\n")
    capsys.readouterr()
    before = {name: (kept / name).read_bytes() for name in visible_files(kept)}
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl"]) == EXIT_USAGE
    err = capsys.readouterr().err.splitlines()
    assert (
        len(err) == 1
        and err[0].startswith(f"scrapy_rep: error: --out {kept}: ")
        and "c.jsonl" in err[0]
    ), err
    assert {name: (kept / name).read_bytes() for name in visible_files(kept)} == before


def test_a_rename_that_fails_puts_every_output_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outputs are renamed one by one: one that fails half-way left the first ones
    new and the rest old."""
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_REMOVED
    folders = [tmp_path / "kept", tmp_path / "removed"]
    before = {str(path): path.read_bytes() for folder in folders for path in folder.iterdir()}
    for name in SHARDS:  # the next run's items differ
        SHARDS[name] = [*SHARDS[name], f"https://a.example/no/{name}"]
    _fourth_rename_fails(monkeypatch)
    try:
        assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_USAGE
    finally:
        monkeypatch.undo()
        for name in SHARDS:
            SHARDS[name] = SHARDS[name][:-1]
    after = {str(path): path.read_bytes() for folder in folders for path in folder.iterdir()}
    assert after == before


def _rerun(tmp_path: Path, names: list[str], *extra: str) -> int:
    warc = tmp_path / "robots.warc"
    shards = [str(tmp_path / "data" / name) if "/" not in name else name for name in names]
    code, _ = recheck_tool(*shards, "--purpose", "search", "--documents", str(warc),
                           f"--out={tmp_path / 'kept'}", *extra)  # fmt: skip
    return code


@pytest.mark.parametrize("option", ["report", "trail"])
def test_a_rerun_keeps_its_own_report_or_trail_written_in_the_folder(
    tmp_path: Path, option: str
) -> None:
    """The run's own --report (named by the manifest it wrote) was removed as a previous
    run's file once in place; its --trail there stopped the run as a stranger's file."""
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl"]) == EXIT_REMOVED
    written = tmp_path / "kept" / f"{option}.jsonl"
    for _ in range(2):
        assert _rerun(tmp_path, ["a.jsonl", "b.jsonl"], f"--{option}={written}") == EXIT_REMOVED
        assert written.is_file() and written.read_text().count("\n") >= 4, option
    files = [name for name in visible_files(tmp_path / "kept") if not name.endswith(".d")]
    assert files == ["a.jsonl", "b.jsonl", f"{option}.jsonl"]  # a trail's snapshots aside


def test_a_previous_output_read_as_a_shard_stops_the_run_and_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A shard read through a symlink to a file the previous run wrote in --out (not
    written by this run) was removed once the run's outputs were in place: an input
    destroyed."""
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_REMOVED
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "again.jsonl").symlink_to(tmp_path / "kept" / "c.jsonl")
    before = (tmp_path / "kept" / "c.jsonl").read_bytes()
    capsys.readouterr()
    shards = ["a.jsonl", str(tmp_path / "in" / "again.jsonl")]
    assert _rerun(tmp_path, shards) == EXIT_USAGE
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "c.jsonl" in err[0] and "again.jsonl" in err[0], err
    assert (tmp_path / "kept" / "c.jsonl").read_bytes() == before


def test_a_file_replaced_with_the_same_size_and_time_stops_the_run_and_is_kept(
    tmp_path: Path,
) -> None:
    """Size and modification time alone told a replaced file from the one a recheck
    wrote: a copy of the same size given the same time (cp -p, rsync -t) was removed."""
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_REMOVED
    path = tmp_path / "kept" / "c.jsonl"
    status = path.stat()
    mine = path.read_bytes().replace(b"a.example", b"m.example")
    assert len(mine) == status.st_size
    replacement = tmp_path / "mine.jsonl"
    replacement.write_bytes(mine)
    os.utime(replacement, ns=(status.st_atime_ns, status.st_mtime_ns))
    os.replace(replacement, path)
    assert _rerun(tmp_path, ["a.jsonl", "b.jsonl"]) == EXIT_USAGE
    assert path.read_bytes() == mine


@pytest.mark.parametrize("odd", ["folder", "symlink"])
def test_a_manifest_that_is_no_file_a_recheck_writes_stops_the_run_before_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], odd: str
) -> None:
    """A manifest that is a folder failed only once the outputs were in place (exit 2
    with the outputs replaced, and its temporary file left); one that is a symlink was
    read as the previous run's (a list of files to remove made elsewhere)."""
    kept = tmp_path / "kept"
    kept.mkdir()
    if odd == "folder":
        (kept / MANIFEST).mkdir()
    else:
        (tmp_path / "elsewhere.json").write_text('{"files": {}}\n')
        (kept / MANIFEST).symlink_to(tmp_path / "elsewhere.json")
    capsys.readouterr()
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl"]) == EXIT_USAGE
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"scrapy_rep: error: --out {kept}: "), err
    assert MANIFEST in err[0]
    assert sorted(os.listdir(kept)) == [MANIFEST]


def test_an_interrupted_rerun_removes_nothing_and_keeps_the_manifest(tmp_path: Path) -> None:
    """A fetch stopped half-way writes no --out: its --summary written in the folder made
    the run rewrite the manifest naming only that, and remove the previous run's shard
    it lacks, leaving the rest of the previous run unnamed (the next run stopped)."""
    import hashlib
    import io
    import zlib

    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.robotstxt import parse_robotstxt
    from rep_engine.urls.origins import origin_of
    from rep_engine.verdict.decide import ROBOTS
    from rep_recheck.command import EXIT_INTERRUPTED, FetchRequest, FetchResult, main
    from rep_recheck.documents import OriginDocuments

    def stopped(request: FetchRequest) -> FetchResult:
        origin = origin_of("https://a.example/")
        assert origin is not None
        body = b"User-agent: *\nDisallow: /no\n"
        sha = hashlib.sha256(body).hexdigest()
        entry = CacheEntry(parse_robotstxt(body), "200", 0.0, 1e20, 1e20, 200,
                           zlib.compress(body), sha256=sha)  # fmt: skip
        documents = OriginDocuments(origin, now=0.0)
        documents.add(ROBOTS, origin, entry)
        result = FetchResult({str(origin): documents}, {}, downloads=1)
        result.interrupted = "shutdown"
        return result

    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_REMOVED
    kept = tmp_path / "kept"
    before = {path.name: path.read_bytes() for path in kept.iterdir()}
    shards = [str(tmp_path / "data" / name) for name in ("a.jsonl", "b.jsonl")]
    argv = [*shards, "--purpose", "search", "--no-progress", f"--out={kept}",
            f"--summary={kept / 'summary.md'}"]  # fmt: skip
    assert main(argv, io.StringIO(), stopped) == EXIT_INTERRUPTED
    after = {path.name: path.read_bytes() for path in kept.iterdir() if path.name != "summary.md"}
    assert after == before
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl"]) == EXIT_REMOVED


def test_a_symlink_in_the_folder_named_as_a_shard_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A shard's output in the folder that is a symlink had its target replaced: a file
    outside the folder that no recheck wrote (and the manifest left it unnamed)."""
    (tmp_path / "kept").mkdir()
    mine = tmp_path / "mine.jsonl"
    mine.write_text('{"url": "https://mine.example/"}\n')
    (tmp_path / "kept" / "a.jsonl").symlink_to(mine)
    capsys.readouterr()
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl"]) == EXIT_USAGE
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "a.jsonl" in err[0] and "symlink" in err[0], err
    assert mine.read_text() == '{"url": "https://mine.example/"}\n'
    assert not (tmp_path / "kept" / "b.jsonl").exists()


@pytest.mark.parametrize("manifest", ["none", "naming another file"])
def test_a_file_of_a_shards_name_the_manifest_does_not_name_stops_the_run_and_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], manifest: str
) -> None:
    """A file in the folder named as a shard's output (one put there by hand, or written
    by a run before manifests) was overwritten by that shard's output when no manifest
    named it: a file no recheck wrote there."""
    kept = tmp_path / "kept"
    if manifest == "none":
        kept.mkdir()
    else:
        assert recheck_shards(tmp_path, ["b.jsonl", "c.jsonl"]) == EXIT_REMOVED
    mine = b'{"url": "https://mine.example/"}\n'
    (kept / "a.jsonl").write_bytes(mine)
    capsys.readouterr()
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_USAGE
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"scrapy_rep: error: --out {kept}: "), err
    assert "a.jsonl" in err[0] and "remove it" in err[0], err
    assert (kept / "a.jsonl").read_bytes() == mine
    assert not (tmp_path / "removed" / "a.jsonl").exists()  # refused before any work


def test_a_recheck_output_changed_since_the_manifest_stops_the_run_and_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file the manifest names under a shard's output name, then replaced by one of
    yours (or edited): only the name was checked, and the shard's output overwrote it, as
    a previous file changed since is never removed. Every such file is named at once, so
    that one run says all there is to move."""
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_REMOVED
    kept = tmp_path / "kept"
    mine = b'{"url": "https://mine.example/"}\n'
    (kept / "a.jsonl").unlink()
    (kept / "a.jsonl").write_bytes(mine)  # a file of yours at its name: another inode
    with (kept / "b.jsonl").open("ab") as file:  # an output edited in place
        file.write(mine)
    edited = (kept / "b.jsonl").read_bytes()
    capsys.readouterr()
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_USAGE
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"scrapy_rep: error: --out {kept}: "), err
    assert "a.jsonl, b.jsonl" in err[0] and "remove" in err[0], err
    assert (kept / "a.jsonl").read_bytes() == mine
    assert (kept / "b.jsonl").read_bytes() == edited


def test_a_rerun_over_unchanged_outputs_writes_them_again(tmp_path: Path) -> None:
    """The outputs a recheck wrote, as its manifest names them, are written over by the
    next run of the same shards."""
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl"]) == EXIT_REMOVED
    before = json.loads((tmp_path / "kept" / MANIFEST).read_text())["files"]
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl"]) == EXIT_REMOVED
    after = json.loads((tmp_path / "kept" / MANIFEST).read_text())["files"]
    assert sorted(after) == ["a.jsonl", "b.jsonl"] and after != before


def test_a_rerun_after_a_rename_that_failed_writes_its_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rename that failed put every output back (each from its hard link: a change
    time of its own); the next run writes them again instead of taking them for files
    edited since."""
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_REMOVED
    _fourth_rename_fails(monkeypatch)
    try:
        assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_USAGE
    finally:
        monkeypatch.undo()
    for folder in ("kept", "removed"):  # no temporary file nor hard link left
        assert [n for n in os.listdir(tmp_path / folder) if n.startswith(".")] == [MANIFEST]
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_REMOVED
    for folder in ("kept", "removed"):
        assert [n for n in os.listdir(tmp_path / folder) if n.startswith(".")] == [MANIFEST]


def test_a_rerun_after_a_manifest_that_could_not_be_written_writes_its_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outputs were in place and the folder's manifest could not be written (a full
    disk): the next run took them for files of yours, and stopped naming them."""
    real = files.write_manifest

    def failing(folder: Path, written: object) -> None:
        raise OSError(28, "No space left on device", str(folder))

    monkeypatch.setattr(files, "write_manifest", failing)
    try:
        assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_USAGE
    finally:
        monkeypatch.setattr(files, "write_manifest", real)
    assert visible_files(tmp_path / "kept") == ["a.jsonl", "b.jsonl", "c.jsonl"]
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl"]) == EXIT_REMOVED
    assert visible_files(tmp_path / "kept") == ["a.jsonl", "b.jsonl"]
    manifest = json.loads((tmp_path / "kept" / MANIFEST).read_text())
    assert sorted(manifest["files"]) == ["a.jsonl", "b.jsonl"] and "pending" not in manifest
