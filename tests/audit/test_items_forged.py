"""``audit verify`` on a recheck's ``item`` lines edited by a forger who makes the hash
chain again: what refused an item is re-derived from its snapshots (``refused_by`` and
``why``), a page's failure is accepted only in a run that fetched pages (``--pages``),
and each dataset line is recorded once per run, in the dataset's order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rep_audit.verify import verify
from tests.support.recheck import RECHECKED, forged_item, recheck_trail
from tests.support.trailfactory import encode


def _findings(trail: Path) -> list[str]:
    result = verify(trail)
    assert not result.clean
    return [finding.what for finding in result.findings]


def test_a_robots_txt_refusal_relabelled_as_a_purpose_is_found(tmp_path: Path) -> None:
    """A ``Disallow`` refusal relabelled ``refused_by: purpose``, its ``why`` citing a
    ``Content-Usage`` line (``summary`` then counted it as refused by a usage signal)."""
    trail = recheck_trail(tmp_path)
    assert verify(trail).clean
    why = "Not fetched: ai-train denied by robots.txt line 4: Content-Usage: /nottrain train-ai=n"
    forged = forged_item(trail, RECHECKED["robots"], refused_by="purpose", why=why)
    found = _findings(forged)
    assert any("recorded refused by purpose, but its snapshots refuse it by robots.txt"
               in what for what in found), found  # fmt: skip


def test_a_refusal_whose_why_was_rewritten_is_found(tmp_path: Path) -> None:
    trail = recheck_trail(tmp_path)
    why = "Forbidden by http://site.test/robots.txt (line 3: Disallow: /)"
    found = _findings(forged_item(trail, RECHECKED["robots"], why=why))
    assert any(f"recorded refused with why {why!r}, but its snapshots say" in what
               for what in found), found  # fmt: skip


def test_a_page_not_fetched_again_in_a_run_without_pages_is_found(tmp_path: Path) -> None:
    """A kept item made ``unknown`` "page not fetched again" in a run that fetched no
    page (no ``--pages``): its page's failure is no fact of that run."""
    trail = recheck_trail(tmp_path)
    forged = forged_item(trail, RECHECKED["kept"], status="unknown", refused_by="unreachable",
                         why="page not fetched again (HTTP 404)")  # fmt: skip
    found = _findings(forged)
    assert any("its page was not fetched again, but its run fetched no page (no --pages)"
               in what for what in found), found  # fmt: skip
    # the run's header made to say it fetched pages: a recheck of a WARC fetches none

    def pages(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        records[0]["recheck"]["pages"] = True
        return records

    found = _findings(_relined(forged, pages))
    assert any("its run fetched no page (no --pages)" in what for what in found), found


def _relined(trail: Path, edit: Any) -> Path:
    """A copy of ``trail`` (``relined.jsonl``, its snapshots linked) with its records
    edited by ``edit`` (a list of records in, out) and the chain made again."""
    records = [json.loads(line) for line in trail.read_text().splitlines()]
    for record in records:
        record.pop("prev")
    forged = trail.with_name("relined.jsonl")
    forged.write_bytes(b"".join(encode(edit(records))))
    forged.with_name("relined.jsonl.d").symlink_to(trail.with_name(trail.name + ".d"))
    return forged


def _end(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's end line (its site lines and tree head follow it)."""
    return next(r for r in reversed(records) if r["type"] == "end")


@pytest.mark.parametrize("where", ["after", "later"])
def test_one_dataset_line_decided_twice_is_found(tmp_path: Path, where: str) -> None:
    """The kept item's record written twice (right after itself, or after the others),
    the end line's counts raised to match."""
    trail = recheck_trail(tmp_path)

    def twice(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept = next(r for r in records if r.get("url") == RECHECKED["kept"])
        end = _end(records)
        place = records.index(kept) + 1 if where == "after" else records.index(end)
        records.insert(place, dict(kept))
        counts = end["counts"]
        counts["items"] += 1
        counts["items_kept"] += 1
        return records

    found = _findings(_relined(trail, twice))
    assert any("dataset line 1 recorded again" in what for what in found), found


def test_items_of_several_shards_are_each_recorded_once(tmp_path: Path) -> None:
    """Each shard's lines start again at 1, in the order the shards were read: an honest
    trail of several shards is clean, and a shard's items recorded again after the next
    shard's are found."""
    from tests.support.recheck import recheck_tool, robots_capture, write_jsonl, write_warc

    data = tmp_path / "data"
    data.mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        write_jsonl(data / name, [f"https://a.example/{name}/{n}" for n in range(3)])
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nAllow: /\n")])
    trail = tmp_path / "recheck.jsonl"
    recheck_tool(str(data), "--purpose", "search", "--documents", str(warc), f"--trail={trail}")
    assert verify(trail).clean

    def again(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        first, end = next(r for r in records if r.get("type") == "item"), _end(records)
        records.insert(records.index(end), dict(first))
        end["counts"]["items"] += 1
        end["counts"]["items_kept"] += 1
        return records

    found = _findings(_relined(trail, again))
    assert any("dataset line 1 of" in what and "a.jsonl recorded again" in what
               for what in found), found  # fmt: skip


@pytest.mark.parametrize(
    ("edit", "found"),
    [
        ({"line": None}, "names no dataset line"),
        ({"line": "1"}, "names no dataset line"),
        ({"shard": "elsewhere.jsonl"}, "names the shard 'elsewhere.jsonl', which is none"),
    ],
)
def test_a_second_record_of_a_line_cannot_hide_by_its_line_or_shard(
    tmp_path: Path, edit: dict[str, Any], found: str
) -> None:
    """The second record of a line with its ``line`` removed or not a number, or naming
    a shard the run never read (the run read one file)."""
    trail = recheck_trail(tmp_path)

    def twice(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept = next(r for r in records if r.get("url") == RECHECKED["kept"])
        second, end = {**kept, **edit}, _end(records)
        records.insert(records.index(end), {k: v for k, v in second.items() if v is not None})
        end["counts"]["items"] += 1
        end["counts"]["items_kept"] += 1
        return records

    said = _findings(_relined(trail, twice))
    assert any(found in what for what in said), said


def _dated_trail(folder: Path) -> Path:
    """A recheck's trail of items dated in February, against January's and June's
    robots.txt captures: ``a.example`` allowed then and refused now, ``b.example`` the
    other way round, and ``c.example``'s item dated before its first capture."""
    from tests.support.recheck import recheck_tool, robots_capture, write_warc

    said = {"a": ("Allow: /", "Disallow: /"), "b": ("Disallow: /", "Allow: /"),
            "c": ("Disallow: /", "Allow: /")}  # fmt: skip
    for n, date in enumerate(["2025-01-01T12:00:00Z", "2025-06-01T12:00:00Z"]):
        captures = [robots_capture(f"https://{origin}.example", f"User-agent: *\n{lines[n]}\n")
                    for origin, lines in said.items()]  # fmt: skip
        write_warc(folder / f"crawl{n}.warc", captures, date=date)
    dataset, trail = folder / "dated.jsonl", folder / "dated-trail.jsonl"
    dates = {"a": "2025-02-01", "b": "2025-02-01", "c": "2025-01-01T06:00:00Z"}
    dataset.write_text("".join(json.dumps({"url": f"https://{o}.example/x", "date": d}) + "\n"
                               for o, d in dates.items()))  # fmt: skip
    recheck_tool(str(dataset), "--purpose", "search", "--documents", str(folder / "crawl0.warc"),
                 "--documents", str(folder / "crawl1.warc"), "--date-column", "date",
                 f"--trail={trail}")  # fmt: skip
    return trail


@pytest.mark.parametrize(
    ("url", "changes", "problem"),
    [
        ("https://a.example/x", {"changed": False},
         "item recorded refused, kept then, but changed False"),
        ("https://a.example/x", {"changed": None},
         "item recorded refused, kept then, but changed None"),
        ("https://b.example/x", {"then": "allowed by the owner in 2024"},
         "then 'allowed by the owner in 2024' is neither a status nor no capture before DATE"),
        ("https://c.example/x", {"then": "no capture before last spring"},
         "then 'no capture before last spring' is neither a status nor no capture before DATE"),
        ("https://c.example/x", {"changed": False},
         "item recorded changed False, but its then 'no capture before 2025-01-01T06:00:00Z' "
         "is no decision to compare with"),
        ("https://b.example/x", {"then": None}, "item recorded changed, but no then"),
    ],
)  # fmt: skip
def test_a_then_or_changed_that_says_otherwise_is_found(
    tmp_path: Path, url: str, changes: dict[str, Any], problem: str
) -> None:
    """An item's status then, and whether it changed, as ``show`` prints them ("before:
    … (changed)") and the summary counts them: a forger's ``then`` of any words, or a
    ``changed`` that contradicts it and the status now, verified clean."""
    trail = _dated_trail(tmp_path)
    records = [json.loads(line) for line in trail.read_text().splitlines()]
    thens = [(r["url"], r.get("then"), r.get("changed")) for r in records if r["type"] == "item"]
    assert thens == [
        ("https://a.example/x", "kept", True),
        ("https://b.example/x", "refused", True),
        ("https://c.example/x", "no capture before 2025-01-01T06:00:00Z", None),
    ]
    assert verify(trail).clean
    assert any(problem in what for what in _findings(forged_item(trail, url, **changes)))
