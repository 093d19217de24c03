"""The files a recheck reads are never destroyed by the ones it writes: every output is
checked against every input (the dataset, the WARC) and the other outputs, by path and
by inode (symlinks, hard links, ``..``), and whether it can be written, before anything
is read or fetched (exit 2, one line); the outputs are written under a temporary name
and renamed once whole, so an interrupted run leaves the files as they were."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from rep_recheck.command import EXIT_USAGE, FetchRequest, FetchResult, main
from rep_recheck.files import PathError, check_paths
from tests.support.recheck import recheck_tool, robots_capture, write_jsonl, write_warc

ROBOTS = "User-agent: *\nDisallow: /no\n"
URLS = ["https://a.example/no/1", "https://a.example/yes", "https://b.example/x"]


def _files(tmp_path: Path) -> tuple[Path, Path, bytes]:
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", ROBOTS)])
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, URLS)
    return warc, dataset, dataset.read_bytes()


def _same(path: Path) -> Path:
    return path


def _symlink(path: Path) -> Path:
    link = path.with_name("link.jsonl")
    link.symlink_to(path.name)
    return link


def _hard_link(path: Path) -> Path:
    link = path.with_name("hard.jsonl")
    os.link(path, link)
    return link


def _dotted(path: Path) -> Path:
    (path.parent / "sub").mkdir()
    return path.parent / "sub" / ".." / "." / path.name


ALIASES: dict[str, Callable[[Path], Path]] = {
    "same": _same, "symlink": _symlink, "hard-link": _hard_link, "dotted": _dotted,
}  # fmt: skip


@pytest.mark.parametrize("alias", ALIASES)
@pytest.mark.parametrize("option", ["out", "removed", "report", "summary"])
def test_an_output_naming_the_dataset_is_refused_and_the_dataset_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, alias: str
) -> None:
    warc, dataset, before = _files(tmp_path)
    named = ALIASES[alias](dataset)
    code, summary = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                                 f"--{option}={named}")  # fmt: skip
    assert code == EXIT_USAGE
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"--{option} {named} is the dataset" in err[0], err
    assert dataset.read_bytes() == before and summary == ""


@pytest.mark.parametrize("alias", ["same", "symlink", "hard-link"])
def test_out_naming_the_warc_is_refused_and_the_warc_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], alias: str
) -> None:
    warc, dataset, _ = _files(tmp_path)
    captured = warc.read_bytes()
    named = ALIASES[alias](warc)
    code, _ = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                           f"--out={named}")  # fmt: skip
    assert code == EXIT_USAGE
    assert "is the WARC of --documents" in capsys.readouterr().err
    assert warc.read_bytes() == captured


@pytest.mark.parametrize("alias", ALIASES)
@pytest.mark.parametrize("option", ["out", "trail"])
def test_an_output_naming_the_file_standard_input_reads_is_refused(
    tmp_path: Path, option: str, alias: str
) -> None:
    """``recheck - < items.jsonl --out items.jsonl``: the dataset is the file standard
    input reads, by device and inode, however the output names it (the whole command,
    and ``/proc/self/fd/0``: tests/integration/test_recheck.py)."""
    _, dataset, _ = _files(tmp_path)
    named = ALIASES[alias](dataset)
    with dataset.open("rb") as stdin, pytest.raises(PathError) as refused:
        check_paths([], [(option, named)], stdin=stdin.fileno())
    assert str(refused.value) == (
        f"--{option} {named} is the dataset (standard input): writing it would destroy what "
        "the recheck reads; name another file"
    )


@pytest.mark.parametrize("named", ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"])
def test_an_output_named_as_standard_input_is_refused_whatever_it_reads(
    tmp_path: Path, named: str
) -> None:
    """Standard input a terminal, or another file than the output's: still the dataset."""
    with (tmp_path / "other").open("wb") as stdin, pytest.raises(PathError, match="is the dataset"):
        check_paths([], [("out", Path(named))], stdin=stdin.fileno())


def test_outputs_beside_the_file_standard_input_reads_pass(tmp_path: Path) -> None:
    """Another file, a new one."""
    _, dataset, _ = _files(tmp_path)
    (tmp_path / "other.jsonl").write_bytes(b"")
    outputs = [("out", tmp_path / "other.jsonl"), ("removed", tmp_path / "new.jsonl")]
    with dataset.open("rb") as stdin:
        check_paths([], outputs, stdin=stdin.fileno())


def test_a_trail_naming_a_file_that_is_no_trail_is_refused_and_the_file_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--trail other.jsonl``, a collection written earlier: its run lines were appended
    to it without a word."""
    warc, dataset, _ = _files(tmp_path)
    other = tmp_path / "other.jsonl"
    other.write_bytes(b'{"url": "https://x.example/1", "title": "t"}\n')
    out = tmp_path / "kept.jsonl"
    code, summary = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                                 f"--trail={other}", f"--out={out}")  # fmt: skip
    assert code == EXIT_USAGE and summary == ""
    assert capsys.readouterr().err.splitlines() == [
        f"scrapy_rep: error: --trail {other} is not an audit trail (its first line is not the "
        "run line a trail starts with): the trail would be appended to it; name another file"
    ]
    assert other.read_bytes() == b'{"url": "https://x.example/1", "title": "t"}\n'
    assert not out.exists()


def test_two_outputs_naming_one_file_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    warc, dataset, _ = _files(tmp_path)
    both = tmp_path / "both.jsonl"
    code, _ = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                           f"--out={both}", f"--removed={_symlink(both)}")  # fmt: skip
    assert code == EXIT_USAGE
    assert "--removed" in capsys.readouterr().err and not both.exists()


@pytest.mark.parametrize("option", ["out", "report", "summary", "trail"])
def test_an_output_that_cannot_be_written_stops_the_run_before_its_crawl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    """A folder, or a path under a file: exit 2 and one line, before the dataset is read
    or a document fetched (it was a traceback and exit 1 after the crawl)."""
    _, dataset, _ = _files(tmp_path)
    asked: list[FetchRequest] = []

    def fetcher(request: FetchRequest) -> FetchResult:
        asked.append(request)
        return FetchResult()

    for path in (tmp_path, dataset.with_name("items.jsonl") / "x.jsonl"):
        code = main([str(dataset), "--purpose", "search", "--no-progress", f"--{option}={path}"],
                    fetcher=fetcher)  # fmt: skip
        assert code == EXIT_USAGE and asked == []
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith("scrapy_rep: error: "), err
        assert f"--{option}" in err[0] or str(path) in err[0], err


def test_an_interrupted_run_leaves_the_outputs_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped half-way (Ctrl-C), no output looks whole: each is as it was before."""
    from rep_recheck import rechecker

    warc, dataset, _ = _files(tmp_path)
    write_jsonl(dataset, [f"https://a.example/{n}" for n in range(10_000)])
    outputs = {name: tmp_path / f"{name}.jsonl" for name in ("out", "removed", "report")}
    outputs["summary"] = tmp_path / "summary.md"
    for path in outputs.values():
        path.write_bytes(b"the run before\n")
    decide = rechecker.Rechecker.decide
    calls = [0]

    def interrupted(self: rechecker.Rechecker, url: str) -> rechecker.Outcome:
        calls[0] += 1
        if calls[0] > 5000:
            raise KeyboardInterrupt
        return decide(self, url)

    monkeypatch.setattr(rechecker.Rechecker, "decide", interrupted)
    options = [f"--{name}={path}" for name, path in outputs.items()]
    with pytest.raises(KeyboardInterrupt):
        recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc), *options)
    assert {path.read_bytes() for path in outputs.values()} == {b"the run before\n"}
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        ["robots.warc", "items.jsonl", *(path.name for path in outputs.values())]
    )  # no partial file left beside them


def test_the_outputs_replace_their_files_once_whole(tmp_path: Path) -> None:
    """A symlinked output has its target replaced (the link kept), a new one is made."""
    warc, dataset, _ = _files(tmp_path)
    target = tmp_path / "kept-target.jsonl"
    target.write_bytes(b"old\n")
    link = tmp_path / "kept.jsonl"
    link.symlink_to(target.name)
    report = tmp_path / "new" / "report.jsonl"
    code, _ = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                           f"--out={link}", f"--report={report}")  # fmt: skip
    assert code == 1
    assert link.is_symlink() and target.read_bytes() == dataset.read_bytes().splitlines(True)[1]
    assert len(report.read_text().splitlines()) == len(URLS)


def test_the_crawl_of_a_recheck_has_no_feed_and_no_item_pipeline() -> None:
    pytest.importorskip("scrapy")
    from scrapy_rep.crawl.commands.recheck_crawl import crawl_settings

    project = {"FEEDS": {"items.jsonl": {"format": "jsonlines", "overwrite": True}},
               "FEED_URI": "items.jsonl", "ITEM_PIPELINES": {"proj.pipelines.P": 300}}  # fmt: skip
    settings = crawl_settings(project)
    assert (settings["FEEDS"], settings["FEED_URI"], settings["ITEM_PIPELINES"]) == ({}, None, {})


@pytest.mark.parametrize(("reason", "interrupted"), [("shutdown", "shutdown"), ("finished", "")])
def test_a_crawl_closed_before_its_end_marks_the_fetch_interrupted(
    reason: str, interrupted: str
) -> None:
    """Ctrl-C closes the recheck's crawl as ``shutdown``: its result says so, and the
    recheck then writes no whole-looking output and exits 3."""
    pytest.importorskip("scrapy")
    from types import SimpleNamespace

    from scrapy_rep.crawl.commands.recheck_crawl import RecheckSpider

    result = FetchResult(interrupted="shutdown_forced")  # as scheduled: until it closes
    spider = RecheckSpider(FetchRequest(["https://a.example"], {}), result)
    spider.crawler = SimpleNamespace(stats=None)  # type: ignore[assignment]
    spider.closed(reason)
    assert result.interrupted == interrupted


def test_an_output_that_fails_while_written_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A device that takes no byte (a full disk): not a traceback and exit 1, the status
    of "some removed", but exit 2 and one line."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    warc, dataset, _ = _files(tmp_path)
    code, _ = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                           "--report=/dev/full")  # fmt: skip
    assert code == EXIT_USAGE
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "No space left on device" in err[0], err


@pytest.mark.parametrize("option", ["out", "removed", "report", "summary", "trail"])
def test_a_read_only_output_is_refused_before_work_even_for_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    """A file without a write bit (root may write it all the same: its mode bits are
    read, not ``os.access``), and a file in a folder without a write bit (it is written
    under a temporary name there and renamed over): exit 2 and one line, before the
    dataset's origins are fetched; the file, and every other output, as they were."""
    from tests.support.recheck import recheck_trail

    _, dataset, _ = _files(tmp_path)
    asked: list[FetchRequest] = []

    def fetcher(request: FetchRequest) -> FetchResult:
        asked.append(request)
        return FetchResult()

    folder = tmp_path / "locked"
    folder.mkdir()
    cases = [(tmp_path / "read-only", 0o444, None)]
    if option != "trail":  # the trail is appended to in place: its folder is not written
        cases.append((folder / "in-read-only-folder", 0o644, folder))
    for target, mode, locked in cases:
        if option == "trail":
            recheck_trail(tmp_path, target)
        else:
            target.write_text("before\n")
        capsys.readouterr()
        before = target.read_bytes()
        target.chmod(mode)
        if locked is not None:
            locked.chmod(0o555)
        other = tmp_path / ("summary.md" if option != "summary" else "report.jsonl")
        other_option = "summary" if option != "summary" else "report"
        try:
            code = main([str(dataset), "--purpose", "search", "--no-progress",
                         f"--{option}={target}", f"--{other_option}={other}"],
                        fetcher=fetcher)  # fmt: skip
        finally:
            folder.chmod(0o755)
        assert code == EXIT_USAGE and asked == [], target
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith(f"scrapy_rep: error: --{option} "), err
        assert target.read_bytes() == before and not other.exists()


def test_a_previous_file_changed_after_its_check_is_not_removed(tmp_path: Path) -> None:
    """The previous run's files were removed at the end of the run by name, however they
    had changed since the check before work (a long fetch between)."""
    from rep_recheck.files import MANIFEST, Staged, previous_outputs

    folder = tmp_path / "kept"
    first = Staged()
    first.folder(folder)
    for name in ("a.jsonl", "b.jsonl"):
        with first.open(folder / name) as file:
            file.write(b'{"url": "https://a.example/"}\n')
    first.commit()
    assert (folder / MANIFEST).is_file()
    stale = previous_outputs("out", folder, ["a.jsonl"], (".jsonl",))
    assert [path.name for path, _ in stale] == ["b.jsonl"]
    (folder / "b.jsonl").write_text('{"url": "https://mine.example/"}\n')  # the user's now
    second = Staged()
    second.folder(folder, stale)
    with second.open(folder / "a.jsonl") as file:
        file.write(b'{"url": "https://a.example/"}\n')
    second.commit()
    assert (folder / "b.jsonl").read_text() == '{"url": "https://mine.example/"}\n'


def test_a_symlink_planted_at_a_temporary_name_is_never_followed(tmp_path: Path) -> None:
    """Each output was written under ``.NAME.PID.partial`` beside it, opened as any file
    is: a symlink already at that name (a co-user's, a leftover) had the output written
    into its target, a file outside the folders that no recheck wrote. So had the
    folder's manifest (``.recheck-outputs.json.PID.partial``)."""
    warc, _, _ = _files(tmp_path)
    (tmp_path / "data").mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        write_jsonl(tmp_path / "data" / name, URLS)
    kept, removed = tmp_path / "kept", tmp_path / "removed"
    kept.mkdir()
    removed.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    pid = os.getpid()
    planted = {
        kept / f".a.jsonl.{pid}.partial": outside / "a",
        removed / f".b.jsonl.{pid}.partial": outside / "b",
        kept / f".recheck-outputs.json.{pid}.partial": outside / "manifest",
        tmp_path / f".report.jsonl.{pid}.partial": outside / "report",
        tmp_path / f".summary.md.{pid}.partial": outside / "summary",
    }
    for link, target in planted.items():
        target.write_bytes(b"not the recheck's\n")
        link.symlink_to(target)
    code, _ = recheck_tool(
        str(tmp_path / "data"), "--purpose", "search", "--documents", str(warc),
        f"--out={kept}", f"--removed={removed}", f"--report={tmp_path / 'report.jsonl'}",
        f"--summary={tmp_path / 'summary.md'}",
    )  # fmt: skip
    assert code == 1
    for link, target in planted.items():
        assert target.read_bytes() == b"not the recheck's\n", link.name
        assert link.is_symlink(), link.name  # not ours: left as it was
    assert (kept / "a.jsonl").read_text().count("\n") == 1
    assert (removed / "b.jsonl").read_text().count("\n") == 2
    assert (tmp_path / "report.jsonl").read_text().count("\n") == 6
    assert (tmp_path / "summary.md").read_text().startswith("#")
