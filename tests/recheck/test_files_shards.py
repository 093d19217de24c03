"""The DATASET arguments of ``recheck`` as shards: several files, a folder (its files of
a dataset format, by name), a pattern expanded by the recheck, each file once; and with
several shards the folders ``--out`` and ``--removed`` name, one file per shard."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from rep_recheck.files import (
    ShardError,
    check_folders,
    expand,
    output_of,
    recorded_outputs,
    write_manifest,
)


def _written(folder: Path, *names: str) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text("{}\n")
    return [str(folder / name) for name in names]


def test_one_file_is_one_shard_named_as_one(tmp_path: Path) -> None:
    [path] = _written(tmp_path, "items.jsonl")
    shards = expand([path])
    assert (shards.paths, shards.several, shards.label) == ([path], False, path)
    assert expand(["-"]).paths == ["-"] and not expand(["-"]).several


def test_several_files_are_read_in_the_order_given(tmp_path: Path) -> None:
    b, a = _written(tmp_path, "b.parquet", "a.jsonl")
    shards = expand([b, a])
    assert shards.paths == [b, a] and shards.several
    assert shards.label == f"{b} {a}"


def test_a_folder_is_its_files_of_a_dataset_format_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    _written(folder, "part-1.parquet", "part-0.parquet", "extra.JSONL", "b.csv", "c.ndjson",
             "_SUCCESS", "README.md", "x.jsonl.gz", ".part-0.parquet.crc",
             ".kept.jsonl.1.partial")  # fmt: skip
    _written(folder / "sub", "deeper.jsonl")
    shards = expand([str(folder)])
    names = [Path(path).name for path in shards.paths]
    assert names == ["b.csv", "c.ndjson", "extra.JSONL", "part-0.parquet", "part-1.parquet",
                     "x.jsonl.gz"]  # fmt: skip
    assert shards.several and shards.label == str(folder)
    assert sorted(Path(path).name for path in shards.skipped) == ["README.md", "_SUCCESS"]
    assert shards.subfolders == [str(folder / "sub")]  # said as not read


def test_a_folders_subfolders_are_said_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """FineWeb's layout, ``data/CC-MAIN-2024-10/000_00000.parquet``: a folder's subfolders
    are not read, and the run names them on standard error (it said nothing: their items
    went unchecked, and no removed list named them)."""
    from tests.support.recheck import recheck_tool, robots_capture, write_jsonl, write_warc

    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /\n")])
    (tmp_path / "data" / "CC-MAIN-2024-10").mkdir(parents=True)
    write_jsonl(tmp_path / "data" / "top.jsonl", ["https://a.example/1"])
    write_jsonl(tmp_path / "data" / "CC-MAIN-2024-10" / "000.jsonl", ["https://a.example/2"])
    code, _ = recheck_tool(str(tmp_path / "data"), "--purpose", "search", "--documents",
                           str(warc))  # fmt: skip
    assert code == 1
    said = (f"recheck: 1 subfolder(s) not read (only a folder's own shards are: name each "
            f"subfolder too): {tmp_path / 'data' / 'CC-MAIN-2024-10'}")  # fmt: skip
    assert said in capsys.readouterr().err.splitlines()


def test_a_pattern_is_expanded_sorted_to_the_files_it_matches(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    _written(folder, "b.parquet", "a.parquet", "c.jsonl")
    _written(folder / "deep", "d.parquet")
    (folder / "dir.parquet").mkdir()
    shards = expand([str(folder / "*.parquet")])
    assert [Path(path).name for path in shards.paths] == ["a.parquet", "b.parquet"]
    assert shards.several
    deep = expand([str(folder / "**" / "*.parquet")])
    assert [Path(path).name for path in deep.paths] == ["a.parquet", "b.parquet", "d.parquet"]


def test_a_file_named_like_a_pattern_is_that_file(tmp_path: Path) -> None:
    [path] = _written(tmp_path, "odd[1].jsonl")
    shards = expand([path])
    assert shards.paths == [path] and not shards.several


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["-", "{a}"], "- (standard input) is read alone: name the files instead"),
        (["{a}", "{a}"], "{a} is named twice (as {a}): each shard is read once"),
        (["{folder}", "{a}"], "{a} is named twice (as {a}): each shard is read once"),
        (["{folder}/*.jsonl", "{link}"], "{link} is named twice (as {a}): each shard is read once"),
        (["{folder}/*.csv"], "{folder}/*.csv matches no file"),
        (["{empty}"], "{empty} holds no file of a dataset format (.jsonl, .ndjson, .csv "
                      "(each .gz or .zst too), .parquet): name its files, or a pattern"),
        ([], "give a DATASET: a file, several, a folder or a quoted pattern"),
    ],
)  # fmt: skip
def test_what_names_no_collection_is_one_line(
    tmp_path: Path, arguments: list[str], said: str
) -> None:
    folder = tmp_path / "data"
    [a] = _written(folder, "a.jsonl")
    link = tmp_path / "link.jsonl"
    link.symlink_to(a)
    (tmp_path / "empty").mkdir()
    _written(tmp_path / "empty", "notes.txt")
    names = {"a": a, "folder": str(folder), "link": str(link), "empty": str(tmp_path / "empty")}
    with pytest.raises(ShardError) as raised:
        expand([argument.format(**names) for argument in arguments])
    assert str(raised.value) == said.format(**names)


def test_each_shard_is_written_to_its_own_name_in_the_output_folder(tmp_path: Path) -> None:
    a, b = _written(tmp_path / "data", "a.jsonl", "b.parquet")
    assert output_of(tmp_path / "kept", a) == tmp_path / "kept" / "a.jsonl"
    check_folders(expand([a, b]), [("out", str(tmp_path / "kept"))])  # none yet: created
    (tmp_path / "file").write_text("")
    with pytest.raises(ShardError) as raised:
        check_folders(expand([a, b]), [("out", str(tmp_path / "file"))])
    assert str(raised.value) == (
        f"--out {tmp_path / 'file'}: with several shards --out names a folder (one file per "
        "shard, named as the shard)"
    )
    check_folders(expand([a]), [("out", str(tmp_path / "file"))])  # one file: a file


def test_two_shards_of_one_name_cannot_share_an_output_folder(tmp_path: Path) -> None:
    [one] = _written(tmp_path / "x", "part-0.parquet")
    [two] = _written(tmp_path / "y", "part-0.parquet")
    shards = expand([one, two])
    check_folders(shards, [])  # written nowhere: read alike
    with pytest.raises(ShardError) as raised:
        check_folders(shards, [("removed", "gone")])
    assert str(raised.value) == (
        f"--removed gone: the shards {one} and {two} would both be written to "
        f"{os.path.join('gone', 'part-0.parquet')}: rename one"
    )


def test_two_shards_whose_names_differ_by_case_alone_cannot_share_an_output_folder(
    tmp_path: Path,
) -> None:
    """``x/Part-0.parquet`` and ``y/part-0.parquet``: two files on Linux, but one in an
    output folder on macOS or Windows (their file systems ignore case): the second
    shard's kept items are written over the first's temporary file, and one shard's
    items are lost without a word (the same for names that differ only in their Unicode
    normalization, which macOS's file system ignores too)."""
    [one] = _written(tmp_path / "x", "Part-0.parquet")
    [two] = _written(tmp_path / "y", "part-0.parquet")
    with pytest.raises(ShardError, match="would both be written to"):
        check_folders(expand([one, two]), [("out", "kept")])
    [three] = _written(tmp_path / "z", "\u00e9.jsonl")  # é, one code point
    [four] = _written(tmp_path / "w", "e\u0301.jsonl")  # e and a combining accent
    with pytest.raises(ShardError, match="would both be written to"):
        check_folders(expand([three, four]), [("out", "kept")])


def test_a_folders_manifest_is_read_once_however_many_shards_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telling a recheck's report from a shard read the folder's manifest again for each
    of its JSON Lines files: a previous run's folder of 5,000 outputs, whose manifest
    names them all, took 25 s to list (50,000: 40 minutes). It is read once a folder."""
    folder = tmp_path / "out"
    shards = [Path(path) for path in _written(folder, *(f"s{n}.jsonl" for n in range(50)))]
    for path in shards:
        path.write_text('{"url": "http://a.test/"}\n')
    write_manifest(folder, shards)
    read: list[Path] = []
    recorded = recorded_outputs

    def counted(where: Path) -> dict[str, list[Any]]:
        read.append(where)
        return recorded(where)

    monkeypatch.setattr("rep_recheck.files.recorded_outputs", counted)
    assert len(expand([str(folder)]).paths) == 50
    assert len(read) == 1, read
