"""rep_audit/witness.py, the witness and ``audit vkey``: a witness (``audit witness``,
c2sp.org/tlog-witness's add-checkpoint over a file) cosigns a log's checkpoint only when
it is signed by a key of the log and extends the last one it cosigned, keeping that one;
under any key it trusts for the origin (a log rotating its key), extension lines and all;
with an Ed25519 key or an ML-DSA-44 one (tlog-cosignature v1.1.0, type 0x06); its name
checked as signed-note says before anything is written; a lock held by another request
waited for, then one line. Its checkpoints, requests and cosignatures read by the tests'
own implementation of the C2SP texts (tests/support/c2sp.py), and a Go implementation's
ML-DSA-44 log (torchwood) cosigned. Attacked as a forger would: a checkpoint of another
log, unsigned, rolled back, rewritten at the same size, extended without proof."""

from __future__ import annotations

import fcntl
import hashlib
import sys
import threading
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.mldsa import MLDSA44PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from rep_audit import witness
from rep_engine.trail import notes
from tests.support import c2sp
from tests.support.recheck import recheck_trail
from tests.support.signatures import operator_key
from tests.support.tools import audit_streams
from tests.support.witnesses import WITNESS, Log, cosigned_bundle, resigned_note, with_node


def mldsa_key(path: Path) -> MLDSA44PrivateKey:
    """A new ML-DSA-44 private key, written to ``path`` as PEM PKCS#8 (as ``openssl genpkey
    -algorithm ML-DSA-44`` of OpenSSL 3.5 writes one)."""
    key = MLDSA44PrivateKey.generate()
    path.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    return key


def kept_state(log: Log, state: str = "state") -> str:
    """What the witness's state folder holds of the log (``""``: nothing)."""
    kept = log.folder / state / f"{hashlib.sha256(log.origin.encode()).hexdigest()}.checkpoint"
    return kept.read_text() if kept.exists() else ""


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
    kept = kept_state(log)
    size, root = log.heads[-1]["size"], bytes.fromhex(log.heads[-1]["root"])
    assert kept == notes.checkpoint_text(log.origin, size, root)
    rewritten = resigned_note(log, size, bytes(32))  # same size, another root
    status, out, err = log.ask(log.request(size, rewritten))
    assert status == 1 and "another root than the one this witness cosigned" in err, err
    grown = resigned_note(log, size + 5, bytes(32))
    status, out, err = log.ask(with_node(log.request(size, grown)))
    assert status == 1 and "does not extend the one of size" in err and "rewritten" in err
    assert kept_state(log) == kept  # unchanged


@pytest.mark.parametrize(
    ("case", "said"),
    [("unknown", "unknown log"), ("forged", "is not signed by its log's key"),
     ("old", "larger than the checkpoint's"), ("from_zero", "a consistency proof from size 0"),
     ("empty", "a checkpoint of size 0 whose root"),
     ("bad_line", "a signature under its log's key that does not verify")],
)  # fmt: skip
def test_a_witness_refuses_what_its_log_did_not_sign_or_cannot_be_consistent(
    log: Log, case: str, said: str
) -> None:
    """... and a checkpoint that holds, beside its log's good signature, another under the
    same key that fails (signed-note: "clients SHOULD reject the whole note"; tlog-witness:
    403); c6123afe cosigned that one."""
    note = log.heads[-1]["checkpoint"]
    size = log.heads[-1]["size"]
    good = note.split("\n")[-2]
    request = {
        "unknown": log.request(0),
        "forged": log.request(0, note.replace(note.split(" ")[-1][:8], "AAAAAAAA")),
        "old": log.request(0).replace("old 0", f"old {size + 1}", 1),
        "from_zero": with_node(log.request(0)),
        "empty": log.request(0, resigned_note(log, 0, bytes(32))),
        "bad_line": log.request(0, f"{note}{good[:-8]}AAAAAAAA\n"),
    }[case]
    logs = (log.vkey("witness.pem", "other.test/log"),) if case == "unknown" else ()
    status, _, err = log.ask(request, *logs)
    assert status == 1 and said in err and len(err.splitlines()) == 1, err
    assert kept_state(log) == ""  # nothing kept


def test_a_checkpoint_with_extension_lines_is_cosigned_with_them_and_kept(log: Log) -> None:
    """tlog-cosignature: extension lines "MAY be included in the checkpoint by the log, and
    if present MUST be included in the cosigned message" (c6123afe refused the request as
    unusable, exit 2). A log's verifier key given as a witness's is refused (2)."""
    size, root = log.heads[-1]["size"], bytes.fromhex(log.heads[-1]["root"])
    note = resigned_note(log, size, root, "extension one\nx+y\n")
    status, out, err = log.ask(log.request(0, note))
    assert (status, err) == (0, "")
    public = log.witness.public_key().public_bytes_raw()
    assert c2sp.cosigned_at(note + out, WITNESS, public) is not None  # over the lines too
    assert kept_state(log) == c2sp.split(note)[0]
    status, _, err = audit_streams("check-bundle", str(cosigned_bundle(log)), "--witness",
                                   log.vkey())  # fmt: skip
    assert status == 2 and "a log's verifier key (type 1), not a witness's" in err, err
    witness_as_log = log.vkey("witness.pem", log.origin, "--witness")
    status, _, err = log.ask(log.request(0), witness_as_log)
    assert status == 2 and "a witness's verifier key (type 4)" in err, err


def test_a_checkpoint_signed_by_the_logs_new_key_is_cosigned_under_either(log: Log) -> None:
    """tlog-witness: "verify the checkpoint signature against the public key(s) it trusts
    for the checkpoint origin": ``--log OLD --log NEW`` of one origin (docs/settings.md,
    a key rotated under REP_AUDIT_LOG_ORIGIN); c6123afe used the first key alone."""
    new = operator_key(log.folder / "new.pem")
    size, root = log.heads[-1]["size"], bytes.fromhex(log.heads[-1]["root"])
    text = notes.checkpoint_text(log.origin, size, root)
    note = c2sp.log_signed(text, log.origin, new)  # written by the tests' own writer
    old_vkey, new_vkey = log.vkey(), log.vkey("new.pem")
    status, out, err = log.ask(c2sp.request(0, [], note), old_vkey, new_vkey)
    assert (status, err) == (0, ""), err
    assert c2sp.cosigned_at(note + out, WITNESS, log.witness.public_key().public_bytes_raw())
    status, _, err = log.ask(c2sp.request(size, [], note), old_vkey)  # the old key alone
    assert status == 1 and "not signed by its log's key" in err


@pytest.mark.parametrize(
    "name", ["w x", "w+x", "", "w\udcffx"], ids=["space", "plus", "empty", "not-utf8"]
)
def test_a_name_that_is_no_key_name_is_one_line_and_the_state_untouched(
    log: Log, name: str
) -> None:
    """signed-note: "Key names MUST be non-empty and MUST NOT contain any Unicode spaces or
    plus (U+002B) characters", in a note of valid UTF-8. c6123afe printed a line no reader
    could parse (exit 0), and for a name of no UTF-8 replaced its state before a
    traceback; ``vkey`` the same."""
    status, out, err = log.ask(log.request(0), name=name)
    assert (status, out) == (2, "") and len(err.splitlines()) == 1, err
    assert err.startswith("scrapy_rep: error: --name ") and "no key name" in err, err
    assert kept_state(log) == ""
    status, out, err = audit_streams("vkey", str(log.folder / "witness.pem"), "--name", name,
                                     "--witness")  # fmt: skip
    assert (status, out) == (2, "") and "no key name" in err, err


def test_a_lock_held_is_waited_for_then_said_in_one_line(
    log: Log, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another request answered (its lock held): the witness waits for it, and cosigns
    once it is free; held for longer than :data:`witness.LOCK_WAIT`, one line naming the
    lock, exit 2, nothing kept (c6123afe: a traceback after 0.1 s, exit 1, read by
    ``cosign`` as a refusal)."""
    monkeypatch.setattr(witness, "LOCK_WAIT", 0.2)
    with (log.folder / "state" / ".lock").open("ab") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        status, out, err = log.ask(log.request(0))
        assert (status, out) == (2, "") and len(err.splitlines()) == 1, err
        assert "another witness process held its lock" in err and ".lock" in err, err
        assert kept_state(log) == ""
        monkeypatch.setattr(witness, "LOCK_WAIT", 10)
        threading.Timer(0.1, fcntl.flock, (held.fileno(), fcntl.LOCK_UN)).start()
        status, out, err = log.ask(log.request(0))
    assert (status, err) == (0, "") and out.startswith(f"\u2014 {WITNESS} ")


def test_an_ml_dsa_44_witness_cosigns_as_the_other_implementation_reads_it(log: Log) -> None:
    """tlog-witness: "Witnesses SHOULD use ML-DSA-44 cosignatures": ``vkey --witness`` of
    an ML-DSA-44 key is of type 0x06 (its 1,312-byte key), the witness's cosignature of
    type 0x06 over the ML-DSA-44 signed message, with its name and a timestamp not 0, as
    the tests' own reader verifies it (c6123afe read no ML-DSA-44 key)."""
    key = mldsa_key(log.folder / "pq.pem")
    vkey = log.vkey("pq.pem", "witness.test/pq", "--witness")
    name, key_id, kind, public = c2sp.vkey(vkey)
    assert (name, kind, public) == ("witness.test/pq", 0x06, key.public_key().public_bytes_raw())
    status, out, err = log.ask(log.request(0), key="pq.pem", name="witness.test/pq")
    assert (status, err) == (0, ""), err
    stamp = c2sp.cosigned_at(log.heads[-1]["checkpoint"] + out, "witness.test/pq", public)
    assert stamp is not None and stamp > 1_700_000_000
    assert c2sp.split(log.heads[-1]["checkpoint"] + out)[1][-1].key_hash == key_id


def test_a_go_implementations_ml_dsa_44_log_is_cosigned(log: Log) -> None:
    """torchwood's ML-DSA-44 log (its vkey of type 0x06, its checkpoint signed with the
    ML-DSA-44 message at timestamp 0) given to the witness in a request the tests' own
    writer made: verified and cosigned, as the tests' reader checks."""
    request = c2sp.request(0, [], c2sp.TORCHWOOD_NOTE)
    status, out, err = log.ask(request, c2sp.TORCHWOOD_VKEY)
    assert (status, err) == (0, ""), err
    public = log.witness.public_key().public_bytes_raw()
    assert c2sp.cosigned_at(c2sp.TORCHWOOD_NOTE + out, WITNESS, public) is not None
    forged = c2sp.TORCHWOOD_NOTE.replace("\n1\n", "\n2\n", 1)  # its signature is of size 1
    status, _, err = log.ask(c2sp.request(1, [bytes(32)], forged), c2sp.TORCHWOOD_VKEY,
                             state="other")  # fmt: skip
    assert status == 1 and "does not verify" in err, err


def test_an_ml_dsa_44_key_this_cryptography_cannot_use_is_said(
    log: Log, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where ``cryptography`` has no ML-DSA-44, a log signed with it is refused in one
    line (it cannot be checked), never cosigned."""
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.asymmetric.mldsa", None)
    status, out, err = log.ask(c2sp.request(0, [], c2sp.TORCHWOOD_NOTE), c2sp.TORCHWOOD_VKEY)
    assert (status, out) == (1, "") and "cannot be checked" in err, err


def test_a_degenerate_key_is_no_key(log: Log, tmp_path: Path) -> None:
    """The Ed25519 identity point (and the other points of small order) verifies a
    signature anyone makes: refused as a witness's key, a log's and the operator's
    (c6123afe took each and said what it checked "checked")."""
    identity = bytes([1]) + bytes(31)
    for kind in (notes.COSIGNATURE, notes.ED25519):
        vkey = c2sp.make_vkey(log.origin if kind == notes.ED25519 else "w.test/x", kind, identity)
        if kind == notes.ED25519:
            status, _, err = log.ask(log.request(0), vkey)
        else:
            status, _, err = audit_streams("check-bundle", str(cosigned_bundle(log)),
                                           "--witness", vkey)  # fmt: skip
        assert status == 2 and "anyone can sign for" in err and len(err.splitlines()) == 1, err
    zero_t1 = c2sp.make_vkey("w.test/pq", notes.MLDSA44, bytes(range(32)) + bytes(1280))
    status, _, err = audit_streams("check-bundle", str(cosigned_bundle(log)), "--witness",
                                   zero_t1)  # fmt: skip
    assert status == 2 and "anyone can sign for" in err, err  # ML-DSA-44, t1 zero: z = y
    (tmp_path / "identity.key").write_bytes(identity)
    status, _, err = audit_streams("check-bundle", str(cosigned_bundle(log)), "--key",
                                   str(tmp_path / "identity.key"))  # fmt: skip
    assert status == 2 and "of small order" in err, err


def test_cosign_never_writes_over_the_trail(log: Log) -> None:
    before = log.trail.read_bytes()
    vkey = log.vkey("witness.pem", WITNESS, "--witness")
    status, _, err = audit_streams("cosign", str(log.trail), "--witness", vkey, "true",
                                   "--out", str(log.trail))  # fmt: skip
    assert status == 2 and "is the trail: name another file" in err
    assert log.trail.read_bytes() == before


def test_a_state_that_cannot_be_written_is_one_line_and_nothing_cosigned(log: Log) -> None:
    """Its state folder cannot be written (here a folder holds the name of its lock; a
    full disk alike): one line, exit 2, no cosignature (c6123afe: a traceback)."""
    (log.folder / "state" / ".lock").mkdir()
    status, out, err = log.ask(log.request(0))
    assert (status, out) == (2, "") and len(err.splitlines()) == 1, err
    assert err.startswith("scrapy_rep: error: --state ") and "nothing was cosigned" in err, err
