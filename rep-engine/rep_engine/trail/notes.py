"""The transparency logs' own formats, as text (pure, no cryptography): a C2SP signed
note (c2sp.org/signed-note), a checkpoint (c2sp.org/tlog-checkpoint), the messages a
witness's cosignature is over (c2sp.org/tlog-cosignature v1.1.0: Ed25519's and
ML-DSA-44's), verifier keys (signed-note, "Verifier keys") and a witness's add-checkpoint
request (c2sp.org/tlog-witness), so that Go's checksum database tools, Sigstore's and the
C2SP witnesses read a trail's tree heads as they read their logs'.

A note is a text ending in ``\\n``, a blank line, and one or more signature lines
``— <key name> <base64(key ID || signature)>``; the key ID is the first four bytes of
``SHA-256(key name || "\\n" || signature type || public key)``. A checkpoint's text is
the log's origin, its tree size in decimal and its root hash in base64, one a line, then
any extension lines (opaque, non-empty; a trail's heads have none). The
signing and the verifying are their callers' (:mod:`rep_engine.keys`): here, the bytes
they sign and read.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import struct
from typing import Final, NamedTuple

#: Signature types (signed-note, "Signature types"): a log's Ed25519 signature, a
#: witness's timestamped Ed25519 cosignature and its timestamped ML-DSA-44 (sub)tree
#: cosignature (tlog-cosignature).
ED25519: Final = 0x01
COSIGNATURE: Final = 0x04
MLDSA44: Final = 0x06
#: The length of each type's public key (RFC 8032 §5.1.5; FIPS 204 Table 2: ML-DSA-44's
#: public key, 1,312 bytes, and signature, 2,420 bytes).
PUBLIC_BYTES: Final = {ED25519: 32, COSIGNATURE: 32, MLDSA44: 1312}
MLDSA44_SIGNATURE_BYTES: Final = 2420
#: tlog-cosignature, "ML-DSA-44 signed message": the label of a ``cosigned_message``.
SUBTREE_LABEL: Final = b"subtree/v1\n\x00"
#: The em dash, space, that start a signature line.
DASH: Final = "\u2014 "
#: Signatures read from one note at most (signed-note: "MUST accept at least up to 16").
MAX_SIGNATURES: Final = 64
#: Consistency proof lines of an add-checkpoint request at most (tlog-witness).
MAX_PROOF: Final = 63
#: A key name: non-empty, no Unicode space, no ``+`` (signed-note, "Format"; valid
#: UTF-8 and no control character too: :func:`is_key_name`).
NAME: Final = re.compile(r"[^\s+]+")
#: A tree size: decimal without leading zeroes (tlog-checkpoint, "Note text").
_SIZE: Final = re.compile(r"0|[1-9][0-9]{0,19}")
_CONTROL: Final = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


class NoteError(ValueError):
    """Text that is not a note, a checkpoint, a verifier key or a request: why."""


class Signature(NamedTuple):
    """One signature line: its key name, key ID (4 bytes) and signature bytes."""

    name: str
    key_id: bytes
    signature: bytes


class Checkpoint(NamedTuple):
    """A checkpoint's text: the log's origin, its tree size and root hash, and its
    extension lines (each ending in ``\\n``; ``""``: none)."""

    origin: str
    size: int
    root: bytes
    extensions: str = ""


class VerifierKey(NamedTuple):
    """A verifier key (``<name>+<hex key ID>+<base64(type || public key)>``)."""

    name: str
    key_id: bytes
    kind: int
    public: bytes


def key_id(name: str, kind: int, public: bytes) -> bytes:
    """signed-note, "Signatures": ``SHA-256(key name || 0x0A || type || public key)[:4]``."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


def is_key_name(name: str) -> bool:
    """signed-note, "Format": a key name is non-empty, holds no Unicode space nor ``+``,
    and is valid UTF-8 (a name read from a command line that is not holds lone
    surrogates), without control characters (no note holds one)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return bool(NAME.fullmatch(name)) and not _CONTROL.search(name)


def verifier_key(name: str, kind: int, public: bytes) -> str:
    """The verifier key of ``public`` under ``name`` for signatures of type ``kind``."""
    if not is_key_name(name):
        raise NoteError(f"{name!r} is no key name (signed-note: non-empty, valid UTF-8, no "
                        "spaces, no '+')")  # fmt: skip
    coded = base64.b64encode(bytes([kind]) + public).decode()
    return f"{name}+{key_id(name, kind, public).hex()}+{coded}"


def read_verifier_key(text: str) -> VerifierKey:
    """A verifier key of an Ed25519 key (type 0x01 or 0x04) or of an ML-DSA-44 key (type
    0x06), whose ID is its own."""
    name, _, rest = text.strip().partition("+")
    hex_id, _, coded = rest.partition("+")
    try:
        material = base64.b64decode(coded, validate=True)
        found = bytes.fromhex(hex_id)
    except (ValueError, binascii.Error):
        material = found = b""
    if not (is_key_name(name) and len(found) == 4 and material):
        raise NoteError("not a verifier key (name+keyid+base64 of its type and key)")
    kind, public = material[0], material[1:]
    if PUBLIC_BYTES.get(kind) != len(public):
        raise NoteError(f"a verifier key of type {kind} with a key of {len(public)} bytes: "
                        "neither an Ed25519 key (types 1 and 4, 32 bytes) nor an ML-DSA-44 "
                        "key (type 6, 1,312 bytes)")  # fmt: skip
    if key_id(name, kind, public) != found:
        raise NoteError(f"a verifier key whose key ID {hex_id} is not its key's")
    return VerifierKey(name, found, kind, public)


def checkpoint_text(origin: str, size: int, root: bytes, extensions: str = "") -> str:
    """A checkpoint's note text (tlog-checkpoint), with the ``extensions`` lines given."""
    return f"{origin}\n{size}\n{base64.b64encode(root).decode()}\n{extensions}"


def signature_line(name: str, key: bytes, signature: bytes) -> str:
    return f"{DASH}{name} {base64.b64encode(key + signature).decode()}\n"


def read_note(note: str) -> tuple[str, list[Signature]]:
    """The text of a signed note (its final ``\\n`` included) and its signatures, as
    signed-note says a note is written: valid UTF-8 without control characters but
    ``\\n``, the text separated from the signature lines by the last blank line."""
    if _CONTROL.search(note):
        raise NoteError("a control character other than a newline")
    body, blank, lines = note.rpartition("\n\n")
    if not blank:
        raise NoteError("no blank line before signature lines ending with a newline")
    return body + "\n", signature_lines(lines)


def signature_lines(lines: str) -> list[Signature]:
    """The signatures of a note's signature lines (or of a witness's answer:
    c2sp.org/tlog-witness, "a sequence of one or more note signature lines"), each
    ending with a newline."""
    if not lines.endswith("\n"):
        raise NoteError("no signature lines ending with a newline")
    found = []
    for line in lines[:-1].split("\n"):
        name, _, coded = line.removeprefix(DASH).rpartition(" ")
        try:
            raw = base64.b64decode(coded, validate=True)
        except binascii.Error:
            raw = b""
        if not line.startswith(DASH) or not NAME.fullmatch(name) or len(raw) < 5:
            raise NoteError(f"not a signature line: {line[:60]!r}")
        found.append(Signature(name, raw[:4], raw[4:]))
    if len(found) > MAX_SIGNATURES:
        raise NoteError(f"{len(found)} signatures, more than {MAX_SIGNATURES}")
    return found


def read_checkpoint(text: str) -> Checkpoint:
    """The origin, size, root and extension lines of a checkpoint's note text
    (tlog-checkpoint, "Note text": extension lines, if any, non-empty)."""
    lines = text.split("\n")
    if len(lines) < 4 or lines[-1] or not lines[0] or not _SIZE.fullmatch(lines[1]):
        raise NoteError("not a checkpoint: its origin, its size, its root, one a line")
    if not all(lines[3:-1]):
        raise NoteError("not a checkpoint: an empty extension line")
    try:
        root = base64.b64decode(lines[2], validate=True)
    except binascii.Error:
        root = b""
    if len(root) != 32 or base64.b64encode(root).decode() != lines[2]:
        raise NoteError("not a checkpoint: its root is not a SHA-256 hash in base64")
    return Checkpoint(lines[0], int(lines[1]), root, "".join(f"{x}\n" for x in lines[3:-1]))


def cosigned_message(timestamp: int, text: str) -> bytes:
    """tlog-cosignature, "Ed25519 signed message": what a witness signs at ``timestamp``
    (POSIX seconds) over the checkpoint ``text`` (its extension lines too)."""
    return f"cosignature/v1\ntime {timestamp}\n{text}".encode()


def subtree_message(name: str, timestamp: int, checkpoint: Checkpoint) -> bytes:
    """tlog-cosignature, "ML-DSA-44 signed message": the ``cosigned_message`` of the
    cosigner ``name`` at ``timestamp`` over the whole tree of ``checkpoint`` (start 0, end
    its size; its extension lines are not in it): the label, the name and the origin
    each after its length in a byte (1 to 255 bytes), the numbers big-endian."""
    cosigner, origin = name.encode(), checkpoint.origin.encode()
    if not (0 < len(cosigner) < 256 and 0 < len(origin) < 256):
        raise NoteError("a cosigner's name or a log's origin longer than 255 bytes")
    return (SUBTREE_LABEL + bytes([len(cosigner)]) + cosigner + struct.pack(">Q", timestamp)
            + bytes([len(origin)]) + origin + struct.pack(">QQ", 0, checkpoint.size)
            + checkpoint.root)  # fmt: skip


def read_request(request: str) -> tuple[int, list[bytes], str]:
    """An add-checkpoint request body (tlog-witness): its old size, its consistency
    proof and its checkpoint (the note)."""
    head, blank, note = request.partition("\n\n")
    lines = head.split("\n")
    old = lines[0].removeprefix("old ")
    if not blank or lines[0][:4] != "old " or not _SIZE.fullmatch(old):
        raise NoteError("not an add-checkpoint request: 'old SIZE', proof lines, a blank line")
    if len(lines) - 1 > MAX_PROOF:
        raise NoteError(f"{len(lines) - 1} consistency proof lines, more than {MAX_PROOF}")
    try:
        proof = [base64.b64decode(line, validate=True) for line in lines[1:]]
    except binascii.Error:
        proof = [b""]
    if any(len(node) != 32 for node in proof):
        raise NoteError("a consistency proof line that is not a SHA-256 hash in base64")
    return int(old), proof, note


def request_text(old: int, proof: list[bytes], note: str) -> str:
    """The add-checkpoint request body of ``note`` from the witness's size ``old``."""
    lines = [f"old {old}", *(base64.b64encode(node).decode() for node in proof)]
    return "\n".join(lines) + "\n\n" + note
