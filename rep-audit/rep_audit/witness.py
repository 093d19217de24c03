"""A trail's history held by others than its operator (docs/keys.md, "Witnesses"): a witness
cosigns each tree head's checkpoint only if it extends the last one it cosigned of that
log (c2sp.org/tlog-witness's add-checkpoint, over files; the cosignatures of
c2sp.org/tlog-cosignature v1.1.0, Ed25519's and ML-DSA-44's, with their timestamp), the
operator gathers the cosignatures of the witnesses it names, each checked with that
witness's verifier key (``audit cosign``), and a site's owner requires them of a bundle
(``check-bundle --witness`` or ``--policy``: :mod:`rep_audit.policy` says which count).
An operator who rewrites a trail and signs its heads again cannot have them cosigned:
each witness holds the root it cosigned.

Pure: the witness reads a request and its state folder, writes its new state to disk
before it answers (tlog-witness: "MUST persist the new checkpoint before responding"),
and prints its cosignature; the gatherer runs each witness's command (a local
``rep-audit witness``, or ``ssh`` or ``curl`` to one elsewhere) with the request on its
standard input.
"""

from __future__ import annotations

import argparse
import hashlib
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

from rep_audit.bundle import _first_pass, proved_head
from rep_audit.cliargs import EXIT_CLEAN, EXIT_DIFFERENCES
from rep_audit.policy import Policy
from rep_engine import keys
from rep_engine.records import iso_time, text, whole
from rep_engine.trail import notes
from rep_engine.trail.file import LOCK_PAUSE, TrailFileError, lock, replacing, same_file
from rep_engine.trail.merkle import EMPTY_ROOT, verify_consistency
from rep_engine.trail.read import Trail, TrailError
from rep_engine.trail.terminal import printable

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.mldsa import MLDSA44PrivateKey

    Cosigner = Ed25519PrivateKey | MLDSA44PrivateKey

#: How long a witness's command may take to answer (seconds).
WITNESS_TIMEOUT: Final = 60
#: How long a witness waits for the lock of its state (another request being answered).
LOCK_WAIT: Final = 30
#: A cosignature dated more than this after the clock of its checker is refused
#: (tlog-cosignature: "verifiers MAY reject cosignatures with timestamps in the future").
FUTURE: Final = 3600
#: What a cosignature of ML-DSA-44 is where it cannot be verified: said, never counted.
NOT_CHECKED: Final = (
    "its ML-DSA-44 cosignature was not checked: the installed cryptography cannot verify "
    "ML-DSA-44 (cryptography 47 or later, with its own OpenSSL, can)"
)


class Refused(Exception):
    """A checkpoint the witness does not cosign, and why (tlog-witness's status in
    words); ``size``: the size of the log it holds, when the request's old size is not it
    (409 Conflict: the client sends it again from that size)."""

    def __init__(self, why: str, size: int | None = None) -> None:
        super().__init__(why)
        self.size = size


def cosigner_key(private: Cosigner, name: str) -> notes.VerifierKey:
    """The verifier key of the witness ``name`` whose private key is ``private``: of type
    0x06 for an ML-DSA-44 key, 0x04 for an Ed25519 one (tlog-cosignature)."""
    public = private.public_key().public_bytes_raw()
    kind = notes.MLDSA44 if len(public) == keys.MLDSA44_KEY_BYTES else notes.COSIGNATURE
    return notes.VerifierKey(name, notes.key_id(name, kind, public), kind, public)


def cosignature(private: Cosigner, name: str, checkpoint: str, now: int) -> str:
    """The witness ``name``'s cosignature line of the checkpoint's text at ``now``
    (tlog-cosignature: its key ID, then the timestamp, then the signature of the Ed25519
    signed message, or of the ML-DSA-44 one)."""
    key = cosigner_key(private, name)
    if key.kind == notes.MLDSA44:
        message = notes.subtree_message(name, now, notes.read_checkpoint(checkpoint))
    else:
        message = notes.cosigned_message(now, checkpoint)
    signed = private.sign(message)
    return notes.signature_line(name, key.key_id, now.to_bytes(8, "big") + signed)


def verifies(key: notes.VerifierKey, signature: bytes, checkpoint: str) -> bool | None:
    """Whether ``signature`` (a signature line's bytes after its key ID) is ``key``'s over
    the checkpoint's text: a log's Ed25519 signature (type 0x01), a cosignature (0x04,
    0x06: its timestamp first, less than 2^63), or a log's ML-DSA-44 one (0x06, its
    timestamp 0); ``None``: an ML-DSA-44 one the installed cryptography cannot check."""
    if key.kind == notes.ED25519:
        public = keys.public_key(key.public, key.name)
        return keys.verify(public, signature, checkpoint.encode())
    stamp, signed = int.from_bytes(signature[:8], "big"), signature[8:]
    if len(signature) < 8 or stamp >= 1 << 63:
        return False
    if key.kind == notes.COSIGNATURE:
        public = keys.public_key(key.public, key.name)
        return keys.verify(public, signed, notes.cosigned_message(stamp, checkpoint))
    message = notes.subtree_message(key.name, stamp, notes.read_checkpoint(checkpoint))
    return keys.verify_mldsa44(key.public, signed, message)


def add_checkpoint(
    request: str, state: Path, logs: list[notes.VerifierKey], private: Cosigner, name: str,
    now: int,
) -> str:  # fmt: skip
    """tlog-witness's add-checkpoint: the cosignature line of the request's checkpoint,
    which must be signed by a key of ``logs`` named after its origin (any of them: a log
    rotating its key) and extend the last checkpoint of that log kept in ``state``, which
    it replaces, on disk, before the line is returned. Raises :class:`Refused`, or
    :class:`~rep_engine.trail.notes.NoteError` for a request that is none."""
    old, proof, note = notes.read_request(request)
    checkpoint, signatures = notes.read_note(note)
    origin, size, root, _ = notes.read_checkpoint(checkpoint)
    trusted = [log for log in logs if log.name == origin]
    if not trusted:
        raise Refused(f"unknown log {origin!r}: this witness cosigns only the logs of its --log")
    checked = [verifies(log, s.signature, checkpoint) for s in signatures for log in trusted
               if (s.name, s.key_id) == (log.name, log.key_id)]  # fmt: skip
    if not checked:
        raise Refused(f"the checkpoint of {origin} is not signed by its log's key")
    if None in checked:
        raise Refused(f"the checkpoint of {origin} is signed with ML-DSA-44, which cannot "
                      "be checked here: the installed cryptography cannot verify it")  # fmt: skip
    if not all(checked):
        raise Refused(f"the checkpoint of {origin} holds a signature under its log's key "
                      "that does not verify (signed-note: the note is rejected)")  # fmt: skip
    if old > size:
        raise Refused(f"old size {old} is larger than the checkpoint's {size}")
    answer = cosignature(private, name, checkpoint, now)  # before the state: nothing to undo
    kept = state / f"{hashlib.sha256(origin.encode()).hexdigest()}.checkpoint"
    with (state / ".lock").open("ab") as held:
        try:  # the check and the new state, one request at a time
            lock(held, state / ".lock", int(LOCK_WAIT / LOCK_PAUSE))
        except TrailFileError:
            raise TrailError(f"--state {state}: another witness process held its lock "
                             f"({state / '.lock'}) for {LOCK_WAIT} s: nothing was cosigned; "
                             "ask again") from None  # fmt: skip
        held_size, held_root = _kept(kept)[1:3]
        if old != held_size:
            raise Refused(f"this witness holds {origin} at size {held_size}, not {old}: "
                          f"send the request again from old {held_size}", held_size)  # fmt: skip
        _check_extension(old, size, held_root, root, proof)
        with replacing(kept, synced=True) as file:
            file.write(checkpoint.encode())
    return answer


def _kept(path: Path) -> notes.Checkpoint:
    """The checkpoint a witness holds at ``path`` (size 0, the empty root: none yet)."""
    try:
        return notes.read_checkpoint(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return notes.Checkpoint("", 0, EMPTY_ROOT)
    except (OSError, ValueError) as error:
        raise TrailError(f"{path}: not a witness's state ({error})") from None


def _check_extension(old: int, size: int, held: bytes, root: bytes, proof: list[bytes]) -> None:
    """tlog-witness's checks of a checkpoint against the one held (422 each)."""
    rewritten = "the log's history was rewritten"
    if size == 0 and root != EMPTY_ROOT:
        raise Refused("a checkpoint of size 0 whose root is not the empty tree's")
    if old == 0 and proof:
        raise Refused("a consistency proof from size 0: the empty tree needs none")
    if old == size and (root != held or proof):
        raise Refused(f"the checkpoint of size {size} has another root than the one this "
                      f"witness cosigned: {rewritten}")  # fmt: skip
    if 0 < old < size and not verify_consistency(old, size, held, root, proof):
        raise Refused(f"the checkpoint of size {size} does not extend the one of size "
                      f"{old} this witness cosigned (its consistency proof fails): "
                      f"{rewritten}")  # fmt: skip


def gather(
    path: str, witnesses: list[tuple[notes.VerifierKey, str]], at: int | None
) -> tuple[str, list[str]]:
    """The checkpoint of the trail's last tree head (``at``: the head at that line) with
    the cosignatures of the witnesses, each given by its verifier key and the command that
    asks it (given add-checkpoint's request on its standard input, from the head before,
    which a witness cosigned last when it is asked after each run; sent again from the
    size a witness holds, when it says another), each answer kept only as far as it holds
    cosignatures of this checkpoint by that witness's key; and what each refusal said."""
    trail = Trail(path)
    picked = _first_pass(trail, None)
    number, head, tree = proved_head(trail, picked, at)
    earlier = [whole(record.get("size")) or 0 for _, record in picked.heads[:-1]]
    note = text(head.get("checkpoint"))
    if not note:
        raise TrailError(f"{path}: the tree head at line {number} is unsigned: a witness "
                         "cosigns a signed checkpoint (REP_AUDIT_SIGNING_KEY)")  # fmt: skip
    checkpoint = notes.read_note(note)[0]
    cosigned, refusals = note, []
    for key, command in witnesses:
        old, held = (earlier or [0])[-1], None  # the last head: a witness cosigned it
        for _ in range(2):
            proof = tree.consistency_proof(old) if 0 < old < tree.size else []
            answer, said = _run(command, notes.request_text(old, proof, note))
            held = int(answer) if answer.strip().isdigit() else None
            if held is None or held == old or held > tree.size:
                break
            old = held
        if held is not None and held > tree.size:
            said = (f"it cosigned {held} line(s) of this log, more than this head covers "
                    f"({tree.size}): lines were cut, or the log's history was "
                    "rewritten")  # fmt: skip
        lines, why = ("", said) if said else _cosigned_lines(answer, key, checkpoint)
        if why:
            refusals.append(f"{key.name} ({command}): {why}")
        cosigned += lines
    return cosigned, refusals


def _cosigned_lines(answer: str, key: notes.VerifierKey, checkpoint: str) -> tuple[str, str]:
    """The lines of a witness's answer that are ``key``'s cosignatures of the checkpoint's
    text, each verified (tlog-witness: the client verifies them with the witness keys it
    trusts, and ignores those of other keys), or why none is kept: an answer that is not
    signature lines, a cosignature that does not verify, dated 0 or in the future."""
    try:
        signatures = notes.signature_lines(answer)
    except notes.NoteError as error:
        return "", f"its answer is not cosignature lines ({error})"
    kept = []
    for found in signatures:
        if (found.name, found.key_id) != (key.name, key.key_id):
            continue  # another key's: ignored
        stamp, good = int.from_bytes(found.signature[:8], "big"), verifies(key, found.signature,
                                                                           checkpoint)  # fmt: skip
        mine = f"its cosignature under its key ({key.name}+{key.key_id.hex()})"
        if good is None:
            return "", NOT_CHECKED
        if not good:
            return "", f"{mine} does not verify"
        if not 0 < stamp <= time.time() + FUTURE:  # tlog-witness: "MUST NOT be zero"
            return "", f"{mine} is dated {stamp}: 0, or in the future"
        kept.append(notes.signature_line(found.name, found.key_id, found.signature))
    if not kept:
        return "", f"no cosignature by its key ({key.name}+{key.key_id.hex()}) in its answer"
    return "".join(kept), ""


def _run(command: str, request: str) -> tuple[str, str]:
    """What a witness's command printed given ``request``, and why it refused (``""``:
    it exited 0)."""
    try:
        done = subprocess.run(shlex.split(command), input=request, capture_output=True,
                              text=True, timeout=WITNESS_TIMEOUT, check=False)  # fmt: skip
    except (OSError, ValueError, subprocess.SubprocessError) as error:
        return "", f"could not be run ({error})"
    refused = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    return done.stdout, refused if done.returncode else ""


def witness_keys(given: list[str]) -> list[notes.VerifierKey]:
    """The witnesses of ``--witness``: each a verifier key of type 0x04 (Ed25519) or 0x06
    (ML-DSA-44), or the file holding one."""
    found = []
    for one in given:
        try:
            saying = Path(one).read_text(encoding="utf-8") if Path(one).is_file() else one
            key = notes.read_verifier_key(saying)
        except (OSError, ValueError) as error:
            raise TrailError(f"--witness {one}: {error}") from None
        if key.kind not in (notes.COSIGNATURE, notes.MLDSA44):
            raise TrailError(f"--witness {one}: a log's verifier key (type {key.kind}), not "
                             "a witness's (type 4 or 6: audit vkey --witness)")  # fmt: skip
        if keys.degenerate(key.public):
            raise TrailError(f"--witness {one}: a key anyone can sign for (of small order, "
                             "or an ML-DSA-44 key whose t1 is zero): not a key")  # fmt: skip
        found.append(key)
    return found


def witnessed(
    bundle: dict[str, Any], policy: Policy, operators: list[bytes], latest: str
) -> tuple[list[str], set[str], list[str]]:
    """What each witness's cosignature in ``bundle`` says (a line each: counted, or why
    not), the names of those that count, and the problems of the cosigned notes (one
    whose cosignature by a witness of ``policy`` does not verify is rejected whole:
    signed-note). A witness counts that cosigned, after ``latest`` (the time of the
    bundle's last record), the bundle's checkpoint or an earlier one of the same log that
    its consistency proofs lead to and that holds every line of the bundle; never one
    whose key is the operator's: one of ``operators`` (raw), or one that signed the
    checkpoint as its log."""
    head = bundle["head"]
    try:
        checkpoint, signed = notes.read_note(text(head.get("checkpoint")))
        origin = notes.read_checkpoint(checkpoint).origin
    except notes.NoteError:
        return ["the tree head has no checkpoint: no witness can have cosigned it"], set(), []
    covered = max((line["line"] for line in bundle["lines"]), default=0)
    own = notes.checkpoint_text(origin, head["size"], bytes.fromhex(head["root"]))
    sizes = {own: head["size"]}  # the head's own: never a checkpoint pasted beside it
    for earlier in bundle["consistency"]:  # trees the head's is proved to extend
        size, root = earlier["size"], bytes.fromhex(earlier["root"])
        if size >= covered and verify_consistency(
            size, head["size"], root, bytes.fromhex(head["root"]), earlier["proof"]
        ):
            sizes[notes.checkpoint_text(origin, size, root)] = size
    found, unchecked, problems = _cosignatures(bundle["cosigned"], policy, sizes)
    told, counted = [], set()
    for name, witness in policy.witnesses.items():
        stamps = sorted(found.get(name, ()))
        said, (stamp, size) = f"witness {witness.name}", (stamps or [(0, 0)])[-1]
        as_log = notes.key_id(origin, notes.ED25519, witness.public)
        if witness.public in operators or (witness.kind == notes.COSIGNATURE and any(
            (s.name, s.key_id) == (origin, as_log) and keys.verify(
                keys.public_key(witness.public, witness.name), s.signature, checkpoint.encode()
            ) for s in signed
        )):  # fmt: skip
            said += ": not counted: its key is the operator's own key: it witnesses nothing"
        elif not stamps and name in unchecked:
            said += f": not counted: {NOT_CHECKED}"
        elif not stamps:
            said += (f": not counted: no cosignature of a checkpoint of {origin} that this "
                     f"bundle's proofs lead to and that holds its {covered} line(s)")  # fmt: skip
        elif stamp > time.time() + FUTURE:
            said += f": not counted: its cosignature is dated {stamp}, in the future"
        elif iso_time(stamp)[:19] < latest[:19]:  # whole seconds, as cosignatures are
            said += (f": not counted: cosigned at {iso_time(stamp)}, before the bundle's "
                     f"last record ({latest}): an old cosignature")  # fmt: skip
        else:
            counted.add(name)
            said += f": cosigned the checkpoint of {size} line(s) of {origin} at {iso_time(stamp)}"
            if size < head["size"]:
                said += f" (the head's {head['size']} lines: those after line {size} unwitnessed)"
        told.append(said)
    return told, counted, problems


def _cosignatures(
    cosigned: list[str], policy: Policy, sizes: dict[str, int]
) -> tuple[dict[str, list[tuple[int, int]]], set[str], list[str]]:
    """The verified cosignatures of each witness of ``policy`` (its name: the time and the
    size of each checkpoint of ``sizes`` it cosigned) in the notes ``cosigned``, those of
    ML-DSA-44 that could not be checked, and the notes rejected (a cosignature of a known
    key that does not verify: signed-note, "clients SHOULD reject the whole note")."""
    found: dict[str, list[tuple[int, int]]] = {}
    unchecked: set[str] = set()
    problems = []
    for number, note in enumerate(cosigned, 1):
        body, signatures = notes.read_note(note)
        got, bad = [], []
        for signature in signatures:
            for name, key in policy.witnesses.items():
                if (signature.name, signature.key_id) != (key.name, key.key_id):
                    continue
                good = verifies(key, signature.signature, body)
                if good is None:
                    unchecked.add(name)
                elif not good:
                    bad.append(key.name)
                elif body in sizes:
                    stamp = int.from_bytes(signature.signature[:8], "big")
                    got.append((name, stamp, sizes[body]))
        if bad:
            problems.append(f"cosigned checkpoint {number} of the bundle: the cosignature of "
                            f"witness {bad[0]} does not verify: the note is rejected "
                            "(signed-note), none of its cosignatures counts")  # fmt: skip
            continue
        for name, stamp, size in got:
            found.setdefault(name, []).append((stamp, size))
    return found, unchecked, problems


def witnessing(options: argparse.Namespace, out: TextIO) -> int:
    """``audit witness``, ``audit cosign`` or ``audit vkey``: the exit status (0 done; 1 the
    checkpoint, or a witness, refused). Raises :class:`TrailError` (or a note's or a key's
    error) for input it cannot use, before anything is written."""
    if options.command != "cosign" and not notes.is_key_name(options.name):
        raise TrailError(f"--name {printable(repr(options.name))}: no key name (c2sp.org/"
                         "signed-note: non-empty, valid UTF-8, no spaces, no '+')")  # fmt: skip
    if options.command == "vkey":
        return _vkey(options, out)
    if options.command == "cosign":
        if Path(options.out).exists() and same_file(Path(options.out), Path(options.trail)):
            raise TrailError(f"--out {options.out} is the trail: name another file")
        asked = [(key, command) for (given, command) in options.witness
                 for key in witness_keys([given])]  # fmt: skip
        cosigned, refusals = gather(options.trail, asked, options.at)
        with replacing(Path(options.out)) as file:
            file.write(cosigned.encode())
        for refusal in refusals:
            print(printable(f"refused: {refusal}"), file=sys.stderr)
        got = len(asked) - len(refusals)
        print(f"{options.out}: {got} cosignature(s) of {len(asked)} witness(es)", file=out)
        return EXIT_DIFFERENCES if refusals else EXIT_CLEAN
    private = keys.read_witness_key(options.key)
    logs = [notes.read_verifier_key(log) for log in options.log]
    for log in logs:
        if log.kind not in (notes.ED25519, notes.MLDSA44) or keys.degenerate(log.public):
            raise TrailError(f"--log {log.name}: a witness's verifier key (type 4), or a key "
                             "anyone can sign for: not a log's (audit vkey, type 1)")  # fmt: skip
    state = Path(options.state)
    if not state.is_dir():
        raise TrailError(f"--state {state}: not a folder")
    try:
        given = options.trail
        request = sys.stdin.read() if given == "-" else Path(given).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TrailError(f"{options.trail}: cannot be read ({error})") from None
    try:
        answer = add_checkpoint(request, state, logs, private, options.name, int(time.time()))
    except OSError as error:  # its state not written (a full disk): nothing answered
        raise TrailError(f"--state {state}: cannot be written ({error.strerror or error}): "
                         "nothing was cosigned") from None  # fmt: skip
    except Refused as refused:
        if refused.size is not None:  # tlog-witness's 409 body: the size it holds
            print(refused.size, file=out)
        print(printable(f"rep-audit witness: refused: {refused}"), file=sys.stderr)
        return EXIT_DIFFERENCES
    print(answer, end="", file=out)
    return EXIT_CLEAN


def _vkey(options: argparse.Namespace, out: TextIO) -> int:
    """``audit vkey KEY --name NAME [--witness]``: a log's verifier key (type 0x01) of an
    Ed25519 key, or a witness's (0x04 of an Ed25519 key, 0x06 of an ML-DSA-44 key)."""
    if options.witness:
        public = keys.read_witness_public(options.trail)
        kind = notes.MLDSA44 if len(public) == keys.MLDSA44_KEY_BYTES else notes.COSIGNATURE
        print(notes.verifier_key(options.name, kind, public), file=out)
        return EXIT_CLEAN
    public = keys.raw_public(keys.read_public_key(options.trail))
    print(notes.verifier_key(options.name, notes.ED25519, public), file=out)
    return EXIT_CLEAN
