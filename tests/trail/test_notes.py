"""rep_engine/trail/notes.py against the C2SP specifications' own examples, read both by it
and by the tests' reader of those formats (tests/support/c2sp.py): signed-note's example
note verified with its verifier key, tlog-checkpoint's and tlog-cosignature's example
checkpoints read (the witness's timestamp, 1679315147, the one its signed message shows),
tlog-witness's example request, a Go implementation's ML-DSA-44 signature of a checkpoint
(torchwood) verified over the message written here; and what is none of them refused."""

from __future__ import annotations

import base64

import pytest

from rep_engine import keys
from rep_engine.trail import notes
from rep_engine.trail.notes import NoteError
from tests.support import c2sp

#: tlog-witness's example add-checkpoint request, its checkpoint signed twice.
SPEC_REQUEST = (
    "old 20852014\nPlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\n"
    "jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=\n5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=\n"
    "/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=\n\n" + c2sp.SPEC_CHECKPOINT
)


def test_the_signed_note_example_verifies_with_its_verifier_key_both_ways() -> None:
    key = notes.read_verifier_key(c2sp.SPEC_VKEY)
    assert (key.name, key.key_id.hex(), key.kind) == ("example.com/foo", "530d903a", notes.ED25519)
    assert notes.verifier_key(key.name, key.kind, key.public) == c2sp.SPEC_VKEY
    text, signatures = notes.read_note(c2sp.SPEC_NOTE)
    assert text == "This is an example message.\n"
    assert [(s.name, s.key_id) for s in signatures] == [("example.com/foo", key.key_id)]
    public = keys.public_key(key.public, "vkey")
    assert keys.verify(public, signatures[0].signature, text.encode())
    assert not keys.verify(public, signatures[0].signature, b"This is another message.\n")
    assert c2sp.verifies(c2sp.SPEC_NOTE, "example.com/foo", key.public)  # the other reader


def test_the_checkpoint_examples_read_the_same_by_both_readers() -> None:
    for note in (c2sp.SPEC_CHECKPOINT, c2sp.SPEC_COSIGNED):
        text, signatures = notes.read_note(note)
        assert (text, [s.name for s in signatures]) == (
            c2sp.split(note)[0],
            [line.name for line in c2sp.split(note)[1]],
        )
        origin, size, root, extensions = notes.read_checkpoint(text)
        assert (origin, size, root, extensions.splitlines()) == c2sp.checkpoint(text)
    origin, size, root, _ = notes.read_checkpoint(notes.read_note(c2sp.SPEC_CHECKPOINT)[0])
    assert (origin, size) == ("example.com/behind-the-sofa", 20852163)
    assert notes.checkpoint_text(origin, size, root) == c2sp.split(c2sp.SPEC_CHECKPOINT)[0]
    witness = notes.read_note(c2sp.SPEC_COSIGNED)[1][1]
    assert witness.name == "witness.example.com/w1"
    assert int.from_bytes(witness.signature[:8], "big") == 1679315147  # its timestamp
    assert notes.cosigned_message(1679315147, origin + "\n") == (
        b"cosignature/v1\ntime 1679315147\nexample.com/behind-the-sofa\n"
    )


def test_the_witness_request_example_is_read_and_written_again() -> None:
    old, proof, note = notes.read_request(SPEC_REQUEST)
    assert (old, len(proof), note) == (20852014, 4, c2sp.SPEC_CHECKPOINT)
    assert c2sp.parse_request(SPEC_REQUEST) == (old, proof, note)  # the tests' own reader
    assert notes.request_text(old, proof, note) == SPEC_REQUEST
    assert notes.read_request(f"old 0\n\n{note}") == (0, [], note)


@pytest.mark.parametrize(
    "note",
    [
        c2sp.SPEC_NOTE.replace("\n\n", "\n"),  # no blank line
        c2sp.SPEC_NOTE.replace("example.", "example\x07"),  # a control character
        c2sp.SPEC_NOTE.replace("\u2014 ", "- "),  # not an em dash
        c2sp.SPEC_NOTE.replace("example.com/foo Uw", "example.com/f+o Uw"),  # a '+' in a name
        c2sp.SPEC_NOTE.replace("Uw2Q", "U!2Q"),  # not base64
        c2sp.SPEC_NOTE.rstrip("\n"),  # a signature line without its newline
        c2sp.SPEC_NOTE + "\n",  # a blank line after the signatures
        "text\n\n" + "\u2014 a/b QUJDREU=\n" * (notes.MAX_SIGNATURES + 1),
    ],
    ids=["blank", "control", "dash", "plus", "base64", "newline", "trailing", "many"],
)
def test_what_is_no_note_is_refused(note: str) -> None:
    with pytest.raises(NoteError):
        notes.read_note(note)


def test_extension_lines_are_read_and_written_again() -> None:
    """tlog-checkpoint, "Note text": any lines after the root are extension lines, opaque,
    non-empty; a witness cosigns them (tlog-cosignature: "MAY be included")."""
    text = "example.com/log\n20\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\nx y\n+z\n"
    read = notes.read_checkpoint(text)
    assert read.extensions == "x y\n+z\n" and c2sp.checkpoint(text)[3] == ["x y", "+z"]
    assert notes.checkpoint_text(*read) == text


def test_a_go_implementations_ml_dsa_44_signature_verifies_over_the_message_made_here() -> None:
    """torchwood's ML-DSA-44 log key and its signature (type 0x06, timestamp 0) of a
    checkpoint: the verifier key read, the message written by :func:`notes.subtree_message`
    (and by the tests' own reader), the signature verified with it; another size fails."""
    key = notes.read_verifier_key(c2sp.TORCHWOOD_VKEY)
    assert (key.name, key.key_id.hex(), key.kind, len(key.public)) == (
        "example.com/mldsa-log", "b5df45c5", notes.MLDSA44, 1312)  # fmt: skip
    text, (line,) = notes.read_note(c2sp.TORCHWOOD_NOTE)
    checkpoint = notes.read_checkpoint(text)
    assert (line.key_id, line.signature[:8], len(line.signature)) == (key.key_id, bytes(8), 2428)
    message = notes.subtree_message(key.name, 0, checkpoint)
    assert message == c2sp.subtree_message(key.name, 0, text)
    assert keys.verify_mldsa44(key.public, line.signature[8:], message) is True
    grown = notes.subtree_message(key.name, 0, checkpoint._replace(size=2))
    assert keys.verify_mldsa44(key.public, line.signature[8:], grown) is False
    assert notes.verifier_key(key.name, key.kind, key.public) == c2sp.TORCHWOOD_VKEY


@pytest.mark.parametrize(
    "name",
    ["w x", "w+x", "", "w\u3000x", "w\x07x", "w\udcffx"],
    ids=["space", "plus", "empty", "unicode-space", "control", "not-utf8"],
)
def test_what_is_no_key_name_is_refused(name: str) -> None:
    """signed-note, "Format": key names non-empty, with no Unicode space nor '+', in a
    note (valid UTF-8, no control character)."""
    assert not notes.is_key_name(name)
    with pytest.raises(NoteError):
        notes.verifier_key(name, notes.COSIGNATURE, bytes(32))
    assert notes.is_key_name("witness.example/w1")


@pytest.mark.parametrize(
    "text",
    [
        "example.com/log\n20\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\nextension\n",
        "example.com/log\n020\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",  # a zero first
        "example.com/log\n-1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
        "example.com/log\n20\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2=\n",  # not canonical
        "example.com/log\n20\nQUJD\n",  # not 32 bytes
        "\n20\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",  # no origin
    ],
    ids=["empty-extension", "zero", "negative", "canonical", "short", "origin"],
)
def test_what_is_no_checkpoint_of_a_trail_is_refused(text: str) -> None:
    with pytest.raises(NoteError):
        notes.read_checkpoint(text)


def test_what_is_no_verifier_key_or_request_is_refused() -> None:
    name, key_hash, coded = c2sp.SPEC_VKEY.split("+")
    material = base64.b64decode(coded)
    other_type = base64.b64encode(bytes([notes.COSIGNATURE]) + material[1:]).decode()
    short_mldsa = base64.b64encode(bytes([notes.MLDSA44]) + material[1:]).decode()
    for wrong in (f"{name}+{key_hash}+{other_type}",  # its key ID is not this type's
                  f"{name}+{key_hash}+{short_mldsa}",  # an ML-DSA-44 key of 32 bytes
                  f"{name}+{key_hash}", f"{name}+zz+{coded}", "no key"):  # fmt: skip
        with pytest.raises(NoteError):
            notes.read_verifier_key(wrong)
    node = "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
    for request in ("old 1\nx", "old 01\n\nx", "new 1\n\nx", "old 1\nQUJD\n\nx",
                    "old 1\n" + node * 64 + "\nx"):  # fmt: skip
        with pytest.raises(NoteError):
            notes.read_request(request)
