"""rep_audit/witness.py: a witness (``audit witness``, c2sp.org/tlog-witness's
add-checkpoint over a file) cosigns a log's checkpoint only when it is signed by the log
and extends the last one it cosigned, keeping that one; ``check-bundle --witness``
requires cosignatures of a checkpoint the bundle's proofs lead to, from a quorum of the
witnesses given. Attacked as a forger would: a cosignature of another log, an old one
replayed, a witness whose key is the operator's, a checkpoint with a line more or a size
of its own."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from rep_audit.witness import cosignature
from rep_engine.trail import notes
from rep_engine.trail.merkle import MerkleTree, leaf_hash
from tests.support import c2sp
from tests.support.recheck import recheck_trail
from tests.support.signatures import operator_key, public_key_file
from tests.support.tools import audit_streams, audit_tool

SITE = "http://site.test"
WITNESS = "witness.test/w1"


@dataclass
class Log:
    """A signed trail, its operator's key, a witness's key and state."""

    folder: Path
    trail: Path
    operator: Ed25519PrivateKey
    witness: Ed25519PrivateKey

    @property
    def heads(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.trail.read_text().splitlines()
                if '"type":"head"' in line]  # fmt: skip

    @property
    def origin(self) -> str:
        return str(self.heads[-1]["checkpoint"].split("\n")[0])

    def vkey(self, key: str = "key.pem", name: str = "", *more: str) -> str:
        return audit_tool("vkey", str(self.folder / key), "--name", name or self.origin,
                          *more)[1].strip()  # fmt: skip

    def request(self, old: int, note: str | None = None) -> str:
        """The add-checkpoint request of the last head (or ``note``) from size ``old``."""
        lines = self.trail.read_bytes().splitlines(True)
        size = self.heads[-1]["size"]
        tree = MerkleTree(leaf_hash(line) for line in lines[:size])
        proof = tree.consistency_proof(old) if 0 < old < size else []
        return notes.request_text(old, proof, note or self.heads[-1]["checkpoint"])

    def ask(self, request: str, *logs: str) -> tuple[int, str, str]:
        """``audit witness`` given ``request`` (trusting this log, or ``logs``)."""
        path = self.folder / "request.txt"
        path.write_text(request)
        given = [arg for log in (logs or (self.vkey(),)) for arg in ("--log", log)]
        state, key = str(self.folder / "state"), str(self.folder / "witness.pem")
        return audit_streams("witness", str(path), "--key", key, "--name", WITNESS, "--state",
                             state, *given)  # fmt: skip


@pytest.fixture
def log(tmp_path: Path) -> Log:
    operator, witness = operator_key(tmp_path / "key.pem"), operator_key(tmp_path / "witness.pem")
    (tmp_path / "state").mkdir()
    trail = recheck_trail(tmp_path, tmp_path / "trail.jsonl",
                          f"REP_AUDIT_SIGNING_KEY={tmp_path / 'key.pem'}")  # fmt: skip
    return Log(tmp_path, trail, operator, witness)


def with_node(request: str) -> str:
    """``request`` with a consistency proof line more (a hash of zeroes)."""
    return request.replace("\n\n", f"\n{base64.b64encode(bytes(32)).decode()}\n\n", 1)


def resigned_note(log: Log, size: int, root: bytes, extra: str = "") -> str:
    """A checkpoint of the log signed by its operator (who may sign anything)."""
    text = notes.checkpoint_text(log.origin, size, root) + extra
    key = notes.key_id(log.origin, notes.ED25519, log.operator.public_key().public_bytes_raw())
    return f"{text}\n{notes.signature_line(log.origin, key, log.operator.sign(text.encode()))}"


def test_a_witness_cosigns_only_a_consistent_extension_and_keeps_what_it_cosigned(
    log: Log,
) -> None:
    status, out, err = log.ask(log.request(0))
    assert (status, err) == (0, "")
    cosigned = log.heads[-1]["checkpoint"] + out  # as tlog-witness says a client reads it
    public = log.witness.public_key().public_bytes_raw()
    assert c2sp.cosigned_at(cosigned, WITNESS, public) is not None  # the tests' own reader
    first = log.heads[-1]["size"]
    recheck_trail(log.folder, log.trail, f"REP_AUDIT_SIGNING_KEY={log.folder / 'key.pem'}")
    status, out, err = log.ask(log.request(0))  # tlog-witness's 409: the size it holds
    assert (status, out) == (1, f"{first}\n") and len(err.splitlines()) == 1, err
    assert err.startswith(f"rep-audit witness: refused: this witness holds {log.origin} at "
                          f"size {first}, not 0")  # fmt: skip
    status, out, _ = log.ask(log.request(first))
    assert status == 0 and out.startswith(f"\u2014 {WITNESS} ")
    assert log.ask(log.request(log.heads[-1]["size"]))[0] == 0  # the same checkpoint again
    kept = next((log.folder / "state").glob("*.checkpoint")).read_text()
    size, root = log.heads[-1]["size"], bytes.fromhex(log.heads[-1]["root"])
    assert kept == notes.checkpoint_text(log.origin, size, root)
    rewritten = resigned_note(log, size, bytes(32))  # same size, another root
    status, out, err = log.ask(log.request(size, rewritten))
    assert status == 1 and "another root than the one this witness cosigned" in err, err
    grown = resigned_note(log, size + 5, bytes(32))
    status, out, err = log.ask(with_node(log.request(size, grown)))
    assert status == 1 and "does not extend the one of size" in err and "rewritten" in err
    assert next((log.folder / "state").glob("*.checkpoint")).read_text() == kept  # unchanged


@pytest.mark.parametrize(
    ("case", "said"),
    [("unknown", "unknown log"), ("forged", "is not signed by its log's key"),
     ("old", "larger than the checkpoint's"), ("from_zero", "a consistency proof from size 0"),
     ("empty", "a checkpoint of size 0 whose root")],
)  # fmt: skip
def test_a_witness_refuses_what_its_log_did_not_sign_or_cannot_be_consistent(
    log: Log, case: str, said: str
) -> None:
    note = log.heads[-1]["checkpoint"]
    size = log.heads[-1]["size"]
    request = {
        "unknown": log.request(0),
        "forged": log.request(0, note.replace(note.split(" ")[-1][:8], "AAAAAAAA")),
        "old": log.request(0).replace("old 0", f"old {size + 1}", 1),
        "from_zero": with_node(log.request(0)),
        "empty": log.request(0, resigned_note(log, 0, bytes(32))),
    }[case]
    logs = (log.vkey("witness.pem", "other.test/log"),) if case == "unknown" else ()
    status, _, err = log.ask(request, *logs)
    assert status == 1 and said in err and len(err.splitlines()) == 1, err
    assert not list((log.folder / "state").glob("*.checkpoint"))  # nothing kept


def test_a_checkpoint_with_a_line_more_is_no_request_and_a_witness_key_must_be_a_witnesss(
    log: Log,
) -> None:
    """A checkpoint with an extension line the operator signed is not one of a trail:
    unusable input (2); a log's verifier key given as a witness's is refused (2)."""
    size, root = log.heads[-1]["size"], bytes.fromhex(log.heads[-1]["root"])
    status, _, err = log.ask(log.request(0, resigned_note(log, size, root, "extension\n")))
    assert status == 2 and err.startswith("scrapy_rep: error: not a checkpoint"), err
    bundle = log.folder / "b.json"
    assert audit_tool("bundle", str(log.trail), "--site", SITE, "--out", str(bundle))[0] == 0
    status, _, err = audit_streams("check-bundle", str(bundle), "--witness", log.vkey())
    assert status == 2 and "a log's verifier key (type 1), not a witness's" in err, err
    witness_as_log = log.vkey("witness.pem", log.origin, "--witness")
    status, _, err = log.ask(log.request(0), witness_as_log)
    assert status == 2 and "a witness's verifier key (type 4), not a log's" in err, err


def cosigned_bundle(log: Log, *notes_given: str) -> Path:
    """The bundle of :data:`SITE` with the cosigned checkpoints ``notes_given`` put in it
    (a forger edits the bundle: ``audit bundle`` refuses a checkpoint of another log)."""
    bundle = log.folder / "b.json"
    assert audit_tool("bundle", str(log.trail), "--site", SITE, "--out", str(bundle))[0] == 0
    loaded = json.loads(bundle.read_text())
    loaded["cosigned"] = list(notes_given)
    bundle.write_text(json.dumps(loaded))
    return bundle


def witnessed_check(log: Log, bundle: Path, *witnesses: str) -> tuple[int, str]:
    given = [arg for witness in witnesses for arg in ("--witness", witness)
             if not witness.startswith("--quorum")]  # fmt: skip
    given += [arg for witness in witnesses if witness.startswith("--quorum")
              for arg in witness.split("=")]  # fmt: skip
    public = public_key_file(log.folder / "key.pem")
    status, out, err = audit_streams("check-bundle", str(bundle), "--key", str(public), *given)
    return status, out + err


def test_check_bundle_requires_a_quorum_of_the_witnesses_given(log: Log) -> None:
    operator_key(log.folder / "second.pem")
    one = log.vkey("witness.pem", WITNESS, "--witness")
    two = log.vkey("second.pem", "witness.test/w2", "--witness")
    (log.folder / "w1.vkey").write_text(one + "\n")  # or the file holding it
    note = log.heads[-1]["checkpoint"] + log.ask(log.request(0))[1]
    bundle = cosigned_bundle(log, note)
    status, said = witnessed_check(log, bundle, str(log.folder / "w1.vkey"))
    assert status == 0 and f"witness {WITNESS}: cosigned the checkpoint of " in said, said
    status, said = witnessed_check(log, bundle, one, two)
    assert status == 1 and "1 of the 2 witness(es) given cosigned (quorum 2)" in said, said
    assert "witness witness.test/w2: not counted: no cosignature of a checkpoint of " in said
    assert witnessed_check(log, bundle, one, two, "--quorum=1")[0] == 0
    status, _, err = audit_streams("check-bundle", str(bundle), "--witness", one,
                                   "--quorum", "2")  # fmt: skip
    assert status == 2 and err == "scrapy_rep: error: --quorum 2: give 1 to the 1 --witness given\n"


def test_a_forgers_cosignatures_do_not_count(log: Log, tmp_path: Path) -> None:
    """Another log's checkpoint cosigned, an old cosignature of this checkpoint (dated
    before its records), the operator's own key as a witness, a checkpoint of another
    size: none counts, each is said."""
    one = log.vkey("witness.pem", WITNESS, "--witness")
    other = resigned_note(log, 3, bytes(32)).replace(log.origin, "other.test/log")
    other += cosignature(log.witness, WITNESS, c2sp.split(other)[0], 2_000_000_000)
    checkpoint = log.heads[-1]["checkpoint"]
    text = c2sp.split(checkpoint)[0]
    old = checkpoint + cosignature(log.witness, WITNESS, text, 1_600_000_000)  # in 2020
    selfmade = checkpoint + cosignature(log.operator, "operator.test/w", text, 2_000_000_000)
    mine = log.vkey("key.pem", "operator.test/w", "--witness")
    for note, witness, said in (
        (other, one, f"witness {WITNESS}: not counted: no cosignature of a checkpoint of "
                     f"{log.origin}"),
        (old, one, f"witness {WITNESS}: not counted: cosigned at 2020-09-13T12:26:40.000Z, "
                   "before the "
                   "bundle's last record"),
        (selfmade, mine, "witness operator.test/w: not counted: its key is the operator's own key"),
    ):  # fmt: skip
        status, told = witnessed_check(log, cosigned_bundle(log, note), witness)
        assert status == 1 and said in told and "0 of the 1 witness(es)" in told, told
    wrong = resigned_note(log, 999, bytes.fromhex(log.heads[-1]["root"]))
    bundle = cosigned_bundle(log)
    loaded = json.loads(bundle.read_text())
    loaded["head"]["checkpoint"] = wrong
    bundle.write_text(json.dumps(loaded))
    status, told = witnessed_check(log, bundle)
    assert status == 1 and "the tree head's checkpoint is of 999 line(s)" in told, told


def test_a_witnessed_earlier_checkpoint_counts_for_the_lines_it_holds(log: Log) -> None:
    """Cosigned after run 1, the witness vouches for the lines of that checkpoint: a
    bundle of run 2's head with run 2's records kept counts it not; with run 2 left out
    whole (what no bundle can show), it counts and says the lines after it unwitnessed."""
    note = log.heads[-1]["checkpoint"] + log.ask(log.request(0))[1]
    first = log.heads[-1]["size"]
    recheck_trail(log.folder, log.trail, f"REP_AUDIT_SIGNING_KEY={log.folder / 'key.pem'}")
    one = log.vkey("witness.pem", WITNESS, "--witness")
    bundle = cosigned_bundle(log, note)
    status, told = witnessed_check(log, bundle, one)
    assert status == 1 and "not counted: no cosignature of a checkpoint" in told, told
    loaded = json.loads(bundle.read_text())
    loaded["lines"] = [line for line in loaded["lines"] if line["line"] <= first]
    bundle.write_text(json.dumps(loaded))
    status, told = witnessed_check(log, bundle, one)
    assert status == 0 and f"cosigned the checkpoint of {first} line(s)" in told, told
    assert f"those after line {first} unwitnessed" in told


def test_cosign_never_writes_over_the_trail(log: Log) -> None:
    before = log.trail.read_bytes()
    status, _, err = audit_streams("cosign", str(log.trail), "--witness", "true",
                                   "--out", str(log.trail))  # fmt: skip
    assert status == 2 and "is the trail: name another file" in err
    assert log.trail.read_bytes() == before
