"""rep_audit/witness.py, what ``check-bundle --witness`` (or ``--policy``) counts: a
witness's cosignature of a checkpoint the bundle's proofs lead to, one vote a public key,
never a key of the operator's, a quorum that stops a split view (more than half the
witnesses given, unless the site says otherwise by name). Attacked as the operator, or
anyone, forging a bundle would: a split view under a quorum of half, a checkpoint and its
cosignatures pasted onto a rebuilt tree, one witness given twice or copied under another
name, the operator's other key as a witness, a cosignature that does not verify beside
one that does, an old cosignature, another log's."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.mldsa import MLDSA44PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from rep_audit.witness import cosignature
from rep_engine import keys
from rep_engine.trail import notes
from tests.support import c2sp
from tests.support.recheck import RECHECKED, recheck_trail
from tests.support.signatures import operator_key
from tests.support.tools import audit_streams
from tests.support.trailfactory import resigned
from tests.support.witnesses import (
    WITNESS,
    Log,
    cosigned_bundle,
    resigned_note,
    witnessed_check,
)

W2 = "witness.test/w2"


def cosigned_now() -> int:
    """A cosignature's time made here: now (after the trail's records; a time an hour
    later is in the future, not counted)."""
    return int(time.time())


def two_witnesses(log: Log) -> tuple[str, str]:
    """The verifier keys of the witness (``witness.pem``) and of a second one
    (``second.pem``, its state ``w2``)."""
    operator_key(log.folder / "second.pem")
    return log.vkey("witness.pem", WITNESS, "--witness"), log.vkey("second.pem", W2, "--witness")


def forked(log: Log, dropped: str = RECHECKED["kept"], key: str = "key.pem") -> Path:
    """The log rewritten without the record of ``dropped``, each head signed again with
    ``key``: a fork of the same log (its origin)."""
    return resigned(log.trail, log.folder / key, dropped, name=f"fork-{key}.jsonl")


def test_a_quorum_of_half_the_witnesses_or_fewer_is_refused_and_a_majority_catches_the_split_view(
    log: Log,
) -> None:
    """publishers.md's example of c6123afe, ``--witness W1 --witness W2 --quorum 1``: the
    operator alone shows W1 the honest run and W2 a fork without the site's kept item;
    each bundle was clean (exit 0). Now a quorum of half the witnesses or fewer is
    refused before the bundle is read, saying why in one line (tlog-cosignature: a quorum
    of cosignatures prevents a split view only if two quorums share a witness); asked for
    by name (``--allow-split-view``), it is said; the default, all of them, and a
    majority of three, catch the fork."""
    one, two = two_witnesses(log)
    fork = forked(log)
    honest = log.heads[-1]["checkpoint"] + log.ask(log.request(0), state="w1")[1]
    status, answer, err = log.ask(log.request(0, trail=fork), key="second.pem", name=W2,
                                  state="w2")  # fmt: skip
    assert status == 0, err
    forged_note = log.heads_of(fork)[-1]["checkpoint"] + answer
    fork_bundle = cosigned_bundle(log, forged_note, trail=fork, name="fork.json")
    honest_bundle = cosigned_bundle(log, honest)
    for bundle in (fork_bundle, honest_bundle):
        status, said = witnessed_check(log, bundle, "--witness", one, "--witness", two,
                                       "--quorum", "1")  # fmt: skip
        assert status == 2 and len(said.splitlines()) == 1, said
        assert said.startswith("scrapy_rep: error: --quorum 1 of the 2 witnesses given is half "
                               "of them or fewer: ") and "split view" in said, said  # fmt: skip
    status, said = witnessed_check(log, fork_bundle, "--witness", one, "--witness", two,
                                   "--quorum", "1", "--allow-split-view")  # fmt: skip
    assert status == 0 and "witnesses: --quorum 1 of the 2 witnesses given is half of them or " \
        "fewer: a split view is not ruled out (--allow-split-view)" in said, said  # fmt: skip
    status, said = witnessed_check(log, fork_bundle, "--witness", one, "--witness", two)
    assert status == 1 and "1 of the 2 witness(es) given cosigned, too few for the quorum " \
        "(2 of 2)" in said, said  # fmt: skip
    operator_key(log.folder / "third.pem")
    three = log.vkey("third.pem", "witness.test/w3", "--witness")
    third = log.ask(log.request(0), key="third.pem", name="witness.test/w3", state="w3")[1]
    majority = ("--witness", one, "--witness", two, "--witness", three, "--quorum", "2")
    status, said = witnessed_check(log, cosigned_bundle(log, honest + third), *majority)
    assert status == 0, said
    status, said = witnessed_check(log, fork_bundle, *majority)
    assert status == 1 and "(2 of 3)" in said, said


def test_a_checkpoint_and_its_cosignatures_pasted_onto_a_rebuilt_tree_fail_without_a_key(
    log: Log,
) -> None:
    """Anyone: drop a record, rebuild the tree (signed with a key of one's own), paste the
    honest head's checkpoint and its witnesses' cosignatures. c6123afe said ``check-bundle
    --unsigned --witness W1 --witness W2`` clean, both cosigned, exit 0: without ``--key``
    the checkpoint was never held to the head. keys.md: a witness counts for a checkpoint
    "that holds every line of the bundle"."""
    one, two = two_witnesses(log)
    operator_key(log.folder / "forger.pem")
    honest = log.heads[-1]
    cosigned = (honest["checkpoint"] + log.ask(log.request(0), state="w1")[1]
                + log.ask(log.request(0), key="second.pem", name=W2, state="w2")[1])  # fmt: skip
    bundle = cosigned_bundle(log, cosigned, trail=forked(log, key="forger.pem"), name="f.json")
    loaded = json.loads(bundle.read_text())
    loaded["head"].update(key=honest["key"], checkpoint=honest["checkpoint"])
    bundle.write_text(json.dumps(loaded))
    status, said = witnessed_check(log, bundle, "--witness", one, "--witness", two, key=False)
    assert status == 1, said
    assert (f"the tree head's checkpoint is of {honest['size']} line(s) and root "
            f"{honest['root'][:16]}…, not the head's size and root: it is another head's") \
        in said  # fmt: skip
    assert "0 of the 2 witness(es) given cosigned" in said, said  # c6123afe: both counted


def test_one_key_is_one_vote(log: Log, tmp_path: Path) -> None:
    """tlog-cosignature: an Ed25519 cosignature does not commit to its cosigner's name, so
    "the same public key can't be used across multiple cosigners"; tlog-policy: duplicate
    witnesses are not allowed. c6123afe counted ``--witness W1 --witness W1 --quorum 2``
    twice, and W1's cosignature copied under a second name with its key ID recomputed as
    a second witness."""
    one = log.vkey("witness.pem", WITNESS, "--witness")
    copy = log.vkey("witness.pem", "witness.test/copy", "--witness")
    line = log.ask(log.request(0))[1]
    coded = line.split(" ")[-1]
    again = notes.signature_line(
        "witness.test/copy",
        notes.key_id(
            "witness.test/copy", notes.COSIGNATURE, log.witness.public_key().public_bytes_raw()
        ),
        notes.read_note(log.heads[-1]["checkpoint"] + line)[1][-1].signature,
    )
    assert coded != again.split(" ")[-1]
    bundle = cosigned_bundle(log, log.heads[-1]["checkpoint"] + line + again)
    for given in ((one, one), (one, copy)):
        status, said = witnessed_check(log, bundle, "--witness", given[0], "--witness",
                                       given[1], "--quorum", "2")  # fmt: skip
        assert status == 2 and "one key, one vote" in said and len(said.splitlines()) == 1, said
    policy = tmp_path / "policy.txt"
    policy.write_text(f"witness a {one}\nwitness b {copy}\ngroup both all a b\nquorum both\n")
    status, said = witnessed_check(log, bundle, "--policy", str(policy))
    assert status == 2 and "line 2: the public key of witness" in said, said


def test_no_key_of_the_operators_counts_as_a_witness(log: Log, tmp_path: Path) -> None:
    """The operator's other key in the key set it publishes (c6123afe excluded only the
    head's), and, without ``--key``, a key that signed the checkpoint as its log: each
    "its key is the operator's own key"."""
    other = operator_key(tmp_path / "other.pem")
    jwks = tmp_path / "operator.jwks"
    jwks.write_text(json.dumps(keys.jwks([log.operator.public_key(), other.public_key()])))
    text = c2sp.split(log.heads[-1]["checkpoint"])[0]
    made = cosignature(other, "operator.test/w", text, cosigned_now())
    bundle = cosigned_bundle(log, log.heads[-1]["checkpoint"] + made)
    mine = log.vkey("other.pem", "operator.test/w", "--witness")
    status, out, err = audit_streams("check-bundle", str(bundle), "--key", str(jwks),
                                     "--log", log.vkey(), "--witness", mine)  # fmt: skip
    assert status == 1 and "witness operator.test/w: not counted: its key is the operator's " \
        "own key" in out, out + err  # fmt: skip
    signer = log.vkey("key.pem", "operator.test/log", "--witness")
    made = cosignature(log.operator, "operator.test/log", text, cosigned_now())
    bundle = cosigned_bundle(log, log.heads[-1]["checkpoint"] + made)
    status, said = witnessed_check(log, bundle, "--witness", signer, key=False)
    assert status == 1 and "its key is the operator's own key" in said, said


def test_a_cosignature_of_a_known_key_that_fails_rejects_its_note(log: Log) -> None:
    """signed-note: "If a signature from a known key fails to verify, clients SHOULD
    reject the whole note": W1's good cosignature beside a line under its key that fails
    (c6123afe skipped the bad line and counted the good one)."""
    one = log.vkey("witness.pem", WITNESS, "--witness")
    line = log.ask(log.request(0))[1]
    bad = line[:-10] + ("A" if line[-10] != "A" else "B") + line[-9:]
    bundle = cosigned_bundle(log, log.heads[-1]["checkpoint"] + line + bad)
    status, said = witnessed_check(log, bundle, "--witness", one)
    assert status == 1 and f"the cosignature of witness {WITNESS} does not verify: the note " \
        "is rejected" in said and "0 of the 1 witness(es)" in said, said  # fmt: skip
    status, said = witnessed_check(log, cosigned_bundle(log, log.heads[-1]["checkpoint"] + line),
                                   "--witness", one)  # fmt: skip
    assert status == 0, said


def test_a_head_signed_by_another_key_with_witnesses_is_a_problem_not_unusable(
    log: Log, tmp_path: Path
) -> None:
    """``--key`` a key set without the head's key, with ``--witness``: c6123afe exited 2
    ("unusable input", no verdict); without ``--witness`` it was 1. Now 1, the key named."""
    other = operator_key(tmp_path / "other.pem")
    jwks = tmp_path / "other.jwks"
    jwks.write_text(json.dumps(keys.jwks([other.public_key()])))
    one = log.vkey("witness.pem", WITNESS, "--witness")
    bundle = cosigned_bundle(log, log.heads[-1]["checkpoint"] + log.ask(log.request(0))[1])
    status, out, err = audit_streams("check-bundle", str(bundle), "--key", str(jwks),
                                     "--log", log.vkey(), "--witness", one)  # fmt: skip
    assert status == 1 and f"the tree head is signed by key {log.heads[-1]['key']}, not by " \
        "--key" in out, out + err  # fmt: skip


def _mldsa_witness_answer(log: Log) -> tuple[MLDSA44PrivateKey, str, str]:
    """A witness of a new ML-DSA-44 key, ``witness.test/pq``: its key, its verifier key,
    and its answer to the log's first request (its cosignature line)."""
    key = MLDSA44PrivateKey.generate()
    (log.folder / "pq.pem").write_bytes(
        key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    )
    pq = log.vkey("pq.pem", "witness.test/pq", "--witness")
    status, answer, err = log.ask(log.request(0), key="pq.pem", name="witness.test/pq")
    assert status == 0, err
    return key, pq, answer


def test_ml_dsa_44_cosignatures_count_and_where_they_cannot_be_checked_are_said(
    log: Log, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A witness of an ML-DSA-44 key (type 0x06): its cosignature, and one the tests' own
    implementation made, counted; where the installed cryptography has no ML-DSA-44, said
    not checked, never counted, never fatal (c6123afe refused the verifier key)."""
    key, pq, answer = _mldsa_witness_answer(log)
    bundle = cosigned_bundle(log, log.heads[-1]["checkpoint"] + answer)
    status, said = witnessed_check(log, bundle, "--witness", pq)
    assert status == 0 and "witness witness.test/pq: cosigned the checkpoint of " in said, said
    made = c2sp.cosign(log.heads[-1]["checkpoint"], "witness.test/pq", key, cosigned_now())
    ed = c2sp.cosign(log.heads[-1]["checkpoint"], WITNESS, log.witness, cosigned_now())
    other = cosigned_bundle(log, log.heads[-1]["checkpoint"] + made + ed)
    one = log.vkey("witness.pem", WITNESS, "--witness")
    status, said = witnessed_check(log, other, "--witness", pq, "--witness", one)
    assert status == 0 and said.count(": cosigned the checkpoint of ") == 2, said
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.asymmetric.mldsa", None)
    status, said = witnessed_check(log, other, "--witness", pq, "--witness", one)
    assert status == 1 and "witness witness.test/pq: not counted: its ML-DSA-44 cosignature " \
        "was not checked" in said and f"witness {WITNESS}: cosigned" in said, said  # fmt: skip


def test_a_note_that_is_no_checkpoint_under_an_ml_dsa_44_witness_is_rejected_not_unusable(
    log: Log,
) -> None:
    """Anyone who hands a site the bundle adds a cosigned note whose text is no checkpoint
    (``hello``) with a line under the ML-DSA-44 witness's name and key ID: the check
    stopped at it, "not a checkpoint", exit 2, no verdict (the line's signed message is
    built from a checkpoint). An ML-DSA-44 line over no checkpoint does
    not verify: that note is rejected (a problem, exit 1), the witness's true cosignature
    in the other note still counted."""
    _, pq, answer = _mldsa_witness_answer(log)
    known = notes.read_verifier_key(pq)
    junk = "hello\n\n" + notes.signature_line(known.name, known.key_id, bytes(8 + 2420))
    bundle = cosigned_bundle(log, log.heads[-1]["checkpoint"] + answer, junk)
    status, said = witnessed_check(log, bundle, "--witness", pq)
    assert status == 1 and "cosigned checkpoint 2 of the bundle: the cosignature of witness " \
        "witness.test/pq does not verify: the note is rejected" in said, said  # fmt: skip
    assert "witness witness.test/pq: cosigned the checkpoint of " in said, said


def test_check_bundle_requires_a_quorum_of_the_witnesses_given(log: Log) -> None:
    one, two = two_witnesses(log)
    (log.folder / "w1.vkey").write_text(one + "\n")  # or the file holding it
    note = log.heads[-1]["checkpoint"] + log.ask(log.request(0))[1]
    bundle = cosigned_bundle(log, note)
    status, said = witnessed_check(log, bundle, "--witness", str(log.folder / "w1.vkey"))
    assert status == 0 and f"witness {WITNESS}: cosigned the checkpoint of " in said, said
    status, said = witnessed_check(log, bundle, "--witness", one, "--witness", two)
    assert status == 1 and "1 of the 2 witness(es) given cosigned, too few" in said, said
    assert "witness witness.test/w2: not counted: no cosignature of a checkpoint of " in said
    status, _, err = audit_streams("check-bundle", str(bundle), "--witness", one,
                                   "--quorum", "2")  # fmt: skip
    assert status == 2 and err == "scrapy_rep: error: --quorum 2: give 1 to the 1 --witness given\n"


def test_a_policy_file_says_which_witnesses_count(log: Log, tmp_path: Path) -> None:
    """c2sp.org/tlog-policy: the log, three witnesses, a group of two of them and the
    third, comments and tabs; a policy whose quorum two sets of witnesses sharing none
    can meet is refused (one line) unless asked for; a checkpoint signed by none of its
    logs is a problem."""
    one, two = two_witnesses(log)
    operator_key(log.folder / "third.pem")
    three = log.vkey("third.pem", "witness.test/w3", "--witness")
    third = log.ask(log.request(0), key="third.pem", name="witness.test/w3", state="w3")[1]
    note = log.heads[-1]["checkpoint"] + log.ask(log.request(0), state="w1")[1] + third
    bundle = cosigned_bundle(log, note)
    policy = tmp_path / "policy.txt"
    policy.write_text(f"# the site's witnesses\nlog {log.vkey()}\n\nwitness X1 {one}\n"
                      f"witness\tX2 {two} https://w2.example/\nwitness Y {three}\n"
                      "group X 1 X1 X2\n  group all-of all X Y  \nquorum all-of\n")  # fmt: skip
    status, said = witnessed_check(log, bundle, "--policy", str(policy))
    assert status == 0 and said.count(": cosigned the checkpoint of ") == 2, said  # X1, Y
    assert "witness witness.test/w2: not counted" in said
    policy.write_text(policy.read_text().replace("group X 1 X1 X2", "group X all X1 X2"))
    status, said = witnessed_check(log, bundle, "--policy", str(policy))
    assert status == 1 and "too few for the quorum (the policy's 'all-of')" in said, said
    policy.write_text(policy.read_text().replace("group X all X1 X2", "group X any X1 X2")
                      .replace("group all-of all X Y", "group all-of any X Y"))  # fmt: skip
    status, said = witnessed_check(log, bundle, "--policy", str(policy))
    assert status == 2 and "its quorum 'all-of' can be met twice by witnesses that share " \
        "none" in said, said  # fmt: skip
    status, said = witnessed_check(log, bundle, "--policy", str(policy), "--allow-split-view")
    assert status == 0 and "a split view is not ruled out" in said, said
    operator_key(log.folder / "another.pem")  # a policy of another log's key
    policy.write_text(policy.read_text().replace(log.vkey(), log.vkey("another.pem")))
    status, said = witnessed_check(log, bundle, "--policy", str(policy), "--allow-split-view")
    assert status == 1 and f"the tree head's checkpoint of {log.origin} is not signed by the " \
        "key the policy's log lines give" in said, said  # fmt: skip


def test_a_forgers_cosignatures_do_not_count(log: Log) -> None:
    """Another log's checkpoint cosigned, an old cosignature of this checkpoint (dated
    before its records), the operator's own key as a witness, a checkpoint of another
    size: none counts, each is said."""
    one = log.vkey("witness.pem", WITNESS, "--witness")
    other = resigned_note(log, 3, bytes(32)).replace(log.origin, "other.test/log")
    other += cosignature(log.witness, WITNESS, c2sp.split(other)[0], cosigned_now())
    checkpoint = log.heads[-1]["checkpoint"]
    text = c2sp.split(checkpoint)[0]
    old = checkpoint + cosignature(log.witness, WITNESS, text, 1_600_000_000)  # in 2020
    selfmade = checkpoint + cosignature(log.operator, "operator.test/w", text, cosigned_now())
    mine = log.vkey("key.pem", "operator.test/w", "--witness")
    for note, witness, said in (
        (other, one, f"witness {WITNESS}: not counted: no cosignature of a checkpoint of "
                     f"{log.origin}"),
        (old, one, f"witness {WITNESS}: not counted: cosigned at 2020-09-13T12:26:40.000Z, "
                   "before the bundle's last record"),
        (selfmade, mine, "witness operator.test/w: not counted: its key is the operator's own key"),
    ):  # fmt: skip
        status, told = witnessed_check(log, cosigned_bundle(log, note), "--witness", witness)
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
    status, told = witnessed_check(log, bundle, "--witness", one)
    assert status == 1 and "not counted: no cosignature of a checkpoint" in told, told
    loaded = json.loads(bundle.read_text())
    loaded["lines"] = [line for line in loaded["lines"] if line["line"] <= first]
    bundle.write_text(json.dumps(loaded))
    status, told = witnessed_check(log, bundle, "--witness", one)
    assert status == 0 and f"cosigned the checkpoint of {first} line(s)" in told, told
    assert f"those after line {first} unwitnessed" in told
