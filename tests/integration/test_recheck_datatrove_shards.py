"""An AI lab's dataset, end to end: a FineWeb-style collection in 8 shards as datatrove's
own writers lay them out (``JsonlWriter``'s ``.jsonl.gz``, ``ParquetWriter``'s
``metadata`` struct), re-checked against two crawls' robots.txt WARCs in a folder, by
``python -m rep_recheck`` and by the datatrove step given the folder or the list of its
WARCs: the same documents kept, every count printed the files' own."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

from rep_recheck.command import EXIT_REMOVED
from tests.support.recheck import needs, recheck_tool, robots_capture, write_warc

JAN, JUN = "2025-01-01T00:00:00Z", "2025-06-01T00:00:00Z"
#: Each origin's robots.txt in January and in June (``None``: not captured then); the
#: origins after these twelve are never captured (their documents unknown).
CRAWLS: dict[str, tuple[str | None, str | None]] = {
    f"https://site{n}.example": (
        ("User-agent: *\nAllow: /\n", "User-agent: *\nDisallow: /private\n"),
        ("User-agent: *\nAllow: /\n", "User-agent: *\nContent-Usage: train-ai=n\n"),
        ("User-agent: *\nDisallow: /\n", None),
        (None, "User-agent: mybot\nDisallow: /\n"),
    )[n % 4]
    for n in range(12)
}
PATHS = ("/", "/private/a", "/blog/b", "/c?q=1")


def _fineweb_shards(data: Path) -> int:
    """16 origins' documents (4 paths each, and a tail of one origin) written by datatrove's
    ``JsonlWriter`` (its default: ``.jsonl.gz``) and ``ParquetWriter`` in 4 tasks each:
    8 shards in ``data``; the number of documents."""
    needs("datatrove")
    needs("orjson")
    needs("pyarrow")
    from datatrove.data import Document
    from datatrove.pipeline.writers import JsonlWriter, ParquetWriter

    urls = [f"https://site{n}.example{path}" for n in range(16) for path in PATHS]
    urls += [f"https://site0.example/tail/{n}" for n in range(140)]
    for kind, writer in (("jsonl", JsonlWriter(str(data))), ("parquet", ParquetWriter(str(data)))):
        with writer:
            for number, url in enumerate(urls):
                metadata = {"url": url, "dump": "CC-MAIN-2025-13", "language": "en"}
                document = Document(text=f"{kind} page {number}", id=f"{kind}-{number}",
                                    metadata=metadata)  # fmt: skip
                writer.write(document, rank=number % 4)
    return 2 * len(urls)


def _two_crawls(folder: Path) -> list[Path]:
    """The January and June robots.txt WARCs of :data:`CRAWLS` in ``folder`` (with a
    README, not read); the WARCs."""
    folder.mkdir()
    (folder / "README").write_text("robots.txt captures of two crawls\n")
    warcs = []
    for place, (name, date) in enumerate((("CC-MAIN-2025-05", JAN), ("CC-MAIN-2025-26", JUN))):
        captures = [robots_capture(origin, texts[place])
                    for origin, texts in CRAWLS.items() if texts[place] is not None]  # fmt: skip
        warcs.append(folder / f"{name}.warc.gz")
        write_warc(warcs[-1], captures, date=date, compress=True)
    return warcs


def _urls_in(folder: Path) -> list[str]:
    """The URLs of the documents in ``folder``'s shards (``.jsonl.gz`` and Parquet)."""
    import pyarrow.parquet as parquet

    urls = [json.loads(line)["metadata"]["url"] for path in folder.glob("*.jsonl.gz")
            for line in gzip.decompress(path.read_bytes()).splitlines()]  # fmt: skip
    for path in folder.glob("*.parquet"):
        urls += [row["url"] for row in parquet.read_table(str(path)).column("metadata").to_pylist()]
    return sorted(urls)


def test_a_fineweb_style_dataset_is_rechecked_alike_by_the_command_and_the_step(
    tmp_path: Path,
) -> None:
    needs("warcio")
    data, warcs = tmp_path / "data", _two_crawls(tmp_path / "warcs")
    documents = _fineweb_shards(data)
    shards = sorted(path.name for path in data.iterdir())
    assert len(shards) == 8 and sum(name.endswith(".jsonl.gz") for name in shards) == 4
    kept, removed, report = tmp_path / "kept", tmp_path / "removed", tmp_path / "report.jsonl"
    code, summary = recheck_tool(str(data), "--column", "metadata.url", "--purpose", "ai-train",
                                 "--consult", "robots.txt", "-A", "mybot/1.0", "--documents",
                                 str(tmp_path / "warcs"), f"--out={kept}", f"--removed={removed}",
                                 f"--report={report}")  # fmt: skip
    assert code == EXIT_REMOVED
    by_command = _urls_in(kept)
    found = re.search(r"Kept: ([\d,]+); removed: ([\d,]+)", summary)
    assert found is not None, summary
    assert (int(found[1]), int(found[2])) == (len(by_command), len(_urls_in(removed)))
    assert len(by_command) + len(_urls_in(removed)) == documents
    assert len(report.read_text().splitlines()) == documents
    # June's Disallow: /private (its other paths kept), train-ai=n, January's Disallow: /
    # (its newest capture), mybot refused; sites 12 to 15 never captured (unknown)
    assert sorted({url.split("/")[2] for url in by_command}) == [
        "site0.example", "site4.example", "site8.example"
    ]  # fmt: skip
    assert not [url for url in by_command if "/private" in url]

    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import JsonlReader, ParquetReader
    from datatrove.pipeline.writers import JsonlWriter

    from scrapy_rep import RepRecheckFilter

    settings = {"USER_AGENT": "mybot/1.0"}
    written = tmp_path / "written"
    LocalPipelineExecutor(
        pipeline=[JsonlReader(str(data), glob_pattern="*.jsonl.gz"),
                  ParquetReader(str(data), glob_pattern="*.parquet"),
                  RepRecheckFilter(str(tmp_path / "warcs"), "ai-train", settings,
                                   url_key="url", consult=["robots.txt"]),
                  JsonlWriter(str(written))],
        tasks=2, workers=2, logging_dir=str(tmp_path / "logs"),
    ).run()  # fmt: skip
    assert _urls_in(written) == by_command
    step = RepRecheckFilter(warcs, "ai-train", settings, consult=["robots.txt"])
    from datatrove.data import Document

    every: list[Any] = [json.loads(line)["url"] for line in report.read_text().splitlines()]
    by_list = sorted(url for url in every if step.kept(Document("", url, metadata={"url": url}))[0])
    assert by_list == by_command
