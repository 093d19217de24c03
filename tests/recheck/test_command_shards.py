"""``recheck`` on a collection of several files (shards): several paths, a folder, a
pattern, of one format or mixed; every output checked against every shard before
anything is read; the documents had once for all the shards; one summary with a table
per shard, the report's and the trail's items naming their shard, and ``--out`` and
``--removed`` as folders of one file per shard in its own format."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rep_audit.show import story
from rep_audit.verify import verify
from rep_recheck import asof
from rep_recheck.command import (
    EXIT_REMOVED,
    EXIT_USAGE,
    FetchRequest,
    FetchResult,
    main,
)
from rep_recheck.files import MANIFEST
from tests.support.recheck import (
    fail_reading,
    needs,
    recheck_tool,
    report_lines,
    robots_capture,
    write_csv,
    write_jsonl,
    write_parquet,
    write_warc,
)

ROBOTS = "User-agent: *\nDisallow: /no\n"
#: The shards, by name: a.example's robots.txt refuses /no; b.example's answers 404
#: (everything allowed); c.example is not captured (unknown).
SHARDS = {
    "part-0.parquet": ["https://a.example/no/1", "https://a.example/yes/1"],
    "part-1.parquet": ["https://b.example/x", "https://a.example/no/2"],
    "part-2.parquet": ["https://a.example/yes/2"],
    "extra.jsonl": ["https://c.example/z", "https://a.example/yes/3"],
}


def _captured(tmp_path: Path) -> Path:
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", ROBOTS),
                      ("https://b.example/robots.txt", 404, b"", {})])  # fmt: skip
    return warc


def _shards(folder: Path, names: Any = SHARDS) -> dict[str, bytes]:
    """The shards written in ``folder``; each one's bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        if name.endswith(".parquet"):
            write_parquet(folder / name, SHARDS[name])
        else:
            write_jsonl(folder / name, SHARDS[name])
    return {name: (folder / name).read_bytes() for name in names}


def _urls(path: Path) -> list[str]:
    if path.suffix == ".parquet":
        return list(needs("pyarrow.parquet").read_table(str(path)).column("url").to_pylist())
    return [line["url"] for line in report_lines(path)]


def test_a_folder_of_parquet_and_json_lines_shards_is_one_recheck(tmp_path: Path) -> None:
    """A data engineer's collection: three Parquet shards and a JSON Lines one, in one
    folder (with a Spark ``_SUCCESS`` beside them, not read)."""
    data = tmp_path / "data"
    before = _shards(data)
    (data / "_SUCCESS").write_text("")
    out, removed = tmp_path / "kept", tmp_path / "removed"
    report, trail = tmp_path / "report.jsonl", tmp_path / "trail.jsonl"
    code, summary = recheck_tool(str(data), "--purpose", "search", "--documents",
                                 str(_captured(tmp_path)), f"--out={out}", f"--removed={removed}",
                                 f"--report={report}", f"--trail={trail}")  # fmt: skip
    assert code == EXIT_REMOVED
    assert summary.startswith(f"## Re-check of `{data}` (4 shards)\n")
    assert "- Items: 7 over 3 origin(s)" in summary
    table = summary[summary.index("### Per shard") :].split("\n\n")[1].splitlines()
    assert table == [
        "| shard | format | items | kept | refused | unknown |",
        "|---|---|---|---|---|---|",
        f"| `{data / 'extra.jsonl'}` | jsonl | 2 | 1 | 0 | 1 |",
        f"| `{data / 'part-0.parquet'}` | parquet | 2 | 1 | 1 | 0 |",
        f"| `{data / 'part-1.parquet'}` | parquet | 2 | 1 | 1 | 0 |",
        f"| `{data / 'part-2.parquet'}` | parquet | 1 | 1 | 0 | 0 |",
    ]
    # one file per shard in each folder, in the shard's own format and name
    assert sorted(path.name for path in out.iterdir()) == sorted([*SHARDS, MANIFEST])
    assert _urls(out / "part-1.parquet") == ["https://b.example/x"]
    assert _urls(removed / "part-1.parquet") == ["https://a.example/no/2"]
    assert _urls(out / "extra.jsonl") == ["https://a.example/yes/3"]
    assert _urls(removed / "extra.jsonl") == ["https://c.example/z"]
    assert _urls(out / "part-2.parquet") == SHARDS["part-2.parquet"]
    assert _urls(removed / "part-2.parquet") == []  # an empty file, schema kept
    said = [(line["shard"], line["line"], line["url"], line["status"])
            for line in report_lines(report)]  # fmt: skip
    assert said[:3] == [
        (str(data / "extra.jsonl"), 1, "https://c.example/z", "unknown"),
        (str(data / "extra.jsonl"), 2, "https://a.example/yes/3", "kept"),
        (str(data / "part-0.parquet"), 1, "https://a.example/no/1", "refused"),
    ]
    assert len(said) == 7
    records = [line for line in report_lines(trail) if line["type"] in ("run", "item")]
    about = records[0]["recheck"]
    assert about["dataset"] == str(data) and about["format"] == "jsonl, parquet"
    assert about["shards"] == [str(data / name) for name in sorted(SHARDS)]
    assert [(r["shard"], r["line"]) for r in records[1:]] == [(s, n) for s, n, _, _ in said]
    result = verify(trail)
    assert result.clean, result.findings
    told, _ = story(trail, "https://a.example/no/2")
    assert f"(line 2 of shard {data / 'part-1.parquet'}): refused" in "\n".join(told)
    assert {name: (data / name).read_bytes() for name in SHARDS} == before


def test_several_paths_and_a_pattern_name_shards_too(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _shards(data)
    warc = str(_captured(tmp_path))
    pattern = str(data / "part-*.parquet")
    code, summary = recheck_tool(pattern, "--purpose", "search", "--documents", warc)
    assert code == EXIT_REMOVED
    assert summary.startswith(f"## Re-check of `{pattern}` (3 shards)\n")
    assert f"| `{data / 'part-2.parquet'}` | parquet | 1 | 1 | 0 | 0 |" in summary
    assert "extra.jsonl" not in summary and "- Items: 5 over 2 origin(s)" in summary
    # paths given after the options too, in the order given
    out = io.StringIO()
    code = main([str(data / "part-2.parquet"), "--purpose", "search", "--documents", warc,
                 str(data / "extra.jsonl"), "--no-progress"], out)  # fmt: skip
    assert code == EXIT_REMOVED
    rows = [line for line in out.getvalue().splitlines() if line.startswith(f"| `{data}")]
    assert rows == [f"| `{data / 'part-2.parquet'}` | parquet | 1 | 1 | 0 | 0 |",
                    f"| `{data / 'extra.jsonl'}` | jsonl | 2 | 1 | 0 | 1 |"]  # fmt: skip


def test_one_file_reads_and_writes_as_before(tmp_path: Path) -> None:
    """One file named: no per-shard table, no ``shard`` field, ``--out`` a file."""
    data = tmp_path / "data"
    _shards(data, ["extra.jsonl"])
    report, out = tmp_path / "report.jsonl", tmp_path / "kept.jsonl"
    code, summary = recheck_tool(str(data / "extra.jsonl"), "--purpose", "search",
                                 "--documents", str(_captured(tmp_path)), f"--report={report}",
                                 f"--out={out}")  # fmt: skip
    assert code == EXIT_REMOVED
    assert "### Per shard" not in summary and "shards)" not in summary
    assert all("shard" not in line for line in report_lines(report))
    assert _urls(out) == ["https://a.example/yes/3"]


def test_a_shard_of_unreadable_lines_is_named_with_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    _shards(data, ["part-2.parquet"])
    (data / "bad.jsonl").write_bytes(b'{"url": "https://a.example/yes/9"}\n{oops\n')
    code, summary = recheck_tool(str(data), "--purpose", "search", "--documents",
                                 str(_captured(tmp_path)))  # fmt: skip
    assert code == EXIT_REMOVED  # warned of: the run produced its outputs
    assert "| shard | format | items | kept | refused | unknown | unreadable |" in summary
    assert f"| `{data / 'bad.jsonl'}` | jsonl | 2 | 1 | 0 | 0 | 1 |" in summary
    assert f"Unreadable items (first lines): `{data / 'bad.jsonl'}` line 2: not JSON" in summary
    err = capsys.readouterr().err
    assert f"scrapy_rep: warning: {data / 'bad.jsonl'}: line 2: not JSON" in err


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one line a refused run says (exit 2, no summary)."""
    code, summary = recheck_tool(*argv)
    assert code == EXIT_USAGE and summary == ""
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1, err
    return err[0]


def test_every_output_is_checked_against_every_shard_before_anything_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    before = _shards(data)
    warc = str(_captured(tmp_path))
    given = [str(data), "--purpose", "search", "--documents", warc]
    # --out's folder is the shards' own: each output would replace its shard
    said = _refused(capsys, *given, f"--out={data}")
    assert said == (f"scrapy_rep: error: --out {data / 'extra.jsonl'} is a shard of the "
                    f"dataset ({data / 'extra.jsonl'}): writing it would destroy what the "
                    "recheck reads; name another file")  # fmt: skip
    # through a symlink to the folder, for --removed
    link = tmp_path / "link"
    link.symlink_to(data)
    assert f"--removed {link / 'extra.jsonl'} is a shard" in _refused(
        capsys, *given, f"--removed={link}"
    )
    # the report, the summary, the trail: each shard, not only the first
    for option in ("report", "summary", "trail"):
        path = data / "part-2.parquet"
        said = _refused(capsys, *given, f"--{option}={path}")
        assert f"--{option} {path} is a shard of the dataset ({path})" in said, said
    assert "is the dataset" in _refused(
        capsys, str(data / "extra.jsonl"), *given[1:], f"--out={data / 'extra.jsonl'}"
    )
    # several files named one by one, the last one the output
    last = data / "part-1.parquet"
    said = _refused(capsys, str(data / "part-0.parquet"), str(last), *given[1:],
                    f"--report={last}")  # fmt: skip
    assert f"--report {last} is a shard of the dataset ({last})" in said
    assert {name: (data / name).read_bytes() for name in SHARDS} == before


def test_outputs_for_several_shards_are_folders_of_distinct_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    _shards(data, ["extra.jsonl", "part-0.parquet"])
    other = tmp_path / "other"
    _shards(other, ["part-0.parquet"])
    warc = str(_captured(tmp_path))
    kept = tmp_path / "kept.jsonl"
    kept.write_text("")
    said = _refused(capsys, str(data), "--purpose", "search", "--documents", warc,
                    f"--out={kept}")  # fmt: skip
    assert said == (f"scrapy_rep: error: --out {kept}: with several shards --out names a "
                    "folder (one file per shard, named as the shard)")  # fmt: skip
    said = _refused(capsys, str(data / "part-0.parquet"), str(other / "part-0.parquet"),
                    "--purpose", "search", "--documents", warc,
                    f"--out={tmp_path / 'k'}")  # fmt: skip
    assert said.endswith(f"would both be written to {tmp_path / 'k' / 'part-0.parquet'}: "
                         "rename one")  # fmt: skip
    said = _refused(capsys, str(data), "--purpose", "search", "--documents", warc,
                    f"--out={tmp_path / 'same'}", f"--removed={tmp_path / 'same'}")  # fmt: skip
    assert "--removed" in said and "is also --out" in said
    assert not (tmp_path / "k").exists() and not (tmp_path / "same").exists()


def test_a_pattern_that_matches_nothing_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pattern = str(tmp_path / "*.parquet")
    said = _refused(capsys, pattern, "--purpose", "search", "--documents",
                    str(_captured(tmp_path)))  # fmt: skip
    assert said == f"scrapy_rep: error: {pattern} matches no file"


@pytest.fixture
def warc_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Each WARC the recheck reads its documents from, as it opens it."""
    reads: list[str] = []
    records = asof.records  # each WARC of --documents is read through it

    def counted(path: Any, *rest: Any) -> Any:
        reads.append(str(path))
        return records(path, *rest)

    monkeypatch.setattr(asof, "records", counted)
    yield reads


def test_the_documents_are_had_once_for_all_the_shards(
    tmp_path: Path, warc_reads: list[str]
) -> None:
    data = tmp_path / "data"
    _shards(data)
    asked: list[FetchRequest] = []

    def fetcher(request: FetchRequest) -> FetchResult:
        asked.append(request)
        return FetchResult()  # nothing had: every item unknown

    out = io.StringIO()
    code = main([str(data), "--purpose", "search", "--no-progress"], out, fetcher)
    assert code == EXIT_REMOVED
    # one crawl, each origin once though a.example's items are in every shard
    assert len(asked) == 1
    assert asked[0].origins == ["https://c.example", "https://a.example", "https://b.example"]
    assert "| unknown | 7 | 100.0 % | 3 |" in out.getvalue()
    # with a WARC (and --fetch-missing: c.example is not in it), read once, one crawl
    code = main([str(data), "--purpose", "search", "--no-progress", "--documents",
                 str(_captured(tmp_path)), "--fetch-missing"], io.StringIO(), fetcher)  # fmt: skip
    assert code == EXIT_REMOVED
    assert warc_reads == [str(tmp_path / "robots.warc")]
    assert len(asked) == 2 and asked[1].origins == ["https://c.example"]


def test_a_csv_shard_keeps_its_header_in_its_output(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _shards(data, ["extra.jsonl"])
    rows = write_csv(data / "more.csv", ["https://a.example/no/3", "https://a.example/yes/4"])
    out = tmp_path / "kept"
    code, _ = recheck_tool(str(data), "--purpose", "search", "--documents",
                           str(_captured(tmp_path)), f"--out={out}")  # fmt: skip
    assert code == EXIT_REMOVED
    assert (out / "more.csv").read_bytes() == b"title,url\r\n" + rows[1]


def test_a_previous_runs_report_in_the_folder_is_not_read_as_a_shard(tmp_path: Path) -> None:
    """A careless user writes the report beside the shards (``--report data/report.jsonl``)
    and re-checks the folder later: the report's lines name a ``url`` each, so the
    folder's report.jsonl was read as one more shard of JSON Lines, every item counted
    twice (8 items of 4) and its lines written to ``--out`` as if they were the
    collection's."""
    data = tmp_path / "data"
    _shards(data, ["part-2.parquet", "extra.jsonl"])
    warc = str(_captured(tmp_path))
    code, _ = recheck_tool(str(data / "extra.jsonl"), "--purpose", "search", "--documents",
                               warc, f"--report={data / 'report.jsonl'}")  # fmt: skip
    assert code == EXIT_REMOVED and (data / "report.jsonl").exists()
    out = tmp_path / "kept"
    code, summary = recheck_tool(str(data), "--purpose", "search", "--documents", warc,
                                 f"--out={out}")  # fmt: skip
    assert "- Items: 3 over 2 origin(s)" in summary, summary
    assert "report.jsonl" not in summary.split("### Per shard")[1].split("###")[0]
    assert sorted(path.name for path in out.iterdir()) == [MANIFEST, "extra.jsonl",
                                                            "part-2.parquet"]  # fmt: skip


def test_a_shards_name_cannot_forge_lines_of_the_summary(tmp_path: Path) -> None:
    """A hostile collection's file names are the summary's too: a name holding a line
    break and a table row wrote that row into the per-shard table, as a shard of 99
    items all kept, and a line of its own wherever the name is printed."""
    data = tmp_path / "data"
    _shards(data, ["part-2.parquet"])
    forged = "a\n| `forged.jsonl` | jsonl | 99 | 99 | 0 | 0 |\nb.jsonl"
    write_jsonl(data / forged, ["https://a.example/no/9"])
    code, summary = recheck_tool(str(data), "--purpose", "search", "--documents",
                                 str(_captured(tmp_path)))  # fmt: skip
    assert code == EXIT_REMOVED
    assert not [line for line in summary.splitlines() if "forged" in line and
                line.startswith("| `forged")], summary  # fmt: skip
    table = summary[summary.index("### Per shard") :].split("\n\n")[1].splitlines()
    assert len(table) == 2 + 2, table  # the head, and one row per shard


def _trail_lines(trail: Path) -> list[dict[str, Any]]:
    import json

    return [json.loads(line) for line in trail.read_text(encoding="utf-8").splitlines()]


def test_a_shard_that_cannot_be_read_leaves_the_trail_as_it_was(tmp_path: Path) -> None:
    """With a WARC no first pass reads the shards: the first shard's items were appended
    to ``--trail``, then the second stopped the run (exit 2) with no end line, and
    `verify` said the run was killed. Every shard is opened and its first items read
    before the trail is written: the trail is as it was, and verifies clean."""
    data = tmp_path / "data"
    data.mkdir()
    write_jsonl(data / "a.jsonl", [f"https://a.example/yes/{n}" for n in range(300)])
    (data / "b.csv").write_text("title,link\nx,https://a.example/1\n", encoding="utf-8")
    trail = tmp_path / "trail.jsonl"
    warc = _captured(tmp_path)
    code, _ = recheck_tool(str(data / "a.jsonl"), "--purpose", "search", "--documents",
                           str(warc), f"--trail={trail}")  # fmt: skip
    before = trail.read_bytes()
    code, _ = recheck_tool(str(data), "--purpose", "search", "--documents", str(warc),
                           f"--trail={trail}")  # fmt: skip
    assert code == EXIT_USAGE
    assert trail.read_bytes() == before
    assert verify(trail).clean
    # a lone file that cannot be read leaves no run line either
    code, _ = recheck_tool(str(data / "b.csv"), "--purpose", "search", "--documents",
                           str(warc), f"--trail={trail}")  # fmt: skip
    assert code == EXIT_USAGE and trail.read_bytes() == before


def test_a_shard_that_fails_half_way_ends_the_run_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shard whose first items read but that fails later (a file cut, a disk error):
    the run ends with an end line that says it failed, why, and what it left; `verify`
    lists it as an event, not a run killed; `summary` and `export` say so, and export
    none of its items."""
    import json

    from tests.support.tools import audit_tool

    fail_reading(monkeypatch, "b.jsonl")
    data = tmp_path / "data"
    data.mkdir()
    write_jsonl(data / "a.jsonl", [f"https://a.example/yes/{n}" for n in range(3)])
    write_jsonl(data / "b.jsonl", ["https://a.example/yes/b", "https://a.example/no/b"])
    trail = tmp_path / "trail.jsonl"
    code, _ = recheck_tool(str(data), "--purpose", "search", "--documents",
                           str(_captured(tmp_path)), f"--trail={trail}")  # fmt: skip
    assert code == EXIT_USAGE
    end = [line for line in _trail_lines(trail) if line["type"] not in ("site", "head")][-1]
    assert end["type"] == "end" and end["reason"] == "failed", end
    assert end["error"] == f"{data / 'b.jsonl'}: cannot read: Input/output error"
    assert end["counts"]["items"] == 5 and end["counts"]["items_kept"] == 4
    result = verify(trail)
    assert result.clean, result.findings
    said = [finding.what for finding in result.events]
    assert any("failed: " in what and "Input/output error" in what for what in said), said
    code, out = audit_tool("summary", str(trail))
    assert "(failed: " in out, out
    summary = tmp_path / "export.md"
    code, out = audit_tool("export", str(trail), f"--summary={summary}")
    header, *assets = map(json.loads, out.splitlines())
    assert assets == [] and header["items_withheld"] == 4, header
    run = end["run"]
    assert f"- **Run `{run[:8]}` failed** ({end['error']}): not a whole recheck; its kept " \
        "items are not exported" in summary.read_text()  # fmt: skip
    # exported alone, as it decided: its kept items, said to be of a run that failed
    code, out = audit_tool("export", str(trail), f"--run={run}", f"--summary={summary}")
    assert len(out.splitlines()) == 1 + 4
    assert "its items are those decided before it stopped" in summary.read_text()


def _jsonl_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def test_a_users_shard_that_begins_as_a_report_does_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder's JSON Lines file whose records begin ``line, url, status`` (a user's
    own export of decisions, say) was skipped as "a recheck's --report": its items were
    never re-checked and ``--out`` lacked them. Only a file its folder's manifest names
    is a recheck's report."""
    folder = tmp_path / "data"
    folder.mkdir()
    mine = ["https://a.example/no/mine", "https://a.example/yes/mine"]
    _jsonl_rows(folder / "mine.jsonl", [{"line": n, "url": url, "status": "ok"}
                                   for n, url in enumerate(mine, 1)])  # fmt: skip
    _jsonl_rows(folder / "other.jsonl", [{"url": "https://a.example/yes/other"}])
    report = tmp_path / "report.jsonl"
    code, _ = recheck_tool(str(folder), "--purpose", "search", "--documents",
                           str(_captured(tmp_path)), "--report", str(report))  # fmt: skip
    assert code == EXIT_REMOVED
    said = {line["url"]: line["status"] for line in report_lines(report)}
    assert said == {"https://a.example/no/mine": "refused", "https://a.example/yes/mine": "kept",
                    "https://a.example/yes/other": "kept"}  # fmt: skip
    assert "not read" not in capsys.readouterr().err


def test_a_report_written_among_the_shards_is_not_read_by_the_next_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run whose ``--report`` goes into the folder it reads has the folder's manifest
    name it: the next run over the folder knows it for a report, says so, and reads only
    the shards; edited since, it is no longer that report and is read."""
    folder = tmp_path / "data"
    folder.mkdir()
    _jsonl_rows(folder / "items.jsonl", [{"url": "https://a.example/no/1"},
                                    {"url": "https://a.example/yes/1"}])  # fmt: skip
    warc = str(_captured(tmp_path))
    report = folder / "report.jsonl"
    argv = [str(folder), "--purpose", "search", "--documents", warc]
    code, _ = recheck_tool(*argv, "--report", str(report))
    assert code == EXIT_REMOVED
    assert (folder / MANIFEST).is_file()
    capsys.readouterr()
    again = tmp_path / "again.jsonl"
    recheck_tool(*argv, "--report", str(again))
    said = capsys.readouterr().err
    assert f"1 file(s) a recheck wrote as its --report not read: {report}" in said
    assert [line["url"] for line in report_lines(again)] == [
        "https://a.example/no/1", "https://a.example/yes/1"]  # fmt: skip
    with report.open("a", encoding="utf-8") as file:  # edited: no longer the run's
        file.write('{"line": 9, "url": "https://a.example/yes/9", "status": "kept"}\n')
    recheck_tool(*argv, "--report", str(again))
    assert "https://a.example/yes/9" in {line["url"] for line in report_lines(again)}


@pytest.mark.parametrize("option", ["--summary", "--trail", "--report"])
def test_an_output_named_as_a_folder_s_manifest_is_refused_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    """``--summary out/.recheck-outputs.json`` (or ``--trail``) was written, then replaced
    by the manifest of ``--out out``: the summary lost, the trail's lines gone. Refused
    before anything is read, directly or through a symlink."""
    data = tmp_path / "data"
    _shards(data)
    out = tmp_path / "out"
    out.mkdir()
    (out / MANIFEST).write_text("{}", encoding="utf-8")
    before = (out / MANIFEST).read_bytes()
    link = tmp_path / "named.md"
    link.symlink_to(out / MANIFEST)
    warc = str(_captured(tmp_path))
    for named in (out / MANIFEST, link):
        said = _refused(capsys, str(data), "--purpose", "search", "--documents", warc,
                        "--out", str(out), option, str(named))  # fmt: skip
        assert f"{option} {named}: {MANIFEST} is the manifest a recheck writes" in said
        assert (out / MANIFEST).read_bytes() == before


def test_a_report_a_pattern_of_the_run_would_match_is_not_read_by_the_next_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run of ``'data/**/*.jsonl'`` whose shards are in subfolders wrote its report in
    ``data/``, which holds none: its manifest did not name the report, and the next run
    of the same pattern read the report as one more shard (its items re-checked, written
    to ``--out``). A report in a folder a pattern of the run reaches is named too."""
    folder = tmp_path / "data"
    (folder / "2024").mkdir(parents=True)
    _jsonl_rows(folder / "2024" / "items.jsonl", [{"url": "https://a.example/no/1"},
                                                 {"url": "https://a.example/yes/1"}])  # fmt: skip
    report = folder / "report.jsonl"
    argv = [str(folder / "**" / "*.jsonl"), "--purpose", "search", "--documents",
            str(_captured(tmp_path))]  # fmt: skip
    code, _ = recheck_tool(*argv, "--report", str(report))
    assert code == EXIT_REMOVED
    capsys.readouterr()
    again = tmp_path / "again.jsonl"
    recheck_tool(*argv, "--report", str(again))
    assert f"its --report not read: {report}" in capsys.readouterr().err
    assert [line["url"] for line in report_lines(again)] == [
        "https://a.example/no/1", "https://a.example/yes/1"]  # fmt: skip


def test_a_report_among_the_shards_is_known_in_a_copy_of_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder holding a run's report, copied or moved to another disk with its times
    (``cp -a``, ``rsync -a``: a new inode), had the report read as a shard by the next
    run: its manifest's stamp names an inode no copy keeps. A report is known by its
    name, size and time (and its first line); a copy of it is that report."""
    folder = tmp_path / "data"
    folder.mkdir()
    _jsonl_rows(folder / "items.jsonl", [{"url": "https://a.example/no/1"}])
    argv = ["--purpose", "search", "--documents", str(_captured(tmp_path))]
    code, _ = recheck_tool(str(folder), *argv, "--report", str(folder / "report.jsonl"))
    assert code == EXIT_REMOVED
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)  # copy2: the times kept, new inodes
    capsys.readouterr()
    again = tmp_path / "again.jsonl"
    recheck_tool(str(copy), *argv, "--report", str(again))
    assert f"its --report not read: {copy / 'report.jsonl'}" in capsys.readouterr().err
    assert [line["url"] for line in report_lines(again)] == ["https://a.example/no/1"]
