"""``audit cosign`` keeps of each witness's answer only its cosignatures, checked with the
verifier key given with its command (c2sp.org/tlog-witness: the client verifies the
answer with the witness keys it trusts, and ignores other keys' lines), so that one bad
answer spoils neither the file nor the others' cosignatures: the witnesses here are
commands of their own (a real ``rep-audit witness``, the same behind a blank line, one
that prints another key's cosignature under its name, one whose signature is altered).
c6123afe kept any signature line a witness printed, and an answer that started with a
blank line made the whole file no note."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from rep_engine.trail import notes
from tests.support import c2sp
from tests.support.recheck import recheck_trail
from tests.support.signatures import operator_key
from tests.support.tools import audit_streams
from tests.support.witnesses import WITNESS, Log, signed_log


def witness_shell(log: Log, key: str, name: str, state: str, before: str = "",
                    after: str = "") -> str:  # fmt: skip
    """A shell command that runs ``rep-audit witness`` (the key file ``key``, the name
    ``name``, the state folder ``state``) on its standard input, its answer passed through
    ``sed`` scripts ``before`` (printed first) and ``after`` (applied to it)."""
    (log.folder / state).mkdir(exist_ok=True)
    asked = shlex.join([sys.executable, "-m", "rep_audit", "witness", "-", "--key",
                        str(log.folder / key), "--name", name, "--state",
                        str(log.folder / state), "--log", log.vkey()])  # fmt: skip
    script = f"{before}{asked}{' | sed ' + shlex.quote(after) if after else ''}"
    return f"sh -c {shlex.quote(script)}"


def test_cosign_keeps_only_each_witnesss_verified_cosignatures(tmp_path: Path) -> None:
    """... and the request it sends, from the head the witness cosigned last, is read by
    the tests' own implementation of tlog-witness, its checkpoint's signature and its
    consistency proof (RFC 9162 §2.1.4.2) checked there."""
    log = signed_log(tmp_path)
    assert log.ask(log.request(0), state="s1")[0] == 0  # the first witness cosigned run 1
    first = log.heads[-1]
    recheck_trail(tmp_path, log.trail, f"REP_AUDIT_SIGNING_KEY={tmp_path / 'key.pem'}")
    for name in ("w2", "w3", "w4"):
        operator_key(log.folder / f"{name}.pem")
    vkeys = {name: log.vkey(f"{name}.pem", f"witness.test/{name}", "--witness")
             for name in ("w2", "w3", "w4")}  # fmt: skip
    one = log.vkey("witness.pem", WITNESS, "--witness")
    sent = log.folder / "sent.txt"  # the request as the witness got it
    witnesses = [
        (one, witness_shell(log, "witness.pem", WITNESS, "s1", f"tee {sent} | ")),
        (vkeys["w2"], witness_shell(log, "w2.pem", "witness.test/w2", "s2", "echo; ")),
        # w3's command answers with w4's cosignature, renamed as w3's: not w3's key
        (vkeys["w3"], witness_shell(log, "w4.pem", "witness.test/w3", "s3")),
        # w4's answer with a character of its signature changed
        (vkeys["w4"], witness_shell(log, "w4.pem", "witness.test/w4", "s4",
                                      after=r"s/^\(.\{40\}\)A/\1B/; t; s/^\(.\{40\}\)./\1A/")),
    ]  # fmt: skip
    out = log.folder / "cosigned.note"
    argv = [arg for vkey, command in witnesses for arg in ("--witness", vkey, command)]
    status, said, err = audit_streams("cosign", str(log.trail), *argv, "--out", str(out))
    assert status == 1 and said == f"{out}: 1 cosignature(s) of 4 witness(es)\n", (said, err)
    refusals = err.splitlines()
    assert len(refusals) == 3, err
    assert refusals[0].startswith("refused: witness.test/w2 (") and "its answer is not " \
        "cosignature lines" in refusals[0], refusals  # fmt: skip
    assert "no cosignature by its key (witness.test/w3+" in refusals[1], refusals
    assert "witness.test/w4" in refusals[2] and "does not verify" in refusals[2], refusals
    cosigned = out.read_text()
    text, lines = c2sp.split(cosigned)  # a note, read by the tests' own reader
    assert [line.name for line in lines] == [log.origin, WITNESS]
    assert c2sp.cosigned_at(cosigned, WITNESS, c2sp.vkey(one)[3]) is not None
    assert notes.read_note(cosigned)[0] == text
    old, proof, note = c2sp.parse_request(sent.read_text())  # the tests' own reader
    assert (old, note) == (first["size"], log.heads[-1]["checkpoint"]) and proof
    assert c2sp.verifies(note, log.origin, log.operator.public_key().public_bytes_raw())
    _, size, root, _ = c2sp.checkpoint(c2sp.split(note)[0])
    assert c2sp.consistent(old, size, bytes.fromhex(first["root"]), root, proof)
    assert not c2sp.consistent(old, size, bytes(32), root, proof)
