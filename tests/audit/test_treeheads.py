"""rep_audit/treeheads.py: ``audit verify`` holds each tree head to the lines before it
(its size, its Merkle root, its frontier), its signature to the operator's key
(``--key``), each record's ``site_prev`` and each ``site`` line to the run's records, and
the heads of ``REP_AUDIT_HEAD_FILE`` to the lines they cover (``--head FILE``); a trail of
an earlier release, which has no head, is said so and verifies. The forger here rewrites
the chain (and, where said, the heads): only the key, the head file or the sites' chains
are left to catch him."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from rep_audit.treeheads import NO_HEAD
from rep_audit.verify import verify
from rep_engine import keys
from rep_engine.trail.file import signed_message
from tests.support.recheck import RECHECKED, recheck_trail
from tests.support.signatures import operator_key
from tests.support.tools import audit_tool
from tests.support.trailfactory import encode, write_trail


def signed_recheck(tmp_path: Path, **settings: str) -> tuple[Path, Path]:
    """A recheck's trail of two runs, its heads signed with a new key; the trail and the
    public key's PEM file."""
    key = operator_key(tmp_path / "key.pem")
    public = tmp_path / "public.pem"
    public.write_bytes(
        key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    )
    given = [f"REP_AUDIT_SIGNING_KEY={tmp_path / 'key.pem'}",
             *(f"{name}={value}" for name, value in settings.items())]  # fmt: skip
    trail = recheck_trail(tmp_path, tmp_path / "trail.jsonl", *given)
    recheck_trail(tmp_path, trail, *given)
    return trail, public


def rewritten(trail: Path, edit: Any, heads: bool = True) -> Path:
    """A copy of ``trail`` (its snapshots linked) whose records ``edit`` changed (it gets
    and returns the list), its chain (and with ``heads`` its heads' roots) made again."""
    records = [json.loads(line) for line in trail.read_text().splitlines()]
    for record in records:
        record.pop("prev")
    forged = trail.with_name("forged.jsonl")
    forged.write_bytes(b"".join(encode(edit(records), heads=heads)))
    forged.with_name("forged.jsonl.d").symlink_to(trail.with_name(trail.name + ".d"))
    return forged


def findings_of(trail: Path, key: Path | None = None) -> list[str]:
    return [finding.what for finding in verify(trail, key=str(key) if key else None).findings]


def test_a_trail_of_an_earlier_release_has_no_head_and_verifies(tmp_path: Path) -> None:
    trail = write_trail(tmp_path / "old.jsonl")  # schema 1, as releases before heads wrote
    result = verify(trail)
    assert result.clean and result.tree == NO_HEAD
    status, out = audit_tool("verify", str(trail))
    assert status == 0 and out.splitlines()[-2] == NO_HEAD, out


def test_signed_heads_verify_with_the_operators_key_and_not_with_another(tmp_path: Path) -> None:
    trail, public = signed_recheck(tmp_path)
    result = verify(trail, key=str(public))
    assert result.clean, result.findings
    assert result.tree.endswith("checked with --key (2 head(s) in all)"), result.tree
    assert "not checked: give --key" in verify(trail).tree
    other = operator_key(tmp_path / "other.pem")
    wrong = tmp_path / "other-public.pem"
    wrong.write_bytes(
        other.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    )
    found = findings_of(trail, wrong)
    assert len(found) == 2 and all("not by the key of --key" in what for what in found), found


@pytest.mark.parametrize(
    ("change", "found"),
    [({"root": "0" * 64}, "the tree head's root 0000000000000000… is not that of the 10 line(s)"),
     ({"size": 9}, "the tree head says 9 line(s) before it, there are 10"),
     ({"frontier": []}, "the tree head's frontier is not the tree's")],
    ids=["root", "size", "frontier"],
)  # fmt: skip
def test_a_forged_head_with_the_chain_made_again_fails(
    tmp_path: Path, change: dict[str, Any], found: str
) -> None:
    trail, public = signed_recheck(tmp_path)

    def forge(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        first = next(r for r in records if r["type"] == "head")
        first.update(change)
        return records

    findings = findings_of(rewritten(trail, forge, heads=False), public)
    assert any(what.startswith(found) for what in findings), findings


def test_a_record_changed_and_every_hash_made_again_is_caught_with_or_without_the_key(
    tmp_path: Path,
) -> None:
    """The full forger: a record's time changed (no decision depends on it), the chain and
    the roots made again, each head's signed checkpoint kept (he cannot sign another
    without the key). The checkpoints hold the old roots: each head is found another's,
    with the key and without it (c6123afe checked a checkpoint against its head only with
    the key: without, the forgery was clean)."""
    trail, public = signed_recheck(tmp_path)

    def forge(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        next(r for r in records if r["type"] == "item")["time"] = "2026-01-01T00:00:00.000Z"
        return records

    forged = rewritten(trail, forge)
    said = [
        f"the tree head's checkpoint is of {size} line(s) and root {root[:16]}…, not the "
        "head's size and root: it is another head's"
        for size, root in heads_of(trail)
    ]
    assert findings_of(forged) == said
    assert findings_of(forged, public) == said


def heads_of(trail: Path) -> list[tuple[int, str]]:
    """The size and root of each head of ``trail``, as its checkpoints say them."""
    found = [json.loads(line) for line in trail.read_text().splitlines() if '"head"' in line]
    return [(head["size"], head["root"]) for head in found]


def test_heads_written_before_checkpoints_still_verify(tmp_path: Path) -> None:
    """A head of an earlier release: its signature over "scrapy_rep tree head v1", its size,
    root and time, read and checked with the key; changed, it fails."""
    trail, public = signed_recheck(tmp_path)
    private = keys.read_private_key(tmp_path / "key.pem")

    def legacy(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for index, head in enumerate(records):
            if head["type"] == "head":
                del head["checkpoint"]
                head.update(json.loads(encode(records[: index + 1])[-1]))  # its root
                signed = signed_message(head["size"], head["root"], head["time"])
                head["signature"] = base64.b64encode(private.sign(signed)).decode()
                del head["prev"]
        return records

    old = rewritten(trail, legacy)
    assert findings_of(old, public) == []
    assert verify(old, key=str(public)).tree.endswith("checked with --key (2 head(s) in all)")

    def retimed(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        next(r for r in records if r["type"] == "head")["time"] = "2020-01-01T00:00:00.000Z"
        return records

    lines = [json.loads(line) for line in old.read_text().splitlines()]
    for line in lines:
        line.pop("prev")
    later = tmp_path / "retimed.jsonl"
    later.write_bytes(b"".join(encode(retimed(lines), heads=False)))
    later.with_name("retimed.jsonl.d").symlink_to(trail.with_name("trail.jsonl.d"))
    assert findings_of(later, public)[0].startswith("the tree head's signature is not key ")


def test_a_head_file_that_disagrees_with_the_trail_fails_verify_head(tmp_path: Path) -> None:
    heads = tmp_path / "kept" / "heads.jsonl"
    heads.parent.mkdir()
    trail, _ = signed_recheck(tmp_path, REP_AUDIT_HEAD_FILE=str(heads))
    assert len(heads.read_text().splitlines()) == 2
    status, out = audit_tool("verify", str(trail), "--head", str(heads))
    assert status == 0, out

    def forge(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        next(r for r in records if r["type"] == "item")["time"] = "2026-01-01T00:00:00.000Z"
        return records

    forged = rewritten(trail, forge)
    entries = [json.loads(line) for line in heads.read_text().splitlines()]
    copied = tmp_path / "kept" / "forged-heads.jsonl"
    copied.write_text("".join(json.dumps({**e, "trail": str(forged)}) + "\n" for e in entries))
    status, out = audit_tool("verify", str(forged), "--head", str(copied))
    assert status == 1, out
    assert "file: the head file's head of " in out and "a line up to line 10 was changed" in out
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(trail.read_text().splitlines(True)[:11]))
    cut.with_name("cut.jsonl.d").symlink_to(trail.with_name("trail.jsonl.d"))
    copied.write_text("".join(json.dumps({**e, "trail": str(cut)}) + "\n" for e in entries))
    status, out = audit_tool("verify", str(cut), "--head", str(copied))
    assert status == 1 and "covers 21 line(s), the trail has 11: lines were cut" in out, out
    status, out = audit_tool("verify", str(tmp_path / "t.jsonl"), "--head", str(copied))
    assert status == 2  # no such trail: unusable, not a finding


def test_a_removed_head_and_a_record_left_out_of_its_site_are_found(tmp_path: Path) -> None:
    trail, _ = signed_recheck(tmp_path)

    def without_head(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return records[:-1]  # the second run's head

    run = json.loads(trail.read_text().splitlines()[-1])["run"]
    assert findings_of(rewritten(trail, without_head)) == [
        f"run {run[:8]} has no tree head after its end line: it was removed, or the crawl was "
        "killed as it wrote it"
    ]
    trail.with_name("forged.jsonl").unlink()
    trail.with_name("forged.jsonl.d").unlink()

    def without_record(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        gone = next(r for r in records if r.get("url") == RECHECKED["robots"])
        return [r for r in records if r is not gone]

    found = findings_of(rewritten(trail, without_record))
    assert any("its site_prev says 5, but the record of http://site.test before it" in what
               for what in found), found  # fmt: skip
    assert any(what.startswith("the site line counts 3 record(s) of the site") for what in found)


@pytest.mark.trail_not_verified("a run killed: verify names it, checked here")
def test_a_killed_runs_records_left_uncounted_by_the_next_head_are_found(tmp_path: Path) -> None:
    """The next run to end counts a killed run's records in site lines of its id; with
    those lines taken out (the chain and the roots made again), its head is found to
    cover records no site line counts."""
    trail = recheck_trail(tmp_path, tmp_path / "trail.jsonl")
    lines = trail.read_text().splitlines(True)
    trail.write_text("".join(lines[: next(i for i, x in enumerate(lines) if '"end"' in x)]))
    recheck_trail(tmp_path, trail)
    killed = json.loads(lines[0])["run"]
    no_end = f"run {killed[:8]} has no end line: the crawl was killed, or the trail was cut "
    no_end += "after it"
    assert findings_of(trail) == [no_end]

    def uncounted(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [r for r in records if not (r["type"] == "site" and r["run"] == killed)]

    assert findings_of(rewritten(trail, uncounted)) == [
        "run " + killed[:8] + " has no site line for http://site.test: its 3 record(s) (the "
        "last at line 6) are not accounted for",
        "run " + killed[:8] + " has no site line for http://other.test: its 1 record(s) (the "
        "last at line 7) are not accounted for",
        no_end,
    ]


def test_one_log_has_one_writer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two trails under one ``REP_AUDIT_LOG_ORIGIN`` made the key sign two inconsistent
    checkpoints of one log (c6123afe; c2sp.org/tlog-checkpoint: a log "MUST not sign any
    checkpoint which is inconsistent with any checkpoint it previously signed"). With the
    head file holding its heads, a second trail under an origin in use stops before it
    writes a line, naming the origin and the trail whose log it is; so do a copy of a
    trail written after its original grew (the default origin, named after the first
    line) and a trail started again in the place of one removed. The trail's own next
    run goes on."""
    operator_key(tmp_path / "key.pem")
    heads = tmp_path / "kept" / "heads.jsonl"
    given = [f"REP_AUDIT_SIGNING_KEY={tmp_path / 'key.pem'}", f"REP_AUDIT_HEAD_FILE={heads}"]
    named = [*given, "REP_AUDIT_LOG_ORIGIN=crawler.test/trail"]
    first = recheck_trail(tmp_path, tmp_path / "first.jsonl", *named)
    recheck_trail(tmp_path, first, *named)  # its own next run
    assert len(heads.read_text().splitlines()) == 2
    capsys.readouterr()
    second = recheck_trail(tmp_path, tmp_path / "second.jsonl", *named)
    err = capsys.readouterr().err
    assert not second.exists() and len(err.splitlines()) == 1, err
    assert err.startswith(
        f"scrapy_rep: error: REP_AUDIT_LOG_ORIGIN: the log crawler.test/trail is already "
        f"{first.absolute()}'s: REP_AUDIT_HEAD_FILE {heads} holds its head of "
    ), err
    copied = tmp_path / "copied.jsonl"
    original = recheck_trail(tmp_path, tmp_path / "original.jsonl", *given)
    copied.write_bytes(original.read_bytes())
    recheck_trail(tmp_path, original, *given)  # the original grows
    capsys.readouterr()
    recheck_trail(tmp_path, copied, *given)  # the copy would fork it
    err = capsys.readouterr().err
    assert "is already" in err and f"which {copied} does not hold" in err, err
    first.unlink()
    recheck_trail(tmp_path, first, *named)  # removed, and started again
    assert "REP_AUDIT_LOG_ORIGIN: the log crawler.test/trail is already" in capsys.readouterr().err
    assert not first.exists()
