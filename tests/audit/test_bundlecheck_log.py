"""rep_audit/bundlecheck.py, ``check-bundle --log VKEY``: the bundle's checkpoint held to
the one log the site was told of (its origin and its key), the same check as a policy's
``log`` line, and required wherever witnesses are. Attacked as the operator would: a
second log, a copy of the trail without the site's kept item under another
``REP_AUDIT_LOG_ORIGIN``, signed with the same key, which witnesses cosign as they
cosign the first (each log consistent on its own)."""

from __future__ import annotations

import json
from pathlib import Path

from rep_engine.trail import notes
from tests.support.recheck import RECHECKED
from tests.support.signatures import operator_key
from tests.support.trailfactory import resigned
from tests.support.witnesses import Log, cosigned_bundle, witnessed_check

SECOND = "rep-audit/second-log"
#: Three witnesses: their key files, names and state folders.
THREE = (
    ("witness.pem", "witness.test/w1", "w1"),
    ("second.pem", "witness.test/w2", "w2"),
    ("third.pem", "witness.test/w3", "w3"),
)


def second_log_bundles(log: Log) -> tuple[Path, Path, str, list[str]]:
    """The honest bundle of the log and the second log's bundle (without the kept item),
    each head cosigned by the three witnesses, each of which trusts both logs (``witness
    --log HONEST --log SECOND``); the second log's checkpoint, and ``--witness`` of the
    three."""
    operator_key(log.folder / "second.pem")
    operator_key(log.folder / "third.pem")
    fork = resigned(log.trail, log.folder / "key.pem", RECHECKED["kept"], "second.jsonl", SECOND)
    logs = (log.vkey(), log.vkey("key.pem", SECOND))
    honest, forged = log.heads[-1]["checkpoint"], log.heads_of(fork)[-1]["checkpoint"]
    assert forged.startswith(f"{SECOND}\n"), forged
    for key, name, state in THREE:
        for trail in (log.trail, fork):
            status, answer, err = log.ask(log.request(0, trail=trail), *logs, key=key,
                                          name=name, state=state)  # fmt: skip
            assert status == 0, err
            if trail == fork:
                forged += answer
            else:
                honest += answer
    given = [
        arg for key, name, _ in THREE for arg in ("--witness", log.vkey(key, name, "--witness"))
    ]
    return (cosigned_bundle(log, honest), cosigned_bundle(log, forged, trail=fork, name="s.json"),
            forged, given)  # fmt: skip


def test_a_second_log_signed_by_the_same_key_fails_with_log_and_without_a_log_is_refused(
    log: Log, tmp_path: Path
) -> None:
    """929e4976: the second log's bundle, cosigned by the three witnesses, was clean
    (exit 0) with ``--key --witness W1 --witness W2 --witness W3``: nothing tied the
    bundle to one log. Now witnesses without a log named stop at start (exit 2, one line
    naming --log); ``--log`` the log's verifier key (or a policy's ``log`` line) finds the
    second log, naming both origins (exit 1); the honest bundle is clean with it."""
    honest, second, _, witnesses = second_log_bundles(log)
    status, said = witnessed_check(log, second, *witnesses, pin=False)  # 929e4976: 0, clean
    assert status == 2 and len(said.splitlines()) == 1, said
    assert "--log" in said and "a second log signed by the same key" in said, said
    pinned = ("--log", log.vkey())
    status, said = witnessed_check(log, second, *witnesses, *pinned)
    assert status == 1, said
    assert (f"the tree head's checkpoint is of the log {SECOND}, not of {log.origin} "
            "(--log)") in said, said  # fmt: skip
    status, said = witnessed_check(log, honest, *witnesses, *pinned)
    assert status == 0 and "clean" in said, said
    policy = tmp_path / "policy.txt"
    names = [f"witness W{n} {vkey}" for n, vkey in enumerate(witnesses[1::2])]
    policy.write_text("\n".join([*names, "group all-of all W0 W1 W2", "quorum all-of", ""]))
    status, said = witnessed_check(log, second, "--policy", str(policy), pin=False)
    assert status == 2 and "--log" in said and len(said.splitlines()) == 1, said
    status, said = witnessed_check(log, second, "--policy", str(policy), *pinned)
    assert status == 1 and f"is of the log {SECOND}, not of {log.origin} (--log)" in said, said
    policy.write_text(f"log {log.vkey()}\n" + policy.read_text())
    status, said = witnessed_check(log, second, "--policy", str(policy))
    assert status == 1, said
    assert (f"is of the log {SECOND}, not of {log.origin} (the policy's log lines)") in said


def test_a_checkpoint_of_the_second_log_signed_under_the_first_one_name_too_fails(
    log: Log, tmp_path: Path
) -> None:
    """An Ed25519 signature of a note does not cover its signer's name: the operator adds
    to the second log's checkpoint the same signature named after the first log. 929e4976
    took the signature of the policy's ``log`` line as the log's, whatever origin the
    checkpoint names (exit 0); the checkpoint's origin must be the log's name."""
    _, second, forged, witnesses = second_log_bundles(log)
    signature = notes.read_note(forged)[1][0].signature
    public = log.operator.public_key().public_bytes_raw()
    borrowed = notes.signature_line(log.origin, notes.key_id(log.origin, notes.ED25519, public),
                                    signature)  # fmt: skip
    loaded = json.loads(second.read_text())
    loaded["head"]["checkpoint"] += borrowed
    second.write_text(json.dumps(loaded))
    policy = tmp_path / "policy.txt"
    names = [f"witness W{n} {vkey}" for n, vkey in enumerate(witnesses[1::2])]
    policy.write_text("\n".join([f"log {log.vkey()}", *names, "group all-of all W0 W1 W2",
                                 "quorum all-of", ""]))  # fmt: skip
    for pinned in (("--policy", str(policy)), (*witnesses, "--log", log.vkey())):
        status, said = witnessed_check(log, second, *pinned)
        assert status == 1 and f"is of the log {SECOND}, not of {log.origin}" in said, said


def test_log_alone_holds_the_checkpoint_and_a_log_that_cannot_be_one_is_refused(
    log: Log, tmp_path: Path
) -> None:
    """``--log`` without witnesses: the second log's bundle is a problem (exit 1), the
    honest one clean, ``--log`` given as a file too; a witness's verifier key, or a log the
    policy's ``log`` lines do not hold, stops at start (exit 2, one line): ``--log``
    narrows a policy's logs, never widens them."""
    honest, second, _, witnesses = second_log_bundles(log)
    vkey = tmp_path / "log.vkey"
    vkey.write_text(log.vkey() + "\n")
    status, said = witnessed_check(log, second, "--log", str(vkey))
    assert status == 1 and f"is of the log {SECOND}, not of {log.origin} (--log)" in said, said
    assert "witnesses: none given (--witness, --policy): not checked" in said, said
    status, said = witnessed_check(log, honest, "--log", str(vkey))
    assert status == 0 and "clean" in said, said
    refused = {
        witnesses[1]: "not a log's",
        str(tmp_path / "none.vkey"): "not a verifier key",
        log.vkey("key.pem", SECOND): f"--log {SECOND}: not a log of the policy's log lines",
    }
    policy = tmp_path / "policy.txt"
    policy.write_text(f"log {log.vkey()}\nwitness W {witnesses[1]}\nquorum W\n")
    for given, why in refused.items():
        status, said = witnessed_check(log, honest, "--policy", str(policy), "--log", given)
        assert status == 2 and why in said and len(said.splitlines()) == 1, said
    status, said = witnessed_check(log, honest, "--policy", str(policy), "--log", log.vkey())
    assert status == 0 and "clean" in said, said
