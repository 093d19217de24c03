"""A request id is the trail's alone: a crawl appending to a trail numbers its requests
after the highest number the trail holds (its last end line says it; after a run that
was killed, the trail's records do), so two runs crawling one URL give two ids, and the
export's ``records`` names each record once. Real crawls of a local site."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_twisted

from rep_audit.export import build
from tests.support.audittrail import lines, url_records
from tests.support.robotsite import ItemSpider, Sites, crawl, robots
from tests.support.trailfactory import run_line, url_line, write_trail


def numbers(records: list[dict[str, object]]) -> list[int]:
    return [int(str(record["id"]).rpartition("-")[2]) for record in records]


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
@pytest_twisted.ensureDeferred
async def test_two_crawls_of_one_url_give_it_two_ids_in_the_export(
    tmp_path: Path, name: str
) -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    trail = tmp_path / name
    urls = [sites.url("a", "/"), sites.url("a", "/page")]
    for _ in range(2):
        await crawl(urls, {"REP_AUDIT_FILE": str(trail)}, ItemSpider)
    records = url_records(trail)
    first, second = records[:2], records[2:]
    assert len(second) == 2 and {r["run"] for r in first} != {r["run"] for r in second}
    assert min(numbers(second)) > max(numbers(first))
    ends = [line for line in lines(trail) if line["type"] == "end"]
    assert [end["last_request"] for end in ends] == [max(numbers(first)), max(numbers(second))]
    ids = [record for asset in build(trail).assets for record in asset["records"]]
    assert len(ids) == 4 and len(set(ids)) == 4


@pytest.mark.trail_not_verified  # the trail holds a killed run on purpose
@pytest_twisted.ensureDeferred
async def test_after_a_killed_run_the_numbers_go_on_from_its_records(tmp_path: Path) -> None:
    """The killed run wrote no end line: the trail's records give the highest number."""
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\n"))
    killed = [run_line(schema=2), url_line("/x", id="f" * 40 + "-41"),
              url_line("/y", id="e" * 40 + "-7")]  # fmt: skip
    trail = write_trail(tmp_path / "trail.jsonl", killed)
    await crawl([sites.url("a", "/")], {"REP_AUDIT_FILE": str(trail)})
    (appended,) = url_records(trail)[2:]
    assert numbers([appended]) == [42]
