"""A reader of the C2SP formats of our own, written from the specifications with nothing of
the code under test (c2sp.org/signed-note, tlog-checkpoint, tlog-cosignature): a note's
text and signature lines, a checkpoint's origin, size and root, and a verifier key, each
Ed25519 signature checked with ``cryptography`` alone. The tests read what the trail
writes with it, and the specifications' own examples with both readers."""

from __future__ import annotations

import base64
import hashlib
import struct
from typing import NamedTuple

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

#: The specifications' examples. signed-note, "Verifier keys": this key verifies this note.
SPEC_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
SPEC_NOTE = (
    "This is an example message.\n\n\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfX"
    "ppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n"
)
#: tlog-checkpoint's example checkpoint (its key is not published: read, not verified),
#: and tlog-cosignature's, which carries a witness's cosignature too.
SPEC_CHECKPOINT = (
    "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n"
    "\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5"
    "/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n"
)
SPEC_COSIGNED = SPEC_CHECKPOINT + (
    "\u2014 witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9"
    "dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n"
)


class Line(NamedTuple):
    name: str
    key_hash: bytes
    signature: bytes


def split(note: str) -> tuple[str, list[Line]]:
    """The note's text (its final newline included) and its signature lines."""
    assert all(c == "\n" or ord(c) >= 0x20 for c in note), "a control character"
    cut = note.rindex("\n\n")
    text, block = note[: cut + 1], note[cut + 2 :]
    assert block.endswith("\n") and block.count("\n") >= 1
    lines = []
    for line in block.splitlines():
        assert line[:2] == "\u2014 ", line
        name, coded = line[2:].split(" ")
        raw = base64.standard_b64decode(coded)
        lines.append(Line(name, raw[:4], raw[4:]))
    return text, lines


def checkpoint(text: str) -> tuple[str, int, bytes]:
    origin, size, root, *rest = text.split("\n")
    assert rest == [""] and origin and size == str(int(size)), text
    return origin, int(size), base64.standard_b64decode(root)


def key_hash(name: str, kind: int, public: bytes) -> bytes:
    return hashlib.sha256(f"{name}\n".encode() + bytes([kind]) + public).digest()[:4]


def vkey(text: str) -> tuple[str, bytes, int, bytes]:
    name, hex_hash, coded = text.split("+", 2)
    material = base64.standard_b64decode(coded)
    assert key_hash(name, material[0], material[1:]).hex() == hex_hash
    return name, bytes.fromhex(hex_hash), material[0], material[1:]


def verifies(note: str, name: str, public: bytes) -> bool:
    """Whether a signature line of ``note`` is the Ed25519 signature (type 0x01) of the key
    ``public`` under ``name`` over its text."""
    text, lines = split(note)
    wanted = (name, key_hash(name, 0x01, public))
    return any(_good(public, line.signature, text.encode())
               for line in lines if (line.name, line.key_hash) == wanted)  # fmt: skip


def cosigned_at(note: str, name: str, public: bytes) -> int | None:
    """The timestamp of the witness ``name``'s verified cosignature (type 0x04) of the
    checkpoint ``note``; ``None`` without one."""
    text, lines = split(note)
    for line in lines:
        if (line.name, line.key_hash) != (name, key_hash(name, 0x04, public)):
            continue
        (stamp,) = struct.unpack(">Q", line.signature[:8])
        message = f"cosignature/v1\ntime {stamp}\n".encode() + text.encode()
        if _good(public, line.signature[8:], message):
            return int(stamp)
    return None


def _good(public: bytes, signature: bytes, message: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except InvalidSignature:
        return False
    return True
