"""The bundle's holes a forger went through, each closed: a run's header kept
with its records and site line removed, a record's robots.txt snapshot line removed, a
head dated before the records it covers or before the ``--since`` head; and ``audit
verify COPY --head FILE`` of a copy of the trail, its heads found by what it holds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.recheck import recheck_trail
from tests.support.signatures import operator_key, public_key_file
from tests.support.tools import audit_streams, audit_tool

SITE = "http://site.test"


@pytest.fixture
def made(tmp_path: Path) -> tuple[Path, Path]:
    """A signed re-check trail of two runs, its heads kept in a head file, and its bundle
    of :data:`SITE` made after the first run (``first.json``) and after both (``b.json``)."""
    operator_key(tmp_path / "key.pem")
    (tmp_path / "kept").mkdir()
    settings = (f"REP_AUDIT_SIGNING_KEY={tmp_path / 'key.pem'}",
                f"REP_AUDIT_HEAD_FILE={tmp_path / 'kept' / 'heads.jsonl'}")  # fmt: skip
    trail = recheck_trail(tmp_path, tmp_path / "trail.jsonl", *settings)
    assert (
        audit_tool("bundle", str(trail), "--site", SITE, "--out", str(tmp_path / "first.json"))[0]
        == 0
    )
    recheck_trail(tmp_path, trail, *settings)
    assert (
        audit_tool("bundle", str(trail), "--site", SITE, "--out", str(tmp_path / "b.json"))[0] == 0
    )
    return trail, tmp_path / "b.json"


def forged(bundle: Path, change: Any) -> Path:
    loaded = json.loads(bundle.read_text())
    change(loaded)
    copy = bundle.with_name("forged.json")
    copy.write_text(json.dumps(loaded))
    return copy


def check_said(bundle: Path, *more: str) -> tuple[int, str]:
    public = public_key_file(bundle.with_name("key.pem"))
    status, out, err = audit_streams("check-bundle", str(bundle), "--key", str(public), *more)
    return status, out + err


def bundled_records(loaded: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(line["text"]) for line in loaded["lines"]]


def test_a_run_header_kept_without_its_records_and_site_line_is_a_problem(
    made: tuple[Path, Path],
) -> None:
    _, bundle = made
    assert check_said(bundle)[0] == 0

    def without_run_2(loaded: dict[str, Any]) -> None:
        run = [r["run"] for r in bundled_records(loaded) if r["type"] == "run"][1]
        kept = zip(loaded["lines"], bundled_records(loaded), strict=True)
        loaded["lines"] = [line for line, r in kept if r["run"] != run or r["type"] == "run"]

    status, told = check_said(forged(bundle, without_run_2))
    assert status == 1 and "its header is in the bundle, but none of its records of the " in told


def test_a_records_robots_txt_snapshot_line_left_out_is_a_problem(
    made: tuple[Path, Path],
) -> None:
    _, bundle = made

    def without_robots(loaded: dict[str, Any]) -> None:
        kept = zip(loaded["lines"], bundled_records(loaded), strict=True)
        loaded["lines"] = [line for line, r in kept if r.get("kind") != "robots.txt"]

    status, told = check_said(forged(bundle, without_robots))
    assert status == 1 and "whose snapshot line is not in the bundle: it was left out" in told


def test_a_head_dated_before_its_records_or_the_since_head_is_a_problem(
    made: tuple[Path, Path],
) -> None:
    _, bundle = made
    first = bundle.with_name("first.json")

    def dated(when: str) -> Any:
        return lambda loaded: loaded["head"].update(time=when)

    status, told = check_said(forged(bundle, dated("2020-01-01T00:00:00.000Z")))
    assert status == 1 and "the tree head is dated 2020-01-01T00:00:00.000Z, before the " in told
    status, told = check_said(
        forged(bundle, dated("2020-01-01T00:00:00.000Z")), "--since", str(first)
    )
    assert status == 1 and "2020-01-01T00:00:00.000Z, before the earlier bundle's" in told, told
    renamed = json.loads(first.read_text())
    note = renamed["head"]["checkpoint"]
    renamed["head"]["checkpoint"] = "other.test/log" + note[note.index("\n") :]
    first.write_text(json.dumps(renamed))
    status, told = check_said(bundle, "--since", str(first))
    assert status == 1 and "the earlier bundle's other.test/log: a log renamed" in told, told


def test_a_copy_of_the_trail_verifies_against_the_head_file(
    made: tuple[Path, Path], tmp_path: Path
) -> None:
    """The head file names the trail by its path; a copy elsewhere is found by its log's
    origin and its roots. A copy changed is said, not unusable."""
    trail, _ = made
    heads = tmp_path / "kept" / "heads.jsonl"
    copy = tmp_path / "copy" / "trail.jsonl"
    copy.parent.mkdir()
    shutil.copy(trail, copy)
    shutil.copytree(trail.with_name("trail.jsonl.d"), copy.with_name("trail.jsonl.d"))
    status, out = audit_tool("verify", str(copy), "--head", str(heads))
    assert status == 0, out
    lines = copy.read_text().splitlines(True)
    lines[3] = lines[3].replace('"status":', '"was":')
    copy.write_text("".join(lines))
    status, out = audit_tool("verify", str(copy), "--head", str(heads))
    assert status == 1 and "a line up to line" in out and "was changed" in out, out
    other = tmp_path / "other.jsonl"
    recheck_trail(tmp_path, other)
    status, out = audit_tool("verify", str(other), "--head", str(heads))
    assert status == 1 and "the head file holds no head of this trail" in out, out
