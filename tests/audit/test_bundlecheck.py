"""rep_audit/bundlecheck.py: a site's bundle checked alone. An honest bundle of a re-check
passes, saying each record; a bundle with a record removed (in the middle, or its run's
last), added, reordered, altered, moved from another site, signed by another key, or
proved against another head fails, naming the record's line; ``--since`` holds a later
bundle's trail to an earlier one's (RFC 9162 §2.1.4: it only grew)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
)

from rep_engine.keys import b64url
from tests.support.recheck import RECHECKED, recheck_trail
from tests.support.signatures import operator_key
from tests.support.tools import audit_streams, audit_tool
from tests.support.trailfactory import RUN, write_trail

SITE = "http://site.test"


@pytest.fixture
def signed(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A signed re-check trail of two runs, its bundle of :data:`SITE` (made after the
    first run too: ``first.json``), and the operator's public key."""
    key = operator_key(tmp_path / "key.pem")
    public = tmp_path / "public.pem"
    public.write_bytes(
        key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    )
    setting = f"REP_AUDIT_SIGNING_KEY={tmp_path / 'key.pem'}"
    trail = recheck_trail(tmp_path, tmp_path / "trail.jsonl", setting)
    assert (
        audit_tool("bundle", str(trail), "--site", SITE, "--out", str(tmp_path / "first.json"))[0]
        == 0
    )
    recheck_trail(tmp_path, trail, setting)
    assert (
        audit_tool("bundle", str(trail), "--site", SITE, "--out", str(tmp_path / "b.json"))[0] == 0
    )
    return trail, tmp_path / "b.json", public


def changed(bundle: Path, change: Callable[[dict[str, Any]], object]) -> Path:
    """A copy of ``bundle`` that ``change`` altered (given the loaded bundle)."""
    loaded = json.loads(bundle.read_text())
    change(loaded)
    copy = bundle.with_name("changed.json")
    copy.write_text(json.dumps(loaded))
    return copy


def checked(bundle: Path, public: Path, *more: str) -> tuple[int, list[str]]:
    status, out = audit_tool("check-bundle", str(bundle), "--key", str(public), *more)
    return status, out.splitlines()


def entry(loaded: dict[str, Any], url: str, nth: int = 0) -> dict[str, Any]:
    """The ``nth`` line of ``loaded`` (a bundle) whose record is of ``url``."""
    found = [e for e in loaded["lines"] if json.loads(e["text"]).get("url") == url]
    return found[nth]


def test_an_honest_bundle_passes_saying_each_record(signed: tuple[Path, Path, Path]) -> None:
    _, bundle, public = signed
    status, said = checked(bundle, public)
    assert status == 0, said
    assert said[0] == (f"line 4: {RECHECKED['kept']}: item kept (re-checked), recorded "
                       f"{said[0].split('recorded ')[1].split(';')[0]}; robots.txt: no rule "
                       "matches; ai-train: unknown")  # fmt: skip
    assert said[1].startswith(f"line 5: {RECHECKED['robots']}: item refused (re-checked) by "
                              "robots.txt, recorded ")  # fmt: skip
    assert said[1].endswith("; robots.txt line 2 'Disallow: /private' for scrapy; purposes "
                            "ai-train")  # fmt: skip
    assert said[-2] == ("witnesses: none given (--witness, --policy): not checked: a history "
                        "its operator rewrote and signed again is not ruled out")  # fmt: skip
    size, when = json.loads(bundle.read_text())["head"]["size"], said[-1].split("dated ")[1][:24]
    assert len(said) == 8 and said[-1].startswith(
        f"{bundle}: clean: 6 record(s) of {SITE}, proved against the tree head over the "
        f"trail's first {size} line(s) (dated {when} by its writer: no signature covers its "
        "time), checkpoint of "
    )  # the head's time is in no checkpoint: never said proved
    assert said[-1].endswith("checked with --key")
    text = bundle.read_text()
    assert "other.test" not in text  # the other site's record is in no line, only in hashes


def test_a_record_removed_is_named(signed: tuple[Path, Path, Path]) -> None:
    _, bundle, public = signed
    middle = changed(bundle, lambda b: b["lines"].remove(entry(b, RECHECKED["robots"], 1)))
    status, said = checked(middle, public)
    assert status == 1
    assert next(line for line in said if "left out" in line) == (
        f"line 17: {RECHECKED['purpose']}: its site_prev names line 16, the bundle's record of "
        f"the site before it in run {bundled_run(bundle, 1)}"
        " is line 15: the record at line 16 was left out (or this one added)"
    )
    last = changed(bundle, lambda b: b["lines"].remove(entry(b, RECHECKED["purpose"], 1)))
    status, said = checked(last, public)
    assert status == 1
    assert [line for line in said if "left out" in line] == [
        f"line 20: run {bundled_run(bundle, 1)} wrote 3 record(s) of the site, the last at line "
        "17; the bundle holds 2, the last at line 16: the record at line 17, its last, was left "
        "out (or one added)"
    ]


def bundled_run(bundle: Path, nth: int) -> str:
    """The first 8 characters of the ``nth`` run's id in ``bundle``."""
    runs = [json.loads(e["text"]) for e in json.loads(bundle.read_text())["lines"]]
    return [r["run"] for r in runs if r["type"] == "run"][nth][:8]


def test_a_record_added_reordered_or_altered_is_named(signed: tuple[Path, Path, Path]) -> None:
    _, bundle, public = signed

    def add(loaded: dict[str, Any]) -> None:
        made = dict(entry(loaded, RECHECKED["kept"]))
        record = json.loads(made["text"])
        made.update(line=12, text=json.dumps({**record, "url": f"{SITE}/made-up"}))
        loaded["lines"].insert(loaded["lines"].index(entry(loaded, RECHECKED["kept"], 1)), made)

    status, said = checked(changed(bundle, add), public)
    assert status == 1 and f"line 12: {SITE}/made-up: its proof does not hold against the tree " \
        "head: it is not that line of the trail the head was signed over (changed, added or " \
        "moved)" in said, said  # fmt: skip

    def swap(loaded: dict[str, Any]) -> None:
        lines = loaded["lines"]
        one, two = lines.index(entry(loaded, RECHECKED["kept"])), lines.index(
            entry(loaded, RECHECKED["robots"]))  # fmt: skip
        lines[one], lines[two] = lines[two], lines[one]

    status, said = checked(changed(bundle, swap), public)
    assert (
        status == 1
        and (
            f"line 4: {RECHECKED['kept']}: out of the trail's order (after line "
            "5): the bundle's lines were reordered, or one is there twice"
        )
        in said
    )

    def alter(loaded: dict[str, Any]) -> None:
        line = entry(loaded, RECHECKED["robots"])
        line["text"] = line["text"].replace('"status":"refused"', '"status":"kept"')

    status, said = checked(changed(bundle, alter), public)
    assert status == 1 and any(s.startswith(f"line 5: {RECHECKED['robots']}: its proof does "
                                            "not hold") for s in said), said  # fmt: skip


def test_a_record_moved_from_another_site_is_named(signed: tuple[Path, Path, Path]) -> None:
    trail, bundle, public = signed
    other = bundle.with_name("other.json")
    assert (
        audit_tool("bundle", str(trail), "--site", "http://other.test", "--out", str(other))[0] == 0
    )
    theirs = entry(json.loads(other.read_text()), RECHECKED["unknown"])

    def move(loaded: dict[str, Any]) -> None:
        lines = loaded["lines"]
        lines.insert(lines.index(entry(loaded, RECHECKED["kept"], 1)), theirs)

    status, said = checked(changed(bundle, move), public)
    assert status == 1  # its proof holds: it is a line of the trail, of another site
    assert f"line 7: {RECHECKED['unknown']}: a record of http://other.test, not of {SITE}" in said


def test_a_bundle_signed_by_another_key_or_proved_against_another_head_fails(
    signed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, bundle, public = signed
    other = operator_key(tmp_path / "other.pem")

    def resign(loaded: dict[str, Any]) -> None:  # the checkpoint signed again, same names
        head = loaded["head"]
        text, line = head["checkpoint"].split("\n\n")
        name, coded = line[2:].split()
        forged = base64.b64decode(coded)[:4] + other.sign(f"{text}\n".encode())
        head["checkpoint"] = f"{text}\n\n\u2014 {name} {base64.b64encode(forged).decode()}\n"

    status, said = checked(changed(bundle, resign), public)
    assert status == 1 and said[0].startswith("file: the tree head's checkpoint is not signed "
                                              "by key "), said  # fmt: skip
    first = json.loads(bundle.with_name("first.json").read_text())["head"]
    status, said = checked(changed(bundle, lambda b: b.update(head=first)), public)
    assert status == 1
    unproved = [s.split(":")[0] for s in said if "its proof does not hold" in s]
    assert unproved == ["line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 9",
                        "line 12", "line 13", "line 14", "line 15", "line 16", "line 17",
                        "line 20"]  # fmt: skip


def test_since_holds_a_later_bundles_trail_to_an_earlier_ones(
    signed: tuple[Path, Path, Path],
) -> None:
    _, bundle, public = signed
    first = bundle.with_name("first.json")
    assert checked(bundle, public, "--since", str(first))[0] == 0
    assert checked(first, public, "--since", str(first))[0] == 0
    status, said = checked(first, public, "--since", str(bundle))
    assert status == 1 and "is not a head of this trail before this one's" in said[0], said

    def rewrite(loaded: dict[str, Any]) -> None:
        loaded["consistency"][0]["proof"][0] = "0" * 64

    status, said = checked(changed(bundle, rewrite), public, "--since", str(first))
    assert status == 1 and said[0] == (f"file: --since {first}: the trail's first 10 line(s) "
                                       "are not those of the earlier head: rewritten")  # fmt: skip


def test_a_bundle_proved_against_an_earlier_head_is_the_one_made_then(
    signed: tuple[Path, Path, Path],
) -> None:
    """``bundle --at LINE``: the trail's later runs left out, the bundle is the one made
    when that head was the last, byte for byte; a line that is no head is unusable."""
    trail, bundle, public = signed
    heads = [n for n, line in enumerate(trail.read_text().splitlines(), 1) if '"head"' in line]
    assert len(heads) == 2
    again = bundle.with_name("again.json")
    status, _ = audit_tool("bundle", str(trail), "--site", SITE, "--at", str(heads[0]),
                           "--out", str(again))  # fmt: skip
    assert status == 0 and again.read_bytes() == bundle.with_name("first.json").read_bytes()
    assert checked(bundle, public, "--since", str(again))[0] == 0
    status, _ = audit_tool("bundle", str(trail), "--site", SITE, "--at", str(heads[0] - 1))
    assert status == 2


def test_an_unusable_bundle_or_key_exits_2(signed: tuple[Path, Path, Path]) -> None:
    trail, bundle, _ = signed
    assert audit_tool("check-bundle", str(trail))[0] == 2  # a trail, not a bundle
    assert audit_tool("check-bundle", str(bundle), "--key", str(trail))[0] == 2
    assert audit_tool("bundle", str(trail), "--site", "not a site")[0] == 2
    damaged: list[Callable[[dict[str, Any]], object]] = [
        lambda b: b.update(snapshots=[]),
        lambda b: b["lines"][0].update(text="\ud800"),  # no line of a trail: not UTF-8
        lambda b: b["head"].update(size=-1),
    ]
    for damage in damaged:
        status, out = audit_tool("check-bundle", str(changed(bundle, damage)))
        assert status == 2 and not out, out  # said on stderr: not a site bundle


def test_a_trail_of_an_earlier_release_appended_to_bundles_its_old_records_counted(
    tmp_path: Path,
) -> None:
    """A trail without heads (schema 1) and a re-check's run appended: the new head covers
    the old run's lines too, and the new run counts the old run's records in site lines of
    it: its records are proved, and one left out (which has no ``site_prev`` to name it)
    fails the bundle at that site line."""
    trail = write_trail(tmp_path / "trail.jsonl")
    recheck_trail(tmp_path, trail)
    bundle = tmp_path / "b.json"
    assert audit_tool("bundle", str(trail), "--site", SITE, "--out", str(bundle))[0] == 0
    status, out = audit_tool("check-bundle", str(bundle), "--unsigned")
    assert status == 0, out
    assert (f"run {RUN[:8]}: written before sites' chains (schema 1 or 2): its records are "
            "counted by the site line a later run wrote; one left out is found, not "
            "named") in out.splitlines()  # fmt: skip
    assert "6 record(s) of http://site.test" in out and ", unsigned; " in out.splitlines()[-1]
    loaded = json.loads(bundle.read_text())
    old = [e for e in loaded["lines"] if json.loads(e["text"]).get("run") == RUN]
    site_line = next(e for e in old if json.loads(e["text"])["type"] == "site")
    assert site_line["line"] > max(e["line"] for e in loaded["lines"]
                                   if json.loads(e["text"])["type"] == "item")  # fmt: skip
    old_records = [e for e in old if json.loads(e["text"])["type"] == "url"]
    for gone in (old_records[0], old_records[-1]):
        status, said = checked_unsigned(changed(bundle, lambda b, g=gone: b["lines"].remove(g)))
        assert status == 1
        assert any(line.startswith(f"line {site_line['line']}: run {RUN[:8]} wrote 3 record(s) "
                                   "of the site") and "was left out" in line
                   for line in said), said  # fmt: skip

    def without_count(loaded: dict[str, Any]) -> None:
        loaded["lines"].remove(old_records[0])
        loaded["lines"].remove(site_line)

    status, said = checked_unsigned(changed(bundle, without_count))
    assert status == 1 and any(f"run {RUN[:8]}: the bundle holds 2 record(s) of the site and "
                               "no site line" in line for line in said), said  # fmt: skip


def checked_unsigned(bundle: Path) -> tuple[int, list[str]]:
    status, out = audit_tool("check-bundle", str(bundle), "--unsigned")
    return status, out.splitlines()


def test_a_record_left_out_with_its_run_line_is_still_named(
    signed: tuple[Path, Path, Path],
) -> None:
    """Its run's header out of the bundle too does not make the run read as one written
    before sites' chains: each record says its ``site_prev``."""
    _, bundle, public = signed

    def cut(loaded: dict[str, Any]) -> None:
        loaded["lines"] = [e for e in loaded["lines"] if json.loads(e["text"])["type"] != "run"]
        loaded["lines"].remove(entry(loaded, RECHECKED["robots"], 1))

    status, said = checked(changed(bundle, cut), public)
    assert status == 1
    assert any(line.startswith(f"line 17: {RECHECKED['purpose']}: its site_prev names line 16")
               for line in said), said  # fmt: skip
    assert not any("written before sites' chains" in line for line in said), said


@pytest.mark.trail_not_verified("a run killed: verify names it, checked here")
def test_a_killed_runs_records_are_counted_by_the_next_run(tmp_path: Path) -> None:
    """A run killed before its end line wrote no site line; the next run to end writes
    its site lines before its own, so the killed run's records in a bundle are whole."""
    trail = recheck_trail(tmp_path, tmp_path / "trail.jsonl")
    lines = trail.read_text().splitlines(True)
    killed = next(i for i, line in enumerate(lines) if '"type":"end"' in line)
    trail.write_text("".join(lines[:killed]))  # the end line, site lines and head lost
    recheck_trail(tmp_path, trail)
    first = json.loads(lines[0])["run"]
    status, out = audit_tool("verify", str(trail))  # its site lines, the next run's: clean
    assert status == 1 and [line for line in out.splitlines() if line.startswith("line ")] == [
        f"line 1: run {first[:8]} has no end line: the crawl was killed, or the trail was cut "
        "after it"
    ], out
    bundle = tmp_path / "b.json"
    assert audit_tool("bundle", str(trail), "--site", SITE, "--out", str(bundle))[0] == 0
    status, said = checked_unsigned(bundle)
    assert status == 0, said
    assert "6 record(s) of http://site.test" in said[-1], said
    kept = json.loads(bundle.read_text())["lines"]
    site_line = next(json.loads(e["text"]) for e in kept if '"type":"site"' in e["text"])
    assert (site_line["run"], site_line["records"]) == (first, 3)  # written by the next run
    gone = next(e for e in kept if json.loads(e["text"]).get("url") == RECHECKED["purpose"])
    status, said = checked_unsigned(changed(bundle, lambda b: b["lines"].remove(gone)))
    assert status == 1 and any("the record at line " in line and "its last, was left out"
                               in line for line in said), said  # fmt: skip


def test_a_bundle_not_checked_with_the_operators_key_is_not_clean(
    signed: tuple[Path, Path, Path],
) -> None:
    """``clean``, exit 0, without ``--key`` or for an unsigned head: anyone can make a
    bundle whose every proof holds against a head of their own. Not proven (exit 3), said
    first, unless the owner asks for a check without a key by name (``--unsigned``: exit 0,
    said first too); a head stripped of its signature, passed off as the operator's, fails
    with ``--key``; a bundle of no record proves nothing of the site."""
    _, bundle, public = signed
    status, said = checked_unsigned(bundle)  # --unsigned
    assert status == 0 and said[0].startswith("unsigned check (--unsigned): the tree head's "
                                              "signature (of key "), said  # fmt: skip
    assert said[-1].startswith(f"{bundle}: clean, unsigned check: who made it is not proven: "
                               f"6 record(s) of {SITE}, ")  # fmt: skip
    status, out = audit_tool("check-bundle", str(bundle))
    said = out.splitlines()
    assert status == 3 and said[0].startswith("NOT PROVEN: the tree head's signature (of key "), out
    assert said[0].endswith("was not checked against the operator's key (give --key, or "
                            "--unsigned to check it without a key): anyone could have made "
                            "this bundle")  # fmt: skip
    assert said[-1].startswith(f"{bundle}: nothing found wrong, but not proven (no --key): ")
    for wrong in (["--unsigned", "--key", str(public)], ["--key", ""], ["--unsigned", "--key", ""]):
        assert audit_tool("check-bundle", str(bundle), *wrong) == (2, "")  # a script's unset $KEY
    for stripped in (("key", "signature", "checkpoint"), ("signature", "checkpoint")):
        forged = changed(bundle, lambda b, s=stripped: b["head"].update(dict.fromkeys(s)))
        status, out = audit_tool("check-bundle", str(forged))
        assert status != 0 and out.startswith(
            "NOT PROVEN: the tree head is unsigned (ask the "
            "operator for a signed one, or --unsigned"
        ), out
        status, said = checked(forged, public)
        assert status == 1 and said[0].startswith("file: "), said
    status, said = checked(changed(bundle, lambda b: b.update(lines=[])), public)
    assert status == 3 and said[-1].startswith(f"{bundle.with_name('changed.json')}: nothing "
                                               "found wrong, but not proven: it holds no record "
                                               "of the site"), said  # fmt: skip


def test_a_private_key_given_as_the_operators_key_proves_nothing(
    signed: tuple[Path, Path, Path],
) -> None:
    """The operator's private key handed to the site (its PEM, or a JWK with ``d``), given
    as ``--key``: its public half checks the signature, but whoever gave or saw that file
    can sign a bundle as the operator. Not proven (exit 3), said first: it was clean, exit
    0, without a word. A bundle that is not there cannot be read, not "not a bundle"."""
    _, bundle, public = signed
    private = bundle.with_name("key.pem")
    key = load_pem_private_key(private.read_bytes(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    jwk = bundle.with_name("key.jwk")
    jwk.write_text(json.dumps({
        "kty": "OKP", "crv": "Ed25519",
        "x": b64url(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)),
        "d": b64url(key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())),
    }))  # fmt: skip
    for given in (private, jwk):
        status, said = checked(bundle, given)
        assert status == 3, said
        assert said[0] == (
            f"NOT PROVEN: --key {given} holds a private key, not the public key the operator "
            "publishes: whoever gave you that file, or saw it, can sign a bundle as the "
            "operator, so the signature shows nothing of who made this one (ask the operator "
            "for their public key, and tell them this one leaked)"
        )
        assert said[-1].startswith(f"{bundle}: nothing found wrong, but not proven (--key is ")
    assert checked(bundle, public)[0] == 0
    status, out, err = audit_streams("check-bundle", str(bundle.with_name("none.json")))
    assert (status, out) == (2, "") and err.endswith(
        "none.json: cannot be read (No such file or directory)\n"
    ), err
