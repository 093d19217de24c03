"""What the recheck's tests build: WARC files of captures (with warcio, as Common Crawl's
robots.txt WARCs are laid out), datasets in each format, and the tool as the tests run
it."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from rep_recheck.command import main
from rep_recheck.datasets import DatasetError, JsonLines

#: When the captures of :func:`write_warc` are dated, unless told.
CAPTURED = "2025-04-01T12:00:00Z"


def needs(module: str) -> Any:
    """The optional module ``module`` (an extra of the recheck), or the test skips saying
    which extra it needs."""
    return pytest.importorskip(module, reason=f"{module} is not installed (the test extra has it)")


def write_warc(
    path: Path,
    captures: Iterable[tuple[str, int | str, bytes, dict[str, str]]],
    date: str = CAPTURED,
    compress: bool = False,
) -> list[str]:
    """A WARC of ``response`` records (URL, status, body, headers); their record IDs. The
    body is written as given (already compressed, for a ``Content-Encoding``); a header
    named ``WARC-…`` (``WARC-Truncated``, ``WARC-Date``) is the record's, not the HTTP
    answer's (``WARC-Type: revisit``: a revisit record, its body none, its ``WARC-Refers-To…``
    and ``WARC-Payload-Digest`` as given: :func:`payload_digest`); a status given as a
    string is the whole status line after the protocol (``2OO OK``)."""
    writer_module = needs("warcio.warcwriter")
    from warcio.statusandheaders import StatusAndHeaders

    ids = []
    with path.open("wb") as file:
        writer = writer_module.WARCWriter(file, gzip=compress)
        for url, status, body, headers in captures:
            warc = {"WARC-Date": date} | {k: v for k, v in headers.items() if k.startswith("WARC-")}
            kind = warc.pop("WARC-Type", "response")
            answer = [(k, v) for k, v in headers.items() if not k.startswith("WARC-")]
            line = status if isinstance(status, str) else f"{status} X"
            http = StatusAndHeaders(line, answer, protocol="HTTP/1.1")
            record = writer.create_warc_record(
                url, kind, payload=io.BytesIO(body) if kind == "response" else None,
                http_headers=http, warc_headers_dict=warc,
            )  # fmt: skip
            ids.append(record.rec_headers.get_header("WARC-Record-ID"))
            writer.write_record(record)
            record.raw_stream.close()  # warcio's buffer of the payload
    return ids


def payload_digest(body: bytes) -> str:
    """A payload's ``WARC-Payload-Digest`` as warcio writes it (SHA-1, base 32)."""
    return "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode()


def robots_capture(origin: str, text: str) -> tuple[str, int, bytes, dict[str, str]]:
    return (f"{origin}/robots.txt", 200, text.encode(), {"Content-Type": "text/plain"})


#: A robots.txt-only WARC as Common Crawl ships one (no tdmrep.json), by origin: what its
#: robots.txt capture answered; ``never.example`` is not captured.
PAGE_404 = b"<!doctype html><html><body><h1>Not Found</h1></body></html>"
ROBOTSTXT_ONLY: dict[str, tuple[int, bytes, dict[str, str]]] = {
    "https://ok.example": (200, b"User-agent: *\nDisallow: /private\n", {}),
    "https://gone.example": (404, PAGE_404, {"Content-Type": "text/html",
                                             "Content-Length": str(len(PAGE_404))}),
    "https://down.example": (503, b"<html><body>busy</body></html>", {"Content-Type": "text/html"}),
    "https://slow.example": (429, b"", {"Retry-After": "120"}),
    "https://no.example": (200, b"User-agent: *\nContent-Usage: train-ai=n\n", {}),
    "https://yes.example": (200, b"User-agent: *\nContent-Usage: train-ai=y\n", {}),
}  # fmt: skip
#: Two items of each origin of :data:`ROBOTSTXT_ONLY`, and of one not captured.
ROBOTSTXT_ONLY_URLS = [
    f"{origin}{path}" for origin in [*ROBOTSTXT_ONLY, "https://never.example"]
    for path in ("/a", "/private/b")
]  # fmt: skip


def robotstxt_only_warc(path: Path, date: str = CAPTURED) -> list[str]:
    """The WARC of :data:`ROBOTSTXT_ONLY` (gzipped, as Common Crawl's); its record IDs."""
    captures = [(f"{origin}/robots.txt", status, body, headers)
                for origin, (status, body, headers) in ROBOTSTXT_ONLY.items()]  # fmt: skip
    return write_warc(path, captures, date=date, compress=True)


#: What ai-train decided on robots.txt alone keeps of :data:`ROBOTSTXT_ONLY_URLS`: the
#: items robots.txt allows (ok's but /private, the 404's, train-ai=y's).
ROBOTSTXT_ONLY_KEPT = [
    "https://ok.example/a", "https://gone.example/a", "https://gone.example/private/b",
    "https://yes.example/a", "https://yes.example/private/b",
]  # fmt: skip


def readme_collection(folder: Path) -> None:
    """rep-recheck/README.md's files in ``folder``: ``items.jsonl`` (two items of each
    origin of :data:`ROBOTSTXT_ONLY`, and of one not captured) and ``robots.warc.gz``."""
    write_jsonl(folder / "items.jsonl", ROBOTSTXT_ONLY_URLS)
    robotstxt_only_warc(folder / "robots.warc.gz")


def readme_example() -> str:
    """rep-recheck/README.md's recheck command line, as written."""
    readme = (Path(__file__).resolve().parents[2] / "rep-recheck" / "README.md").read_text()
    return next(line for line in readme.splitlines() if line.startswith("python -m rep_recheck"))


def write_jsonl(path: Path, urls: Sequence[str], column: str = "url") -> list[bytes]:
    """One item per URL (with a title, as a spider's items have); the lines written."""
    lines = [
        (json.dumps({column: url, "title": f"page {n}", "text": "a b"}) + "\n").encode()
        for n, url in enumerate(urls)
    ]
    path.write_bytes(b"".join(lines))
    return lines


def write_csv(path: Path, urls: Sequence[str]) -> list[bytes]:
    """A header and one record per URL (one with a quoted field over two lines)."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["title", "url"])
    rows = []
    for n, url in enumerate(urls):
        start = out.tell()
        writer.writerow([f"page {n}\nsecond line" if n == 1 else f"page {n}", url])
        rows.append(out.getvalue()[start:].encode())
    path.write_bytes(out.getvalue().encode())
    return rows


def write_parquet(path: Path, urls: Sequence[str]) -> None:
    pyarrow = needs("pyarrow")
    parquet = needs("pyarrow.parquet")
    table = pyarrow.table({"url": list(urls), "n": list(range(len(urls)))})
    parquet.write_table(table, str(path))


def recheck_tool(*argv: str) -> tuple[int, str]:
    """``python -m scrapy_rep recheck ARGV`` in this process, with no crawl (documents
    from a WARC): (exit status, the summary on stdout)."""
    out = io.StringIO()
    return main([*argv, "--no-progress"], out), out.getvalue()


def report_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


#: The items :func:`recheck_trail` re-checks for ai-train, against the robots.txt and
#: tdmrep.json of :mod:`tests.support.trailfactory` (site.test), by what decides them.
RECHECKED = {
    "kept": "http://site.test/ok",
    "robots": "http://site.test/private/x",  # refused: line 2, Disallow: /private
    "purpose": "http://site.test/nottrain/1",  # refused for ai-train: line 4, Content-Usage
    "unknown": "http://other.test/x",  # unknown: no robots.txt of other.test captured
}


def recheck_trail(directory: Path, trail: Path | None = None, *settings: str) -> Path:
    """A recheck's own trail (``trail``: appended to, else ``recheck.jsonl`` in
    ``directory``) of the items of :data:`RECHECKED`, in that order (dataset lines 1 to
    4), re-checked in this process for ai-train with the documents of a WARC; ``settings``:
    ``NAME=VALUE`` of its ``-s``."""
    from tests.support.trailfactory import ORIGIN, ROBOTS, TDMREP

    dataset = directory / "rechecked.jsonl"
    write_jsonl(dataset, list(RECHECKED.values()))
    warc = directory / "documents.warc"
    write_warc(warc, [
        robots_capture(ORIGIN, ROBOTS.decode()),
        (f"{ORIGIN}/.well-known/tdmrep.json", 200, TDMREP, {}),
    ])  # fmt: skip
    trail = trail or directory / "recheck.jsonl"
    recheck_tool(str(dataset), "--purpose", "ai-train", "--documents", str(warc),
                 f"--trail={trail}", *(f"-s{setting}" for setting in settings))  # fmt: skip
    return trail


#: Three shards of a collection, by file name: each item's URL.
SHARDS = {
    "a.jsonl": ["https://a.example/no/1", "https://a.example/yes/1"],
    "b.jsonl": ["https://a.example/no/2", "https://a.example/yes/2"],
    "c.jsonl": ["https://a.example/yes/3", "https://a.example/no/3"],
}


def recheck_shards(tmp_path: Path, names: list[str]) -> int:
    """``recheck`` of the named :data:`SHARDS` against one WARC (``Disallow: /no``), its
    ``--out`` and ``--removed`` folders ``kept`` and ``removed``; the exit status."""
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /no\n")])
    (tmp_path / "data").mkdir(exist_ok=True)
    for name in names:
        write_jsonl(tmp_path / "data" / name, SHARDS[name])
    shards = [str(tmp_path / "data" / name) for name in names]
    kept, removed = tmp_path / "kept", tmp_path / "removed"
    code, _ = recheck_tool(*shards, "--purpose", "search", "--documents", str(warc),
                           f"--out={kept}", f"--removed={removed}")  # fmt: skip
    return code


def visible_files(folder: Path) -> list[str]:
    """The files of ``folder`` a user sees (not the hidden ones: manifest, temporaries)."""
    return sorted(name for name in os.listdir(folder) if not name.startswith("."))


def forged_item(trail: Path, url: str, **changes: Any) -> Path:
    """A copy of ``trail`` beside it (``forged.jsonl``, its snapshots linked) with the
    item line of ``url`` changed (a change to ``None`` deletes the key), and the chain
    made again: what a forger who recomputes the hashes writes."""
    from tests.support.trailfactory import encode

    records = [json.loads(line) for line in trail.read_text().splitlines()]
    for record in records:
        record.pop("prev")
        if record.get("type") == "item" and record["url"] == url:
            record.update(changes)
            for name in [name for name, value in changes.items() if value is None]:
                del record[name]
    forged = trail.with_name("forged.jsonl")
    forged.write_bytes(b"".join(encode(records)))
    snapshots = trail.with_name(trail.name + ".d")
    if snapshots.exists():
        forged.with_name("forged.jsonl.d").symlink_to(snapshots)
    return forged


def fail_reading(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Every JSON Lines shard called ``name`` fails after its first chunk, as a disk's
    read error does (``cannot read: Input/output error``)."""
    chunks = JsonLines.chunks

    def failing(self: Any, rows: bool = True) -> Iterator[Any]:
        for chunk in chunks(self, rows):
            yield chunk
            if self.path.name == name:
                raise DatasetError(f"{self.name}: cannot read: Input/output error")

    monkeypatch.setattr(JsonLines, "chunks", failing)


def step_documents(metadata: Sequence[dict[str, Any]], file: str = "part0.jsonl") -> list[Any]:
    """One datatrove document per metadata, read from ``file`` as datatrove's readers give
    them (its ``file_path``, an id of the file and the line)."""
    from datatrove.data import Document

    return [Document("a b", f"{file}/{n}", metadata={**said, "file_path": file})
            for n, said in enumerate(metadata)]  # fmt: skip


def step_tasks(
    step: Any, metadata: Sequence[dict[str, Any]], tasks: int = 1, ranks: Iterable[int] = ()
) -> list[Any]:
    """``step`` run as datatrove runs a pipeline in ``tasks`` tasks (each its own copy of
    the step, as each worker unpickles the pipeline), task ``rank`` given the documents of
    ``metadata[rank::tasks]`` from its file ``part<rank>.jsonl``; ``ranks``: only those
    tasks. The documents passed on."""
    import copy

    kept = []
    for rank in ranks or range(tasks):
        documents = step_documents(metadata[rank::tasks], f"part{rank}.jsonl")
        kept += list(copy.deepcopy(step).run(iter(documents), rank, tasks))
    return kept


#: The origins of a datatrove pipeline's tasks (:func:`task_trails`), by robots.txt: a
#: Disallow and a Content-Usage "no" for training, mybot's own group, all allowed; and
#: the items of them and of an origin not captured (``d.example``: unknown).
TASK_ROBOTS = {
    "https://a.example": "User-agent: *\nDisallow: /private\nContent-Usage: /train train-ai=n\n",
    "https://b.example": "User-agent: mybot\nDisallow: /\n",
    "https://c.example": "User-agent: *\nAllow: /\n",
}
TASK_URLS = [origin + path for origin in [*TASK_ROBOTS, "https://d.example"]
             for path in ("/", "/private/1", "/train/2", "/x", "/y")]  # fmt: skip
#: The settings of the tasks' step and of the command checked against it.
TASK_AGENT = "mybot/1.0"


def task_warc(folder: Path) -> Path:
    """The WARC of :data:`TASK_ROBOTS` (and a tdmrep.json answering 404 for each) in
    ``folder``, written once."""
    warc = folder / "robots.warc.gz"
    if not warc.exists():
        captures = [robots_capture(origin, text) for origin, text in TASK_ROBOTS.items()]
        captures += [(f"{origin}/.well-known/tdmrep.json", 404, b"", {}) for origin in TASK_ROBOTS]
        write_warc(warc, captures, compress=True)
    return warc


def task_step(folder: Path, **given: Any) -> Any:
    """The datatrove step for ai-train on :func:`task_warc`, its tasks' trails in
    ``folder/trails``; ``given``: its other arguments."""
    from scrapy_rep import RepRecheckFilter

    given.setdefault("trail", folder / "trails")
    return RepRecheckFilter(str(task_warc(folder)), "ai-train", {"USER_AGENT": TASK_AGENT},
                            **given)  # fmt: skip


def task_trails(
    folder: Path, tasks: int = 4, ranks: Iterable[int] = (), step: Any = None
) -> list[Path]:
    """The trails of a pipeline run of ``tasks`` tasks of :func:`task_step` (``step``:
    another) over :data:`TASK_URLS`, each task given every ``tasks``-th (``ranks``: only
    those tasks run): the trails in its folder, in order."""
    step = step if step is not None else task_step(folder)
    step_tasks(step, [{"url": url} for url in TASK_URLS], tasks, ranks)
    return sorted(Path(step.trail).glob("*.jsonl"))
