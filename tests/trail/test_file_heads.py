"""The tree heads of rep_engine/trail/file.py, as the trail's file writes them: after
each end line, a ``site`` line per origin of the run's records and the run's tree head
(the Merkle root of RFC 9162 §2.1 over every line before it, recomputed here from the
file's bytes), signed with the operator's Ed25519 key (checked with ``cryptography``
alone, never our verifier), appended to the head file too; each record's ``site_prev``;
a trail appended to goes on from its last head without reading it again, or from every
line when it does not end with one."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from rep_engine.trail import file as trail_file
from rep_engine.trail.file import HeadOptions, TrailFile, resumed
from rep_engine.trail.merkle import MerkleTree, leaf_hash, verify_consistency
from rep_engine.trail.read import tail_of
from tests.support import c2sp
from tests.support.signatures import operator_key

pytestmark = pytest.mark.trail_not_verified("bare lines: what the file adds is checked here")
RUN = "0" * 32


URLS = ("https://a.test/1", "https://b.test/1", "https://a.test/2")


def run_records(run: str = RUN, urls: tuple[str, ...] = URLS) -> list[dict[str, Any]]:
    return [
        {"type": "run", "run": run, "schema": 3},
        *({"type": "url", "run": run, "url": url, "fate": "fetched"} for url in urls),
        {"type": "end", "run": run, "time": "2026-11-27T10:00:00.000Z", "last_request": 3},
    ]


def written(path: Path, lines: list[dict[str, Any]], heads: HeadOptions | None = None) -> None:
    trail = TrailFile(path, heads)
    for line in lines:
        trail.write(line)
    trail.close()


def file_lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.name.endswith(".gz") else data).splitlines(True)


@pytest.mark.parametrize("name", ["t.jsonl", "t.jsonl.gz"])
def test_a_run_ends_with_its_site_lines_and_a_head_over_every_line_before_it(
    tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    written(path, run_records())
    raw = file_lines(path)
    lines = [json.loads(line) for line in raw]
    assert [line["type"] for line in lines] == ["run", "url", "url", "url", "end", "site",
                                                "site", "head"]  # fmt: skip
    assert [line["site_prev"] for line in lines[1:4]] == [0, 0, 2]  # a.test's first is line 2
    assert [(s["site"], s["records"], s["last"]) for s in lines[5:7]] == [
        ("https://a.test", 2, 4), ("https://b.test", 1, 3),
    ]  # fmt: skip
    head = lines[-1]
    tree = MerkleTree(leaf_hash(line) for line in raw[:-1])  # the bytes with their newline
    assert (head["size"], head["root"]) == (7, tree.root().hex())
    assert head["last_request"] == 3 and head["key"] is None and head["checkpoint"] is None


def test_a_signed_head_is_a_c2sp_checkpoint_of_the_operators_key_and_goes_to_the_head_file(
    tmp_path: Path,
) -> None:
    """Each head is a checkpoint (c2sp.org/tlog-checkpoint) signed by the operator's key
    under its origin, read and verified by a reader of the C2SP formats of the tests' own:
    the trail's first line names the log, the same for both runs."""
    key = operator_key(tmp_path / "key.pem")
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    heads = tmp_path / "elsewhere" / "heads.jsonl"
    heads.parent.mkdir()
    options = HeadOptions(key.sign, "kid", heads, public)
    path = tmp_path / "t.jsonl"
    written(path, run_records(), options)
    written(path, run_records("1" * 32), options)
    raw = file_lines(path)
    found = [json.loads(line) for line in raw if b'"type":"head"' in line]
    origin = f"rep-audit/kid/{hashlib.sha256(raw[0]).hexdigest()[:16]}"
    assert len(found) == 2
    for head in found:
        text, _ = c2sp.split(head["checkpoint"])
        assert c2sp.checkpoint(text) == (origin, head["size"], bytes.fromhex(head["root"]), [])
        assert c2sp.verifies(head["checkpoint"], origin, public)
        assert not c2sp.verifies(head["checkpoint"], origin + "x", public)
    kept = [json.loads(line) for line in heads.read_text().splitlines()]
    assert [entry["trail"] for entry in kept] == [str(path.absolute())] * 2
    assert [(e["size"], e["root"], e["checkpoint"]) for e in kept] == [
        (h["size"], h["root"], h["checkpoint"]) for h in found
    ]
    old, new = found
    proof = MerkleTree(leaf_hash(line) for line in file_lines(path)[: new["size"]])
    assert verify_consistency(old["size"], new["size"], bytes.fromhex(old["root"]),
                              bytes.fromhex(new["root"]),
                              proof.consistency_proof(old["size"]))  # fmt: skip
    named = HeadOptions(key.sign, "kid", None, public, "crawler.example/trail")
    written(path, run_records("2" * 32), named)
    assert c2sp.verifies(json.loads(file_lines(path)[-1])["checkpoint"], named.origin, public)


def test_an_appending_run_goes_on_from_the_last_head_without_reading_the_trail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.jsonl"
    written(path, run_records())
    read: list[Path] = []
    monkeypatch.setattr(trail_file, "_whole_lines", lambda p: read.append(p) or iter(()))
    written(path, run_records("1" * 32))
    assert read == []  # the frontier of the last head, and its line
    raw = file_lines(path)
    assert json.loads(raw[-1])["root"] == MerkleTree(map(leaf_hash, raw[:-1])).root().hex()


@pytest.mark.parametrize("name", ["t.jsonl", "t.jsonl.gz"])
def test_a_trail_that_does_not_end_with_a_head_is_read_again_whole(
    tmp_path: Path, name: str
) -> None:
    """A trail of an earlier release (no head), a run killed, or a head whose frontier is
    not its root's: the tree is made again from every line."""
    path = tmp_path / name
    written(path, run_records()[:-1])  # killed before its end line
    written(path, run_records("1" * 32))
    forged = tmp_path / "forged.jsonl"
    lines = file_lines(path)
    head = json.loads(lines[-1])
    head["frontier"] = [leaf_hash(b"x").hex()] * len(head["frontier"])
    forged.write_bytes(b"".join(lines[:-1]) + json.dumps(head).encode() + b"\n")
    assert resumed(head) is None
    written(forged, run_records("2" * 32))
    for trail in (path, forged):
        raw = file_lines(trail)
        assert json.loads(raw[-1])["root"] == MerkleTree(map(leaf_hash, raw[:-1])).root().hex()


def test_tail_of_reads_the_last_request_from_a_head(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    written(path, run_records())
    assert (tail_of(path).last_request, tail_of(path).open_run) == (3, "")


def test_the_next_run_counts_the_records_no_site_line_counts(tmp_path: Path) -> None:
    """A run killed before its end line wrote no site line: the next run to end writes
    them (of the killed run's id) before its own, so every record before a head is
    counted; a run after a head has nothing left to count."""
    path = tmp_path / "t.jsonl"
    written(path, run_records()[:-1])  # killed: lines 1 to 4
    written(path, run_records("1" * 32))
    written(path, run_records("2" * 32))
    sites = [(s["run"][0], s["site"], s["records"], s["last"])
             for s in map(json.loads, file_lines(path)) if s["type"] == "site"]  # fmt: skip
    assert sites == [
        ("0", "https://a.test", 2, 4), ("0", "https://b.test", 1, 3),  # the killed run's
        ("1", "https://a.test", 2, 8), ("1", "https://b.test", 1, 7),
        ("2", "https://a.test", 2, 18), ("2", "https://b.test", 1, 17),
    ]  # fmt: skip
